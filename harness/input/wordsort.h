/*
 * wordsort.h — the words of a table in the order of a word-count file
 * (wordcount.h): highest count first, then by bytes (memcmp over the common
 * length, then the shorter first).
 *
 * Why not qsort: a comparison sort of W words makes O(W log W) comparisons,
 * and each one that gets past the counts reads two words' bytes, scattered
 * over an arena far larger than the cache. For 10 million distinct words
 * that was most of `bpebench count`. This is a most-significant-digit radix
 * sort instead, on a key each word carries beside it: its count, then its
 * bytes, one byte a digit. Each word's count and first 8 bytes sit in its
 * 24-byte sort record, so the first 16 digits are read without touching
 * the word; only words that tie on count and 8 bytes are read further.
 *
 * The key, digit by digit: the count's 8 bytes, most significant first, each
 * as 255 − byte (highest count first); then the word's bytes, each as
 * 1 + byte, and 0 once the word has ended (so a word sorts before every
 * longer word it begins). Two distinct words always differ in some digit.
 *
 * The sort (American flag sort, McIlroy, Bostic and McIlroy, "Engineering
 * radix sort", 1993): count how many records of the range fall in each of
 * the 257 buckets of the next digit, swap every record into its bucket in
 * place, then sort each bucket on the digit after. A range of fewer than a
 * few dozen records is finished by insertion sort with the full comparison.
 * A digit every record shares costs one counting pass and no swap. The
 * largest bucket is sorted by the same loop, the others by recursion, so the
 * recursion depth stays below log2(W) whatever the words.
 *
 * Complexity: O(W · d) time, d the digits needed to tell a word from the
 * others of its count (at most 8 + its length; a few for most words); 32·W
 * bytes of records, no other memory.
 */
#ifndef BPE_WORDSORT_H
#define BPE_WORDSORT_H

#include "bpe.h"

/* One word as the sort sees it. */
typedef struct {
    uint64_t count;       /* the word's count */
    uint64_t prefix;      /* its first 8 bytes, the first in the top byte; 0 past its end */
    const uint8_t *bytes; /* the word (borrowed from the bpe_words it came from) */
    uint32_t len;         /* its length in bytes */
} word_sort_record;

/* The byte of a record's word at position i < 8 (and < len). */
static inline uint8_t word_sort_prefix_byte(const word_sort_record *r, uint32_t i)
{
    return (uint8_t)(r->prefix >> (56 - 8 * i));
}

/* Every word of `words` in word-count file order, as a malloc'd array of
 * words->n_words records (the caller frees it; they point into `words`'
 * bytes). NULL when out of memory. */
word_sort_record *word_sort_by_count(const bpe_words *words);

#endif
