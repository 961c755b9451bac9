/*
 * diagnose.h — what the first differing merge of `bpebench check` says
 * about the bug (check.h). A merge list that differs from naive's is right
 * up to some merge i, so both trainers saw the same segmentation of every
 * word before it; replaying naive's first i merges on the case's words
 * gives the count the other trainer's pair really had there. The two
 * counts then tell the likely mistake apart:
 *
 *   no merge on one side     the number of merges, or the early stop
 *   text with CR, and a CR   CR LF read as LF: Python's universal newlines
 *   expected or got 0
 *   the same count           a tie broken the other way (SPEC §2.7)
 *   expected (x, x), more    overlapping occurrences of a pair counted once
 *                            (SPEC §2.6: [a, a, a] adds 2 to (a, a))
 *   got 0, otherwise         other words (pattern, special tokens, reading)
 *   got fewer, otherwise     pair counts that are not SPEC §2.6's
 *
 * Tokens are shown twice: as Python bytes literals (b'\r', what a CS336
 * trainer returns) and in the GPT-2 alphabet of merges.txt (č).
 */
#ifndef BPE_DIAGNOSE_H
#define BPE_DIAGNOSE_H

#include "bpe.h"

#include <stdio.h>

/* The first difference between two merge lists, explained. */
typedef struct {
    long index;               /* the first differing merge, or -1 when the lists are equal */
    const bpe_result *want;   /* the reference's list (naive: with counts); borrowed */
    const bpe_result *got;    /* the trainer's list (counts may be 0); borrowed */
    bool has_want, has_got;   /* each list has a merge at index (one may end before it) */
    uint64_t want_count;      /* has_want: the expected pair's count (naive's) */
    uint64_t got_count;       /* has_got: the got pair's count on the same segmentation;
                                 UINT64_MAX when out of memory */
    const char *hint;         /* the likely mistake, one sentence; static text, or NULL */
} diagnosis;

/* What the case was: its words (a carriage return in them points to CR LF
 * line ends) and its number of special tokens. */
typedef struct {
    const bpe_words *words;   /* the case's words, as naive was given them */
    size_t n_specials;        /* S */
} diagnose_input;

/* Finds and explains the first difference of got from want. O(i·M) for
 * the replay of the first i merges when there is a difference. */
diagnosis diagnose(const diagnose_input *in, const bpe_result *want, const bpe_result *got);

/* The count of the pair (left, right), given as byte strings, over `words`
 * segmented by the first `applied` merges of ref (SPEC §2.8: each merge
 * replaces non-overlapping occurrences, left to right): every adjacent
 * position counts, times its word's count (SPEC §2.6). UINT64_MAX when out
 * of memory. O(applied · M). */
uint64_t diagnose_pair_count(const bpe_words *words, const bpe_result *ref, size_t applied,
                             const uint8_t *left, uint32_t left_len, const uint8_t *right,
                             uint32_t right_len);

/* Bytes as Python writes a bytes literal (repr): b'a\r\n', b"it's",
 * b'\xc3\xa9'; cut with "..." when out is too small. */
void diagnose_bytes_literal(const uint8_t *bytes, size_t len, char *out, size_t out_len);

/* Prints the diagnosis under a case's line: one line per side (bytes
 * literals, merges.txt spelling, count) and the hint. */
void diagnose_print(FILE *out, const diagnosis *d);

#endif
