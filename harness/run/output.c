/*
 * output.c — the files of a trained tokenizer (SPEC §3): vocab.json and
 * merges.txt (GPT-2's pair), tokenizer.json (HF tokenizers' single file),
 * tokenizer.tiktoken and tiktoken.json (tiktoken's ranks and the rest of an
 * Encoding); each written atomically, all replaced as one set (output.h).
 * docs/using-the-tokenizer.md shows how each library loads them; `make
 * interop` proves it.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/output.h"
#include "base/byteunicode.h"
#include "base/errors.h"
#include "base/fileset.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *output_token_string(const bpe_vocab *v, bpe_token t)
{
    uint32_t len = v->len[t];
    char *s = malloc(2 * (size_t)len + 1);
    if (!s)
        return NULL;
    size_t at = 0;
    const uint8_t *bytes = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < len; i++)
        at += byte_to_unicode_utf8(bytes[i], s + at);
    s[at] = '\0';
    return s;
}

/* ------------------------------------------------------------- sets */

/* The files of a tokenizer, in the order they are renamed into place. */
static const char *const TOKENIZER_FILES[] = {
    "vocab.json", "merges.txt", "tokenizer.json", "tokenizer.tiktoken", "tiktoken.json",
};
enum { N_TOKENIZER_FILES = sizeof TOKENIZER_FILES / sizeof *TOKENIZER_FILES };

bool output_dir_fits(const char *dir, char *err, size_t err_len)
{
    for (size_t i = 0; i < N_TOKENIZER_FILES; i++)
        if (!file_set_path_fits(dir, TOKENIZER_FILES[i], err, err_len))
            return false;
    return true;
}

const char *output_tokenizer_file(size_t i)
{
    return i < N_TOKENIZER_FILES ? TOKENIZER_FILES[i] : NULL;
}

/* ------------------------------------------------------- special tokens */

/* Writes bytes d[0, len) for a message: quoted when printable ASCII, else
 * in hex; at most 24 bytes, then "...". */
static void describe_bytes(const uint8_t *d, size_t len, char *out, size_t out_len)
{
    bool printable = true;
    for (size_t i = 0; i < len; i++)
        printable = printable && d[i] >= 0x20 && d[i] < 0x7F;
    size_t shown = len < 24 ? len : 24, at = 0;
    if (printable) {
        snprintf(out, out_len, "\"%.*s%s\"", (int)shown, (const char *)d, shown < len ? "..." : "");
        return;
    }
    out[0] = '\0';
    for (size_t i = 0; i < shown && at < out_len; i++)
        at += (size_t)snprintf(out + at, out_len - at, "%s%02X", i ? " " : "", d[i]);
    if (shown < len && at < out_len)
        snprintf(out + at, out_len - at, " ...");
}

/* How much of a token a message shows: all of it up to 64 bytes, else its
 * first 64 bytes or fewer, cut at a character boundary (then "..."). */
static int shown_length(const char *token)
{
    size_t n = strlen(token);
    if (n <= 64)
        return (int)n;
    for (n = 64; n > 0 && ((uint8_t)token[n] & 0xC0) == 0x80;)
        n--;
    return (int)n;
}

/* The fix both collisions of output_special_token_ok suggest. */
static const char SPECIAL_TOKEN_FIX[] =
    "choose a token of two or more printable ASCII characters (such as <|endoftext|>) or one "
    "with a space in it";

bool output_special_token_ok(const char *token, char *err, size_t err_len)
{
    const uint8_t *s = (const uint8_t *)token;
    size_t len = strlen(token), n_stood = 0;
    int shown = shown_length(token);
    const char *more = (size_t)shown < len ? "..." : "";
    uint8_t *stood_for = malloc(len + 1); /* d: the bytes its characters stand for */
    if (!stood_for)
        return set_error(err, err_len, "out of memory");
    bool all_stand_ins = true;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            free(stood_for);
            return set_error(err, err_len, "bad --special-token \"%.*s%s\": not valid UTF-8 "
                             "(byte 0x%02X at offset %zu), and vocab.json holds UTF-8 text; give "
                             "the token in UTF-8", shown, token, more, s[i], i);
        }
        int b = codepoint_to_byte(cp);
        if (b < 0)
            all_stand_ins = false;
        else
            stood_for[n_stood++] = (uint8_t)b;
        i += (size_t)n;
    }
    bool ok = true;
    if (all_stand_ins && n_stood == 1) {
        ok = set_error(err, err_len, "bad --special-token \"%.*s%s\": vocab.json spells byte "
                       "0x%02X that way (GPT-2 byte alphabet), so the two tokens would share one "
                       "key; %s", shown, token, more, stood_for[0], SPECIAL_TOKEN_FIX);
    } else if (all_stand_ins && (n_stood != len || memcmp(stood_for, s, len) != 0)) {
        char bytes[128];
        describe_bytes(stood_for, n_stood, bytes, sizeof bytes);
        ok = set_error(err, err_len, "bad --special-token \"%.*s%s\": vocab.json spells the "
                       "bytes %s that way (GPT-2 byte alphabet), and training can learn a token "
                       "of those bytes, so the two would share one key; %s", shown, token, more,
                       bytes, SPECIAL_TOKEN_FIX);
    }
    free(stood_for);
    return ok;
}

