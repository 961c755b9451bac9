/*
 * initialpairs.h — the initial pair counts of a word table, on T threads:
 * the one full count every incremental trainer makes in its create().
 *
 * This file is a building block, not a lesson. What a trainer needs before
 * its first merge is "every adjacent pair of every word, with its count (and,
 * for some, the words or positions holding it), in the order a pass over the
 * words in word order first meets it" — each trainer's file shows what it
 * builds from that. Before any merge that is a pure function of the word
 * table, so it can be computed on several threads (seed 004's parallel
 * build_initial_counts: thread-local statistics merged at the end); this
 * file does it so that the result is exactly one serial pass's, whatever T.
 *
 * What it computes, for words w = 0 … W − 1 and positions i of each:
 *   - pairs: the P distinct pairs (w[i], w[i+1]), in first-seen order (by
 *     word, then by position);
 *   - counts: count(pair) = Σ count(w) over its occurrences (SPEC §2.6);
 *   - positions: the adjacent positions counted, Σ (len(w) − 1) = M − W when
 *     no word is empty: the updates one serial count would make, which the
 *     trainers' work counters count;
 *   - optionally each pair's list, as a frozen list of a bpe_postings
 *     (postings.h): list k belongs to pairs[k]. BPE_LIST_WORDS: the words
 *     holding the pair, each once, ascending (inverted_index.c, heap.c, …),
 *     or each named by the caller's own name for it
 *     (bpe_initial_pairs_count_named: a trainer that keeps its words
 *     elsewhere names each by where it keeps it); BPE_LIST_POSITIONS: the
 *     position in M (words laid end to end, as linked_list.c's nodes) of
 *     the left symbol of every occurrence, ascending.
 *
 * How, in four steps (T = min(threads, W)):
 *   1. plan: the words are cut into T contiguous ranges of about M / T
 *      symbols each (one pass over the W lengths, on the caller's thread);
 *   2. count, in parallel: each thread counts the pairs of its range in a
 *      table of its own (below), a record per pair in the order the thread
 *      first met it: count, and how many ids it lists; nothing is shared,
 *      so nothing is locked;
 *   3. merge, on the caller's thread: the threads' tables are read in range
 *      order, each in its own first-seen order; a pair gets the next global
 *      index when it is first met. A pair first seen in range r is met in no
 *      earlier range, and the ranges are in word order, so this is the
 *      serial first-seen order. Counts add up. Each pair's list is the
 *      concatenation of its ids in the ranges, in range order; the merge
 *      sizes the slices (bpe_postings_open_sized) and tells each thread, for
 *      each of its pairs, where in its pair's slice its own ids begin;
 *   4. list, in parallel: each thread walks its range again and writes its
 *      ids straight into those places (no two threads share a slot).
 * Why two passes over the words and not one: one pass would keep each
 * thread's ids in lists of its own, to be copied into place after the
 * merge — every id written twice and read once more, and an extra 4 bytes
 * per id held at the peak. Reading the words again (sequential bytes) and
 * finding each pair again (one load, below) is cheaper.
 *
 * The table each thread counts in. Before any merge a pair is two bytes, so
 * P ≤ 2^16 and the pair (a, b) can be its own key a·256 + b: the table is an
 * array addressed by the key (pair_index in the .c file), with no hash
 * and no probe, and a bitmap of 8 KiB saying which keys are in use so that
 * the array itself never needs clearing. Words that start from merged
 * symbols (bpe_train_from, train --init) have pairs of any tokens: their
 * table is a hash map (pairmap.h) instead, with the same results.
 *
 * Chosen by measurement (the timings are in this file's history). Seed
 * 004's design as written, each thread's table a hash map (pairmap.h), spent
 * about half its time hashing; the direct table does the same steps in
 * about half the time. Counting and listing run on every thread, and the
 * plan and the merge on the caller's are a few percent of the call, so the
 * alternatives gain nothing here: partitioning pairs by hash among the
 * threads would save only the small merge, while every thread read all M
 * symbols twice; a serial pass that only sums the lists' sizes, before a
 * parallel scatter, is step 2 on one thread. What keeps 2 threads from 2×:
 * the lists' ids are written for the first time in step 4, and first-touch
 * page faults barely go faster on two threads of a virtual machine.
 *
 * Invariant (what makes the result serial's): range r holds words
 * first_word(r) … end_word(r) − 1, the ranges are contiguous and in word
 * order; within a range a thread meets pairs and lists ids in serial order.
 *
 * Complexity: O(M / T) per thread for steps 2 and 4, plus O(W) for the plan
 * and O(Σ_r P_r) for the merge (P_r ≤ P: the pairs of range r) on the
 * caller's thread; as P ≤ 2^16 however large the corpus, the serial part
 * stays small. Memory: 136 KiB + O(P) per thread, the result's O(P), and
 * the lists' ids (postings.h) — no scratch cells.
 *
 * Threads: POSIX threads, T − 1 of them (the caller works as the first),
 * started and joined inside each parallel step: none outlives a call. A
 * thread that cannot be started leaves its range to the caller. Shared
 * state: the words (read only), each thread's own record (written by that
 * thread, read by the caller only after the join), and the ids arena (each
 * slot written by one thread). An allocation that fails in any thread makes
 * the call return false, after every thread is joined and everything freed.
 *
 * Ownership: the result's arrays are owned by the bpe_initial_pairs and freed
 * only in bpe_initial_pairs_free(); the lists belong to the caller's
 * bpe_postings.
 */
