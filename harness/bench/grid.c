/*
 * grid.c — the benchmark grid's settings: parsing option values and config
 * files into a bench_grid (see grid.h for the precedence rules).
 *
 * Every setting is a (key, value) pair handled by one function per key, so
 * the command line and the config file cannot drift apart. Lists (sizes,
 * vocab) are kept sorted ascending: the driver (driver.h) runs small cells
 * first, which is what lets its skip-after-timeout rule save the most time.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/grid.h"
#include "bench/results.h"
#include "array.h"
#include "base/errors.h"
#include "base/untrusted.h"
#include "input/count.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replaces *slot with a copy of value. False on OOM. */
static bool set_string(char **slot, const char *value)
{
    char *copy = strdup(value);
    if (!copy)
        return false;
    free(*slot);
    *slot = copy;
    return true;
}

/* ============================================================ sizes */

/* Multiplier of a size suffix, or 0 when unknown. */
static uint64_t size_unit(const char *suffix)
{
    static const struct {
        const char *suffix; /* as written after the number */
        uint64_t unit;      /* bytes per unit */
    } units[] = {{"", 1},           {"B", 1},          {"K", 1000},     {"M", 1000000},
                 {"G", 1000000000}, {"Ki", 1u << 10}, {"Mi", 1u << 20}, {"Gi", 1u << 30}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(suffix, units[i].suffix) == 0)
            return units[i].unit;
    return 0;
}

/* One token: "all" or NUMBER[SUFFIX]. */
static bool parse_size(const char *tok, grid_size *out, char *err, size_t err_len)
{
    if (strlen(tok) >= sizeof out->label || !*tok)
        return set_error(err, err_len, "sizes: \"%s\": expected e.g. 500K, 5M, 1Gi or all", tok);
    snprintf(out->label, sizeof out->label, "%s", tok);
    if (strcmp(tok, "all") == 0) {
        out->bytes = 0;
        return true;
    }
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    uint64_t unit = size_unit(end);
    if (errno || end == tok || unit == 0 || !(v > 0) || v * (double)unit > 1e18)
        return set_error(err, err_len,
                    "sizes: \"%s\": expected a positive number with an optional suffix "
                    "K, M, G (powers of 1000) or Ki, Mi, Gi (powers of 1024), or \"all\"",
                    tok);
    out->bytes = (uint64_t)(v * (double)unit + 0.5);
    if (out->bytes == 0) /* 0 would mean "all" */
        return set_error(err, err_len, "sizes: \"%s\" is less than one byte", tok);
    /* The size names the slice (NAME@SIZE) in results, plots and file names. */
    if (!untrusted_name_ok(tok))
        return set_error(err, err_len, "sizes: \"%s\" cannot name a slice: " UNTRUSTED_NAME_RULE
                                       " (write 0.5M, not .5M)", tok);
    return true;
}

/* Ascending by bytes with "all" (0) last. */
static int cmp_size(const void *a, const void *b)
{
    uint64_t x = ((const grid_size *)a)->bytes, y = ((const grid_size *)b)->bytes;
    x = x ? x : UINT64_MAX;
    y = y ? y : UINT64_MAX;
    return (x > y) - (x < y);
}

/* Splits on commas, parses each size, sorts. O(k log k) for k sizes. */
bool grid_parse_sizes(const char *text, grid_sizes *out, char *err, size_t err_len)
{
    grid_sizes s = {0};
    char *copy = strdup(text), *save = NULL;
    bool ok = copy != NULL;
    if (!ok)
        set_error(err, err_len, "out of memory");
    for (char *tok = ok ? strtok_r(copy, ", ", &save) : NULL; ok && tok;
         tok = strtok_r(NULL, ", ", &save)) {
        grid_size *items = bpe_array_reserve(s.items, &s.cap, s.n + 1, sizeof *items);
        ok = items != NULL;
        if (!ok) {
            set_error(err, err_len, "out of memory");
            break;
        }
        s.items = items;
        ok = parse_size(tok, &s.items[s.n], err, err_len);
        s.n += ok;
    }
    free(copy);
    if (ok && s.n == 0)
        ok = set_error(err, err_len, "sizes: the list \"%s\" is empty", text);
    for (size_t i = 0; ok && i < s.n; i++) /* one slice per size: no run twice */
        for (size_t j = 0; ok && j < i; j++)
            if (s.items[i].bytes == s.items[j].bytes)
                ok = set_error(err, err_len, "sizes: \"%s\" and \"%s\" are the same size",
                               s.items[j].label, s.items[i].label);
    if (!ok) {
        free(s.items);
        return false;
    }
    qsort(s.items, s.n, sizeof *s.items, cmp_size);
    free(out->items);
    *out = s;
    return true;
}

