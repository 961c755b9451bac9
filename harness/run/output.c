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
#include "base/bufsink.h"
#include "base/byteunicode.h"
#include "base/errors.h"
#include "base/fileset.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes token t's stand-ins (byteunicode.h) at out (room for 2 × its
 * bytes); returns the bytes written, no NUL. O(its length). */
static size_t spell_token(const bpe_vocab *v, bpe_token t, char *out)
{
    size_t at = 0;
    const uint8_t *bytes = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < v->len[t]; i++)
        at += byte_to_unicode_utf8(bytes[i], out + at);
    return at;
}

char *output_token_string(const bpe_vocab *v, bpe_token t)
{
    char *s = malloc(2 * (size_t)v->len[t] + 1);
    if (s)
        s[spell_token(v, t, s)] = '\0';
    return s;
}

/* ------------------------------------------------------------- sets */

/* The files of a tokenizer, in the order `train` names them. */
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
 * first id (docs/spec.md §3). A key is spelled when it is written, never
 * all of them at once: a tokenizer's token strings may be far larger than
 * the text it was trained on. */
typedef struct {
    const bpe_vocab *vocab;       /* the byte and learned tokens; borrowed */
    const char *const *specials;  /* the special tokens; borrowed */
    bool *twin;                   /* twin[id]: an earlier id has the same key: not written */
    size_t n;                     /* V: the ids 0 … n−1 */
    size_t n_specials;            /* S: the ids 256 … 256+S−1 are the special tokens */
    size_t last_written;          /* the highest id that is not a twin */
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

/* One producer's room for spelling a key or a merge line before cJSON
 * escapes it: grown to the longest spelled, reused for every other. */
typedef struct {
    char *text; /* the spelling, NUL-terminated; owned */
    size_t cap; /* bytes allocated */
} spelling;

/* Room for `len` bytes and a NUL in *sp (what it held is not kept); NULL
 * when out of memory. */
static char *spelling_room(spelling *sp, size_t len)
{
    if (len < sp->cap)
        return sp->text;
    free(sp->text);
    sp->cap = len + 1 > 64 ? len + 1 : 64;
    if (!(sp->text = malloc(sp->cap)))
        sp->cap = 0;
    return sp->text;
}

/* id's key (the special token itself, or the token's bytes in the GPT-2
 * alphabet), in sp's room or borrowed; its length in *len. NULL when out
 * of memory. O(its length). */
static const char *spell_key(const token_keys *k, size_t id, spelling *sp, size_t *len)
{
    if (is_special_id(id, k->n_specials)) {
        const char *special = k->specials[id - BPE_BYTE_TOKENS];
        *len = strlen(special);
        return special;
    }
    bpe_token t = token_of_id(id, k->n_specials);
    char *out = spelling_room(sp, 2 * (size_t)k->vocab->len[t]);
    if (out)
        out[*len = spell_token(k->vocab, t, out)] = '\0';
    return out;
}

/* A slot of the table that finds twins: an id and a hash of its key. */
typedef struct {
    uint64_t hash; /* FNV-1a of the key */
    size_t id;     /* the id + 1; 0: the slot is empty */
} hashed_key;

/* FNV-1a of id's key, spelled on the fly (no copy of the key is made). */
static uint64_t key_hash(const token_keys *k, size_t id)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (is_special_id(id, k->n_specials)) {
        for (const char *s = k->specials[id - BPE_BYTE_TOKENS]; *s; s++)
            h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
        return h;
    }
    bpe_token t = token_of_id(id, k->n_specials);
    const uint8_t *bytes = bpe_vocab_bytes(k->vocab, t);
    for (uint32_t i = 0; i < k->vocab->len[t]; i++) {
        char standin[2];
        size_t n = byte_to_unicode_utf8(bytes[i], standin);
        for (size_t c = 0; c < n; c++)
            h = (h ^ (uint8_t)standin[c]) * 0x100000001b3ull;
    }
    return h;
}

