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
 *   refencode --classes   prints the code points PCRE2 puts in \s, \p{L} and
 *                         \p{N} (UTF, UCP), as ranges, for classes.js
 *
 * Complexity per piece of L bytes: O(L² log m) (a scan per merge; test texts
 * are small). Exit 1 with a message on any error: a file that does not parse,
 * a symbol with no id.
 */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/byteunicode.h"
#include "base/utf8.h"
#include "input/pretok.h"

#include <pcre2.h>

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

/* One line per class: its name, then "FIRST-LAST" hex ranges of the code
 * points PCRE2 matches with it (surrogates aside), as training compiles
 * patterns; a first line names PCRE2's version and Unicode's. */
static void print_classes(void)
{
    char version[64], unicode[64];
    pcre2_config(PCRE2_CONFIG_VERSION, version);
    pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, unicode);
    printf("PCRE2 %s, Unicode %s\n", version, unicode);
    static const char *const classes[] = {"\\s", "\\p{L}", "\\p{N}"};
    for (size_t c = 0; c < sizeof classes / sizeof *classes; c++) {
        int rc;
        PCRE2_SIZE offset;
        pcre2_code *code = pcre2_compile((PCRE2_SPTR)classes[c], PCRE2_ZERO_TERMINATED,
                                         PCRE2_UTF | PCRE2_UCP, &rc, &offset, NULL);
        pcre2_match_data *md = code ? pcre2_match_data_create_from_pattern(code, NULL) : NULL;
        if (!md)
            die("cannot compile a class", classes[c]);
        printf("%s", classes[c]);
        long first = -1;
        for (uint32_t cp = 0; cp <= 0x110000; cp++) {
            uint8_t utf8[4];
            bool in = false;
            if (cp < 0x110000 && (cp < 0xD800 || cp >= 0xE000)) {
                int n = utf8_encode(cp, utf8);
                in = pcre2_match(code, utf8, (size_t)n, 0, PCRE2_ANCHORED, md, NULL) >= 0;
            }
            if (in && first < 0)
                first = cp;
            if (!in && first >= 0 && !(cp >= 0xD800 && cp < 0xE000)) {
                printf(" %lX-%lX", first, (long)cp - 1);
                first = -1;
            }
        }
        printf("\n");
        pcre2_match_data_free(md);
        pcre2_code_free(code);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--classes") == 0) {
        print_classes();
        return 0;
    }
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