/* ============================================================ keys */

static bool set_trainers(bench_grid *g, const char *value, char *err, size_t err_len)
{
    bool want[GRID_MAX_TRAINERS] = {false};
    size_t n_registry = 0;
    while (bpe_trainers[n_registry])
        n_registry++;
    if (n_registry > GRID_MAX_TRAINERS)
        return set_error(err, err_len, "the registry has more than %d trainers; raise "
                         "GRID_MAX_TRAINERS in grid.h", GRID_MAX_TRAINERS);
    if (strcmp(value, "all") == 0) {
        for (size_t i = 0; i < n_registry; i++)
            want[i] = true;
    } else {
        char copy[1024], *save = NULL;
        if (strlen(value) >= sizeof copy)
            return set_error(err, err_len, "trainers: list too long");
        strcpy(copy, value);
        for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
            size_t i = 0;
            while (i < n_registry && strcmp(bpe_trainers[i]->name, tok) != 0)
                i++;
            if (i == n_registry)
                return set_error(err, err_len,
                            "trainers: no trainer named \"%s\" (see `bpebench list`)", tok);
            want[i] = true;
        }
    }
    g->n_trainers = 0;
    for (size_t i = 0; i < n_registry; i++)
        if (want[i])
            g->trainers[g->n_trainers++] = bpe_trainers[i];
    return g->n_trainers > 0 ? true : set_error(err, err_len, "trainers: the list is empty");
}

/* NAME=PATH: appends a corpus (replacing an earlier one of the same name). */
static bool add_corpus(bench_grid *g, const char *value, bool from_cli, char *err,
                       size_t err_len)
{
    const char *eq = strchr(value, '=');
    size_t name_len = eq ? (size_t)(eq - value) : 0;
    if (!eq || name_len == 0 || !eq[1])
        return set_error(err, err_len, "corpus \"%s\": expected NAME=PATH", value);
    char name[UNTRUSTED_NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)name_len, value);
    if (name_len > UNTRUSTED_NAME_MAX || !untrusted_name_ok(name))
        return set_error(err, err_len, "corpus \"%s\": NAME is not a safe name: "
                                       UNTRUSTED_NAME_RULE, value);
    if (from_cli && !g->corpora_from_cli) {
        for (size_t i = 0; i < g->n_corpora; i++) {
            free(g->corpora[i].path);
            free(g->corpora[i].sizes.items);
        }
        g->n_corpora = 0;
        g->corpora_from_cli = true;
    }
    grid_corpus *c = NULL;
    for (size_t i = 0; i < g->n_corpora; i++)
        if (strncmp(g->corpora[i].name, value, name_len) == 0 && !g->corpora[i].name[name_len])
            c = &g->corpora[i];
    if (!c) {
        grid_corpus *all = bpe_array_reserve(g->corpora, &g->cap_corpora, g->n_corpora + 1,
                                             sizeof *all);
        if (!all)
            return set_error(err, err_len, "out of memory");
        g->corpora = all;
        c = &g->corpora[g->n_corpora++];
        memset(c, 0, sizeof *c);
        memcpy(c->name, value, name_len);
    }
    return set_string(&c->path, eq + 1) ? true : set_error(err, err_len, "out of memory");
}