/* Whether ids a and b have the same key; -1 when out of memory. */
static int same_key(const token_keys *k, size_t a, size_t b)
{
    spelling x = {0}, y = {0};
    size_t x_len, y_len;
    const char *x_key = spell_key(k, a, &x, &x_len), *y_key = spell_key(k, b, &y, &y_len);
    int same = x_key && y_key ? x_len == y_len && memcmp(x_key, y_key, x_len) == 0 : -1;
    free(x.text);
    free(y.text);
    return same;
}

/* Marks the twins: the ids in order, each one's key hashed into an open
 * addressing table (linear probing, at most half full) of the earlier ids
 * that are not twins; an id whose key equals one of theirs is a twin, and
 * stays out of the table. False when out of memory. O(V + total token
 * bytes) expected. */
static bool token_keys_make(token_keys *k, const bpe_result *r, const char *const *specials,
                            size_t n_specials)
{
    *k = (token_keys){.vocab = &r->vocab, .specials = specials,
                      .n = r->vocab.n_tokens + n_specials, .n_specials = n_specials};
    size_t slots = 2;
    while (slots < 2 * k->n)
        slots *= 2;
    k->twin = calloc(k->n + 1, sizeof *k->twin);
    hashed_key *seen = calloc(slots, sizeof *seen);
    bool ok = k->twin && seen;
    for (size_t i = 0; ok && i < k->n; i++) {
        uint64_t hash = key_hash(k, i);
        size_t at = hash & (slots - 1);
        for (; ok && seen[at].id && !k->twin[i]; at = (at + 1) & (slots - 1))
            if (seen[at].hash == hash) {
                int same = same_key(k, seen[at].id - 1, i);
                ok = same >= 0;
                k->twin[i] = same > 0;
            }
        if (ok && !k->twin[i])
            seen[at] = (hashed_key){.hash = hash, .id = i + 1};
    }
    free(seen);
    for (size_t i = 0; ok && i < k->n; i++)
        if (!k->twin[i])
            k->last_written = i;
    if (!ok)
        free(k->twin);
    return ok;
}

static void token_keys_free(token_keys *k)
{
    free(k->twin);
}

/* The bytes cJSON may need to print a string of n bytes in place: each byte
 * escaped as \uXXXX at worst, two quotes, its NUL and one spare (cJSON's
 * own check asks for a byte beyond the NUL). */
static size_t json_string_room(size_t n)
{
    return 6 * n + 4;
}

/* Writes s (n bytes, NUL-terminated) as a JSON string, escaped by cJSON as
 * a whole cJSON tree would print it: printed in place in b's buffer when
 * the room fits there, else (a token of more than 170 KB) into a string
 * cJSON allocates. The item is a reference on the stack: cJSON neither
 * copies s nor allocates the item. O(n). */
static bool put_json_string(bufsink *b, const char *s, size_t n)
{
    cJSON item = {.type = cJSON_String | cJSON_IsReference, .valuestring = (char *)s};
    size_t room_len = json_string_room(n);
    if (room_len <= BUFSINK_BYTES) {
        char *room = bufsink_room(b, room_len);
        if (!room)
            return false;
        if (!cJSON_PrintPreallocated(&item, room, (int)room_len, false))
            return bufsink_fail(b, "internal error: a JSON string outgrew its room");
        bufsink_advance(b, strlen(room));
        return true;
    }
    char *text = cJSON_PrintUnformatted(&item);
    bool ok = text ? bufsink_put(b, text, strlen(text))
                   : bufsink_fail(b, "out of memory formatting the output files");
    cJSON_free(text);
    return ok;
}

/*
 * The vocab object {token string: id} in id order, twins left out (JSON
 * cannot hold a key twice), streamed exactly as cJSON prints it: on one line
 * (indent < 0, cJSON_PrintUnformatted), or as a member of an object printed
 * with cJSON_Print, one entry a line at `indent` tabs and the closing brace
 * one tab less. O(V + total token bytes); one key in memory at a time.
 */
