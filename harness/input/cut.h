/*
 * cut.h — where a text may be cut so that pretokenizing the two sides apart
 * gives exactly the pretokens of pretokenizing it whole (SPEC §2.1–2.3).
 *
 * The parallel and dedup counting strategies cut the corpus into chunks and
 * pretokenize each on its own; this file is the proof that they may. A cut at
 * byte c of a text is safe when no special token occurrence spans it (starts
 * before c and ends after it) and either
 *
 *   (a) a special token starts at c: SPEC §2.1 cuts there anyway; or
 *   (b) the pattern is gpt2 or gpt4 and a line break lies between two words:
 *       Y '\n' | X for both patterns, and for text with CRLF line ends
 *       Y '\r' | '\n' X for gpt2, Y '\r' '\n' | X for gpt4 (| is the cut),
 *       with Y and X valid UTF-8 code points that are not whitespace (\S
 *       under PCRE2_UCP).
 *
 * Why (b) is safe for both shipped patterns (shown for '\n'; CRLF below). They have no lookbehind, no \b
 * and no anchor, so a match attempted at c depends only on the text from c
 * on: the right side matches alike whether it is a subject of its own or the
 * rest of a longer one. On the left, the whole-text tokenizer ends a
 * pretoken exactly at c, and no attempt started before c reads past c − 1
 * differently from the cut-off text:
 *   - gpt2's alternatives each consume one class (letters, digits, other
 *     non-space, whitespace). Y is not whitespace, so the whitespace run
 *     holding the '\n' starts at c − 1 and every non-space match stops there.
 *     At c − 1 the whole text matches `\s+` = "\n" (`\s+(?!\S)` fails: X
 *     follows); the cut-off text matches `\s+(?!\S)` = "\n" (end of
 *     subject). Same pretoken, ending at c.
 *   - gpt4: the one alternative that crosses a class, ` ?[^\s\p{L}\p{N}]++
 *     [\r\n]*`, may take the '\n' after punctuation Y and stops before X
 *     (not \r or \n) as it stops at the end of the cut-off text. Otherwise
 *     the '\n' starts a match at c − 1, and `\s*[\r\n]` = "\n" wins there in
 *     both texts. Either way a pretoken ends at c.
 *   - CRLF, gpt2: the whole text splits "\r\n" before X into "\r" (`\s+(?!\S)`
 *     backs off the '\n') and "\n"; the cut-off text ending in "\r" matches
 *     "\r" too, and the right side starts "\n" X as above — unless a special
 *     token starts at X: then the piece ends with "\r\n", one pretoken, so
 *     that case is refused. Cutting after the "\r\n" would be wrong: the
 *     cut-off text would match "\r\n" whole.
 *   - CRLF, gpt4: "\r\n" is one pretoken in both texts (`\s*[\r\n]` backs off
 *     to "\r" + "\n"; after punctuation `[\r\n]*` takes both), so the cut goes
 *     after it; between them it would split that pretoken.
 * A user pattern gets no rule (b): it may look behind, anchor, or join any
 * classes, so it is cut at special tokens and file boundaries only.
 *
 * Requiring Y and X to be valid UTF-8 also keeps runs of invalid bytes
 * (SPEC §2.3) whole on one side. The whitespace test is PCRE2's own (a tiny
 * `\s` pattern), so PCRE2 stays the definition of a character class.
 */
#ifndef BPE_CUT_H
#define BPE_CUT_H

#include "input/pretok.h"

typedef struct cut_finder cut_finder;

/* A finder for cfg's specials and pattern (read only here: the specials go
 * into a trie of its own, specials.h). NULL on OOM. */
cut_finder *cut_finder_new(const pretok_config *cfg);
void cut_finder_free(cut_finder *f);

/* Whether rule (b) applies: the pattern is gpt2 or gpt4. */
bool cut_finder_splits_text(const cut_finder *f);

/* The longest special token, in bytes: how far around c the test reads. */
size_t cut_finder_reach(const cut_finder *f);

/* Whether a cut at text[c] is safe, where text[0, len) holds the bytes
 * around it (at least cut_finder_reach + 4 on each side, or up to an end of
 * the input). O(longest special²) at worst, whatever S is: a trie walk from
 * each place a special token spanning c could start. */
bool cut_is_safe(const cut_finder *f, const uint8_t *text, size_t len, size_t c);

/* The first safe cut in text[from, to) (to ≤ len), or `to` when there is
 * none. O((to − from) · longest special²) at worst, O(to − from) when
 * specials are rare. */
size_t cut_find(const cut_finder *f, const uint8_t *text, size_t len, size_t from, size_t to);

#endif
