/*
 * corpus.h — reading the inputs of SPEC §2: files, or directories (every
 * regular file in it, in byte order of name), streamed in chunks into the
 * pretokenizer; optionally only a word-safe prefix of N bytes.
 */
#ifndef BPE_CORPUS_H
#define BPE_CORPUS_H

#include "input/pretok.h"

/* The input that names standard input (read once, as a stream). */
#define CORPUS_STDIN "-"

/*
 * Expands inputs into the list of files to read, by one rule: a regular file
 * is read; a directory means its regular files, sorted by name (its
 * sub-directories, FIFOs, sockets and devices are skipped); a FIFO, socket
 * or device named directly is refused (a FIFO may block for ever, a device
 * never end). With allow_stdin, CORPUS_STDIN (given once) stays in the list
 * and is read from standard input; without, it is refused (a command that
 * reads its inputs twice cannot). *files is malloc'd, each string too; free
 * with corpus_free_files. False with a one-line reason (naming the path).
 */
bool corpus_list_inputs(const char *const *inputs, size_t n_inputs, bool allow_stdin,
                        char ***files, size_t *n_files, char *err, size_t err_len);
/* corpus_list_inputs without standard input. */
bool corpus_list_files(const char *const *inputs, size_t n_inputs, char ***files, size_t *n_files,
                       char *err, size_t err_len);
void corpus_free_files(char **files, size_t n_files);

/* How far back from a byte limit a word-safe cut looks for its boundary. */
enum { CORPUS_CUT_LOOKBACK = 1 << 20 };

/*
 * Where a word-safe prefix of at most `limit` bytes of `text` ends: just after
 * the last newline or the last complete special token in the CORPUS_CUT_LOOKBACK
 * bytes before `limit`, whichever ends later; with neither there (one line
 * longer than the look-back), at the last UTF-8 character boundary at or
 * before `limit`. Returns len when len <= limit. Bounding the look-back lets
 * a byte-limited read stream with bounded memory and still cut exactly where
 * `bpebench slice` does. O(CORPUS_CUT_LOOKBACK · S).
 */
size_t corpus_safe_cut(const uint8_t *text, size_t len, size_t limit, const char *const *specials,
                       size_t n_specials);

typedef struct {
    uint64_t max_bytes;   /* 0: read everything; else a word-safe prefix of the whole input */
    double read_seconds;  /* out: time spent in read() */
    uint64_t bytes_read;  /* out: bytes passed to the pretokenizer */
    size_t files_read;    /* out: files opened */
    /* Optional: called after each chunk is counted with the bytes read so
     * far (a progress display); NULL for none. */
    void (*on_bytes)(void *ctx, uint64_t bytes_so_far);
    void *ctx;            /* passed back to on_bytes unchanged */
} corpus_read;

/* The bytes a read of `files` will take, for a progress display: the sum of
 * the regular files' sizes, capped at max_bytes (0: no cap). False when it
 * is not known in advance (standard input, or a file gone); no error. */
bool corpus_planned_bytes(char *const *files, size_t n_files, uint64_t max_bytes,
                          uint64_t *total);

/* Reads every file (or the first opts->max_bytes, cut word-safe) into the
 * pretokenizer made from `cfg`, counting words into `words`. A regular file
 * that changes while it is read (size, or modification time) is an error
 * naming it: the words would be part old, part new. O(n). */
bool corpus_count_words(pretokenizer *p, const pretok_config *cfg, char *const *files,
                        size_t n_files, corpus_read *opts, word_table *words, char *err,
                        size_t err_len);

#endif
