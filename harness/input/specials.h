/*
 * specials.h — SPEC §2.1's question, asked of every byte of the corpus:
 * which special token starts here? Scanning left to right, the longest one
 * that matches at a position wins.
 *
 * Asked token by token, the answer costs S comparisons at every position
 * where a token may start, so a corpus with thousands of special tokens
 * pays occurrences × S. A trie answers by walking the text instead: one
 * step per byte that still matches some token, whatever S is
 * (tests/test_specials.c checks it against asking token by token).
 *
 * Data structure: the trie over the tokens' bytes. Node 0 is the root (the
 * empty prefix); every other node is one prefix of some token, the child of
 * the node one byte shorter. A node's edges lie together in one array,
 * sorted by byte, so a step is a binary search over at most 256 bytes; the
 * root, where every walk starts, has a table of 256 children instead.
 * Invariant: a node is marked with a token's length exactly when that token
 * equals its prefix; a node without edges is always marked (it ends a
 * token). Built from the tokens sorted by bytes, breadth first, so each
 * node's children come out together and in byte order.
 *
 * Memory: O(total bytes of the tokens). Building: O(S · log S · longest
 * token) for the sort, O(total bytes) for the nodes.
 */
#ifndef BPE_SPECIALS_H
#define BPE_SPECIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct special_trie special_trie;

/* What starts at a position of a text. */
typedef struct {
    size_t len;    /* bytes of the longest special token that matches there, whole; 0: none */
    bool cut_off;  /* the text ended while a longer token still matched: more text could
                      make a longer one match (a stream must wait for it) */
} special_hit;

/*
 * The trie of tokens[0, n) (each non-empty; read only while it is built).
 * When a token equals an earlier one, *twice is its index (the smallest
 * such; else SIZE_MAX): the trie is still made, and the caller decides.
 * NULL on OOM, or when the tokens hold 2^32 bytes or more.
 */
special_trie *special_trie_new(const char *const *tokens, size_t n, size_t *twice);
void special_trie_free(special_trie *t);

/* The longest token, in bytes (0 for an empty set). */
size_t special_trie_longest(const special_trie *t);

/* Whether some token starts with `byte`. O(1). */
bool special_trie_starts_with(const special_trie *t, uint8_t byte);

/* The longest token that is a prefix of text[0, avail). O(bytes walked ·
 * log 256): the walk stops at the first byte no token continues with. */
special_hit special_trie_match(const special_trie *t, const uint8_t *text, size_t avail);

#endif
