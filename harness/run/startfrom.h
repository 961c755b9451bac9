/*
 * startfrom.h — `train --init FROM`: a run that starts from the merges of
 * an existing tokenizer instead of from the bytes.
 *
 * The idea. A BPE run is a sequence of merges, each applied to every word
 * (SPEC §2.8); the state after k merges is the word table with those k
 * merges applied. So a run can start there: read FROM's merges, apply them
 * to each word in order (each word becomes a sequence of tokens, some of
 * them ≥ 256), give the trainer those symbols and a vocabulary that already
 * holds the k tokens, and let it go on with merge k, token 256 + k. When
 * FROM holds the first k merges of a run on the same text, the rest is that
 * run's, byte for byte: the trainer's state is the one it would have had,
 * and the tie-break (SPEC §2.7) compares tokens by their bytes, which the
 * vocabulary carries. No trainer knows it: it reads a word's symbols
 * (bpe.h) where it would read the bytes.
 *
 * Applying the merges to one word: repeatedly find the adjacent pair of
 * lowest rank among FROM's merges and merge each of its occurrences, left
 * to right. That is applying the merges one by one in rank order: the pair
 * of rank r is merged into a token that only pairs of rank > r use, so no
 * pair of rank < r appears again. O(L²) per word of L symbols (a scan per
 * merge it takes part in) plus O(1) expected per lookup (pairmap.h).
 *
 * FROM is one of:
 *   - a tokenizer.json (HF tokenizers' file, ours or another's): the merges
 *     of its BPE model ("a b" strings or [a, b] pairs, GPT-2's byte
 *     alphabet), its special tokens (added_tokens marked special) and its
 *     split pattern (the Regex of a Split pre-tokenizer), when it has them;
 *   - a directory holding tokenizer.json, or else GPT-2-style vocab.json +
 *     merges.txt (GPT-2's own files): the merges, and as special tokens the
 *     vocab's keys that no byte and no merge spells; no pattern (those files
 *     hold none, docs/using-the-tokenizer.md).
 * Ids follow SPEC §2.5 (bytes, specials, then merges in order), so FROM's
 * merged tokens keep their ids when FROM was written by bpebench; GPT-2's
 * own files number their bytes in another order, so only their ranks (the
 * order of the merges) carry over. A merge whose operand is spelled by two
 * tokens (a twin, docs/spec.md §3) takes the first, as vocab.json does.
 */
#ifndef BPE_STARTFROM_H
#define BPE_STARTFROM_H

#include "bpe.h"

#include <stdbool.h>
#include <stddef.h>

/* What FROM holds. */
typedef struct {
    bpe_result merges;  /* its merges, in order, and their tokens; owned */
    char *pattern;      /* its split pattern as written, or NULL (vocab.json + merges.txt); owned */
    char **specials;    /* its special tokens, in id order; owned */
    size_t n_specials;  /* how many */
    bool knows_specials; /* whether FROM says which special tokens it has (tokenizer.json, vocab.json) */
} start_tokenizer;

/* Reads FROM (above) into *st (free with start_tokenizer_free). False with
 * a one-line reason naming the file and what is wrong. O(size of FROM). */
bool start_read(const char *from, start_tokenizer *st, char *err, size_t err_len);
void start_tokenizer_free(start_tokenizer *st);

/* The words of a table with `start`'s merges applied: what a trainer
 * continuing from them reads. */
typedef struct {
    bpe_token *symbols; /* every word's symbols, back to back; owned */
    bpe_word *array;    /* the words, each pointing into symbols; owned */
    bpe_words view;     /* what a trainer is given (bpe_train_from) */
} start_words;

/* Applies start's merges to every word of `in` (above). False on OOM. */
bool start_apply(const bpe_result *start, const bpe_words *in, start_words *out);
void start_words_free(start_words *w);

#endif
