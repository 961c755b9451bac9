/* describe.c — see describe.h. */
#include "describe.h"
#include "array.h"

#include <stdlib.h>

void bpe_description_free(bpe_description *d)
{
    free(d->sections);
    free(d->rows);
    free(d->items);
    *d = (bpe_description){0};
}

/* Room for one more element in one of d's arrays (`data`, n in use, *cap
 * allocated, elements of `size` bytes): the block to store into, or NULL when
 * d has failed already or memory runs out (d is then failed: sticky). */
static void *room_for_one(bpe_description *d, void *data, size_t *cap, size_t n, size_t size)
{
    void *grown = d->failed ? NULL : bpe_array_reserve(data, cap, n + 1, size);
    d->failed = grown == NULL;
    return grown;
}

void bpe_describe_section(bpe_description *d, bpe_show_kind kind, bpe_show_when when,
                          const char *title, const char *key_name, const char *number0,
                          const char *number1)
{
    bpe_shown_section *grown = room_for_one(d, d->sections, &d->cap_sections, d->n_sections,
                                            sizeof *grown);
    if (!grown)
        return;
    d->sections = grown;
    d->sections[d->n_sections++] = (bpe_shown_section){
        .kind = kind, .when = when, .title = title, .key_name = key_name,
        .number_name = {number0, number1}, .first_row = d->n_rows, .n_rows = 0};
}

/* Appends a row to the current section (there must be one). */
static void add_row(bpe_description *d, bpe_shown_row row)
{
    d->failed |= d->n_sections == 0; /* a row outside every section */
    bpe_shown_row *grown = room_for_one(d, d->rows, &d->cap_rows, d->n_rows, sizeof *grown);
    if (!grown)
        return;
    d->rows = grown;
    row.first_item = d->n_items;
    row.n_items = 0;
    d->rows[d->n_rows++] = row;
    d->sections[d->n_sections - 1].n_rows++;
}

void bpe_describe_pair(bpe_description *d, bpe_token a, bpe_token b, uint64_t key,
                       uint64_t number0, uint64_t number1, bpe_mark mark)
{
    add_row(d, (bpe_shown_row){.a = a, .b = b, .key = key, .number = {number0, number1},
                               .mark = mark});
}

void bpe_describe_row(bpe_description *d, const char *name, uint64_t key, uint64_t number0)
{
    add_row(d, (bpe_shown_row){.name = name, .a = BPE_NO_TOKEN, .b = BPE_NO_TOKEN, .key = key,
                               .number = {number0, 0}});
}

void bpe_describe_ahead(bpe_description *d, uint64_t merges)
{
    d->merges_ahead = merges;
}

void bpe_describe_item(bpe_description *d, uint64_t id, bpe_token token, bpe_mark mark)
{
    d->failed |= d->n_rows == 0; /* an item outside every row */
    bpe_shown_item *grown = room_for_one(d, d->items, &d->cap_items, d->n_items, sizeof *grown);
    if (!grown)
        return;
    d->items = grown;
    d->items[d->n_items++] = (bpe_shown_item){.id = id, .token = token, .mark = mark};
    d->rows[d->n_rows - 1].n_items++;
}
