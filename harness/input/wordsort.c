/* wordsort.c — see wordsort.h. */
#include "input/wordsort.h"

#include <stdlib.h>
#include <string.h>

enum {
    BUCKETS = 257,      /* a byte digit: 0 for "the word has ended", 1 + byte */
    COUNT_DIGITS = 8,   /* the count's bytes come first in the key */
    SMALL_RANGE = 32,   /* a range this short is finished by insertion sort */
};

/* Highest count first, then the bytes (memcmp, then the shorter first). */
static int compare_records(const word_sort_record *a, const word_sort_record *b)
{
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    /* The first 8 bytes agree (zero past an end): if either word ends within
     * them, it is the other's beginning, and the shorter comes first. */
    if (a->len > 8 && b->len > 8) {
        uint32_t common = (a->len < b->len ? a->len : b->len) - 8;
        int c = memcmp(a->bytes + 8, b->bytes + 8, common);
        if (c != 0)
            return c;
    }
    return (a->len > b->len) - (a->len < b->len);
}

static void insertion_sort(word_sort_record *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        word_sort_record x = r[i];
        size_t j = i;
        for (; j > 0 && compare_records(&x, &r[j - 1]) < 0; j--)
            r[j] = r[j - 1];
        r[j] = x;
    }
}

/* Digit `digit` of a record's key (wordsort.h): a count byte as 255 − byte,
 * then 1 + each byte of the word, 0 once it has ended. O(1); reads the word
 * only past its first 8 bytes. */
static unsigned digit_of(const word_sort_record *r, size_t digit)
{
    if (digit < COUNT_DIGITS)
        return 255u - (uint8_t)(r->count >> (56 - 8 * digit));
    size_t at = digit - COUNT_DIGITS;
    if (at >= r->len)
        return 0;
    return 1u + (at < 8 ? word_sort_prefix_byte(r, (uint32_t)at) : r->bytes[at]);
}

/*
 * Sorts r[0, n), whose records agree on every digit before `digit`. Each
 * round counts the range into buckets by this digit and swaps every record
 * into its bucket (the American flag permutation); then the buckets but the
 * largest are sorted by recursion and the largest by the next round, so the
 * recursion is at most log2(n) deep. O(n) per round.
 */
static void sort_range(word_sort_record *r, size_t n, size_t digit)
{
    while (n >= SMALL_RANGE) {
        size_t size[BUCKETS] = {0};
        for (size_t i = 0; i < n; i++)
            size[digit_of(&r[i], digit)]++;
        size_t next[BUCKETS], end[BUCKETS], largest = 0, at = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            next[b] = at;
            at += size[b];
            end[b] = at;
            largest = size[b] > size[largest] ? b : largest;
        }
        if (size[largest] < n) {
            for (unsigned b = 0; b < BUCKETS; b++) {
                while (next[b] < end[b]) {
                    unsigned d = digit_of(&r[next[b]], digit);
                    if (d == b) {
                        next[b]++;
                    } else {
                        word_sort_record x = r[next[b]];
                        r[next[b]] = r[next[d]];
                        r[next[d]++] = x;
                    }
                }
            }
        }
        bool words_end_here = digit >= COUNT_DIGITS; /* bucket 0: the words that ended, */
        for (unsigned b = words_end_here ? 1 : 0; b < BUCKETS; b++) /* distinct, so one */
            if (b != largest && size[b] > 1)
                sort_range(r + end[b] - size[b], size[b], digit + 1);
        if (words_end_here && largest == 0)
            return;
        r += end[largest] - size[largest];
        n = size[largest];
        digit++;
    }
    insertion_sort(r, n);
}

/* The first 8 bytes of a word, the first in the top byte, zero past its end. */
static uint64_t prefix_of(const bpe_word *w)
{
    uint8_t bytes[8] = {0};
    memcpy(bytes, w->bytes, w->len < 8 ? w->len : 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | bytes[i];
    return v;
}

word_sort_record *word_sort_by_count(const bpe_words *words)
{
    size_t n = words->n_words;
    word_sort_record *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return NULL;
    uint64_t highest = 0;
    for (size_t i = 0; i < n; i++) {
        const bpe_word *w = &words->words[i];
        r[i] = (word_sort_record){.count = w->count, .prefix = prefix_of(w), .bytes = w->bytes,
                                  .len = w->len};
        highest = w->count > highest ? w->count : highest;
    }
    /* Every count shares the high zero bytes of the highest: start below them. */
    size_t first = 0;
    while (first < COUNT_DIGITS - 1 && (highest >> (56 - 8 * first)) == 0)
        first++;
    sort_range(r, n, first);
    return r;
}