static bool put_vocab(bufsink *b, const token_keys *k, int indent)
{
    spelling sp = {0};
    bool ok = bufsink_put(b, indent < 0 ? "{" : "{\n", indent < 0 ? 1 : 2);
    for (size_t i = 0; ok && i < k->n; i++) {
        if (k->twin[i])
            continue;
        for (int t = 0; ok && t < indent; t++)
            ok = bufsink_put(b, "\t", 1);
        size_t key_len;
        const char *key = spell_key(k, i, &sp, &key_len);
        ok = ok && (key ? put_json_string(b, key, key_len)
                        : bufsink_fail(b, "out of memory formatting the output files"));
        char *at = ok ? bufsink_room(b, 24) : NULL; /* ":\t", the id, ",\n" */
        if (!(ok = at != NULL))
            break;
        size_t n = 0;
        at[n++] = ':';
        if (indent >= 0)
            at[n++] = '\t';
        n += bufsink_decimal(at + n, i);
        if (i != k->last_written)
            at[n++] = ',';
        if (indent >= 0)
            at[n++] = '\n';
        bufsink_advance(b, n);
    }
    free(sp.text);
    for (int t = 0; ok && t < indent - 1; t++)
        ok = bufsink_put(b, "\t", 1);
    return ok && bufsink_put(b, "}", 1);
}

/* Merge m as "left right" in sp's room, NUL-terminated; its length in
 * *len. NULL when out of memory. */
static const char *spell_merge(const token_keys *k, const bpe_merge *m, spelling *sp,
                               size_t *len)
{
    const bpe_vocab *v = k->vocab;
    char *out = spelling_room(sp, 2 * ((size_t)v->len[m->left] + v->len[m->right]) + 1);
    if (!out)
        return NULL;
    size_t at = spell_token(v, m->left, out);
    out[at++] = ' ';
    at += spell_token(v, m->right, out + at);
    out[*len = at] = '\0';
    return out;
}

/* What the streamed files are made from. */
typedef struct {
    const token_keys *keys; /* every id's key, and the twins */
    const bpe_result *r;    /* the merges and the vocab */
    const char *pattern;    /* the pattern's PCRE2 source */
} tokenizer_parts;

/* Streams a file's parts through a bufsink: the producers below write to it. */
static bool stream_file(const tokenizer_parts *parts, bool (*produce)(bufsink *,
                                                                       const tokenizer_parts *),
                        byte_sink sink, char *err, size_t err_len)
{
    bufsink b;
    bool ok = bufsink_init(&b, sink, err, err_len) && produce(&b, parts);
    return bufsink_finish(&b) && ok;
}

/* vocab.json: the vocab object on one line. */
static bool produce_vocab_json(bufsink *b, const tokenizer_parts *p)
{
    return put_vocab(b, p->keys, -1);
}

/* merges.txt: "#version: 0.2", then "left right" per merge. */
static bool produce_merges_text(bufsink *b, const tokenizer_parts *p)
{
    spelling sp = {0};
    bool ok = bufsink_put(b, "#version: 0.2\n", 14);
    for (size_t i = 0; ok && i < p->r->n_merges; i++) {
        size_t len;
        const char *line = spell_merge(p->keys, &p->r->merges[i], &sp, &len);
        ok = line ? bufsink_put(b, line, len) && bufsink_put(b, "\n", 1)
                  : bufsink_fail(b, "out of memory formatting the output files");
    }
    free(sp.text);
    return ok;
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
             add_string(token, "content", k->specials[i - BPE_BYTE_TOKENS]) &&
             add_bool(token, "single_word", false) && add_bool(token, "lstrip", false) &&
             add_bool(token, "rstrip", false) && add_bool(token, "normalized", false) &&
             add_bool(token, "special", true);
    }
    return ok;
}

