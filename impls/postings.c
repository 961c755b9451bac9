/* postings.c — see postings.h. */
#include "postings.h"

#include <stdlib.h>

void bpe_postings_free(bpe_postings *p)
{
    free(p->lists);
    free(p->ids);
    free(p->scratch);
    *p = (bpe_postings){0};
}

/* Makes room for `need` elements of `size` bytes in *array, doubling its
 * capacity *cap (first 4096) but never to UINT32_MAX or beyond, so that no
 * index reaches BPE_POSTINGS_NONE. False on OOM or when `need` cannot fit.
 * Amortized O(1) per element. */
static bool reserve(void **array, uint32_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap)
        return true;
    uint64_t grown = *cap ? *cap : 4096;
    while (grown < need)
        grown *= 2;
    if (grown >= UINT32_MAX)
        grown = UINT32_MAX - 1;
    if (grown < need)
        return false;
    void *bigger = realloc(*array, (size_t)grown * size);
    if (!bigger)
        return false;
    *array = bigger;
    *cap = (uint32_t)grown;
    return true;
}

uint32_t bpe_postings_open(bpe_postings *p)
{
    void *lists = p->lists;
    if (!reserve(&lists, &p->cap_lists, (uint64_t)p->n_lists + 1, sizeof *p->lists))
        return BPE_POSTINGS_NONE;
    p->lists = lists;
    p->lists[p->n_lists] = (bpe_posting_list){.start = BPE_POSTINGS_NONE, .len = 0};
    return p->n_lists++;
}

bool bpe_postings_gather(bpe_postings *p, uint32_t list, uint32_t id)
{
    bpe_posting_list *l = &p->lists[list];
    if (l->start != BPE_POSTINGS_NONE && p->scratch[l->start].id == id)
        return true;
    void *scratch = p->scratch;
    if (!reserve(&scratch, &p->cap_scratch, (uint64_t)p->n_scratch + 1, sizeof *p->scratch))
        return false;
    p->scratch = scratch;
    p->scratch[p->n_scratch] = (bpe_posting_cell){.list = list, .id = id};
    l->start = p->n_scratch++;
    l->len++;
    return true;
}

bool bpe_postings_freeze(bpe_postings *p)
{
    void *ids = p->ids;
    if (!reserve(&ids, &p->cap_ids, (uint64_t)p->n_ids + p->n_scratch, sizeof *p->ids))
        return false;
    p->ids = ids;
    /* Pass 1: a slice per open list; len restarts at 0 and counts the ids
     * placed so far. */
    for (uint32_t list = p->first_open; list < p->n_lists; list++) {
        p->lists[list].start = p->n_ids;
        p->n_ids += p->lists[list].len;
        p->lists[list].len = 0;
    }
    /* Pass 2: every waiting id into its list's slice, in gathering order. */
    for (uint32_t c = 0; c < p->n_scratch; c++) {
        bpe_posting_list *l = &p->lists[p->scratch[c].list];
        p->ids[l->start + l->len++] = p->scratch[c].id;
    }
    p->first_open = p->n_lists;
    p->n_scratch = 0;
    return true;
}