/* NAME=COMMAND: appends an external trainer (external_parse's checks; a
 * NAME given before is refused: two commands cannot share a row). */
/* False, with the reason, when the grid has both an external trainer and
 * a min-frequency: the command would not stop where the trainers do, and
 * every one of its runs would fail verification. */
static bool external_with_min_frequency(const bench_grid *g, char *err, size_t err_len)
{
    if (g->min_frequency && g->n_externals)
        return set_error(err, err_len, "min-frequency %llu: the external trainer \"%s\" is not "
                         "told of it and would not stop where the built-in trainers do; drop "
                         "one of the two", (unsigned long long)g->min_frequency,
                         g->externals[0].name);
    return true;
}

static bool add_external(bench_grid *g, const char *value, char *err, size_t err_len)
{
    external_trainer t;
    if (!external_parse(value, &t, err, err_len))
        return false;
    for (size_t i = 0; i < g->n_externals; i++)
        if (strcmp(g->externals[i].name, t.name) == 0) {
            external_free(&t);
            return set_error(err, err_len, "external \"%s\": the name is given twice; give "
                             "each command a name of its own", t.name);
        }
    if (g->n_externals == GRID_MAX_EXTERNALS) {
        external_free(&t);
        return set_error(err, err_len, "external \"%s\": more than %d external trainers",
                         t.name, GRID_MAX_EXTERNALS);
    }
    external_trainer *all = bpe_array_reserve(g->externals, &g->cap_externals,
                                              g->n_externals + 1, sizeof *all);
    if (!all) {
        external_free(&t);
        return set_error(err, err_len, "out of memory");
    }
    g->externals = all;
    g->externals[g->n_externals++] = t;
    return external_with_min_frequency(g, err, err_len);
}

/* LIST (global) or NAME=LIST (one corpus, which must already be named). */
static bool set_sizes(bench_grid *g, const char *value, char *err, size_t err_len)
{
    const char *eq = strchr(value, '=');
    if (!eq)
        return grid_parse_sizes(value, &g->sizes, err, err_len);
    for (size_t i = 0; i < g->n_corpora; i++) {
        grid_corpus *c = &g->corpora[i];
        if (strlen(c->name) == (size_t)(eq - value) && strncmp(c->name, value, (size_t)(eq - value)) == 0)
            return grid_parse_sizes(eq + 1, &c->sizes, err, err_len);
    }
    return set_error(err, err_len, "sizes \"%s\": no corpus of that name was given before it", value);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool set_vocab(bench_grid *g, const char *value, char *err, size_t err_len)
{
    uint64_t v[64];
    size_t n = 0;
    const char *p = value;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        /* A digit first: strtoull reads "-18446744073709551000" as 616. */
        if (*p < '0' || *p > '9' || end == p || errno || x <= 256 || x > UINT32_MAX ||
            n == 64 || (*end && *end != ','))
            return set_error(err, err_len, "vocab \"%s\": expected up to 64 comma-separated "
                             "sizes, each a whole number from 257 to %u", value, UINT32_MAX);
        for (size_t i = 0; i < n; i++)
            if (v[i] == x)
                return set_error(err, err_len, "vocab \"%s\": %llu is given twice", value, x);
        v[n++] = x;
        p = *end ? end + 1 : end;
    }
    if (n == 0)
        return set_error(err, err_len, "vocab: the list is empty");
    uint64_t *copy = malloc(n * sizeof *copy);
    if (!copy)
        return set_error(err, err_len, "out of memory");
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_u64);
    free(g->vocab);
    g->vocab = copy;
    g->n_vocab = n;
    return true;
}

/* threads = a list of counts or "all" (every online core): each run of the
 * grid is made once per value, and records it. */
