/* startfrom.c — see startfrom.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/startfrom.h"
#include "array.h"
#include "pairmap.h"
#include "base/byteunicode.h"
#include "base/errors.h"
#include "base/fdio.h"
#include "base/jsonstrict.h"
#include "base/utf8.h"
#include "input/wordtable.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ===================================================== applying the merges */

/* The rank of each merge's pair, for the lookups of start_apply. False on OOM. */
static bool rank_pairs(const bpe_result *start, bpe_pairmap *rank)
{
    if (!bpe_pairmap_init(rank, start->n_merges + 1))
        return false;
    for (size_t i = start->n_merges; i-- > 0;) { /* a pair given twice keeps its first rank */
        uint64_t *r = bpe_pairmap_upsert(rank, start->merges[i].left, start->merges[i].right);
        if (!r)
            return false;
        *r = i;
    }
    return true;
}

/* Applies the merges to t[0, *len), in place (startfrom.h): the pair of
 * lowest rank, each occurrence left to right, until none is left. */
static void apply_to_word(const bpe_result *start, const bpe_pairmap *rank, bpe_token *t,
                          uint32_t *len)
{
    for (;;) {
        uint64_t best = UINT64_MAX;
        for (uint32_t i = 0; i + 1 < *len; i++) {
            const uint64_t *r = bpe_pairmap_find(rank, t[i], t[i + 1]);
            if (r && *r < best)
                best = *r;
        }
        if (best == UINT64_MAX)
            return;
        const bpe_merge *m = &start->merges[best];
        uint32_t out = 0;
        for (uint32_t i = 0; i < *len; i++) {
            if (i + 1 < *len && t[i] == m->left && t[i + 1] == m->right) {
                t[out++] = m->id;
                i++;
            } else {
                t[out++] = t[i];
            }
        }
        *len = out;
    }
}

bool start_apply(const bpe_result *start, const bpe_words *in, start_words *out)
{
    memset(out, 0, sizeof *out);
    bpe_pairmap rank;
    out->symbols = malloc((in->n_symbols + 1) * sizeof *out->symbols);
    out->array = malloc((in->n_words + 1) * sizeof *out->array);
    bool ok = out->symbols && out->array && rank_pairs(start, &rank);
    uint64_t at = 0;
    for (size_t w = 0; ok && w < in->n_words; w++) {
        const bpe_word *word = &in->words[w];
        bpe_token *t = out->symbols + at;
        for (uint32_t i = 0; i < word->len; i++)
            t[i] = bpe_word_symbol(in, word, i);
        uint32_t len = word->len;
        apply_to_word(start, &rank, t, &len);
        out->array[w] = (bpe_word){.symbols = t, .len = len, .count = word->count};
        at += len;
    }
    bpe_pairmap_free(&rank);
    if (!ok) {
        start_words_free(out);
        return false;
    }
    out->view = (bpe_words){.words = out->array, .n_words = in->n_words, .n_symbols = at,
                            .merged = true};
    return true;
}

void start_words_free(start_words *w)
{
    free(w->symbols);
    free(w->array);
    memset(w, 0, sizeof *w);
}

/* ========================================================= reading FROM */

enum { MAX_FROM_BYTES = 1 << 30 }; /* a tokenizer file larger than this is refused */

/* The whole of the regular file at path, NUL-terminated (free it); NULL with
 * the reason. A FIFO or device is refused before a byte is read
 * (open_regular_file), so --init never waits on one. */
static char *read_whole(const char *path, size_t *len, char *err, size_t err_len)
{
    char why[PATH_MAX + 256];
    FILE *f = open_regular_file(path, "a tokenizer.json or a directory holding one", why,
                                sizeof why);
    if (!f) {
        set_error(err, err_len, "--init %s", why);
        return NULL;
    }
    int fd = fileno(f);
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) != 0)
        set_error(err, err_len, "--init %s: cannot read it: %s", path, strerror(errno));
    else if (st.st_size > MAX_FROM_BYTES)
        set_error(err, err_len, "--init %s: larger than 1 GiB; give a tokenizer.json or a "
                  "directory holding one", path);
    else if (!(text = malloc((size_t)st.st_size + 1)))
        set_error(err, err_len, "out of memory reading --init %s", path);
    else if (!read_full(fd, text, (size_t)st.st_size, len) || *len != (size_t)st.st_size) {
        set_error(err, err_len, "--init %s: cannot read it: %s", path, strerror(errno));
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text)
        text[*len] = '\0';
    return text;
}

