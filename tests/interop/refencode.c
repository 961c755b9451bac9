/*
 * refencode.c — the reference encoder of `make interop`: what the ids of a
 * text must be, given only the files `train` wrote and the training's
 * special tokens and pattern. It reads vocab.json and merges.txt (never
 * tokenizer.json or the tiktoken files, which it judges), cuts the text as
 * training did (special tokens, then the PCRE2 pattern: harness/input/pretok.h)
 * and encodes each piece by greedy merging: start from its bytes, and while
 * some adjacent pair of symbols is a merge of merges.txt, merge the pair of
 * lowest rank (line number), leftmost first; each final symbol's id is its
 * key in vocab.json (a twin's bytes have their first id, docs/spec.md §3).
 *
 *   refencode DIR PATTERN [SPECIAL...] < TEXT   prints the ids, one per line
 *
 * Complexity per piece of L bytes: O(L² log m) (a scan per merge; test texts
 * are small). Exit 1 with a message on any error: a file that does not parse,
 * a symbol with no id.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/byteunicode.h"
#include "input/pretok.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tokenizer as its files say. */
typedef struct {
    cJSON *vocab;  /* vocab.json: {spelled token: id}; owned */
    char **merges; /* merges.txt's lines "left right", sorted for bsearch; owned */
    size_t *ranks; /* ranks[i]: the line number (from 0) of merges[i] */
    size_t n;      /* merges */
} ref_tokenizer;

/* A symbol while a piece is encoded: its spelling in the byte alphabet. */
typedef struct {
    char *spelled; /* owned */
} symbol;

static ref_tokenizer tok;
static int failures;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "refencode: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap && !(buf = realloc(buf, cap *= 2)))
            break;
    }
    if (!buf)
        die("out of memory", NULL);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *read_named(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t len;
    char *text = slurp(f, &len);
    fclose(f);
    return text;
}

/* Sorts merges with their ranks (a merge list is small: m ≤ V). */
static int by_merge(const void *a, const void *b)
{
    return strcmp(tok.merges[*(const size_t *)a], tok.merges[*(const size_t *)b]);
}

static void load(const char *dir)
{
    char *text = read_named(dir, "vocab.json");
    if (!(tok.vocab = cJSON_Parse(text)))
        die("vocab.json does not parse", dir);
    free(text);
    text = read_named(dir, "merges.txt");
    char *line = strtok(text, "\n");
    if (!line || strcmp(line, "#version: 0.2") != 0)
        die("merges.txt lacks its header", dir);
    size_t cap = 1024;
    char **lines = malloc(cap * sizeof *lines);
    for (line = strtok(NULL, "\n"); line; line = strtok(NULL, "\n")) {
        if (tok.n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[tok.n++] = strdup(line);
    }
    free(text);
    size_t *order = malloc((tok.n + 1) * sizeof *order);
    tok.merges = lines;
    for (size_t i = 0; i < tok.n; i++)
        order[i] = i;
    qsort(order, tok.n, sizeof *order, by_merge);
    tok.merges = malloc((tok.n + 1) * sizeof *tok.merges);
    tok.ranks = malloc((tok.n + 1) * sizeof *tok.ranks);
    for (size_t i = 0; i < tok.n; i++) {
        tok.merges[i] = lines[order[i]];
        tok.ranks[i] = order[i];
    }
    free(lines);
    free(order);
}

/* The rank of merge "left right", or SIZE_MAX when it is none. O(log m). */
static size_t rank_of(const char *left, const char *right)
{
    size_t n = strlen(left) + strlen(right) + 2;
    char *key = malloc(n);
    snprintf(key, n, "%s %s", left, right);
    size_t lo = 0, hi = tok.n, rank = SIZE_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(tok.merges[mid], key);
        if (c == 0) {
            rank = tok.ranks[mid];
            break;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    free(key);
    return rank;
}

static void print_id(const char *spelled)
{
    cJSON *id = cJSON_GetObjectItemCaseSensitive(tok.vocab, spelled);
    if (!cJSON_IsNumber(id)) {
        fprintf(stderr, "refencode: \"%s\" has no id in vocab.json\n", spelled);
        failures++;
        return;
    }
    printf("%.0f\n", cJSON_GetNumberValue(id));
}

/* Greedy merging of one piece by rank, leftmost first (see the top). */
static void encode_piece(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    (void)ctx;
    if (is_special) {
        char *s = strndup((const char *)piece, len);
        print_id(s);
        free(s);
        return;
    }
    symbol *sym = malloc((len + 1) * sizeof *sym);
    for (size_t i = 0; i < len; i++) {
        sym[i].spelled = calloc(3, 1);
        byte_to_unicode_utf8(piece[i], sym[i].spelled);
    }
    size_t n = len;
    for (;;) {
        size_t best = SIZE_MAX, at = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            size_t r = rank_of(sym[i].spelled, sym[i + 1].spelled);
            if (r < best) {
                best = r;
                at = i;
            }
        }
        if (best == SIZE_MAX)
            break;
        size_t a = strlen(sym[at].spelled), b = strlen(sym[at + 1].spelled);
        sym[at].spelled = realloc(sym[at].spelled, a + b + 1);
        memcpy(sym[at].spelled + a, sym[at + 1].spelled, b + 1);
        free(sym[at + 1].spelled);
        memmove(sym + at + 1, sym + at + 2, (n - at - 2) * sizeof *sym);
        n--;
    }
    for (size_t i = 0; i < n; i++) {
        print_id(sym[i].spelled);
        free(sym[i].spelled);
    }
    free(sym);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: refencode DIR PATTERN [SPECIAL...] < TEXT", NULL);
    load(argv[1]);
    pretok_config cfg = {.specials = (const char *const *)argv + 3, .n_specials = (size_t)argc - 3,
                         .pattern = argv[2], .invalid_utf8 = INVALID_UTF8_ERROR};
    char err[1024];
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    if (!p)
        die(err, NULL);
    size_t len;
    char *text = slurp(stdin, &len);
    if (!pretok_split(p, "stdin", (const uint8_t *)text, len, 0, encode_piece, NULL, err,
                      sizeof err))
        die(err, NULL);
    if (pretok_get_stats(p)->unmatched_bytes)
        die("the pattern leaves text unmatched, which HF tokenizers keeps and tiktoken drops; "
            "choose a pattern that matches every character", NULL);
    pretok_free(p);
    free(text);
    return failures ? 1 : 0;
}