#ifndef BPE_INITIALPAIRS_H
#define BPE_INITIALPAIRS_H

#include "pairtable.h" /* bpe_pair */
#include "postings.h"

/* Which list to build for each pair, beside its count. */
typedef enum {
    BPE_LIST_NONE,      /* counts only (incremental.c) */
    BPE_LIST_WORDS,     /* the ids of the words holding the pair, each once, ascending */
    BPE_LIST_POSITIONS, /* the position in M of the left symbol of each occurrence, ascending */
} bpe_list_kind;

/* The pairs of a word table before any merge. */
typedef struct {
    bpe_pair *pairs;    /* the P distinct adjacent pairs, in first-seen order; owned */
    uint64_t *counts;   /* counts[k]: the count of pairs[k] (SPEC §2.6); owned */
    size_t n_pairs;     /* P */
    uint64_t positions; /* adjacent positions counted: Σ (len(w) − 1) */
} bpe_initial_pairs;

/*
 * Counts the pairs of `words` on up to `threads` threads (0 is taken as 1)
 * into *out: the same pairs, order, counts and lists for any thread count.
 * With `lists` other than BPE_LIST_NONE, `postings` must have no list yet
 * (a zeroed struct) and receives P frozen lists, list k for pairs[k]; the
 * input must then fit 32-bit ids (bpe_postings_fit). With BPE_LIST_NONE,
 * `postings` may be NULL. Counts are exact when bpe_pair_count_bound holds
 * (bpe_train checks it first). False on OOM, or when the lists would not
 * fit; then *out holds nothing and `postings` no list (only, perhaps, room
 * it allocated, freed with it). O(M / T + W + Σ_r P_r) time; see the top.
 */
bool bpe_initial_pairs_count(const bpe_words *words, unsigned threads, bpe_list_kind lists,
                             bpe_postings *postings, bpe_initial_pairs *out);

/*
 * bpe_initial_pairs_count with BPE_LIST_WORDS, except that word w is listed
 * as names[w], not as w: the caller's own name for it (say, where the
 * trainer keeps it). The names must be distinct; each list then names its
 * words in word order. Same results otherwise, same cost, plus one read of
 * names[w] per word listed.
 */
bool bpe_initial_pairs_count_named(const bpe_words *words, unsigned threads,
                                   const uint32_t *names, bpe_postings *postings,
                                   bpe_initial_pairs *out);

/* Frees the arrays. Accepts a zeroed struct. */
void bpe_initial_pairs_free(bpe_initial_pairs *p);

#endif