/* A token string in GPT-2's byte alphabet, back to bytes (out: room for its
 * length); false when a character stands for no byte. */
static bool token_bytes(const char *s, uint8_t *out, size_t *n)
{
    size_t len = strlen(s);
    *n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int step = utf8_decode((const uint8_t *)s + i, len - i, &cp);
        int b = step > 0 ? codepoint_to_byte(cp) : -1;
        if (b < 0)
            return false;
        out[(*n)++] = (uint8_t)b;
        i += (size_t)step;
    }
    return *n > 0;
}

/* The tokens made so far, by their bytes: the byte tokens, then each merge's
 * (a twin keeps the first id). */
typedef struct {
    word_table known; /* entry k: a token's bytes */
    bpe_token *id;    /* entry k → its token; owned */
    size_t cap_id;    /* capacity of id */
} token_index;

/* The token spelled s, or BPE_NO_TOKEN (none, or out of memory). */
static bpe_token token_find(const token_index *x, const char *s)
{
    uint8_t *bytes = malloc(strlen(s) + 1);
    size_t n, k = SIZE_MAX;
    if (bytes && token_bytes(s, bytes, &n))
        k = word_table_find(&x->known, bytes, n);
    free(bytes);
    return k == SIZE_MAX ? BPE_NO_TOKEN : x->id[k];
}

/* Records token t's bytes, unless a token has them already. False on OOM. */
static bool token_add(token_index *x, const bpe_vocab *v, bpe_token t)
{
    size_t before = x->known.n_entries;
    if (!word_table_add(&x->known, bpe_vocab_bytes(v, t), v->len[t], 1))
        return false;
    if (x->known.n_entries == before)
        return true;
    bpe_token *id = bpe_array_reserve(x->id, &x->cap_id, before + 1, sizeof *id);
    if (!id)
        return false;
    x->id = id;
    x->id[before] = t;
    return true;
}

/* Appends merge (left, right) to st->merges: the next token. False, with the
 * reason naming `where` and the merge's number, when an operand is unknown. */
static bool add_merge(start_tokenizer *st, token_index *x, const char *left, const char *right,
                      const char *where, size_t number, char *err, size_t err_len)
{
    bpe_result *r = &st->merges;
    bpe_token a = token_find(x, left), b = token_find(x, right);
    if (a == BPE_NO_TOKEN || b == BPE_NO_TOKEN)
        return set_error(err, err_len, "--init %s: merge %zu (\"%.64s %.64s\"): \"%.64s\" is "
                         "neither a byte nor made by an earlier merge; give a byte-level BPE "
                         "tokenizer", where, number + 1, left, right,
                         a == BPE_NO_TOKEN ? left : right);
    bpe_merge *merges = bpe_array_reserve(r->merges, &r->cap_merges, r->n_merges + 1,
                                          sizeof *merges);
    bpe_token id = merges ? bpe_vocab_add_merge(&r->vocab, a, b) : BPE_NO_TOKEN;
    if (id == BPE_NO_TOKEN) {
        if (merges)
            r->merges = merges;
        return set_error(err, err_len, "out of memory reading --init %s", where);
    }
    r->merges = merges;
    r->merges[r->n_merges++] = (bpe_merge){.left = a, .right = b, .id = id};
    return token_add(x, &r->vocab, id) || set_error(err, err_len, "out of memory");
}

static bool token_index_init(token_index *x, start_tokenizer *st)
{
    memset(x, 0, sizeof *x);
    if (!word_table_init(&x->known) || !bpe_vocab_init(&st->merges.vocab))
        return false;
    for (bpe_token t = 0; t < BPE_BYTE_TOKENS; t++)
        if (!token_add(x, &st->merges.vocab, t))
            return false;
    return true;
}

static void token_index_free(token_index *x)
{
    word_table_free(&x->known);
    free(x->id);
}

