/*
 * output.h — the files `train` writes (SPEC §3): vocab.json, merges.txt,
 * tokenizer.json, tokenizer.tiktoken and tiktoken.json, replaced as one set. Each file goes to a temporary name in the same
 * directory and is renamed into place only when complete; a set is renamed
 * into place under a lock on the directory, and a failure at any point puts
 * every old file back: the directory holds the whole old set or the whole
 * new one, never a mix and never a partial file.
 */
#ifndef BPE_OUTPUT_H
#define BPE_OUTPUT_H

#include "base/atomicfile.h"
#include "input/pretok.h"

/* One file of a set written by output_write_set: its contents in memory, or
 * a producer that streams them (a file larger than memory should hold). */
typedef struct {
    const char *name; /* its name inside the directory ("vocab.json"); no '/' */
    const char *data; /* its contents; borrowed; NULL when `write` makes them */
    size_t len;       /* their length in bytes */
    /* Writes the contents to `sink` in pieces, false with a one-line reason
     * in err; used when data is NULL. */
    bool (*write)(const void *ctx, byte_sink sink, char *err, size_t err_len);
    const void *ctx;  /* passed back to write unchanged */
} output_file;

/*
 * Replaces DIR/name for every file of the set, or none of them:
 *   1. every file is written whole to a temporary name beside its target
 *      (DIR/name.tmp.XXXXXX, registered for removal on a signal, signals.h);
 *   2. the directory is locked (flock on DIR itself, so no lock file is left
 *      behind): two writers of the same DIR take turns, and each one's set
 *      is renamed into place whole; a writer waits at most
 *      OUTPUT_LOCK_WAIT_SECONDS for the other;
 *   3. with the signals held: each target must be absent or a regular file;
 *      each old target gets a second name (a hard link DIR/name.tmp.XXXXXX)
 *      so that it can be put back; every temporary file is renamed into
 *      place; the second names are dropped. A failure on the way renames
 *      the old files back (and removes new ones that had no old file).
 * False with a one-line reason in err (naming the file and the fix); then
 * every old file is as it was and no temporary file is left. Interrupted by
 * SIGKILL in step 3 only, a DIR/name.tmp.* file may stay behind.
 * O(total bytes + n).
 */
enum { OUTPUT_LOCK_WAIT_SECONDS = 30 };
bool output_write_set(const char *dir, const output_file *files, size_t n_files, char *err,
                      size_t err_len);

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

/* Whether no file output_write_tokenizer would write into DIR (nor a
 * temporary name beside one) reaches an input (base/clobber.h): inputs as
 * named, files as listed from them (corpus_list_inputs). Checked once the
 * inputs are listed, before anything is read or written. False with a
 * one-line reason, also for a DIR too long for its files (output_dir_fits):
 * the request itself is wrong (train exits 2). */
bool output_spares_inputs(const char *dir, const char *const *inputs, size_t n_inputs,
                          char *const *files, size_t n_files, char *err, size_t err_len);

/*
 * Writes the tokenizer trained with cfg's special tokens and pattern, as one
 * set (output_write_set):
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
 * O(V log V + total token bytes) time. The files are streamed to disk, so the
 * memory beside r is O(V + the longest token), though the files hold every
 * token's bytes about five times over (a corpus of one long periodic word
 * makes tokens of up to its length: docs/using-the-tokenizer.md).
 */
bool output_write_tokenizer(const char *dir, const bpe_result *r, const pretok_config *cfg,
                            char *err, size_t err_len);

/* A token's string in the GPT-2 byte-to-unicode alphabet; malloc'd, NUL-terminated. */
char *output_token_string(const bpe_vocab *v, bpe_token t);

#endif