static bool set_threads(bench_grid *g, const char *value, char *err, size_t err_len)
{
    unsigned t[8];
    size_t n = 0;
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, ",");
        unsigned x;
        if (!count_parse_threads(p, len, &x) || n == 8)
            return set_error(err, err_len, "threads \"%s\": expected up to 8 comma-separated "
                             "thread counts from 1 to %d, or all", value, COUNT_MAX_THREADS);
        bool seen = false; /* "1,all" on one core is one value */
        for (size_t i = 0; i < n; i++)
            seen = seen || t[i] == x;
        if (!seen)
            t[n++] = (unsigned)x;
        p += len + (p[len] == ',');
    }
    if (n == 0)
        return set_error(err, err_len, "threads: the list is empty; give up to 8 "
                         "comma-separated thread counts from 1 to %d, or all", COUNT_MAX_THREADS);
    for (size_t i = 1; i < n; i++) /* ascending: insertion sort of at most 8 */
        for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
            unsigned swap = t[j];
            t[j] = t[j - 1];
            t[j - 1] = swap;
        }
    memcpy(g->threads, t, n * sizeof *t);
    g->n_threads = n;
    return true;
}

/* counting = a list of strategy names (count.h) or "all", kept in the order
 * given, each once: each run of the grid is made once per strategy, and
 * records it. */
static bool set_counting(bench_grid *g, const char *value, char *err, size_t err_len)
{
    size_t n_registry = 0, n = 0;
    while (count_strategies[n_registry])
        n_registry++;
    if (n_registry > GRID_MAX_COUNTING)
        return set_error(err, err_len, "the registry has more than %d counting strategies; "
                         "raise GRID_MAX_COUNTING in grid.h", GRID_MAX_COUNTING);
    const count_strategy *chosen[GRID_MAX_COUNTING];
    bool all = strcmp(value, "all") == 0;
    for (const char *p = value; !all; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        const count_strategy *s = len < sizeof name ? count_strategy_find(name) : NULL;
        if (!s)
            return set_error(err, err_len, "counting \"%s\": expected comma-separated counting "
                             "strategies (serial, parallel, dedup: bpebench list), or all",
                             value);
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            seen = seen || chosen[i] == s;
        if (!seen)
            chosen[n++] = s;
        if (!p[len])
            break;
    }
    if (all) {
        memcpy(chosen, count_strategies, n_registry * sizeof *chosen);
        n = n_registry;
    }
    memcpy(g->counting, chosen, n * sizeof *chosen);
    g->n_counting = n;
    return true;
}

/* pretokenizer = lexer, pcre2, or both in either order (pretok.h): each
 * run of the grid is made once per entry, and records it. */
static bool set_pretokenizers(bench_grid *g, const char *value, char *err, size_t err_len)
{
    pretok_engine chosen[2];
    size_t n = 0;
    for (const char *p = value;; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        char name[16];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        pretok_engine e;
        if (len >= sizeof name || !pretok_engine_parse(name, &e))
            return set_error(err, err_len, "pretokenizer \"%s\": expected lexer, pcre2 or "
                             "lexer,pcre2", value);
        if (n == 0 || (n == 1 && chosen[0] != e))
            chosen[n++] = e;
        if (!p[len])
            break;
    }
    memcpy(g->pretokenizers, chosen, n * sizeof *chosen);
    g->n_pretokenizers = n;
    return true;
}

static bool set_repeats(bench_grid *g, const char *value, char *err, size_t err_len)
{
    char *end;
    long r = strtol(value, &end, 10);
    if (*end || end == value || r < 1 || r > 1000)
        return set_error(err, err_len, "repeats \"%s\": expected a whole number from 1 to 1000", value);
    g->repeats = (int)r;
    return true;
}

/* Seconds for `key`: a positive number (or zero when zero_ok). */
static bool parse_seconds(const char *key, const char *value, bool zero_ok, double *out,
                          char *err, size_t err_len)
{
    char *end;
    double s = strtod(value, &end);
    /* A denormal limit would be written to results.json, which refuses it. */
    if (*end || end == value || !(s >= RESULTS_SECONDS_MIN || (zero_ok && s == 0)) || s > 1e6)
        return set_error(err, err_len, "%s \"%s\": expected seconds, e.g. 60 or 0.5", key, value);
    *out = s;
    return true;
}

