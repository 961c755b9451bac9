/*
 * runner.h — one benchmark repetition in a process of its own (SPEC §5,
 * isolation): fork, the child runs run_training() and sends back its
 * measurements as one JSON record over a pipe, the parent enforces the time
 * limit and reads the child's peak resident set size from wait4().
 *
 * Also the "input probe": a child that only reads and counts the corpus
 * slice, to measure how much of a run's memory belongs to the shared input
 * (the word table) rather than to the trainer.
 */
#ifndef BPE_RUNNER_H
#define BPE_RUNNER_H

#include "input/wordstats.h"
#include "bench/results.h"

#include <stdio.h>

typedef struct {
    const run_config *cfg;   /* what to run (files, slice, trainer, V, profile) */
    double time_limit_s;     /* wall-clock limit for the whole child; ≤ 0: none */
    FILE *merges_out;        /* an unnamed file (tmpfile()) the child writes its merge list
                                to, or NULL; owned by the caller */
} runner_job;

/*
 * Runs one repetition. On return rec holds either the child's record (one
 * repetition in rec->reps, status ok), or status timeout (the child was
 * killed at the limit) or error (with the reason). rec->peak_rss_bytes is the
 * child's ru_maxrss. rec must be zeroed or freed before; free it with
 * record_free. False only when the parent itself fails (fork, pipe, OOM),
 * with a reason in err.
 *
 * The merge list has one line per merge, "LEFT RIGHT COUNT", tokens in the
 * GPT-2 byte-to-unicode alphabet of merges.txt (SPEC §3). It goes to an
 * unnamed file, so that an interrupted benchmark leaves no file behind: the
 * kernel removes it with the last process that holds it open.
 *
 * The child never outlives the parent: it is killed when the parent dies,
 * whatever the cause (Linux's parent-death signal), so an interrupted
 * benchmark leaves no run behind either.
 */
bool runner_run(const runner_job *job, bench_record *rec, char *err, size_t err_len);

/* Writes r's merge list in the format above to `list` (from its current
 * position); without counts (an external trainer's merges.txt has none) a
 * line is "LEFT RIGHT". O(m · token length). */
bool runner_write_merge_list(FILE *list, const bpe_result *r, bool with_counts, char *err,
                             size_t err_len);

/*
 * Reads and counts cfg's files (cfg->trainer and vocab are ignored) in a
 * child with run_count_input, as every run starts, and fills the input
 * fields of *input (record_add_input, results.h), among them the resident
 * size with only the input counted. False with a reason on failure or
 * timeout.
 */
bool runner_probe_input(const run_config *cfg, double time_limit_s, bench_record *input,
                        char *err, size_t err_len);

/* What a child of runner_in_child left behind. */
typedef struct {
    char *text;      /* what it wrote to the pipe (an untrusted child: the last
                        RUNNER_TAIL_BYTES of it); malloc'd, NUL-terminated */
    size_t len;      /* bytes in text */
    bool timed_out;  /* the deadline passed and the child was stopped */
    int wait_status; /* from wait4 */
    uint64_t maxrss; /* ru_maxrss in bytes */
} runner_child_report;

/* How much of an untrusted child's output is kept: its end, where the last
 * line a failure reports is (external.h). */
enum { RUNNER_TAIL_BYTES = 64 * 1024 };

/*
 * The process every run gets: forks; the child (which dies with us) runs
 * body(arg, write_fd) and never returns. The parent collects what it writes
 * to the pipe until end of file or the deadline (≤ 0: none), stops it at the
 * deadline, and reaps it with wait4 for its peak RSS.
 *
 * Our own code (untrusted false) is killed at the deadline, and all it
 * writes is kept. An untrusted child — a reaper around a command of the
 * user's (base/reaper.h, external.h) — keeps only the last
 * RUNNER_TAIL_BYTES of what it writes (a command may write without end),
 * leads a process group of its own, and is asked to stop (SIGTERM) at the
 * deadline, or by signals.h when a signal stops us: it then kills the
 * command and every process the command started, wherever they went, and
 * ends. False when fork/pipe/OOM fail. Free rep->text.
 */
bool runner_in_child(void (*body)(const void *arg, int fd), const void *arg, double time_limit_s,
                     bool untrusted, runner_child_report *rep, char *err, size_t err_len);

/* What may end a child early besides a deadline: the parent's own reason
 * to stop (the Python binding's Ctrl-C, harness/python/). */
typedef struct {
    bool (*requested)(void *ctx); /* asked every RUNNER_STOP_POLL_MS while the parent waits */
    void *ctx;                    /* passed back unchanged */
} runner_stop;

enum { RUNNER_STOP_POLL_MS = 50 };

/*
 * runner_in_child for our own code (untrusted false) without a deadline,
 * for a parent that must be able to stop its child: while it waits, stop->requested is asked every
 * RUNNER_STOP_POLL_MS; once it says yes, the child gets SIGTERM: its
 * cleanup handler (signals.h, installed in every child) removes what it
 * registered and it dies of the signal. The parent reaps it and sets
 * *stopped. Prompt whatever the child is doing: nothing in the library
 * needs to look at a flag. SIGTERM, not SIGINT: the child handles it even
 * when its parent was started with it ignored (the child resets it), and a
 * terminal never sends it, so a Ctrl-C the parent ignores stays ignored.
 */
bool runner_in_child_stoppable(void (*body)(const void *arg, int fd), const void *arg,
                               const runner_stop *stop, bool *stopped, runner_child_report *rep,
                               char *err, size_t err_len);

#endif