/* ------------------------------------------------------------- contents */

/* The note tiktoken.json carries for its readers (docs/using-the-tokenizer.md). */
static const char TIKTOKEN_NOTE[] =
    "pat_str is the pattern training used (PCRE2), spelled so that tiktoken (fancy-regex) and "
    "js-tiktoken (JavaScript's RegExp) find the same pieces: \\s written as the characters "
    "PCRE2 means by it, no possessive quantifier, no inline flag (a user pattern is as given). "
    "special_tokens are listed longest first: js-tiktoken tries them in this order, and "
    "training took the longest at each place. What still differs: "
    "docs/using-the-tokenizer.md.";

/* Every id's key, as vocab.json and tokenizer.json write it, and the ids
 * that get none: twins (two merges building the same bytes) keep their
 * first id (docs/spec.md §3). */
typedef struct {
    char **keys;       /* keys[id]: the token string, special tokens as themselves; owned */
    bool *twin;        /* twin[id]: an earlier id has the same key, so this one is not written */
    size_t n;          /* V: the ids 0 … n−1 */
    size_t n_specials; /* S: the ids 256 … 256+S−1 are the special tokens */
} token_keys;

/* The learned or byte token behind a id that is not special (SPEC §2.5). */
static bpe_token token_of_id(size_t id, size_t n_specials)
{
    return (bpe_token)(id < BPE_BYTE_TOKENS ? id : id - n_specials);
}

static bool is_special_id(size_t id, size_t n_specials)
{
    return id >= BPE_BYTE_TOKENS && id < BPE_BYTE_TOKENS + n_specials;
}

/* A key and the id it is written with, for finding twins. */
typedef struct {
    const char *key; /* the token string; borrowed from token_keys */
    size_t id;       /* its id */
} vocab_entry;