/* Adds a special token (a copy of s) to st. False on OOM. */
static bool add_special(start_tokenizer *st, const char *s)
{
    char **grown = realloc(st->specials, (st->n_specials + 1) * sizeof *grown);
    if (!grown)
        return false;
    st->specials = grown;
    st->specials[st->n_specials] = strdup(s);
    if (!st->specials[st->n_specials])
        return false;
    st->n_specials++;
    return true;
}

/* ------------------------------------------------------- tokenizer.json */

/* The merges of the BPE model: "a b" strings or [a, b] pairs. */
static bool json_merges(start_tokenizer *st, token_index *x, const cJSON *merges,
                        const char *path, char *err, size_t err_len)
{
    size_t i = 0;
    for (const cJSON *m = merges ? merges->child : NULL; m; m = m->next, i++) {
        const char *left = NULL, *right = NULL;
        char *line = NULL;
        if (cJSON_IsString(m) && (line = strdup(m->valuestring)) != NULL) {
            char *space = strchr(line, ' ');
            if (space) {
                *space = '\0';
                left = line;
                right = space + 1;
            }
        } else if (cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 &&
                   cJSON_IsString(m->child) && cJSON_IsString(m->child->next)) {
            left = m->child->valuestring;
            right = m->child->next->valuestring;
        }
        bool ok = left ? add_merge(st, x, left, right, path, i, err, err_len)
                       : set_error(err, err_len, "--init %s: model.merges[%zu] is not \"a b\" "
                                   "or [\"a\", \"b\"]", path, i);
        free(line);
        if (!ok)
            return false;
    }
    return true;
}

/* The split pattern of a pre_tokenizer: the Regex of the first Split in
 * it or in its Sequence; NULL when none. */
static const char *json_pattern(const cJSON *pre)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pre, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "Split") == 0) {
        const cJSON *regex = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(pre, "pattern"), "Regex");
        return cJSON_IsString(regex) ? regex->valuestring : NULL;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(pre, "pretokenizers");
    for (const cJSON *p = cJSON_IsArray(list) ? list->child : NULL; p; p = p->next) {
        const char *found = json_pattern(p);
        if (found)
            return found;
    }
    return NULL;
}

/* The special tokens: added_tokens marked special, in id order (as listed). */
static bool json_specials(start_tokenizer *st, const cJSON *added)
{
    for (const cJSON *t = cJSON_IsArray(added) ? added->child : NULL; t; t = t->next) {
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(t, "content");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "special")) &&
            cJSON_IsString(content) && !add_special(st, content->valuestring))
            return false;
    }
    return true;
}

/* The JSON file at path, parsed strictly (base/jsonstrict.h); NULL with
 * the reason. */
static cJSON *read_json(const char *path, char *err, size_t err_len)
{
    size_t len;
    char *text = read_whole(path, &len, err, err_len);
    if (!text)
        return NULL;
    char why[512];
    cJSON *root = json_strict_parse(text, len, 0, why, sizeof why);
    free(text);
    if (!root)
        set_error(err, err_len, "--init %s: not JSON: %s", path, why);
    return root;
}

