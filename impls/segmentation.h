/*
 * segmentation.h — every word's current tokens, in one flat array: the
 * working copy of the input that naive.c, incremental.c, inverted_index.c
 * and heap.c rewrite merge after merge. (linked_list.c keeps words as
 * linked lists of nodes instead, and cache_aware.c puts each word's length
 * and count right before its tokens.)
 *
 * Idea. Before any merge, word w is the sequence of its bytes, one token per
 * byte. A merge replaces some adjacent pairs (a, b) with one token ab, so a
 * word only ever gets shorter, and it can be rewritten where it stands. So
 * every word gets a slice of one array `symbols`, word after word, sized to
 * its length in bytes; its tokens always occupy the front of that slice.
 * One 16-byte record per word says where its slice starts, how many tokens
 * it holds now, and its count, so visiting a word costs one cache miss for
 * the record and one for its tokens, not one per array. (With a 64-bit start
 * the record pads to 24 bytes, and heap.c's merges got measurably slower; so
 * positions are 32-bit, and M must stay below 2^32.)
 *
 * Invariant: the tokens of word w are symbols[word[w].start ..+ word[w].len),
 * and their bytes, put together, are exactly the bytes of w.
 *
 * Complexity: bpe_segmentation_init O(M) time; O(M + W) memory, all of it
 * allocated there. Ownership: the arrays are owned by the bpe_segmentation
 * and freed only in bpe_segmentation_free(); the input words are only read,
 * by bpe_segmentation_init.
 */
#ifndef BPE_SEGMENTATION_H
#define BPE_SEGMENTATION_H

#include "bpe.h"
#include "describe.h"
#include "postings.h"

/* Where one word's tokens are, and how much each of its pairs weighs. */
typedef struct {
    uint32_t start; /* index of its first token in `symbols` */
    uint32_t len;   /* its current number of tokens */
    uint64_t count; /* its count in the corpus: what each of its pairs adds to a pair count */
} bpe_word_span;

typedef struct {
    bpe_token *symbols;  /* every word's current tokens, word after word; owned */
    bpe_word_span *word; /* word id → where its tokens are, and its count; owned */
    size_t n_words;      /* W */
} bpe_segmentation;

/* Copies each word's bytes into `symbols` as single-byte tokens. False on OOM
 * or when M ≥ 2^32 (nothing is left allocated). O(M). */
bool bpe_segmentation_init(bpe_segmentation *s, const bpe_words *words);

/* Frees the arrays. Accepts a zeroed struct. */
void bpe_segmentation_free(bpe_segmentation *s);

/* The current tokens of word w (there are s->word[w].len of them). O(1). */
static inline bpe_token *bpe_segmentation_tokens(const bpe_segmentation *s, size_t w)
{
    return s->symbols + s->word[w].start;
}

/* Where (a, b) first occurs in t[0..len), or len if it does not. Inline: the
 * trainers call it once per word they visit. O(len). */
static inline uint32_t bpe_find_pair(const bpe_token *t, uint32_t len, bpe_token a, bpe_token b)
{
    for (uint32_t i = 0; i + 1 < len; i++)
        if (t[i] == a && t[i + 1] == b)
            return i;
    return len;
}

/* For `bpebench trace` (describe.h): every word's current tokens, as a
 * BPE_SHOW_WORDS section keyed by word id. O(M). */
void bpe_segmentation_describe(const bpe_segmentation *s, bpe_description *d);

/* For `bpebench trace`: a row for (a, b)'s frozen list `list` (its key), an
 * item for each word id on it, marked stale when the word no longer holds
 * (a, b). O(Σ len(w) over the list). */
void bpe_segmentation_describe_list(const bpe_segmentation *s, const bpe_postings *postings,
                                    uint32_t list, bpe_token a, bpe_token b,
                                    bpe_description *d);

#endif
