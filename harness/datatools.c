/*
 * datatools.c — slices and statistics of corpora (datatools.h).
 *
 * Slices. A benchmark grows n by training on longer and longer prefixes of
 * one corpus. A prefix cut at an arbitrary byte would split a word (or a
 * UTF-8 character) in two and invent a word the corpus does not have, so the
 * cut is word-safe: corpus_safe_cut (corpus.c) moves it back to just after
 * the last newline or complete special token in the last MiB, else to a
 * character boundary. Whole files come first, so a slice of a directory is
 * its first files plus the head of one more — the same rule `bench` applies
 * to its slice sizes. A slice needs only its own bytes in memory: O(limit).
 *
 * Statistics. The words come from corpus_count_words, the very code training
 * uses, so W here is the W a trainer sees. From the word table:
 *   W = distinct words, M = Σ len(w) over them (bytes: symbols before any
 *   merge), L = M / W, P = distinct adjacent byte pairs over the distinct
 *   words (a 65,536-bit set), and the ten most frequent words (a sorted
 *   array of ten, ties broken by bytes so the list is reproducible).
 * The script mix is a second pass over the raw bytes, decoding UTF-8 in
 * chunks and adding each character's byte length to its script. Scripts are
 * code point ranges (Unicode blocks), a deliberate simplification of the
 * Unicode Script property that is enough to tell what a corpus is made of:
 *   latin       U+0041–005A, U+0061–007A, U+00C0–024F (with × and ÷),
 *               U+1E00–1EFF
 *   greek       U+0370–03FF, U+1F00–1FFF
 *   cyrillic    U+0400–052F
 *   arabic      U+0600–06FF, U+0750–077F, U+08A0–08FF, U+FB50–FDFF,
 *               U+FE70–FEFC
 *   devanagari  U+0900–097F, U+A8E0–A8FF
 *   thai        U+0E00–0E7F
 *   hangul      U+1100–11FF, U+3130–318F, U+AC00–D7AF
 *   cjk         U+2E80–2FDF, U+3000–30FF (CJK punctuation, kana),
 *               U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, U+FF00–FFEF
 *               (fullwidth forms), U+20000–2FFFF
 *   common      the rest of U+0000–00BF (digits, punctuation, spaces,
 *               controls), U+2000–206F (general punctuation), U+FEFF (BOM)
 *   other       every other code point; invalid: bytes that are not UTF-8.
 *
 * Complexity: slice O(limit); stats O(n) to count and classify, O(M) for P,
 * O(W) for the top words; memory O(W + M) (the word table).
 */
#include "datatools.h"
#include "corpus.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SCRIPT_CHUNK = 1 << 20 }; /* bytes read at a time when classifying */

/* -------------------------------------------------------------- slices */

/* Reads up to `want` bytes of the open file into buf; false on a read
 * error. O(want). */
static bool read_up_to(FILE *f, const char *path, uint8_t *buf, size_t want, size_t *got,
                       char *err, size_t err_len)
{
    *got = fread(buf, 1, want, f);
    if (ferror(f)) {
        snprintf(err, err_len, "%s: read failed: %s; check the file", path, strerror(errno));
        return false;
    }
    return true;
}

bool slice_files(char *const *files, size_t n_files, uint64_t limit,
                 const char *const *specials, size_t n_specials, uint8_t **text, size_t *len,
                 size_t *joined, char *err, size_t err_len)
{
    *text = NULL;
    *len = 0;
    *joined = 0;
    if (limit >= SIZE_MAX) {
        snprintf(err, err_len, "--bytes %llu: too large for this machine's memory",
                 (unsigned long long)limit);
        return false;
    }
    uint8_t *buf = malloc((size_t)limit + 1); /* one byte more: does the input go on? */
    if (!buf) {
        snprintf(err, err_len, "out of memory for a slice of %llu bytes",
                 (unsigned long long)limit);
        return false;
    }
    size_t used = 0;
    bool ok = true, previous_unterminated = false, cut = false;
    for (size_t i = 0; ok && !cut && i < n_files && used < limit; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) {
            snprintf(err, err_len, "%s: cannot open: %s; check the path and its permissions",
                     files[i], strerror(errno));
            ok = false;
            break;
        }
        size_t got, budget = (size_t)limit - used;
        ok = read_up_to(f, files[i], buf + used, budget + 1, &got, err, err_len);
        fclose(f);
        cut = ok && got > budget; /* this file goes past the limit: cut inside it, stop */
        if (cut)
            got = corpus_safe_cut(buf + used, got, budget, specials, n_specials);
        if (got > 0) {
            *joined += previous_unterminated;
            previous_unterminated = buf[used + got - 1] != '\n';
        }
        used += got;
    }
    if (ok && used == 0) {
        snprintf(err, err_len, "--bytes %llu: the first file has no word-safe cut that short "
                 "(or the input is empty); give more bytes", (unsigned long long)limit);
        ok = false;
    }
    if (!ok) {
        free(buf);
        return false;
    }
    *text = buf;
    *len = used;
    return true;
}

