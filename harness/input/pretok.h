/*
 * pretok.h — SPEC §2.1–2.4: cut text at special tokens, check UTF-8, split
 * each piece with the pattern (gpt2 and gpt4: the lexer of lexer.h, which
 * cuts where PCRE2 does; any other: PCRE2), and count the pretokens in a
 * word table.
 *
 * The corpus is streamed: text arrives in chunks of any size and the
 * pretokenizer keeps back only what the next chunk could still change (an
 * unfinished UTF-8 sequence, the start of a special token, a pretoken that
 * reaches the end of the chunk). Memory is O(chunk + longest pretoken), not O(n).
 */
#ifndef BPE_PRETOK_H
#define BPE_PRETOK_H

#include "input/wordtable.h"

#include <stdio.h>

typedef enum {
    INVALID_UTF8_ERROR, /* stop at the first invalid sequence (default) */
    INVALID_UTF8_BYTES, /* each maximal run of invalid bytes is a pretoken of its own */
} invalid_utf8_mode;

/* What splits gpt2 and gpt4 text into pretokens (--pretokenizer); a user
 * pattern is always PCRE2's. Both give the same pretokens. */
typedef enum {
    PRETOK_LEXER, /* the hand-written lexer, lexer.c (the default) */
    PRETOK_PCRE2, /* PCRE2 with the pattern's source, JIT-compiled */
} pretok_engine;

/* A pattern compiled for PCRE2 once (pretok_compile below). */
typedef struct pretok_compiled pretok_compiled;

/* What to pretokenize with. Strings are borrowed for the pretokenizer's life. */
typedef struct {
    const char *const *specials; /* special tokens, each non-empty and distinct */
    size_t n_specials;           /* S */
    const char *pattern;         /* "gpt2", "gpt4", or a PCRE2 pattern */
    invalid_utf8_mode invalid_utf8; /* what to do with bytes that are not UTF-8 */
    pretok_engine engine;        /* lexer or PCRE2, for gpt2 and gpt4 */
    const pretok_compiled *compiled; /* `pattern` compiled by pretok_compile, borrowed and
                                  * shared by every pretokenizer made with this config, on
                                  * any thread; NULL: each compiles its own */
} pretok_config;

/* The PCRE2 source of a named pattern ("gpt2", "gpt4"), or `name` itself. */
const char *pretok_pattern_source(const char *name);

/* "lexer" or "pcre2"; and back: false for any other name. */
const char *pretok_engine_name(pretok_engine engine);
bool pretok_engine_parse(const char *name, pretok_engine *engine);

/* The engine that actually splits cfg's text: PCRE2 for a user pattern. */
pretok_engine pretok_engine_used(const pretok_config *cfg);

/* Whether a pattern (a name or a PCRE2 source) compiles as pretok_new
 * compiles it; false with PCRE2's reason and offset in why. For patterns
 * read from files, whose errors are the file's. */
bool pretok_pattern_compiles(const char *pattern, char *why, size_t why_len);

/* The same pattern spelled so that other engines find PCRE2's pieces too —
 * JavaScript's RegExp with the u flag (js-tiktoken), Oniguruma (HF
 * tokenizers), fancy-regex (tiktoken) — for the files `train` writes: gpt2
 * and gpt4 with `\s` written as the class PCRE2 means by it (JavaScript's
 * `\s` also takes U+FEFF and leaves out U+0085 and U+180E), no possessive
 * quantifiers and no inline flags (JavaScript has neither); a user pattern
 * as it is (docs/using-the-tokenizer.md says what differs there). */
const char *pretok_pattern_portable(const char *name);

/* What one pretokenizer has seen. */
typedef struct {
    uint64_t bytes;          /* n: input bytes, specials included */
    uint64_t pretokens;      /* pieces counted into the word table */
    uint64_t specials;       /* special-token occurrences cut out */
    uint64_t invalid_runs;   /* runs of invalid UTF-8 kept as bytes (bytes mode) */
    uint64_t unmatched_bytes;/* bytes a user pattern did not match (skipped, as finditer does) */
} pretok_stats;

typedef struct pretokenizer pretokenizer;

