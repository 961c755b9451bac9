/* jsonstrict.c — see jsonstrict.h. */
#include "base/jsonstrict.h"
#include "base/errors.h"

#include <stdlib.h>
#include <string.h>

/* The offset of the first "\u0000" escape in JSON text, or len when there
 * is none. In valid JSON a backslash appears only inside strings, and an
 * escape is one preceded by an even number of other backslashes. O(len). */
static size_t nul_escape(const char *text, size_t len)
{
    for (size_t i = 0; i + 6 <= len; i++) {
        if (text[i] != '\\' || text[i + 1] != 'u' || memcmp(text + i + 2, "0000", 4) != 0)
            continue;
        size_t before = 0;
        while (before < i && text[i - 1 - before] == '\\')
            before++;
        if (before % 2 == 0)
            return i;
    }
    return len;
}

cJSON *json_strict_parse(const char *text, size_t len, size_t base, char *err, size_t err_len)
{
    size_t nul = nul_escape(text, len);
    if (nul < len) {
        set_error(err, err_len, "a string holds U+0000 (NUL) at byte offset %zu; every field is "
                  "text without NUL characters", base + nul);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        set_error(err, err_len, "not valid JSON near byte offset %zu", base + offset);
        return NULL;
    }
    size_t after = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    while (after < len && strchr(" \t\r\n", text[after]) && text[after])
        after++;
    if (after < len) {
        cJSON_Delete(root);
        set_error(err, err_len, "more text after the JSON object, at byte offset %zu; nothing may "
                  "follow it (two files joined?)", base + after);
        return NULL;
    }
    return root;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool json_strict_keys_unique(const cJSON *node, char *err, size_t err_len)
{
    size_t k = 0;
    for (const cJSON *c = node->child; c; c = c->next)
        k++;
    if (cJSON_IsObject(node) && k > 1) {
        const char **names = malloc(k * sizeof *names);
        if (!names)
            return set_error(err, err_len, "out of memory");
        size_t n = 0;
        for (const cJSON *c = node->child; c; c = c->next)
            names[n++] = c->string;
        qsort(names, n, sizeof *names, cmp_name);
        size_t i = 1;
        while (i < n && strcmp(names[i - 1], names[i]) != 0)
            i++;
        bool unique = i == n || set_error(err, err_len, "key \"%s\" appears twice in one object; "
                                           "give each key once", names[i]);
        free(names);
        if (!unique)
            return false;
    }
    for (const cJSON *c = node->child; c; c = c->next)
        if (!json_strict_keys_unique(c, err, err_len))
            return false;
    return true;
}
