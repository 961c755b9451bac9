/*
 * synth.h — seeded synthetic corpora whose W, L and word-frequency skew are
 * knobs (`bpebench synth`). Real corpora tie W, L and n together; a synthetic
 * one lets a benchmark move one of them while holding the others, which is
 * how the trainers' complexities in W, L and M show up cleanly.
 *
 * The same configuration gives the same bytes on every machine: the
 * generator has its own PRNG and uses integer arithmetic only (synth.c says
 * why floating point would not do).
 */
#ifndef BPE_SYNTH_H
#define BPE_SYNTH_H

#include "base/atomicfile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SYNTH_MAX_WORDS = 1 << 24,   /* largest --words */
    SYNTH_MAX_ZIPF_MILLI = 8000, /* largest --zipf, in thousandths */
    SYNTH_MAX_MEAN_LEN = 100,    /* largest --mean-len */
    SYNTH_MAX_WORD_CHARS = 1024, /* no word type is longer (characters) */
};

/* What to generate. */
typedef struct {
    uint32_t words;      /* W: distinct word types in the vocabulary, 1..SYNTH_MAX_WORDS */
    uint32_t zipf_milli; /* S × 1000: the word of frequency rank r is drawn with weight r^−S */
    uint32_t mean_len;   /* L: mean length of a word type in characters, 1..SYNTH_MAX_MEAN_LEN */
    const char *alphabet; /* "latin", "cjk", "devanagari", "bytes" (a name wins), or the
                             characters to use, in UTF-8 */
    uint64_t bytes;      /* n: the output is at most this long */
    uint64_t seed;       /* PRNG seed; equal seeds give equal bytes */
} synth_config;

/* Checks every field together, before any work: ranges, the alphabet, and
 * that W distinct words of mean length L can be made from it quickly (the
 * feasibility rule in synth.c). False with a one-line reason naming the bad
 * value and, for too many words, the largest --words that would do.
 * O(K log K + L²) for an alphabet of K characters. */
bool synth_check(const synth_config *cfg, char *err, size_t err_len);

/*
 * Generates the corpus and streams it to `out` in pieces: words separated by
 * single spaces, a newline instead of the space after about one word in 16,
 * and a final newline; at most cfg->bytes bytes, shorter than that by less
 * than one word. *len gets the length. False with a one-line reason on a bad
 * configuration, when memory runs out, or when `out` fails (what it got is
 * then incomplete: give it an atomic file, atomicfile.h).
 * Time O(W·L + (n / L)·log W), memory O(W·L) whatever n is.
 */
bool synth_write(const synth_config *cfg, const byte_sink *out, uint64_t *len, char *err,
                 size_t err_len);

/* The same text in memory: *text is malloc'd and owned by the caller (free
 * it), NULL on failure. For tests and callers that want the bytes at hand;
 * memory O(n + W·L). */
bool synth_generate(const synth_config *cfg, uint8_t **text, size_t *len, char *err,
                    size_t err_len);

/* The Zipf weight r^(−S) of rank r ≥ 1 as a Q32 fixed-point number
 * (2^32 stands for 1.0), S = s_milli / 1000, computed with integers only;
 * never below 1 so that every word type can occur. O(1). */
uint64_t synth_zipf_weight(uint32_t rank, uint32_t s_milli);

#endif