/* Compiles cfg's pattern for PCRE2, JIT where the machine has it, once for a
 * command: *out is read-only from then on, so the pretokenizers of all its
 * threads borrow it (cfg.compiled) and each makes only its own match data
 * and JIT stack. *out is NULL when the lexer splits cfg's text. False with
 * PCRE2's reason and offset in err. Free with pretok_compiled_free. */
bool pretok_compile(const pretok_config *cfg, pretok_compiled **out, char *err, size_t err_len);
void pretok_compiled_free(pretok_compiled *c);

/* Compiles the pattern (JIT) and the special-token matcher. On error returns
 * NULL with a one-line reason in err (e.g. the pattern's offset). */
pretokenizer *pretok_new(const pretok_config *cfg, char *err, size_t err_len);
void pretok_free(pretokenizer *p);

/*
 * Streams one input (a file, or any named source). Call pretok_begin, then
 * pretok_feed with successive chunks, then pretok_end. Pieces are counted into
 * `words`. `name` is used in error messages ("FILE: invalid UTF-8 at byte
 * offset N ..."). Each call returns false with a one-line reason in err.
 */
void pretok_begin(pretokenizer *p, const char *name, word_table *words);
/* The same for a part of an input that starts at byte `offset` of it (a
 * chunk cut at a safe place, cut.h): errors name offsets in the whole input. */
void pretok_begin_at(pretokenizer *p, const char *name, word_table *words, uint64_t offset);
/* The same for the next part of one count, into the table the last part
 * was counted into: when that part's pretok_end returned true and nothing
 * else has changed the table since, the frequent words it kept at hand
 * (pretok.c's hot words) stay there, instead of being found again one by
 * one; else it is pretok_begin_at. */
void pretok_continue_at(pretokenizer *p, const char *name, uint64_t offset);
/* After pretok_begin(_at): every pretoken of this input is counted `times`
 * times (a text that occurs that often; pretok_stats still count it once). */
void pretok_set_multiplicity(pretokenizer *p, uint64_t times);
bool pretok_feed(pretokenizer *p, const uint8_t *data, size_t len, char *err, size_t err_len);
/* pretok_feed in two steps, for a caller that reads the next chunk straight
 * into the pretokenizer instead of into a buffer of its own that pretok_feed
 * would copy: pretok_feed_room returns where up to `len` bytes may be
 * written (NULL on OOM, with the reason in err), valid until the next call
 * on p; pretok_feed_written(p, got) then takes the first `got` (≤ len) of
 * them as pretok_feed would. */
uint8_t *pretok_feed_room(pretokenizer *p, size_t len, char *err, size_t err_len);
bool pretok_feed_written(pretokenizer *p, size_t len, char *err, size_t err_len);
bool pretok_end(pretokenizer *p, char *err, size_t err_len);
/* pretok_end for a part of a count whose table is read only for its words
 * until the count ends: every word of the input is in the table, in
 * first-seen order, but the counts of the frequent words kept at hand may
 * be held back, to be added with those of the next parts (pretok_continue_at)
 * by pretok_flush. The table's counts are right only after pretok_flush;
 * pretok_begin(_at) into another table drops what is held back. */
bool pretok_end_words(pretokenizer *p, char *err, size_t err_len);
/* Adds every count held back to the table the last input was counted into:
 * after a pretok_end_words that returned true, the table is then as
 * pretok_end would have left it. False (counts too large) with the reason
 * in err. */
bool pretok_flush(pretokenizer *p, char *err, size_t err_len);

/* Pretokenizes a whole in-memory text as one input; the pieces (and each
 * special token) are passed to `emit` in order instead of being counted.
 * The text is fed `chunk` bytes at a time (0: all at once), so tests can check
 * that streaming never changes the pieces. For tests and `bpebench stats`. */
typedef void (*pretok_emit_fn)(void *ctx, const uint8_t *piece, size_t len, bool is_special);
bool pretok_split(pretokenizer *p, const char *name, const uint8_t *text, size_t len, size_t chunk,
                  pretok_emit_fn emit, void *ctx, char *err, size_t err_len);

const pretok_stats *pretok_get_stats(const pretokenizer *p);

#endif
