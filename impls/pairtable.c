/* pairtable.c — see pairtable.h. */
#include "pairtable.h"
#include "array.h"

#include <stdlib.h>
#include <string.h>

bool bpe_pairtable_init(bpe_pairtable *t, size_t record_size)
{
    *t = (bpe_pairtable){.record_size = record_size};
    return bpe_pairmap_init(&t->position, 1024);
}

void bpe_pairtable_free(bpe_pairtable *t)
{
    bpe_pairmap_free(&t->position);
    free(t->pairs);
    free(t->records);
    *t = (bpe_pairtable){0};
}

size_t bpe_pairtable_add(bpe_pairtable *t, bpe_token a, bpe_token b)
{
    /* Room in both arrays first: a failure then leaves the table as it was. */
    bpe_pair *pairs = bpe_array_reserve(t->pairs, &t->cap_pairs, t->len + 1, sizeof *pairs);
    if (!pairs)
        return SIZE_MAX;
    t->pairs = pairs;
    unsigned char *records = bpe_array_reserve(t->records, &t->cap_records, t->len + 1,
                                               t->record_size);
    if (!records)
        return SIZE_MAX;
    t->records = records;
    uint64_t *at = bpe_pairmap_upsert(&t->position, a, b);
    if (!at)
        return SIZE_MAX;
    size_t i = t->len++;
    *at = i;
    t->pairs[i] = (bpe_pair){.a = a, .b = b};
    return i;
}

void bpe_pairtable_remove(bpe_pairtable *t, size_t i)
{
    bpe_pairmap_remove(&t->position, t->pairs[i].a, t->pairs[i].b);
    size_t last = --t->len;
    if (i == last)
        return;
    t->pairs[i] = t->pairs[last];
    memcpy(t->records + i * t->record_size, t->records + last * t->record_size, t->record_size);
    *bpe_pairmap_find(&t->position, t->pairs[i].a, t->pairs[i].b) = i;
}