/* ------------------------------------------------------------- scripts */

const char *const script_names[SCRIPT_COUNT] = {
    "latin", "greek", "cyrillic", "arabic", "devanagari", "thai",
    "hangul", "cjk", "common", "other", "invalid",
};

/* A range of code points and its script; sorted, not overlapping. */
typedef struct {
    uint32_t first;  /* first code point */
    uint32_t last;   /* last code point, inclusive */
    script script;   /* what it counts as */
} script_range;

static const script_range SCRIPT_RANGES[] = {
    {0x0000, 0x0040, SCRIPT_COMMON},   {0x0041, 0x005A, SCRIPT_LATIN},
    {0x005B, 0x0060, SCRIPT_COMMON},   {0x0061, 0x007A, SCRIPT_LATIN},
    {0x007B, 0x00BF, SCRIPT_COMMON},   {0x00C0, 0x024F, SCRIPT_LATIN},
    {0x0370, 0x03FF, SCRIPT_GREEK},    {0x0400, 0x052F, SCRIPT_CYRILLIC},
    {0x0600, 0x06FF, SCRIPT_ARABIC},   {0x0750, 0x077F, SCRIPT_ARABIC},
    {0x08A0, 0x08FF, SCRIPT_ARABIC},   {0x0900, 0x097F, SCRIPT_DEVANAGARI},
    {0x0E00, 0x0E7F, SCRIPT_THAI},     {0x1100, 0x11FF, SCRIPT_HANGUL},
    {0x1E00, 0x1EFF, SCRIPT_LATIN},    {0x1F00, 0x1FFF, SCRIPT_GREEK},
    {0x2000, 0x206F, SCRIPT_COMMON},   {0x2E80, 0x2FDF, SCRIPT_CJK},
    {0x3000, 0x30FF, SCRIPT_CJK},      {0x3130, 0x318F, SCRIPT_HANGUL},
    {0x3400, 0x4DBF, SCRIPT_CJK},      {0x4E00, 0x9FFF, SCRIPT_CJK},
    {0xA8E0, 0xA8FF, SCRIPT_DEVANAGARI}, {0xAC00, 0xD7AF, SCRIPT_HANGUL},
    {0xF900, 0xFAFF, SCRIPT_CJK},      {0xFB50, 0xFDFF, SCRIPT_ARABIC},
    {0xFE70, 0xFEFC, SCRIPT_ARABIC},   {0xFEFF, 0xFEFF, SCRIPT_COMMON},
    {0xFF00, 0xFFEF, SCRIPT_CJK},      {0x20000, 0x2FFFF, SCRIPT_CJK},
};

script script_of(uint32_t cp)
{
    for (size_t i = 0; i < sizeof SCRIPT_RANGES / sizeof *SCRIPT_RANGES; i++) {
        if (cp < SCRIPT_RANGES[i].first)
            break;
        if (cp <= SCRIPT_RANGES[i].last)
            return SCRIPT_RANGES[i].script;
    }
    return SCRIPT_OTHER;
}

/* Classifies the characters that start in buf[0, stop) (all of them are
 * complete when stop ≤ len − 3); returns where it stopped. O(stop). */
static size_t classify(const uint8_t *buf, size_t len, size_t stop, uint64_t *bytes)
{
    size_t i = 0;
    while (i < stop) {
        uint32_t cp;
        int step = utf8_decode(buf + i, len - i, &cp);
        if (step == 0) {
            bytes[SCRIPT_INVALID]++;
            i++;
        } else {
            bytes[script_of(cp)] += (uint64_t)step;
            i += (size_t)step;
        }
    }
    return i;
}

/* Adds one file's bytes per script, streaming: up to 3 bytes of a character
 * cut by the chunk end wait for the next chunk. O(file). */
static bool classify_file(const char *path, uint8_t *buf, uint64_t *bytes, char *err,
                          size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s; check the path and its permissions", path,
                 strerror(errno));
        return false;
    }
    size_t carry = 0, got;
    bool ok;
    do {
        ok = read_up_to(f, path, buf + carry, SCRIPT_CHUNK, &got, err, err_len);
        size_t len = carry + got;
        bool last = !ok || got < SCRIPT_CHUNK;
        size_t done = classify(buf, len, last ? len : len - 3, bytes);
        carry = len - done;
        memmove(buf, buf + done, carry);
        if (last)
            break;
    } while (ok);
    fclose(f);
    return ok;
}

