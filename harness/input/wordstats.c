/*
 * wordstats.c — what a word table says about its text (wordstats.h).
 *
 * Scripts are code point ranges (Unicode blocks), a deliberate
 * simplification of the Unicode Script property that is enough to tell what
 * a corpus is made of:
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
 * P before any merge is counted in a 65,536-bit set of byte pairs.
 */
#include "input/wordstats.h"
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

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

size_t script_classify(const uint8_t *buf, size_t len, size_t stop, uint64_t *bytes)
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
        script_classify(word->bytes, word->len, word->len, in_word);
        for (int k = 0; k < SCRIPT_COUNT; k++)
            script_bytes[k] += word->count * in_word[k];
    }
}
