/*
 * wordcount.h — word-count files: a word table on disk, so that counting
 * (the O(n) part of training, SPEC §2.1–2.4) and training can happen on
 * different machines, in different processes, or once for many trainings.
 *
 * The format, version 1 (docs/wordcount.md), is text, one record a line,
 * each line ending in '\n':
 *
 *     #bpebench word counts v1 {"pattern":"<PCRE2 source>","special_tokens":[...]}
 *     COUNT<TAB>WORD
 *     ...
 *     #end W TOTAL
 *
 * The header's JSON object names the pattern (its PCRE2 source, so `gpt2`
 * and the same pattern spelled out are the same) and the special tokens, in
 * order; readers ignore keys they do not know. COUNT is a decimal number
 * from 1 to 2^64 − 1 without leading zeros; WORD is the word's bytes in the
 * GPT-2 byte-to-unicode alphabet of merges.txt (base/byteunicode.h), so any
 * byte string is one printable field without tab, space or newline. Lines
 * are sorted by count, highest first, then by the words' bytes, so the
 * same words give the same file however they were counted. The last line
 * repeats how many words (W) and occurrences (TOTAL) the file holds, so a
 * file cut short is refused rather than read as fewer words.
 *
 * The reader is strict: anything else — a missing or unknown header, a
 * malformed count, a character outside the alphabet, a word given twice, a
 * missing or wrong end line, text after it — is a one-line error naming the
 * file and the line. It also judges what the file means: CR line ends, a
 * header JSON that a strict reader refuses (a "\u0000" escape, a key
 * given twice, text after the object: base/jsonstrict.h), a control byte
 * in the pattern or a special token, a pattern that does not compile, and
 * a word that is or holds a special token (counting cuts those out, so no
 * counted word holds one) are each the file's error too.
 * Files are summed with 64-bit, overflow-checked counts; files whose
 * pattern or special tokens differ are refused (their words do not mean
 * the same thing).
 */
#ifndef BPE_WORDCOUNT_H
#define BPE_WORDCOUNT_H

#include "input/wordtable.h"
#include "base/atomicfile.h"

/* What a word-count file was counted with. */
typedef struct {
    char *pattern;          /* the PCRE2 source; owned */
    char **specials;        /* the special tokens, in order; owned, each owned */
    size_t n_specials;      /* S */
} wordcount_meta;

void wordcount_meta_free(wordcount_meta *m);

/* Whether a pattern or special token can go into a header: no control byte
 * (0x00-0x1F, 0x7F), which the reader refuses there. False with "holds
 * control byte 0x0A at byte offset N". O(length). */
bool wordcount_header_text_ok(const char *text, char *why, size_t why_len);

/* Writes the words (a table's view, word_table_view, with what they were
 * counted with: the pattern's source and the special tokens) to `sink` in
 * the format above. False with a one-line reason (out of memory, counts
 * that add up past 2^64 − 1, or the sink's). O(W·d + M) time (d: the sort's
 * digits per word, wordsort.h), 24·W bytes beside the words. */
bool wordcount_format(const bpe_words *words, const char *pattern_source,
                      const char *const *specials, size_t n_specials, byte_sink sink, char *err,
                      size_t err_len);

/* The same to a file, whole or not at all (atomicfile.h). */
bool wordcount_write_file(const char *path, const bpe_words *words, const char *pattern_source,
                          const char *const *specials, size_t n_specials, char *err,
                          size_t err_len);

/*
 * Parses one file's text text[0, len) (any bytes), named `name` in
 * messages, adding its words to `sum` (which may already hold other files'
 * words). `meta`: when meta->pattern is NULL it is filled from the header;
 * otherwise the header must name the same pattern and special tokens. False
 * with "NAME:LINE: reason"; then `sum` may hold part of the file (the caller
 * drops it). O(len) expected.
 */
bool wordcount_parse(const char *name, const uint8_t *text, size_t len, wordcount_meta *meta,
                     word_table *sum, char *err, size_t err_len);

/* Reads and sums files paths[0, n) into `sum` (initialized by the caller),
 * filling `meta` (zeroed by the caller; free it). False with a one-line reason. */
bool wordcount_read_files(char *const *paths, size_t n, wordcount_meta *meta, word_table *sum,
                          char *err, size_t err_len);

#endif
