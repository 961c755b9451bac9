/*
 * untrusted.h — what the harness does with text it did not write itself:
 * names that end up in file names, plots and reports must be *safe names*,
 * and anything shown on a terminal is *escaped* first.
 *
 * Safe names. Trainer names, corpus names (the NAME of --corpus NAME=PATH,
 * and of `corpus = NAME=PATH` in a config file), the slice labels after '@'
 * and the names read back from a results file are checked at every entry
 * point against one character set:
 *     a first character in [A-Za-z0-9], then [A-Za-z0-9._+-], at most
 *     UNTRUSTED_NAME_MAX bytes.
 * Such a name contains no quote, backtick, '$', ';', space, newline, '@',
 * '/' or any other character a shell, gnuplot or a path could give meaning
 * to, so it can be passed on as data everywhere. A slice name is
 * NAME@LABEL, both parts safe names.
 *
 * Display escaping. File names, special tokens and words come from users and
 * corpora and may hold control bytes, newlines, invalid UTF-8 or characters
 * that reorder text on a terminal. display_escape() keeps printable UTF-8 as
 * it is and writes everything else as an escape: \n \r \t \\ for those
 * bytes, \xNN for other control bytes and for bytes that are not UTF-8,
 * \u{XXXX} for C1 controls, line and paragraph separators, direction marks
 * and bidirectional embeddings, overrides and isolates. The output is one line of valid UTF-8 that shows every byte of
 * the input.
 */
#ifndef BPE_UNTRUSTED_H
#define BPE_UNTRUSTED_H

#include <stdbool.h>
#include <stddef.h>

enum { UNTRUSTED_NAME_MAX = 63 }; /* longest safe name, in bytes */

/* The rule in words, for messages that refuse a name. */
#define UNTRUSTED_NAME_RULE                                                                        \
    "use letters, digits and . _ + - (starting with a letter or digit), at most 63 bytes"

/* Whether `name` is a safe name (see above). O(length). */
bool untrusted_name_ok(const char *name);

/* Whether `name` is a safe name or NAME@LABEL with both parts safe. O(length). */
bool untrusted_slice_name_ok(const char *name);

/*
 * Writes the escaped form of in[0, len) to out[0, out_len) (out_len ≥ 4),
 * always NUL-terminated and never cut inside an escape; when the escape does
 * not fit, it ends with "..." instead. Returns out. O(len).
 */
char *display_escape(const char *in, size_t len, char *out, size_t out_len);

#endif