static int compare_entries(const void *a, const void *b)
{
    const vocab_entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void token_keys_free(token_keys *k)
{
    for (size_t i = 0; k->keys && i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    free(k->twin);
}

/* Spells every id and marks the twins (sorting the keys). False when out of
 * memory. O(V log V) string comparisons. */
static bool token_keys_make(token_keys *k, const bpe_result *r, const char *const *specials,
                            size_t n_specials)
{
    k->n = r->vocab.n_tokens + n_specials;
    k->n_specials = n_specials;
    k->keys = calloc(k->n + 1, sizeof *k->keys);
    k->twin = calloc(k->n + 1, sizeof *k->twin);
    vocab_entry *sorted = malloc((k->n + 1) * sizeof *sorted);
    bool ok = k->keys && k->twin && sorted;
    for (size_t i = 0; ok && i < k->n; i++) {
        k->keys[i] = is_special_id(i, n_specials)
                         ? strdup(specials[i - BPE_BYTE_TOKENS])
                         : output_token_string(&r->vocab, token_of_id(i, n_specials));
        sorted[i] = (vocab_entry){.key = k->keys[i], .id = i};
        ok = k->keys[i] != NULL;
    }
    if (ok) {
        qsort(sorted, k->n, sizeof *sorted, compare_entries);
        for (size_t i = 1; i < k->n; i++)
            if (strcmp(sorted[i].key, sorted[i - 1].key) == 0)
                k->twin[sorted[i].id] = true;
    }
    free(sorted);
    if (!ok)
        token_keys_free(k);
    return ok;
}

/* {token string: id} in id order, twins left out (JSON cannot hold a key
 * twice); NULL when out of memory. O(V). */
static cJSON *vocab_object(const token_keys *k)
{
    cJSON *json = cJSON_CreateObject();
    bool ok = json != NULL;
    for (size_t i = 0; ok && i < k->n; i++)
        if (!k->twin[i])
            ok = cJSON_AddNumberToObject(json, k->keys[i], (double)i) != NULL;
    if (!ok) {
        cJSON_Delete(json);
        return NULL;
    }
    return json;
}

/* vocab.json: the vocab object on one line. */
static char *vocab_json(const token_keys *k)
{
    cJSON *json = vocab_object(k);
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    return text;
}

/* Writes merge m as "left right" at out (room for 2 × its bytes + 2);
 * returns the bytes written, no NUL. */
static size_t put_merge(char *out, const bpe_vocab *v, const bpe_merge *m)
{
    size_t at = 0;
    const uint8_t *left = bpe_vocab_bytes(v, m->left), *right = bpe_vocab_bytes(v, m->right);
    for (uint32_t k = 0; k < v->len[m->left]; k++)
        at += byte_to_unicode_utf8(left[k], out + at);
    out[at++] = ' ';
    for (uint32_t k = 0; k < v->len[m->right]; k++)
        at += byte_to_unicode_utf8(right[k], out + at);
    return at;
}

/* The room put_merge needs for m, NUL included. */
static size_t merge_room(const bpe_vocab *v, const bpe_merge *m)
{
    return 2 * ((size_t)v->len[m->left] + v->len[m->right]) + 2;
}

/* merges.txt: "#version: 0.2", then "left right" per merge. */
static char *merges_text(const bpe_result *r, size_t *len)
{
    size_t cap = 64, at = 0;
    for (size_t i = 0; i < r->n_merges; i++)
        cap += merge_room(&r->vocab, &r->merges[i]);
    char *text = malloc(cap);
    if (!text)
        return NULL;
    at += (size_t)sprintf(text, "#version: 0.2\n");
    for (size_t i = 0; i < r->n_merges; i++) {
        at += put_merge(text + at, &r->vocab, &r->merges[i]);
        text[at++] = '\n';
    }
    text[at] = '\0'; /* the 64 spare bytes hold it */
    *len = at;
    return text;
}

/* -------------------------------------------------------- tokenizer.json */

/* Adds a string member; false when out of memory. */
static bool add_string(cJSON *to, const char *name, const char *value)
{
    return cJSON_AddStringToObject(to, name, value) != NULL;
}

static bool add_bool(cJSON *to, const char *name, bool value)
{
    return cJSON_AddBoolToObject(to, name, value) != NULL;
}

/* Adds {"type": type, ...} to an array or object (name NULL for an array);
 * returns it, or NULL when out of memory. */
static cJSON *add_typed(cJSON *to, const char *name, const char *type)
{
    cJSON *item = cJSON_CreateObject();
    if (!item || !add_string(item, "type", type) ||
        !(name ? cJSON_AddItemToObject(to, name, item) : cJSON_AddItemToArray(to, item))) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

/* A ByteLevel pre-tokenizer or decoder: bytes to stand-ins and back, with
 * no prefix space and no regex of its own (the Split before it holds ours). */
static bool fill_byte_level(cJSON *item)
{
    return item && add_bool(item, "add_prefix_space", false) &&
           add_bool(item, "trim_offsets", false) && add_bool(item, "use_regex", false);
}

/* "pre_tokenizer": Sequence[Split(pattern, Isolated), ByteLevel]: the
 * pattern's matches, each mapped to stand-ins. Text the pattern does not
 * match stays as pieces of its own (training skipped it). */
static bool add_pre_tokenizer(cJSON *root, const char *pattern)
{
    cJSON *sequence = add_typed(root, "pre_tokenizer", "Sequence");
    cJSON *list = sequence ? cJSON_AddArrayToObject(sequence, "pretokenizers") : NULL;
    cJSON *split = list ? add_typed(list, NULL, "Split") : NULL;
    cJSON *regex = split ? cJSON_AddObjectToObject(split, "pattern") : NULL;
    return regex && add_string(regex, "Regex", pattern) &&
           add_string(split, "behavior", "Isolated") && add_bool(split, "invert", false) &&
           fill_byte_level(add_typed(list, NULL, "ByteLevel"));
}

/* "added_tokens": each special token with its id, matched before the
 * pattern runs and never split (as training cut them out, SPEC §2.1). */
static bool add_special_tokens(cJSON *root, const token_keys *k)
{
    cJSON *list = cJSON_AddArrayToObject(root, "added_tokens");
    bool ok = list != NULL;
    for (size_t i = BPE_BYTE_TOKENS; ok && i < BPE_BYTE_TOKENS + k->n_specials; i++) {
        cJSON *token = cJSON_CreateObject();
        if (!token || !cJSON_AddItemToArray(list, token)) {
            cJSON_Delete(token);
            return false;
        }
        ok = cJSON_AddNumberToObject(token, "id", (double)i) &&
             add_string(token, "content", k->keys[i]) && add_bool(token, "single_word", false) &&
             add_bool(token, "lstrip", false) && add_bool(token, "rstrip", false) &&
             add_bool(token, "normalized", false) && add_bool(token, "special", true);
    }
    return ok;
}

/* "model": BPE with the vocab and the merges ("left right", merges.txt's
 * lines), no unknown token, no dropout, merges always applied. */
static bool add_model(cJSON *root, const token_keys *k, const bpe_result *r)
{
    cJSON *model = add_typed(root, "model", "BPE");
    bool ok = model && cJSON_AddNullToObject(model, "dropout") &&
              cJSON_AddNullToObject(model, "unk_token") &&
              cJSON_AddNullToObject(model, "continuing_subword_prefix") &&
              cJSON_AddNullToObject(model, "end_of_word_suffix") &&
              add_bool(model, "fuse_unk", false) && add_bool(model, "byte_fallback", false) &&
              add_bool(model, "ignore_merges", false);
    cJSON *vocab = ok ? vocab_object(k) : NULL;
    ok = vocab && cJSON_AddItemToObject(model, "vocab", vocab);
    if (vocab && !ok)
        cJSON_Delete(vocab);
    cJSON *merges = ok ? cJSON_AddArrayToObject(model, "merges") : NULL;
    ok = merges != NULL;
    for (size_t i = 0; ok && i < r->n_merges; i++) {
        char *line = malloc(merge_room(&r->vocab, &r->merges[i]));
        if (line)
            line[put_merge(line, &r->vocab, &r->merges[i])] = '\0';
        cJSON *item = line ? cJSON_CreateString(line) : NULL;
        ok = item && cJSON_AddItemToArray(merges, item);
        if (item && !ok)
            cJSON_Delete(item);
        free(line);
    }
    return ok;
}

/* tokenizer.json, HF tokenizers' single file (Tokenizer.from_file): the
 * same ids as vocab.json + merges.txt, the exact split pattern, the special
 * tokens marked special; NULL when out of memory. O(V + m). */
static char *tokenizer_json(const token_keys *k, const bpe_result *r, const char *pattern)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root && add_string(root, "version", "1.0") &&
              cJSON_AddNullToObject(root, "truncation") && cJSON_AddNullToObject(root, "padding") &&
              add_special_tokens(root, k) && cJSON_AddNullToObject(root, "normalizer") &&
              add_pre_tokenizer(root, pattern) && cJSON_AddNullToObject(root, "post_processor") &&
              fill_byte_level(add_typed(root, "decoder", "ByteLevel")) && add_model(root, k, r);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* ------------------------------------------------------------- tiktoken */

/* Writes the standard base64 (RFC 4648, padded) of in[0, n) at out (room
 * for 4 × ⌈n/3⌉ bytes); returns the bytes written, no NUL. */
static size_t base64_encode(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t at = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t group = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                         (i + 2 < n ? in[i + 2] : 0);
        out[at++] = digits[group >> 18 & 63];
        out[at++] = digits[group >> 12 & 63];
        out[at++] = i + 1 < n ? digits[group >> 6 & 63] : '=';
        out[at++] = i + 2 < n ? digits[group & 63] : '=';
    }
    return at;
}

/* tokenizer.tiktoken, what tiktoken's load_tiktoken_bpe reads: one line
 * "base64(bytes) rank" per byte and learned token, the rank being its id
 * (special tokens and twins have no line). O(total token bytes). */
static char *tiktoken_ranks(const token_keys *k, const bpe_result *r, size_t *len)
{
    size_t cap = 1, at = 0;
    for (size_t i = 0; i < k->n; i++)
        if (!is_special_id(i, k->n_specials))
            cap += 4 * ((size_t)r->vocab.len[token_of_id(i, k->n_specials)] / 3 + 1) + 24;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    for (size_t i = 0; i < k->n; i++) {
        if (is_special_id(i, k->n_specials) || k->twin[i])
            continue;
        bpe_token t = token_of_id(i, k->n_specials);
        at += base64_encode(bpe_vocab_bytes(&r->vocab, t), r->vocab.len[t], text + at);
        at += (size_t)sprintf(text + at, " %zu\n", i);
    }
    text[at] = '\0'; /* cap counts it */
    *len = at;
    return text;
}

/* A special token and its id, to be listed longest first. */
typedef struct {
    const char *key; /* the token (borrowed) */
    size_t len;      /* its length in bytes */
    size_t id;       /* its id */
} special_entry;

/* Longer first; of equal length, the smaller id first. */
static int longest_first(const void *pa, const void *pb)
{
    const special_entry *a = pa, *b = pb;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* tiktoken.json: what tiktoken.Encoding takes beside the ranks: pat_str
 * (portable, pretok.h) and special_tokens ({token: id}, longest first: a
 * JavaScript reader tries them in the file's order, and SPEC §2.1 takes the
 * longest that matches), the ranks file's name, and a note.
 * O(S log S + S · token length). */
static char *tiktoken_json(const token_keys *k, const char *pattern,
                           const output_training *training)
{
    special_entry *order = malloc((k->n_specials ? k->n_specials : 1) * sizeof *order);
    for (size_t i = 0; order && i < k->n_specials; i++) {
        const char *key = k->keys[BPE_BYTE_TOKENS + i];
        order[i] = (special_entry){key, strlen(key), BPE_BYTE_TOKENS + i};
    }
    if (order)
        qsort(order, k->n_specials, sizeof *order, longest_first);
    cJSON *root = order ? cJSON_CreateObject() : NULL;
    cJSON *specials = root ? cJSON_CreateObject() : NULL;
    bool ok = specials && cJSON_AddItemToObject(root, "special_tokens", specials);
    if (specials && !ok)
        cJSON_Delete(specials);
    for (size_t i = 0; ok && i < k->n_specials; i++)
        ok = cJSON_AddNumberToObject(specials, order[i].key, (double)order[i].id) != NULL;
    ok = ok && add_string(root, "pat_str", pattern) &&
         add_string(root, "mergeable_ranks", "tokenizer.tiktoken") &&
         add_string(root, "note", TIKTOKEN_NOTE);
    if (ok && training && (training->min_frequency || training->init_forced)) {
        cJSON *settings = cJSON_AddObjectToObject(root, "training");
        ok = settings && (!training->min_frequency ||
                          cJSON_AddNumberToObject(settings, "min_frequency",
                                                  (double)training->min_frequency)) &&
             (!training->init_forced ||
              add_string(settings, "init_forced", training->init_forced));
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    free(order);
    return text;
}

/* ------------------------------------------------------------- the set */

bool output_write_tokenizer(const char *dir, const bpe_result *r, const pretok_config *cfg,
                            char *err, size_t err_len)
{
    return output_write_tokenizer_with(dir, r, cfg, NULL, err, err_len);
}

bool output_write_tokenizer_with(const char *dir, const bpe_result *r, const pretok_config *cfg,
                                 const output_training *training, char *err, size_t err_len)
{
    for (size_t k = 0; k < cfg->n_specials; k++)
        if (!output_special_token_ok(cfg->specials[k], err, err_len))
            return false;
    /* the files' readers are other regex engines: the portable spelling */
    const char *pattern = pretok_pattern_portable(cfg->pattern);
    token_keys keys;
    if (!token_keys_make(&keys, r, cfg->specials, cfg->n_specials))
        return set_error(err, err_len, "out of memory formatting the output files");
    size_t merges_len = 0, ranks_len = 0;
    char *texts[N_TOKENIZER_FILES] = {
        vocab_json(&keys), merges_text(r, &merges_len), tokenizer_json(&keys, r, pattern),
        tiktoken_ranks(&keys, r, &ranks_len), tiktoken_json(&keys, pattern, training),
    };
    file_set_member files[N_TOKENIZER_FILES];
    bool ok = true;
    for (size_t i = 0; i < N_TOKENIZER_FILES; i++) {
        ok = ok && texts[i];
        files[i] = (file_set_member){.name = TOKENIZER_FILES[i], .data = texts[i],
                                 .len = texts[i] ? strlen(texts[i]) : 0};
    }
    if (!ok) {
        set_error(err, err_len, "out of memory formatting the output files");
    } else {
        files[1].len = merges_len;
        files[3].len = ranks_len;
        ok = file_set_replace(dir, files, N_TOKENIZER_FILES, err, err_len);
    }
    for (size_t i = 0; i < N_TOKENIZER_FILES; i++)
        free(texts[i]);
    token_keys_free(&keys);
    return ok;
}
