/*
 * jsonstrict.h — reading JSON that others wrote (results files, the header
 * of a word-count file) with cJSON, strictly: what cJSON lets through but a
 * reader of untrusted text must refuse, in one place.
 *
 *   - A "\u0000" escape: cJSON ends its C string there, silently dropping
 *     the rest ("naive\u0000anything" reads as "naive").
 *   - Text after the value: cJSON stops after the first one, so
 *     `cat a.json b.json` would read as a.json.
 *   - A key given twice in one object: JSON readers disagree on its value
 *     (cJSON takes the first, jq and Python the last), so such a file could
 *     mean one thing to bpebench and another to every other tool.
 *
 * Reasons are one line without the file's name (the caller adds it) and
 * name the byte offset, counted from the start of the text given plus
 * `base` (where that text starts in its file).
 */
#ifndef BPE_JSONSTRICT_H
#define BPE_JSONSTRICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Parses text[0, len) as one JSON value with nothing but whitespace after
 * it and no "\u0000" escape in it. The tree (cJSON_Delete it), or NULL with
 * the reason. O(len). */
cJSON *json_strict_parse(const char *text, size_t len, size_t base, char *err, size_t err_len);

/* Whether no object in the tree holds a key twice; else false with the
 * first repeated key. O(k log k) per object of k keys; recursion as deep as
 * the nesting cJSON accepts (1000). */
bool json_strict_keys_unique(const cJSON *node, char *err, size_t err_len);

#endif
