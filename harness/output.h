/*
 * output.h — vocab.json and merges.txt (SPEC §3), written atomically: each
 * file goes to a temporary name in the same directory and is renamed into
 * place only when complete; on any failure no new file is left behind.
 */
#ifndef BPE_OUTPUT_H
#define BPE_OUTPUT_H

#include "bpe.h"

/* Writes DIR/vocab.json and DIR/merges.txt. Merged ids are shifted past the
 * S special tokens (SPEC §2.5). False with a one-line reason in err. */
bool output_write_tokenizer(const char *dir, const bpe_result *r, const char *const *specials,
                            size_t n_specials, char *err, size_t err_len);

/* Writes `len` bytes to `path` atomically (temporary file, fsync, rename). */
bool output_write_atomic(const char *path, const char *data, size_t len, char *err, size_t err_len);

/* A token's string in the GPT-2 byte-to-unicode alphabet; malloc'd, NUL-terminated. */
char *output_token_string(const bpe_vocab *v, bpe_token t);

#endif