/* min-frequency = N: a whole number; the grid's external trainers are told
 * nothing of it, so a grid that runs one refuses it (checked when both are
 * set, in either order). */
static bool set_min_frequency(bench_grid *g, const char *value, char *err, size_t err_len)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end || errno == ERANGE)
        return set_error(err, err_len, "min-frequency: \"%s\" is not a whole number such as 10",
                         value);
    g->min_frequency = n;
    return external_with_min_frequency(g, err, err_len);
}

/* The settings that one function of this file checks and stores. */
static const struct {
    const char *key; /* the setting's name */
    bool (*set)(bench_grid *g, const char *value, char *err, size_t err_len); /* its setter */
} setters[] = {
    {"trainers", set_trainers}, {"external", add_external},     {"sizes", set_sizes},
    {"vocab", set_vocab},       {"repeats", set_repeats},       {"threads", set_threads},
    {"counting", set_counting}, {"pretokenizer", set_pretokenizers},
    {"min-frequency", set_min_frequency},
};

bool grid_set(bench_grid *g, const char *key, const char *value, bool from_cli, char *err,
              size_t err_len)
{
    for (size_t i = 0; i < sizeof setters / sizeof *setters; i++)
        if (strcmp(key, setters[i].key) == 0)
            return setters[i].set(g, value, err, err_len);
    if (strcmp(key, "corpus") == 0)
        return add_corpus(g, value, from_cli, err, err_len);
    if (strcmp(key, "time-limit") == 0)
        return parse_seconds(key, value, false, &g->time_limit_s, err, err_len);
    if (strcmp(key, "repeat-time") == 0)
        return parse_seconds(key, value, true, &g->repeat_time_s, err, err_len);
    char **slot = strcmp(key, "out") == 0        ? &g->out_dir
                  : strcmp(key, "data-dir") == 0 ? &g->data_dir
                  : strcmp(key, "profile") == 0  ? &g->profile
                                                 : NULL;
    if (!slot)
        return set_error(err, err_len,
                    "unknown setting \"%s\"; known: trainers corpus external sizes vocab "
                    "threads counting pretokenizer min-frequency repeats repeat-time time-limit "
                    "out data-dir profile",
                    key);
    if (!*value)
        return set_error(err, err_len, "%s: the value is empty", key);
    return set_string(slot, value) ? true : set_error(err, err_len, "out of memory");
}

/* ============================================================ presets */

bool grid_init(bench_grid *g)
{
    memset(g, 0, sizeof *g);
    g->repeats = 3;
    g->time_limit_s = 60;
    char err[128];
    return set_trainers(g, "all", err, sizeof err) &&
           grid_parse_sizes("all", &g->sizes, err, sizeof err) &&
           set_vocab(g, "1000", err, sizeof err) && set_threads(g, "1", err, sizeof err) &&
           set_counting(g, count_strategy_default()->name, err, sizeof err) &&
           set_pretokenizers(g, "lexer", err, sizeof err) &&
           set_string(&g->out_dir, "results/latest");
}

void grid_free(bench_grid *g)
{
    for (size_t i = 0; i < g->n_corpora; i++) {
        free(g->corpora[i].path);
        free(g->corpora[i].sizes.items);
    }
    free(g->corpora);
    free(g->sizes.items);
    free(g->vocab);
    free(g->out_dir);
    free(g->data_dir);
    free(g->profile);
    for (size_t i = 0; i < g->n_externals; i++)
        external_free(&g->externals[i]);
    free(g->externals);
    memset(g, 0, sizeof *g);
}

