/*
 * wordstats.h — what a word table says about its text besides n, W and M:
 * the distinct byte pairs before any merge (P) and the text's bytes per
 * Unicode script. `stats` prints them, the benchmark's input probe records
 * them (so they describe exactly the text a trainer sees).
 */
#ifndef BPE_WORDSTATS_H
#define BPE_WORDSTATS_H

#include "bpe.h"

#include <stddef.h>
#include <stdint.h>

/* Scripts, by code point ranges (wordstats.c lists them). */
typedef enum {
    SCRIPT_LATIN,
    SCRIPT_GREEK,
    SCRIPT_CYRILLIC,
    SCRIPT_ARABIC,
    SCRIPT_DEVANAGARI,
    SCRIPT_THAI,
    SCRIPT_HANGUL,
    SCRIPT_CJK,
    SCRIPT_COMMON,  /* digits, punctuation, symbols and spaces shared by all scripts */
    SCRIPT_OTHER,   /* every other code point */
    SCRIPT_INVALID, /* bytes that are not UTF-8 */
    SCRIPT_COUNT,
} script;

extern const char *const script_names[SCRIPT_COUNT];

/* The script of a code point. O(number of ranges). */
script script_of(uint32_t cp);

/* Adds the byte length of every character that starts in buf[0, stop) to
 * bytes[its script] (a byte that starts no valid character to
 * bytes[SCRIPT_INVALID]); every such character is complete when
 * stop ≤ len − 3. Returns where it stopped (≥ stop). O(stop). */
size_t script_classify(const uint8_t *buf, size_t len, size_t stop, uint64_t *bytes);

/* P before any merge: the distinct adjacent byte pairs over the words, or
 * UINT64_MAX when memory runs out. O(M). */
uint64_t words_initial_pairs(const bpe_words *words);

/* The pretokenized text's bytes per script: Σ count(w) × the bytes of w in
 * each script (invalid UTF-8 under SCRIPT_INVALID). Sums to Σ count(w)·len(w),
 * which is n less the special tokens' bytes and any bytes a user pattern
 * skips. O(M). */
void words_script_bytes(const bpe_words *words, uint64_t script_bytes[SCRIPT_COUNT]);

#endif
