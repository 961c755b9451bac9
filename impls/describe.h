/*
 * describe.h — what a trainer shows of itself between two merges, for
 * `bpebench trace`: a description in neutral terms (tables of pairs, a heap
 * in array order, lists of ids, the words as rows of tokens) that the
 * harness prints as text and draws as a picture. A trainer fills it from its
 * own structures with the functions below, in its optional `describe` hook
 * (bpe.h); it prints nothing, draws nothing and changes nothing.
 *
 * This file is a building block, not a lesson: each trainer's describe
 * function, at the end of its file, says what that trainer consults.
 *
 * A description is a list of sections, each a titled table of rows of one
 * kind, which says how the harness shows it:
 *   BPE_SHOW_WORDS       a row per word (key: the trainer's name for it, a
 *                        word id or a place; number[0]: its count), an item
 *                        per token, in order;
 *   BPE_SHOW_CHAINS      the same, each item a linked node (id: the node);
 *   BPE_SHOW_TABLE       a row per pair, with up to two numbers;
 *   BPE_SHOW_HEAP        the same, in heap-array order: drawn as a tree;
 *   BPE_SHOW_BUCKETS     the same, grouped by key (the bucket's count);
 *   BPE_SHOW_WORD_LISTS  a row per list (usually a pair's), an item per id,
 *                        each naming a row of the words section by its key;
 *   BPE_SHOW_NODE_LISTS  the same, each id naming a node of the chains;
 *   BPE_SHOW_VALUES      named numbers (a row each: name, number[0]).
 * And when a section matters:
 *   BPE_SHOWS_NEXT  what the next merge will consult (shown under that merge,
 *                   from the description made before it);
 *   BPE_SHOWS_LAST  what the merge just made consulted or left behind (shown
 *                   under that merge, from the description made after it).
 * The words are shown before and after each merge: the harness compares them.
 *
 * A trainer that applies several merges in one step and hands them out one
 * step at a time (batch_workers.c) says how far its state is ahead of
 * the merges handed out (bpe_describe_ahead); the harness then shows those
 * merges together, as the one change they were.
 *
 * Failure is sticky: a call that runs out of memory sets `failed`, and every
 * later call does nothing; the harness checks `failed` once, at the end. So a
 * describe function needs no error handling of its own.
 *
 * Ownership: the arrays belong to the bpe_description and are freed only by
 * bpe_description_free(); titles and names must be static strings.
 */
#ifndef BPE_DESCRIBE_H
#define BPE_DESCRIBE_H

#include "bpe.h"

typedef enum {
    BPE_SHOW_WORDS,
    BPE_SHOW_CHAINS,
    BPE_SHOW_TABLE,
    BPE_SHOW_HEAP,
    BPE_SHOW_BUCKETS,
    BPE_SHOW_WORD_LISTS,
    BPE_SHOW_NODE_LISTS,
    BPE_SHOW_VALUES,
} bpe_show_kind;

typedef enum {
    BPE_SHOWS_NEXT, /* consulted by the next merge */
    BPE_SHOWS_LAST, /* consulted or left by the merge just made */
} bpe_show_when;

/* What the harness says of a row or an item beside its numbers. */
typedef enum {
    BPE_MARK_NONE,  /* nothing */
    BPE_MARK_STALE, /* out of date: a snapshot above the pair's count, or a list
                     * entry whose word (or node) no longer holds the pair */
    BPE_MARK_DEAD,  /* the entry of a pair whose count is 0 */
    BPE_MARK_LOSS,  /* a decrease of the pair's count, by number[0] */
    BPE_MARK_GAIN,  /* an increase of the pair's count, by number[0] */
} bpe_mark;

/* One row of a section. */
typedef struct {
    const char *name;    /* a value's name, or a list's that is of no pair; else NULL */
    bpe_token a, b;      /* the pair it is about, or BPE_NO_TOKEN for both */
    uint64_t key;        /* the trainer's name for it: word id, place, entry, slot, bucket */
    uint64_t number[2];  /* its numbers, named by the section */
    bpe_mark mark;       /* what to say of it */
    size_t first_item;   /* its items are items[first_item ..+ n_items] */
    size_t n_items;
} bpe_shown_row;

/* One item of a row: a token of a word, a node of a chain, an id of a list. */
typedef struct {
    uint64_t id;     /* a node (chains), or the key of a word or the id of a node (lists) */
    bpe_token token; /* the token it holds (words, chains), else BPE_NO_TOKEN */
    bpe_mark mark;   /* what to say of it */
} bpe_shown_item;

/* One section: a titled table of rows. */
typedef struct {
    bpe_show_kind kind;          /* how to show it */
    bpe_show_when when;          /* which merge it belongs to */
    const char *title;           /* what it is, in the trainer's words */
    const char *key_name;        /* what a row's key is ("word", "slot", ...); NULL: not shown */
    const char *number_name[2];  /* what number[0] and number[1] are; NULL: unused */
    size_t first_row;            /* its rows are rows[first_row ..+ n_rows] */
    size_t n_rows;
} bpe_shown_section;

struct bpe_description {
    bpe_shown_section *sections; /* in the order described; owned */
    size_t n_sections, cap_sections;
    bpe_shown_row *rows;         /* every section's rows, section after section; owned */
    size_t n_rows, cap_rows;
    bpe_shown_item *items;       /* every row's items, row after row; owned */
    size_t n_items, cap_items;
    uint64_t merges_ahead;       /* merges the state holds that step() has not handed out */
    bool failed;                 /* an allocation failed: the description is incomplete */
};

/* Frees the arrays and empties d (a zeroed struct is an empty description). */
void bpe_description_free(bpe_description *d);

/* Starts a section; the rows described next are its own. O(1) amortized. */
void bpe_describe_section(bpe_description *d, bpe_show_kind kind, bpe_show_when when,
                          const char *title, const char *key_name, const char *number0,
                          const char *number1);

/* Adds a row about the pair (a, b) to the current section. O(1) amortized. */
void bpe_describe_pair(bpe_description *d, bpe_token a, bpe_token b, uint64_t key,
                       uint64_t number0, uint64_t number1, bpe_mark mark);

/* Adds a row about no pair (a word, a list of no pair, a value). O(1) amortized. */
void bpe_describe_row(bpe_description *d, const char *name, uint64_t key, uint64_t number0);

/* Says that the state described already holds `merges` merges beyond those
 * step() has handed out. O(1). */
void bpe_describe_ahead(bpe_description *d, uint64_t merges);

/* Adds an item to the current row. O(1) amortized. */
void bpe_describe_item(bpe_description *d, uint64_t id, bpe_token token, bpe_mark mark);

#endif