bool grid_apply_quick(bench_grid *g, char *err, size_t err_len)
{
    for (size_t i = 0; i < g->n_corpora; i++) {
        free(g->corpora[i].sizes.items);
        g->corpora[i].sizes = (grid_sizes){0};
    }
    return grid_parse_sizes("100K,500K", &g->sizes, err, err_len) &&
           set_vocab(g, "500,1000", err, err_len) && set_repeats(g, "2", err, err_len) &&
           parse_seconds("time-limit", "30", false, &g->time_limit_s, err, err_len) &&
           (set_string(&g->profile, "auto") || set_error(err, err_len, "out of memory"));
}

const grid_sizes *grid_corpus_sizes(const bench_grid *g, const grid_corpus *c)
{
    return c->sizes.n ? &c->sizes : &g->sizes;
}

/* ============================================================ config files */

/* Trims spaces at both ends in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* One line (NUL-terminated, without its newline): a comment, blank, or
 * "key = value" applied with grid_set; "external NAME = COMMAND" is the key
 * external with the value NAME=COMMAND. */
static bool config_line(bench_grid *g, char *line, const char *name, int lineno, char *err,
                        size_t err_len)
{
    line[strcspn(line, "#")] = '\0';
    char *text = trim(line);
    if (!*text)
        return true;
    char *eq = strchr(text, '=');
    if (!eq)
        return set_error(err, err_len, "%s:%d: expected \"key = value\", got \"%s\"", name,
                         lineno, text);
    *eq = '\0';
    char why[400], *key = trim(text), *value = trim(eq + 1);
    bool ok;
    size_t word = strcspn(key, " \t");
    if (key[word] && word == strlen("external") && strncmp(key, "external", word) == 0) {
        char *spec = malloc(strlen(key) + strlen(value) + 2);
        if (!spec)
            return set_error(err, err_len, "%s: out of memory", name);
        sprintf(spec, "%s=%s", key + word, value);
        ok = grid_set(g, "external", spec, false, why, sizeof why);
        free(spec);
    } else {
        ok = grid_set(g, key, value, false, why, sizeof why);
    }
    return ok ? true : set_error(err, err_len, "%s:%d: %s", name, lineno, why);
}

bool grid_parse_config(bench_grid *g, const char *text, size_t len, const char *name, char *err,
                       size_t err_len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return set_error(err, err_len, "%s: out of memory", name);
    memcpy(copy, text, len);
    copy[len] = '\0';
    bool ok = true;
    int lineno = 1;
    for (size_t at = 0; ok && at < len; lineno++) {
        char *line = copy + at;
        size_t line_len = strcspn(line, "\n"); /* stops at a NUL too */
        if (at + line_len < len && line[line_len] == '\0') {
            ok = set_error(err, err_len, "%s:%d: a NUL byte at column %zu; a config file is "
                                         "text", name, lineno, line_len + 1);
            break;
        }
        line[line_len] = '\0';
        at += line_len + 1;
        ok = config_line(g, line, name, lineno, err, err_len);
    }
    free(copy);
    return ok;
}

/* The largest config file read: a grid fits in a few kilobytes. */
enum { CONFIG_MAX_BYTES = 1 << 20 };

bool grid_load_config(bench_grid *g, const char *path, char *err, size_t err_len)
{
    FILE *f = open_regular_file(path, "a config file", err, err_len);
    if (!f)
        return false;
    char *text = malloc(CONFIG_MAX_BYTES + 1);
    size_t len = text ? fread(text, 1, CONFIG_MAX_BYTES + 1, f) : 0;
    bool ok = text ? true : set_error(err, err_len, "%s: out of memory", path);
    if (ok && ferror(f))
        ok = set_error(err, err_len, "%s: cannot read: %s", path, strerror(errno));
    else if (ok && len > CONFIG_MAX_BYTES)
        ok = set_error(err, err_len, "%s: larger than %d bytes; is it a config file?", path,
                       CONFIG_MAX_BYTES);
    fclose(f);
    ok = ok && grid_parse_config(g, text, len, path, err, err_len);
    free(text);
    return ok;
}

/* ------------------------------------------------------------- writing */

/* Whether `value` comes back unchanged from a line "key = value": not
 * empty, no newline or '#', no space at either end (config_line trims). */
