/*
 * external.h — trainers that are not compiled into bpebench: a command the
 * user gives (`bench --external NAME=COMMAND`, `external NAME = COMMAND` in
 * a config file, `check --external COMMAND`), run with `sh -c` in a process
 * of its own, timed and verified like a built-in trainer.
 *
 * This is the one place where bpebench runs something a user hands it as
 * code, on purpose (docs/security.md): the command comes only from the
 * user's own command line or config file, never from a results file; NAME
 * is a safe name (untrusted.h); and nothing is ever spliced into the
 * command: every input goes in an environment variable:
 *   BPE_INPUT           the corpus files, one path per line (slices already cut)
 *   BPE_COUNTS          a word-count file of that input (input/wordcount.h)
 *   BPE_VOCAB_SIZE      V
 *   BPE_SPECIAL_TOKENS  the special tokens, a JSON array of strings
 *   BPE_PATTERN         the pretokenization pattern's PCRE2 source
 *   BPE_OUT             a fresh, empty directory where it must write merges.txt
 *                       (our format, SPEC §3); vocab.json is optional
 * It runs in the current directory, with standard input from /dev/null,
 * standard output to /dev/null and standard error captured (the last line
 * of it is what a failure reports; only the end of it is kept, runner.h),
 * under a reaper (base/reaper.h) that kills whatever it leaves running
 * when it ends — a daemon that left the process group with setsid()
 * included.
 */
#ifndef BPE_EXTERNAL_H
#define BPE_EXTERNAL_H

#include "bench/results.h"
#include "input/pretok.h"
#include "base/untrusted.h"

#include <stdio.h>

/* The longest NAME: a safe name that fits a record's trainer field (results.h). */
enum { EXTERNAL_NAME_MAX = 31 };

/* A trainer given as a command. */
typedef struct {
    char name[EXTERNAL_NAME_MAX + 1];  /* a safe name, shown and recorded */
    char *command;                     /* run as sh -c COMMAND; owned */
} external_trainer;

/* Parses NAME=COMMAND (spaces around NAME and COMMAND dropped): NAME must
 * be a safe name of at most EXTERNAL_NAME_MAX bytes that no built-in
 * trainer has, COMMAND not empty. False
 * with a one-line reason. */
bool external_parse(const char *spec, external_trainer *t, char *err, size_t err_len);
void external_free(external_trainer *t);

/* One run of an external trainer. */
typedef struct {
    char *const *files;          /* the corpus files (BPE_INPUT); no path may hold a newline */
    size_t n_files;              /* how many */
    const char *counts_path;     /* BPE_COUNTS */
    uint64_t vocab_size;         /* BPE_VOCAB_SIZE */
    const pretok_config *pretok; /* BPE_SPECIAL_TOKENS, BPE_PATTERN */
    const char *out_dir;         /* BPE_OUT: an existing, empty directory */
    double time_limit_s;         /* wall clock; ≤ 0: none */
} external_job;

/* How a run ended. */
typedef enum {
    EXTERNAL_OK,      /* exit 0 and a merges.txt that reads back */
    EXTERNAL_ERROR,   /* nonzero exit, a signal, no or a malformed merges.txt */
    EXTERNAL_TIMEOUT, /* killed at the time limit */
} external_status;

typedef struct {
    external_status status;  /* see above */
    double seconds;          /* wall clock, start to exit */
    uint64_t peak_rss_bytes; /* wait4's ru_maxrss: the largest of the shell and what it waited for */
    char message[512];       /* not ok: why (stderr's last line, or the merges.txt error) */
    bpe_result merges;       /* ok: the merge list read back (counts 0: merges.txt has none) */
} external_outcome;

/*
 * Runs the job: fork; the child, in a process group of its own that stops
 * the command when we die, sets the BPE_* variables and reaps
 * /bin/sh -c COMMAND (base/reaper.h); the parent waits (polling, for the
 * time limit: the reaper is asked to stop then, and kills everything the
 * command started) and reads BPE_OUT/merges.txt, no more of it than
 * V − 256 − S merges may take (external_read_merges). False only when the harness itself
 * fails (fork, out of memory), with err; every failure of the command is
 * an outcome. Free out->merges with bpe_result_free.
 */
bool external_run(const external_trainer *t, const external_job *job, external_outcome *out,
                  char *err, size_t err_len);

/* ------------------------------------------------------------- in the benchmark */

/* What external trainers get for one corpus slice of `bench`: BPE_INPUT and
 * BPE_COUNTS, made once per slice in a directory of the caller's. */
typedef struct {
    char *const *files;     /* BPE_INPUT: &cut for a prefix slice, else the corpus's own files */
    size_t n_files;         /* entries in files */
    char *cut;              /* DIR/slice.txt, the slice cut word-safe (slice_files), or NULL
                               for a whole corpus; owned */
    char *counts;           /* DIR/words.counts, the slice's word-count file; owned */
    char *out_dir;          /* DIR/out, BPE_OUT: made empty before every run; owned */
} external_input;

/*
 * Makes the slice's input in `dir` (an existing, private directory): the
 * cut prefix (max_bytes > 0; the same text every built-in run reads) and
 * the word-count file, in a child process (so that the word table never
 * grows the benchmark's own memory, which every later run would inherit).
 * False with a one-line reason. O(n).
 */
bool external_input_make(char *const *files, size_t n_files, uint64_t max_bytes,
                         const pretok_config *pretok, const char *dir, external_input *in,
                         char *err, size_t err_len);
void external_input_free(external_input *in);

/*
 * One repetition of an external trainer on a grid cell, as a record with
 * one repetition (runner_run's shape): status, the wall time as its total
 * phase (the other phases are unknown and 0), the peak RSS, the merge
 * count and digest, `external` set; on failure the reason (stderr's last
 * line). With merges_out, the merge list goes there ("LEFT RIGHT" lines,
 * runner.h) for the first-difference report. rec must be zeroed or freed
 * before. False only when the harness itself fails.
 */
bool external_bench_run(const external_trainer *t, const external_input *in,
                        const pretok_config *pretok, uint64_t vocab_size, uint64_t max_merges,
                        double time_limit_s, FILE *merges_out, bench_record *rec, char *err,
                        size_t err_len);

/* Reads a merges.txt (an optional "#version" first line, then "LEFT RIGHT"
 * per line in the GPT-2 byte alphabet, each part a token already: a byte or
 * an earlier merge) into a bpe_result with counts 0. False with
 * "PATH:LINE: reason". A command may write without end, so no more is read
 * than a right file holds: max_merges merge lines (and one more, to say
 * that there are too many), none longer than a merge of the tokens before
 * it (4 · the longest token + 1 bytes). O(bytes read + m · log m). */
bool external_read_merges(const char *path, uint64_t max_merges, bpe_result *out, char *err,
                          size_t err_len);

#endif