/* --------------------------------------------------------------- stats */

uint64_t words_initial_pairs(const bpe_words *words)
{
    static const size_t n_bits = 1 << 16;
    uint8_t *seen = calloc(n_bits / 8, 1);
    if (!seen)
        return UINT64_MAX;
    uint64_t pairs = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        const uint8_t *b = words->words[w].bytes;
        for (uint32_t i = 0; i + 1 < words->words[w].len; i++) {
            unsigned pair = (unsigned)b[i] << 8 | b[i + 1];
            if (!(seen[pair >> 3] & (1u << (pair & 7)))) {
                seen[pair >> 3] |= (uint8_t)(1u << (pair & 7));
                pairs++;
            }
        }
    }
    free(seen);
    return pairs;
}

void words_script_bytes(const bpe_words *words, uint64_t script_bytes[SCRIPT_COUNT])
{
    memset(script_bytes, 0, SCRIPT_COUNT * sizeof *script_bytes);
    for (size_t w = 0; w < words->n_words; w++) {
        uint64_t in_word[SCRIPT_COUNT] = {0};
        const bpe_word *word = &words->words[w];
        classify(word->bytes, word->len, word->len, in_word);
        for (int k = 0; k < SCRIPT_COUNT; k++)
            script_bytes[k] += word->count * in_word[k];
    }
}

/* True when a should be listed before b: more frequent, or as frequent with
 * smaller bytes (the shorter first when one is a prefix of the other).
 * O(length). */
static bool ranks_before(const stats_word *a, const stats_word *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    uint32_t common = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, common);
    return c != 0 ? c < 0 : a->len < b->len;
}

/* Keeps the STATS_TOP_WORDS best words in s->top by insertion. O(W · 10). */
static void find_top_words(corpus_stats *s)
{
    const word_table *t = &s->table;
    for (size_t w = 0; w < t->n_entries; w++) {
        stats_word cand = {t->arena + t->entries[w].offset, t->entries[w].len,
                           t->entries[w].count};
        size_t at = s->n_top;
        while (at > 0 && ranks_before(&cand, &s->top[at - 1]))
            at--;
        if (at >= STATS_TOP_WORDS)
            continue;
        size_t last = s->n_top < STATS_TOP_WORDS ? s->n_top : STATS_TOP_WORDS - 1;
        memmove(&s->top[at + 1], &s->top[at], (last - at) * sizeof *s->top);
        s->top[at] = cand;
        if (s->n_top < STATS_TOP_WORDS)
            s->n_top++;
    }
}

/* The word-table part: words counted as training counts them. O(n). */
static bool count_words(const pretok_config *cfg, char *const *files, size_t n_files,
                        corpus_stats *s, char *err, size_t err_len)
{
    pretokenizer *p = pretok_new(cfg, err, err_len);
    if (!p)
        return false;
    corpus_read opts = {0};
    bool ok = corpus_count_words(p, cfg, files, n_files, &opts, &s->table, err, err_len);
    s->corpus = *pretok_get_stats(p);
    pretok_free(p);
    return ok;
}

bool corpus_stats_compute(const pretok_config *cfg, char *const *files, size_t n_files,
                          corpus_stats *s, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    uint8_t *buf = malloc(SCRIPT_CHUNK + 3);
    bool ok = buf && word_table_init(&s->table);
    if (!ok)
        snprintf(err, err_len, "out of memory");
    ok = ok && count_words(cfg, files, n_files, s, err, err_len);
    for (size_t i = 0; ok && i < n_files; i++)
        ok = classify_file(files[i], buf, s->script_bytes, err, err_len);
    free(buf);
    if (ok) {
        s->words = s->table.n_entries;
        s->symbols = s->table.arena_used;
        bpe_word *array = NULL;
        bpe_words view;
        s->pairs = word_table_view(&s->table, &array, &view) ? words_initial_pairs(&view)
                                                              : UINT64_MAX;
        free(array);
        find_top_words(s);
        if (s->pairs == UINT64_MAX) {
            snprintf(err, err_len, "out of memory counting pairs");
            ok = false;
        }
    }
    if (!ok)
        corpus_stats_free(s);
    return ok;
}

void corpus_stats_free(corpus_stats *s)
{
    word_table_free(&s->table);
    memset(s, 0, sizeof *s);
}