static bool writable(const char *value)
{
    size_t n = strlen(value);
    return n > 0 && !strpbrk(value, "\n#") && !isspace((unsigned char)value[0]) &&
           !isspace((unsigned char)value[n - 1]);
}

/* Writes "key = value" (value made of prefix and rest); false with the
 * reason when the line would not read back as the same value. */
static bool write_setting(FILE *out, const char *key, const char *prefix, const char *rest,
                          char *err, size_t err_len)
{
    char *value = malloc(strlen(prefix) + strlen(rest) + 1);
    if (!value)
        return set_error(err, err_len, "out of memory");
    strcpy(value, prefix);
    strcat(value, rest);
    bool ok = writable(value);
    if (ok)
        fprintf(out, "%s = %s\n", key, value);
    else
        set_error(err, err_len, "%s \"%s\" cannot be written to a config file (a newline, a "
                                "'#' or spaces at either end)", key, value);
    free(value);
    return ok;
}

/* "5M,all": the labels of a size list. */
static void write_sizes(FILE *out, const grid_sizes *s)
{
    for (size_t i = 0; i < s->n; i++)
        fprintf(out, "%s%s", i ? "," : "", s->items[i].label);
    fputc('\n', out);
}

char *grid_to_config(const bench_grid *g, char *err, size_t err_len)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        set_error(err, err_len, "out of memory");
        return NULL;
    }
    fprintf(out, "# a bpebench grid (grid_to_config)\ntrainers = ");
    for (size_t i = 0; i < g->n_trainers; i++)
        fprintf(out, "%s%s", i ? "," : "", g->trainers[i]->name);
    fputc('\n', out);
    bool ok = true;
    for (size_t i = 0; ok && i < g->n_corpora; i++) {
        const grid_corpus *c = &g->corpora[i];
        char name[UNTRUSTED_NAME_MAX + 2];
        snprintf(name, sizeof name, "%s=", c->name);
        ok = write_setting(out, "corpus", name, c->path, err, err_len);
        if (ok && c->sizes.n) {
            fprintf(out, "sizes = %s", name);
            write_sizes(out, &c->sizes);
        }
    }
    for (size_t i = 0; ok && i < g->n_externals; i++) {
        char key[UNTRUSTED_NAME_MAX + 16];
        snprintf(key, sizeof key, "external %s", g->externals[i].name);
        ok = write_setting(out, key, "", g->externals[i].command, err, err_len);
    }
    fprintf(out, "sizes = ");
    write_sizes(out, &g->sizes);
    fprintf(out, "vocab = ");
    for (size_t i = 0; i < g->n_vocab; i++)
        fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)g->vocab[i]);
    fprintf(out, "\nthreads = ");
    for (size_t i = 0; i < g->n_threads; i++)
        fprintf(out, "%s%u", i ? "," : "", g->threads[i]);
    fprintf(out, "\ncounting = ");
    for (size_t i = 0; i < g->n_counting; i++)
        fprintf(out, "%s%s", i ? "," : "", g->counting[i]->name);
    fprintf(out, "\npretokenizer = ");
    for (size_t i = 0; i < g->n_pretokenizers; i++)
        fprintf(out, "%s%s", i ? "," : "", pretok_engine_name(g->pretokenizers[i]));
    fprintf(out, "\nrepeats = %d\nrepeat-time = %.17g\ntime-limit = %.17g\n", g->repeats,
            g->repeat_time_s, g->time_limit_s);
    if (g->min_frequency)
        fprintf(out, "min-frequency = %llu\n", (unsigned long long)g->min_frequency);
    ok = ok && write_setting(out, "out", "", g->out_dir, err, err_len) &&
         (!g->data_dir || write_setting(out, "data-dir", "", g->data_dir, err, err_len)) &&
         (!g->profile || write_setting(out, "profile", "", g->profile, err, err_len));
    if (fclose(out) != 0 && ok)
        ok = set_error(err, err_len, "out of memory");
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}