static bool read_tokenizer_json(const char *path, start_tokenizer *st, char *err, size_t err_len)
{
    cJSON *root = read_json(path, err, err_len);
    if (!root)
        return false;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    token_index x;
    bool ok = (cJSON_IsString(type) && strcmp(type->valuestring, "BPE") == 0 &&
               cJSON_IsArray(merges)) ||
              set_error(err, err_len, "--init %s: no BPE model with merges in it; give a BPE "
                        "tokenizer.json", path);
    ok = ok && (token_index_init(&x, st) || set_error(err, err_len, "out of memory"));
    ok = ok && json_merges(st, &x, merges, path, err, err_len);
    token_index_free(&x);
    const char *pattern = json_pattern(cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"));
    st->knows_specials = true;
    ok = ok && (!pattern || (st->pattern = strdup(pattern)) != NULL) &&
         json_specials(st, cJSON_GetObjectItemCaseSensitive(root, "added_tokens"));
    cJSON_Delete(root);
    return ok;
}

/* ------------------------------------------------- vocab.json + merges.txt */

/* merges.txt: an optional "#version" line, then "left right" per line. */
static bool read_merges_txt(const char *path, start_tokenizer *st, token_index *x, char *err,
                            size_t err_len)
{
    size_t len;
    char *text = read_whole(path, &len, err, err_len);
    if (!text)
        return false;
    bool ok = true;
    size_t number = 0;
    for (char *line = text, *end; ok && line < text + len; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            end = text + len;
        *end = '\0';
        if (end > line && end[-1] == '\r')
            end[-1] = '\0';
        if (*line == '\0' || (line == text && strncmp(line, "#version", 8) == 0))
            continue;
        char *space = strchr(line, ' ');
        if (!space) {
            ok = set_error(err, err_len, "--init %s: line \"%.64s\" is not \"left right\"", path,
                           line);
            break;
        }
        *space = '\0';
        ok = add_merge(st, x, line, space + 1, path, number++, err, err_len);
    }
    free(text);
    return ok;
}

/* The vocab's keys that no byte and no merge spells: the special tokens,
 * in id order. */
static bool read_vocab_specials(const char *path, start_tokenizer *st, const token_index *x,
                                char *err, size_t err_len)
{
    cJSON *root = read_json(path, err, err_len);
    if (!root)
        return false;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return set_error(err, err_len, "--init %s: not a JSON object {token: id}", path);
    }
    size_t n = (size_t)cJSON_GetArraySize(root), found = 0;
    const cJSON **specials = calloc(n + 1, sizeof *specials);
    bool ok = specials != NULL;
    for (const cJSON *t = root->child; ok && t; t = t->next)
        if (token_find(x, t->string) == BPE_NO_TOKEN)
            specials[found++] = t;
    for (size_t i = 0; ok && i < found; i++) /* a few: in id order by insertion */
        for (size_t j = i; j > 0 && specials[j - 1]->valuedouble > specials[j]->valuedouble; j--) {
            const cJSON *swap = specials[j];
            specials[j] = specials[j - 1];
            specials[j - 1] = swap;
        }
    for (size_t i = 0; ok && i < found; i++)
        ok = add_special(st, specials[i]->string);
    free(specials);
    cJSON_Delete(root);
    st->knows_specials = true;
    return ok || set_error(err, err_len, "out of memory");
}

static bool read_gpt2_pair(const char *dir, start_tokenizer *st, char *err, size_t err_len)
{
    char merges[PATH_MAX], vocab[PATH_MAX];
    snprintf(merges, sizeof merges, "%s/merges.txt", dir);
    snprintf(vocab, sizeof vocab, "%s/vocab.json", dir);
    token_index x;
    bool ok = token_index_init(&x, st) || set_error(err, err_len, "out of memory");
    ok = ok && read_merges_txt(merges, st, &x, err, err_len) &&
         read_vocab_specials(vocab, st, &x, err, err_len);
    token_index_free(&x);
    return ok;
}

/* ------------------------------------------------------------- the call */

static bool file_exists(const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return snprintf(path, sizeof path, "%s/%s", dir, name) < PATH_MAX && stat(path, &st) == 0;
}

bool start_read(const char *from, start_tokenizer *st, char *err, size_t err_len)
{
    memset(st, 0, sizeof *st);
    struct stat info;
    bool ok;
    if (stat(from, &info) != 0) {
        ok = set_error(err, err_len, "--init %s: %s; give a tokenizer.json or a directory "
                       "holding one", from, strerror(errno));
    } else if (!S_ISDIR(info.st_mode)) {
        ok = read_tokenizer_json(from, st, err, err_len);
    } else if (file_exists(from, "tokenizer.json")) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/tokenizer.json", from);
        ok = read_tokenizer_json(path, st, err, err_len);
    } else if (file_exists(from, "merges.txt") && file_exists(from, "vocab.json")) {
        ok = read_gpt2_pair(from, st, err, err_len);
    } else {
        ok = set_error(err, err_len, "--init %s: no tokenizer.json and no vocab.json + "
                       "merges.txt in it; give the directory train wrote", from);
    }
    if (!ok)
        start_tokenizer_free(st);
    return ok;
}

void start_tokenizer_free(start_tokenizer *st)
{
    bpe_result_free(&st->merges);
    free(st->pattern);
    for (size_t i = 0; i < st->n_specials; i++)
        free(st->specials[i]);
    free(st->specials);
    memset(st, 0, sizeof *st);
}
