/* postings.c — see postings.h. */
#include "postings.h"
#include "array.h"

#include <stdlib.h>
#include <string.h>

void bpe_postings_free(bpe_postings *p)
{
    free(p->lists);
    free(p->ids);
    free(p->scratch);
    *p = (bpe_postings){0};
}

void bpe_postings_clear(bpe_postings *p)
{
    p->n_lists = p->first_open = p->n_ids = p->n_released = p->n_scratch = 0;
}

/* Whether `need` elements can be counted and named by a uint32_t that never
 * reaches BPE_POSTINGS_NONE. O(1). */
static bool fits_32_bits(uint64_t need)
{
    return need < UINT32_MAX;
}

uint32_t bpe_postings_open(bpe_postings *p)
{
    if (!fits_32_bits((uint64_t)p->n_lists + 1))
        return BPE_POSTINGS_NONE;
    bpe_posting_list *lists = bpe_array_reserve(p->lists, &p->cap_lists, (size_t)p->n_lists + 1,
                                                sizeof *lists);
    if (!lists)
        return BPE_POSTINGS_NONE;
    p->lists = lists;
    p->lists[p->n_lists] = (bpe_posting_list){.start = BPE_POSTINGS_NONE, .len = 0};
    return p->n_lists++;
}

bool bpe_postings_append(bpe_postings *p, uint32_t list, uint32_t id)
{
    if (!fits_32_bits((uint64_t)p->n_scratch + 1))
        return false;
    bpe_posting_cell *scratch = bpe_array_reserve(p->scratch, &p->cap_scratch,
                                                  (size_t)p->n_scratch + 1, sizeof *scratch);
    if (!scratch)
        return false;
    p->scratch = scratch;
    p->scratch[p->n_scratch] = (bpe_posting_cell){.list = list, .id = id};
    p->lists[list].start = p->n_scratch++;
    p->lists[list].len++;
    return true;
}

bool bpe_postings_move_gathered(bpe_postings *to, bpe_postings *from, const uint32_t *to_list)
{
    for (uint32_t c = 0; c < from->n_scratch; c++)
        if (!bpe_postings_append(to, to_list[from->scratch[c].list], from->scratch[c].id))
            return false;
    bpe_postings_clear(from);
    return true;
}

void bpe_postings_release(bpe_postings *p, uint32_t list)
{
    p->n_released += p->lists[list].len;
    p->lists[list].len = 0;
}

/* Slides every frozen slice down over the released ids, list by list (the
 * slices lie in list order), then gives back the room past what the next
 * freeze needs: touched pages the arena no longer uses would otherwise stay
 * resident until it grew over them again. O(frozen lists + ids). */
static void reclaim_released(bpe_postings *p)
{
    uint32_t kept = 0;
    for (uint32_t list = 0; list < p->first_open; list++) {
        bpe_posting_list *l = &p->lists[list];
        memmove(p->ids + kept, p->ids + l->start, (size_t)l->len * sizeof *p->ids);
        l->start = kept;
        kept += l->len;
    }
    p->n_ids = kept;
    p->n_released = 0;
    size_t room = (size_t)kept + p->n_scratch + 1; /* + 1: never realloc(0) */
    uint32_t *ids = realloc(p->ids, room * sizeof *ids);
    if (ids) { /* a failed shrink leaves the arena as it was, and valid */
        p->ids = ids;
        p->cap_ids = room;
    }
}

bool bpe_postings_freeze(bpe_postings *p)
{
    if (p->n_released > p->n_ids / 2)
        reclaim_released(p);
    uint64_t need = (uint64_t)p->n_ids + p->n_scratch;
    if (!fits_32_bits(need))
        return false;
    uint32_t *ids = bpe_array_reserve(p->ids, &p->cap_ids, (size_t)need, sizeof *ids);
    if (!ids)
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

uint32_t bpe_postings_open_sized(bpe_postings *p, const uint32_t *len, uint32_t n)
{
    uint64_t need = p->n_ids;
    for (uint32_t k = 0; k < n; k++)
        need += len[k];
    if (p->first_open != p->n_lists || !fits_32_bits((uint64_t)p->n_lists + n) ||
        !fits_32_bits(need))
        return BPE_POSTINGS_NONE;
    bpe_posting_list *lists = bpe_array_reserve(p->lists, &p->cap_lists, (size_t)p->n_lists + n,
                                                sizeof *lists);
    if (!lists)
        return BPE_POSTINGS_NONE;
    p->lists = lists;
    uint32_t *ids = bpe_array_reserve(p->ids, &p->cap_ids, (size_t)need, sizeof *ids);
    if (!ids)
        return BPE_POSTINGS_NONE;
    p->ids = ids;
    uint32_t first = p->n_lists;
    for (uint32_t k = 0; k < n; k++) {
        p->lists[first + k] = (bpe_posting_list){.start = p->n_ids, .len = len[k]};
        p->n_ids += len[k];
    }
    p->n_lists = p->first_open = first + n;
    return first;
}
