/*
 * datatools.h — looking at corpora before training on them: word-safe
 * prefix slices (`bpebench slice`) and the SPEC §1 quantities of a corpus
 * with its mix of scripts (`bpebench stats`).
 */
#ifndef BPE_DATATOOLS_H
#define BPE_DATATOOLS_H

#include "base/atomicfile.h"
#include "input/pretok.h"
#include "input/wordstats.h"

/* ------------------------------------------------------------- slices */

/*
 * The word-safe prefix of at most `limit` bytes of the files' concatenation
 * (in the given order): whole files while they fit, then the part of the
 * next file that corpus_safe_cut keeps (just after its last newline or
 * complete special token in the last MiB of the budget, else at a character
 * boundary) — the same cut corpus_count_words makes with a byte limit.
 * The bytes are streamed to `out` in pieces; *len gets their number, and
 * *joined counts the files that end without a newline but are followed by
 * another file in the slice (their last word runs into the next file's
 * first). A regular file whose size or modification time changes while it
 * is read is an error ("changed while reading").
 * False with a one-line reason naming the file (or the limit); what went to
 * `out` is then incomplete, so give it an atomic file (atomicfile.h).
 * Time O(n_out), memory O(CORPUS_CUT_LOOKBACK) whatever the limit.
 */
bool slice_files(char *const *files, size_t n_files, uint64_t limit,
                 const char *const *specials, size_t n_specials, const byte_sink *out,
                 uint64_t *len, size_t *joined, char *err, size_t err_len);

/* slice_files into the file `path`, whole or not at all (atomicfile.h). */
bool slice_files_to_path(char *const *files, size_t n_files, uint64_t limit,
                         const char *const *specials, size_t n_specials, const char *path,
                         uint64_t *len, size_t *joined, char *err, size_t err_len);

/* ------------------------------------------------------------- stats */

enum { STATS_TOP_WORDS = 10 };

/* A frequent word. */
typedef struct {
    const uint8_t *bytes; /* its bytes, in the stats' word table */
    uint32_t len;         /* its length in bytes */
    uint64_t count;       /* its occurrences */
} stats_word;

/* What a corpus looks like to a trainer (SPEC §1 letters). */
typedef struct {
    pretok_stats corpus;                     /* n (bytes), pretokens, special tokens cut out */
    uint64_t words;                          /* W: distinct words */
    uint64_t symbols;                        /* M: bytes over distinct words */
    uint64_t pairs;                          /* P before any merge: distinct adjacent byte pairs */
    uint64_t chunks;                         /* chunks between safe cuts (count_dedup.c) */
    uint64_t chunks_distinct;                /* of those, distinct: the dedup ratio's divisor */
    stats_word top[STATS_TOP_WORDS];         /* most frequent words, ties by bytes */
    size_t n_top;                            /* min(W, STATS_TOP_WORDS) */
    uint64_t script_bytes[SCRIPT_COUNT];     /* bytes of the text in each script */
    word_table table;                        /* the words; owned, freed in corpus_stats_free */
} corpus_stats;

/*
 * Pretokenizes and counts the files exactly as training does
 * (corpus_count_words), then derives W, M, P and the top words, and
 * classifies every character of the raw text by script. False with a
 * one-line reason. Time O(n + M + W log W), memory O(W + M).
 */
bool corpus_stats_compute(const pretok_config *cfg, char *const *files, size_t n_files,
                          corpus_stats *s, char *err, size_t err_len);
void corpus_stats_free(corpus_stats *s);

#endif
