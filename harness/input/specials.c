/* specials.c — see specials.h. */
#include "input/specials.h"

#include <stdlib.h>
#include <string.h>

/* One prefix of some token. */
typedef struct {
    uint32_t first_edge; /* its edges are edges [first_edge, first_edge + n_edges) */
    uint32_t n_edges;    /* how many bytes continue the prefix (0 ≤ n ≤ 256) */
    uint32_t token_len;  /* the length of the token equal to this prefix; 0: none */
} trie_node;

struct special_trie {
    trie_node *nodes;          /* node 0 is the root; owned */
    uint8_t *edge_byte;        /* edge_byte[e]: the byte edge e reads, sorted within a node; owned */
    uint32_t *edge_child;      /* edge_child[e]: the node edge e leads to; owned */
    uint32_t root_child[256];  /* the root's child for each byte; 0: none (no node points back
                                  to the root) */
    size_t longest;            /* the longest token's length */
};

/* ------------------------------------------------------------- building */

/* A token while the trie is built. */
typedef struct {
    const uint8_t *bytes; /* the token (borrowed) */
    size_t len;           /* its length */
    size_t index;         /* its place in the caller's list */
} token_ref;

/* Byte order, a prefix before its extensions; equal tokens in list order. */
static int by_bytes(const void *pa, const void *pb)
{
    const token_ref *a = pa, *b = pb;
    int c = memcmp(a->bytes, b->bytes, a->len < b->len ? a->len : b->len);
    if (c != 0)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The tokens sharing a node's prefix while the trie is built. */
typedef struct {
    size_t lo, hi; /* refs[lo, hi): the sorted tokens that start with the prefix */
    size_t depth;  /* the prefix's length */
} node_span;

/*
 * Gives node `node` its mark and its edges: the tokens in its span that end
 * at its depth come first (a prefix sorts first); the others, grouped by
 * their next byte, each make a child, appended to the nodes (and to `spans`,
 * so the loop in special_trie_new visits it later: breadth first).
 * O(tokens in the span).
 */
static void grow_node(special_trie *t, const token_ref *refs, node_span *spans, size_t node,
                      size_t *n_nodes, size_t *n_edges, size_t *twice)
{
    node_span s = spans[node];
    trie_node *at = &t->nodes[node];
    for (; s.lo < s.hi && refs[s.lo].len == s.depth; s.lo++) {
        if (at->token_len && refs[s.lo].index < *twice)
            *twice = refs[s.lo].index;
        at->token_len = (uint32_t)s.depth;
    }
    at->first_edge = (uint32_t)*n_edges;
    while (s.lo < s.hi) {
        uint8_t byte = refs[s.lo].bytes[s.depth];
        size_t end = s.lo + 1;
        while (end < s.hi && refs[end].bytes[s.depth] == byte)
            end++;
        size_t child = (*n_nodes)++;
        spans[child] = (node_span){s.lo, end, s.depth + 1};
        t->edge_byte[*n_edges] = byte;
        t->edge_child[(*n_edges)++] = (uint32_t)child;
        at->n_edges++;
        if (node == 0)
            t->root_child[byte] = (uint32_t)child;
        s.lo = end;
    }
}

special_trie *special_trie_new(const char *const *tokens, size_t n, size_t *twice)
{
    *twice = SIZE_MAX;
    size_t total = 0;
    token_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    for (size_t i = 0; refs && i < n; i++) {
        refs[i] = (token_ref){(const uint8_t *)tokens[i], strlen(tokens[i]), i};
        total += refs[i].len;
    }
    special_trie *t = refs && total < UINT32_MAX ? calloc(1, sizeof *t) : NULL;
    node_span *spans = t ? malloc((total + 1) * sizeof *spans) : NULL;
    if (t) {
        t->nodes = calloc(total + 1, sizeof *t->nodes); /* one node per prefix at most */
        t->edge_byte = malloc(total + 1);
        t->edge_child = malloc((total + 1) * sizeof *t->edge_child);
    }
    if (!spans || !t->nodes || !t->edge_byte || !t->edge_child) {
        free(refs);
        free(spans);
        special_trie_free(t);
        return NULL;
    }
    qsort(refs, n, sizeof *refs, by_bytes);
    spans[0] = (node_span){0, n, 0};
    size_t n_nodes = 1, n_edges = 0;
    for (size_t node = 0; node < n_nodes; node++)
        grow_node(t, refs, spans, node, &n_nodes, &n_edges, twice);
    for (size_t i = 0; i < n; i++)
        if (refs[i].len > t->longest)
            t->longest = refs[i].len;
    free(refs);
    free(spans);
    return t;
}

void special_trie_free(special_trie *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->edge_byte);
    free(t->edge_child);
    free(t);
}

/* ------------------------------------------------------------- matching */

size_t special_trie_longest(const special_trie *t)
{
    return t->longest;
}

bool special_trie_starts_with(const special_trie *t, uint8_t byte)
{
    return t->root_child[byte] != 0;
}

/* The child of `node` along `byte`, or 0. O(log n_edges). */
static uint32_t child_of(const special_trie *t, uint32_t node, uint8_t byte)
{
    if (node == 0)
        return t->root_child[byte];
    const trie_node *at = &t->nodes[node];
    size_t lo = at->first_edge, hi = lo + at->n_edges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->edge_byte[mid] < byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < at->first_edge + at->n_edges && t->edge_byte[lo] == byte ? t->edge_child[lo] : 0;
}

special_hit special_trie_match(const special_trie *t, const uint8_t *text, size_t avail)
{
    special_hit hit = {0, false};
    uint32_t node = 0;
    for (size_t d = 0; t->nodes[node].n_edges > 0; d++) {
        if (d == avail) {
            hit.cut_off = true;
            break;
        }
        if (!(node = child_of(t, node, text[d])))
            break;
        if (t->nodes[node].token_len)
            hit.len = t->nodes[node].token_len;
    }
    return hit;
}
