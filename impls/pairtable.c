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
    free(t->records);
    *t = (bpe_pairtable){0};
}

/* The start of the record at position i. O(1). */
static unsigned char *record_bytes(const bpe_pairtable *t, size_t i)
{
    return t->records + i * t->record_size;
}

size_t bpe_pairtable_add(bpe_pairtable *t, bpe_token a, bpe_token b)
{
    /* Room first: a failure then leaves the table as it was. */
    unsigned char *records = bpe_array_reserve(t->records, &t->cap, t->len + 1, t->record_size);
    if (!records)
        return SIZE_MAX;
    t->records = records;
    uint64_t *at = bpe_pairmap_upsert(&t->position, a, b);
    if (!at)
        return SIZE_MAX;
    size_t i = t->len++;
    *at = i;
    *(bpe_pair *)record_bytes(t, i) = (bpe_pair){.a = a, .b = b};
    return i;
}

void bpe_pairtable_remove(bpe_pairtable *t, size_t i)
{
    bpe_pair gone = bpe_pairtable_pair(t, i);
    bpe_pairmap_remove(&t->position, gone.a, gone.b);
    size_t last = --t->len;
    if (i == last)
        return;
    memcpy(record_bytes(t, i), record_bytes(t, last), t->record_size);
    bpe_pair moved = bpe_pairtable_pair(t, i);
    *bpe_pairmap_find(&t->position, moved.a, moved.b) = i;
}
