/*
 * output.h — the files `train` writes (SPEC §3): vocab.json, merges.txt,
 * tokenizer.json, tokenizer.tiktoken and tiktoken.json, replaced as one set
 * (base/fileset.h): the directory holds the whole old set or the whole new
 * one, never a mix and never a partial file.
 */
#ifndef BPE_OUTPUT_H
#define BPE_OUTPUT_H

#include "input/pretok.h"

/*
 * Whether vocab.json can hold special token `token` beside the byte and
 * learned tokens of any training (docs/spec.md §3): it must be valid UTF-8,
 * and not spelled like a token the GPT-2 byte alphabet spells. A token
 * written only in that alphabet's stand-in characters spells the byte string
 * d they stand for: when d is one byte, that is a byte token's key; when d
 * differs from the token's own UTF-8 bytes, text can hold d and training can
 * learn it. A token of printable ASCII only (d equals its bytes, such as
 * <|endoftext|>) is safe: every occurrence of it is cut out of the text
 * before pretokenization (SPEC §2.1), so no learned token has its bytes.
 * False with a one-line reason naming the token and the fix. O(length).
 */
bool output_special_token_ok(const char *token, char *err, size_t err_len);

/* Whether every path output_write_tokenizer would make in DIR (its files
 * and their temporary names) stays below PATH_MAX; false with a reason.
 * So that a long --out fails before training, not after. O(1). */
bool output_dir_fits(const char *dir, char *err, size_t err_len);

/* The name of the i-th file output_write_tokenizer writes into DIR
 * ("vocab.json", ...), or NULL past the last: what `train` checks against
 * its inputs (base/clobber.h). */
const char *output_tokenizer_file(size_t i);

/*
 * Writes the tokenizer trained with cfg's special tokens and pattern, as one
 * set (file_set_replace, base/fileset.h):
 *   vocab.json          {token string: id} (GPT-2 byte alphabet, SPEC §3);
 *   merges.txt          "#version: 0.2", then "left right" per merge;
 *   tokenizer.json      HF tokenizers: BPE model (that vocab, those merges),
 *                       pre_tokenizer Sequence[Split(the PCRE2 pattern,
 *                       Isolated), ByteLevel(no prefix space, no regex)],
 *                       ByteLevel decoder, special tokens in added_tokens;
 *   tokenizer.tiktoken  "base64(bytes) id" per byte and learned token;
 *   tiktoken.json       pat_str, special_tokens {token: id}, a note.
 * Merged ids are shifted past the S special tokens (SPEC §2.5); a twin (a
 * later merge building the bytes of an earlier token) has no key and no
 * rank, its bytes keep the first id (docs/spec.md §3). Each special token
 * must pass output_special_token_ok. False with a one-line reason.
 * O(V + total token bytes) time. The files are streamed to disk, so the
 * memory beside r is O(V + the longest token), though the files hold every
 * token's bytes about five times over (a corpus of one long periodic word
 * makes tokens of up to its length: docs/using-the-tokenizer.md).
 */
bool output_write_tokenizer(const char *dir, const bpe_result *r, const pretok_config *cfg,
                            char *err, size_t err_len);

/* What training was told beyond the pattern and the special tokens that
 * changes the merges. tokenizer.json and GPT-2's pair have no field for it
 * (HF tokenizers does not save its trainer's settings either), so
 * tiktoken.json, our own file, records it as "training": {"min_frequency":
 * N, "init_forced": "..."}, each present only when it is not its default. */
typedef struct {
    uint64_t min_frequency; /* train --min-frequency N; 0: not given */
    const char *init_forced; /* train --init --force: what differed from FROM ("pattern",
                                "special tokens"), recorded as "init_forced"; NULL: nothing */
} output_training;

/* output_write_tokenizer, with `training` (NULL: every default) recorded,
 * the files written by up to `threads` threads at once (file_set_replace;
 * output_write_tokenizer writes them one after another). */
bool output_write_tokenizer_with(const char *dir, const bpe_result *r, const pretok_config *cfg,
                                 const output_training *training, unsigned threads, char *err,
                                 size_t err_len);

/* A token's string in the GPT-2 byte-to-unicode alphabet; malloc'd, NUL-terminated. */
char *output_token_string(const bpe_vocab *v, bpe_token t);

#endif
