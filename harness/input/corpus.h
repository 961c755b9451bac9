/*
 * corpus.h — reading the inputs of SPEC §2: files, or directories (every
 * regular file in it, in byte order of name), streamed in chunks into the
 * pretokenizer; optionally only a word-safe prefix of N bytes.
 */
#ifndef BPE_CORPUS_H
#define BPE_CORPUS_H

#include "input/pretok.h"

#include <sys/stat.h>

/* The input that names standard input (read once, as a stream). */
#define CORPUS_STDIN "-"

/*
 * Expands inputs into the list of files to read, by one rule: a regular file
 * is read; a directory means its regular files, sorted by name (its
 * sub-directories, FIFOs, sockets and devices are skipped); a FIFO, socket
 * or device named directly is refused (a FIFO may block for ever, a device
 * never end). With allow_stdin, CORPUS_STDIN (given once) stays in the list
 * and is read from standard input, unless standard input is a device (a
 * terminal, /dev/zero: refused as a device named directly); without, it is
 * refused (a command that reads its inputs twice cannot). *files is malloc'd, each string too; free
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
 * before `limit`. *cut = len when len <= limit. Bounding the look-back lets
 * a byte-limited read stream with bounded memory and still cut exactly where
 * `bpebench slice` does. False only when out of memory. O(CORPUS_CUT_LOOKBACK
 * · bytes matched by the special tokens' trie (specials.h)), whatever S is.
 */
bool corpus_safe_cut(const uint8_t *text, size_t len, size_t limit, const char *const *specials,
                     size_t n_specials, size_t *cut);

/* Opens an input: standard input for CORPUS_STDIN, else the file, which must
 * still be a regular file. *st is its state at open, *name what messages
 * call it. False with a one-line reason. */
bool corpus_open_input(const char *path, int *fd, struct stat *st, const char **name, char *err,
                       size_t err_len);

/* Whether a regular file stayed as it was while bytes [start, start +
 * bytes_read) were read (to its end when to_end): its size and modification
 * time are those at open. False with a one-line reason naming it. O(1). */
bool corpus_unchanged_while_read(int fd, const char *name, const struct stat *at_open,
                                 uint64_t start, uint64_t bytes_read, bool to_end, char *err,
                                 size_t err_len);

/* Where reading a regular file of `size` bytes stops when `budget` more bytes
 * may be read: *end = size when it fits (*cut false), else the word-safe cut
 * corpus_count_words makes there (*cut true), found from the same window.
 * False with a one-line reason on a read error. O(CORPUS_CUT_LOOKBACK · S). */
bool corpus_prefix_end(int fd, const char *name, uint64_t size, uint64_t budget,
                       const char *const *specials, size_t n_specials, uint64_t *end, bool *cut,
                       char *err, size_t err_len);

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