/* Where tokenizer.json's vocab and merges go in the text cJSON prints of the
 * rest: raw items, printed as they are; no other part of the text can hold
 * these bytes (cJSON escapes control characters in strings). */
static const char VOCAB_MARK[] = "\x01", MERGES_MARK[] = "\x02";

/* "model": BPE with the vocab and the merges ("left right", merges.txt's
 * lines), no unknown token, no dropout, merges always applied; the vocab
 * and the merges as marks, streamed in their place (produce_tokenizer_json). */
static bool add_model(cJSON *root)
{
    cJSON *model = add_typed(root, "model", "BPE");
    return model && cJSON_AddNullToObject(model, "dropout") &&
           cJSON_AddNullToObject(model, "unk_token") &&
           cJSON_AddNullToObject(model, "continuing_subword_prefix") &&
           cJSON_AddNullToObject(model, "end_of_word_suffix") &&
           add_bool(model, "fuse_unk", false) && add_bool(model, "byte_fallback", false) &&
           add_bool(model, "ignore_merges", false) &&
           cJSON_AddRawToObject(model, "vocab", VOCAB_MARK) &&
           cJSON_AddRawToObject(model, "merges", MERGES_MARK);
}

/* The merges array as cJSON_Print prints one: on one line, ", " between. */
static bool put_merges_array(bufsink *b, const token_keys *k, const bpe_result *r)
{
    spelling sp = {0};
    bool ok = bufsink_put(b, "[", 1);
    for (size_t i = 0; ok && i < r->n_merges; i++) {
        size_t len;
        const char *line = spell_merge(k, &r->merges[i], &sp, &len);
        ok = (i == 0 || bufsink_put(b, ", ", 2)) &&
             (line ? put_json_string(b, line, len)
                   : bufsink_fail(b, "out of memory formatting the output files"));
    }
    free(sp.text);
    return ok && bufsink_put(b, "]", 1);
}

/*
 * tokenizer.json, HF tokenizers' single file (Tokenizer.from_file): the
 * same ids as vocab.json + merges.txt, the exact split pattern, the special
 * tokens marked special. cJSON prints everything but the vocab and the
 * merges, which take their marks' places, streamed as cJSON would print
 * them there (the vocab is a member of the model object, itself a member
 * of the root: its entries three tabs in). O(V + m + total token bytes).
 */
static bool produce_tokenizer_json(bufsink *b, const tokenizer_parts *p)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root && add_string(root, "version", "1.0") &&
              cJSON_AddNullToObject(root, "truncation") && cJSON_AddNullToObject(root, "padding") &&
              add_special_tokens(root, p->keys) && cJSON_AddNullToObject(root, "normalizer") &&
              add_pre_tokenizer(root, p->pattern) &&
              cJSON_AddNullToObject(root, "post_processor") &&
              fill_byte_level(add_typed(root, "decoder", "ByteLevel")) && add_model(root);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    char *vocab = text ? strstr(text, VOCAB_MARK) : NULL;
    char *merges = vocab ? strstr(vocab, MERGES_MARK) : NULL;
    ok = merges ? bufsink_put(b, text, (size_t)(vocab - text)) && put_vocab(b, p->keys, 3) &&
                      bufsink_put(b, vocab + 1, (size_t)(merges - vocab - 1)) &&
                      put_merges_array(b, p->keys, p->r) && bufsink_put(b, merges + 1, strlen(merges + 1))
                : bufsink_fail(b, "out of memory formatting the output files");
    cJSON_free(text);
    return ok;
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

/* Bytes of a token base64-encoded at a time (a multiple of 3, so that the
 * pieces' encodings join into the whole's). */
enum { BASE64_PIECE = 3 * 1024 };

/* tokenizer.tiktoken, what tiktoken's load_tiktoken_bpe reads: one line
 * "base64(bytes) rank" per byte and learned token, the rank being its id
 * (special tokens and twins have no line), a long token encoded a piece at
 * a time. O(total token bytes). */
static bool produce_tiktoken_ranks(bufsink *b, const tokenizer_parts *p)
{
    const token_keys *k = p->keys;
    bool ok = true;
    for (size_t i = 0; ok && i < k->n; i++) {
        if (is_special_id(i, k->n_specials) || k->twin[i])
            continue;
        bpe_token t = token_of_id(i, k->n_specials);
        const uint8_t *bytes = bpe_vocab_bytes(&p->r->vocab, t);
        size_t len = p->r->vocab.len[t];
        for (size_t at = 0; ok && at < len; at += BASE64_PIECE) {
            size_t piece = len - at < BASE64_PIECE ? len - at : BASE64_PIECE;
            char *room = bufsink_room(b, 4 * (BASE64_PIECE / 3));
            if ((ok = room != NULL))
                bufsink_advance(b, base64_encode(bytes + at, piece, room));
        }
        char *at = ok ? bufsink_room(b, 22) : NULL; /* " rank\n" */
        if ((ok = at != NULL)) {
            at[0] = ' ';
            size_t n = 1 + bufsink_decimal(at + 1, i);
            at[n] = '\n';
            bufsink_advance(b, n + 1);
        }
    }
    return ok;
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
        const char *key = k->specials[i];
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

/* The file_set_member producers: each streams one file of the set. */
static bool write_vocab_json(const void *ctx, byte_sink sink, char *err, size_t err_len)
{
    return stream_file(ctx, produce_vocab_json, sink, err, err_len);
}

static bool write_merges_text(const void *ctx, byte_sink sink, char *err, size_t err_len)
{
    return stream_file(ctx, produce_merges_text, sink, err, err_len);
}

static bool write_tokenizer_json(const void *ctx, byte_sink sink, char *err, size_t err_len)
{
    return stream_file(ctx, produce_tokenizer_json, sink, err, err_len);
}

static bool write_tiktoken_ranks(const void *ctx, byte_sink sink, char *err, size_t err_len)
{
    return stream_file(ctx, produce_tiktoken_ranks, sink, err, err_len);
}

bool output_write_tokenizer(const char *dir, const bpe_result *r, const pretok_config *cfg,
                            char *err, size_t err_len)
{
    return output_write_tokenizer_with(dir, r, cfg, NULL, 1, err, err_len);
}

bool output_write_tokenizer_with(const char *dir, const bpe_result *r, const pretok_config *cfg,
                                 const output_training *training, unsigned threads, char *err,
                                 size_t err_len)
{
    for (size_t k = 0; k < cfg->n_specials; k++)
        if (!output_special_token_ok(cfg->specials[k], err, err_len))
            return false;
    token_keys keys;
    if (!token_keys_make(&keys, r, cfg->specials, cfg->n_specials))
        return set_error(err, err_len, "out of memory formatting the output files");
    /* the files' readers are other regex engines: the portable spelling */
    tokenizer_parts parts = {.keys = &keys, .r = r,
                             .pattern = pretok_pattern_portable(cfg->pattern)};
    char *encoding = tiktoken_json(&keys, parts.pattern, training);
    /* the longest to write first: writers take the members in this order */
    file_set_member files[N_TOKENIZER_FILES] = {
        {.name = TOKENIZER_FILES[2], .write = write_tokenizer_json, .ctx = &parts},
        {.name = TOKENIZER_FILES[0], .write = write_vocab_json, .ctx = &parts},
        {.name = TOKENIZER_FILES[1], .write = write_merges_text, .ctx = &parts},
        {.name = TOKENIZER_FILES[3], .write = write_tiktoken_ranks, .ctx = &parts},
        {.name = TOKENIZER_FILES[4], .data = encoding, .len = encoding ? strlen(encoding) : 0},
    };
    bool ok = encoding ? file_set_replace(dir, files, N_TOKENIZER_FILES, threads, err, err_len)
                       : set_error(err, err_len, "out of memory formatting the output files");
    free(encoding);
    token_keys_free(&keys);
    return ok;
}
