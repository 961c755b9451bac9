/*
 * synth.c — the synthetic corpus generator (synth.h).
 *
 * Idea. Make a vocabulary of W distinct word types, then write words drawn
 * from it with Zipf frequencies until n bytes are filled:
 *   1. alphabet: the K characters words are made of, each with its bytes;
 *   2. vocabulary: each type gets a length of 1 + Binomial(2(L−1), 1/2)
 *      characters (mean L, spread √((L−1)/2)) and random characters; a word
 *      that already exists is redrawn (a hash set keeps the types distinct),
 *      and after 32 collisions at one length it gets one character longer —
 *      which only happens when that length is nearly full (short words over a
 *      small alphabet), so the mean stays near L;
 *   3. ranks: the types sorted by (length, creation order), so rank 1 is a
 *      shortest word — in real languages the frequent words are the short
 *      ones (Zipf's law of abbreviation), and trainers see that in P;
 *   4. text: each word is the type of rank r with probability
 *      r^−S / Σ_j j^−S, drawn by binary search in the cumulative weights.
 *
 * Same bytes on every machine. The randomness is splitmix64 (Steele, Lea and
 * Flood, 2014): integer adds, xor-shifts and multiplies, so a seed means the
 * same stream everywhere, unlike rand(), which differs between C libraries.
 * The weights r^−S need a real power, and pow(), exp() and log() are not
 * correctly rounded — C libraries differ in the last bit, and a compiler may
 * fuse a*b+c into one FMA instruction on one machine and not on another. One
 * flipped bit moves a cumulative boundary and changes which word is drawn. So
 * the weights are fixed-point numbers computed with integers only:
 *   r^−S = 2^(−S·log2 r);
 *   log2 r: the integer part is the position of r's highest set bit; the 30
 *     fraction bits come from repeated squaring of x = r / 2^k in [1, 2)
 *     (x² ≥ 2 means the next bit is 1, then halve x);
 *   2^−e: the integer part of e is a right shift, and each set fraction bit
 *     i multiplies by 2^(−2^−i), a table made from 1/2 by repeated integer
 *     square roots.
 * The weights are within about 1e-8 of the real values (a test compares them
 * with pow()), and bit-identical everywhere because they are integers.
 *
 * Data structures, all owned by one synth_generate call and freed before it
 * returns: the alphabet (K characters); the vocabulary — an arena holding the
 * types' bytes back to back with start offsets (type t is
 * arena[start[t], start[t+1])) and a hash set of slots holding type index + 1;
 * by_rank (rank → type) and cumulative (rank → sum of the weights up to it).
 * Invariant: the types are pairwise distinct, and every type is in the slot
 * its hash probes to first or after a run of occupied slots.
 *
 * Complexity: vocabulary O(W·L) expected, ranks O(W log W), text
 * O((n/L)·log W) (less: see rank_of); memory O(n + W·L).
 */
#include "synth.h"
#include "prng.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TRIES_PER_LENGTH = 32, /* collisions at one length before a word grows */
    NEWLINE_ONE_IN = 16,   /* a newline instead of a space after ~1 word in 16 */
    FIX = 30,              /* fraction bits of log2 r and of exponents */
};

/* ----------------------------------------------------------------- PRNG */

/* Uniform in [0, n), n ≥ 1, without modulo bias: draws below 2^64 mod n are
 * redrawn, so the accepted range is a whole multiple of n. Expected O(1). */
static uint64_t uniform_below(uint64_t *state, uint64_t n)
{
    uint64_t reject_below = (0 - n) % n;
    for (;;) {
        uint64_t x = splitmix64(state);
        if (x >= reject_below)
            return x % n;
    }
}

static unsigned popcount64(uint64_t x)
{
    unsigned c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

/* A word length in characters: 1 + the number of ones among 2(L−1) random
 * bits, so its mean is exactly L. O(L/64). */
static uint32_t draw_length(uint64_t *state, uint32_t mean_len)
{
    uint32_t len = 1;
    for (uint32_t bits = 2 * (mean_len - 1); bits > 0;) {
        uint32_t take = bits < 64 ? bits : 64;
        uint64_t x = splitmix64(state);
        if (take < 64)
            x &= ((uint64_t)1 << take) - 1;
        len += popcount64(x);
        bits -= take;
    }
    return len;
}

/* ------------------------------------------------- fixed-point Zipf weights */

/* log2(r) for r ≥ 1, with FIX fraction bits. O(FIX). */
static uint64_t log2_fixed(uint32_t r)
{
    uint32_t k = 0;
    while ((r >> k) > 1)
        k++;
    /* x = r / 2^k in [1, 2), with FIX fraction bits; x < 2^31, so x² < 2^62. */
    uint64_t x = k <= FIX ? (uint64_t)r << (FIX - k) : (uint64_t)r >> (k - FIX);
    uint64_t result = (uint64_t)k << FIX;
    for (int bit = FIX - 1; bit >= 0; bit--) {
        x = (x * x) >> FIX;
        if (x >= (uint64_t)2 << FIX) {
            x >>= 1;
            result |= (uint64_t)1 << bit;
        }
    }
    return result;
}

/* floor(√v), digit by digit in base 4. O(32). */
static uint64_t isqrt64(uint64_t v)
{
    uint64_t root = 0, bit = (uint64_t)1 << 62;
    while (bit > v)
        bit >>= 2;
    for (; bit; bit >>= 2) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
    }
    return root;
}

/* root[i] = 2^(−2^−i) in Q32: root[0] = 1/2, each next one the square root. */
typedef struct {
    uint64_t root[FIX + 1]; /* Q32 values, all below 2^32 */
} exp2_table;

/* Fills the table: 30 integer square roots. O(FIX · 32). */
static void exp2_table_init(exp2_table *t)
{
    t->root[0] = (uint64_t)1 << 31;
    for (int i = 1; i <= FIX; i++)
        t->root[i] = isqrt64(t->root[i - 1] << 32);
}

/* 2^(−e) in Q32, for e with FIX fraction bits. O(FIX). */
static uint64_t exp2_negative(const exp2_table *t, uint64_t e)
{
    uint64_t whole = e >> FIX;
    if (whole >= 32)
        return 0;
    uint64_t v = (uint64_t)1 << 32; /* ≤ 2^32 throughout, so v·root < 2^64 */
    for (int i = 1; i <= FIX; i++)
        if (e & ((uint64_t)1 << (FIX - i)))
            v = (v * t->root[i]) >> 32;
    return v >> whole;
}

/* r^(−S) in Q32, at least 1. log2 r < 2^35 and s_milli ≤ 8000 < 2^13, so the
 * product fits in 64 bits. O(FIX). */
static uint64_t zipf_weight(const exp2_table *t, uint32_t rank, uint32_t s_milli)
{
    uint64_t w = exp2_negative(t, log2_fixed(rank) * s_milli / 1000);
    return w > 0 ? w : 1;
}

uint64_t synth_zipf_weight(uint32_t rank, uint32_t s_milli)
{
    exp2_table t;
    exp2_table_init(&t);
    return zipf_weight(&t, rank, s_milli);
}

/* ------------------------------------------------------------- alphabets */

/* One character of an alphabet. */
typedef struct {
    uint8_t bytes[4]; /* its encoding: UTF-8, or one raw byte for "bytes" */
    uint8_t len;      /* 1..4 */
} synth_char;

/* The characters words are made of. */
typedef struct {
    synth_char *chars; /* K distinct characters; owned, freed in alphabet_free */
    size_t n;          /* K */
} alphabet;

/* A named alphabet: a range of code points (or of raw bytes). */
typedef struct {
    const char *name; /* as given to --alphabet */
    uint32_t first;   /* first code point (or byte) */
    uint32_t last;    /* last one, inclusive */
    int raw_bytes;    /* 1: single bytes 0x00–0xFF, not UTF-8 */
} named_alphabet;

static const named_alphabet NAMED_ALPHABETS[] = {
    {"latin", 'a', 'z', 0},            /* 26 lowercase ASCII letters */
    {"cjk", 0x4E00, 0x9FFF, 0},        /* CJK Unified Ideographs, 3 bytes each */
    {"devanagari", 0x0905, 0x0939, 0}, /* Devanagari vowels and consonants (all \p{L}) */
    {"bytes", 0x00, 0xFF, 1},          /* raw bytes: the output is not UTF-8 */
};

/* True for the characters PCRE2 counts as \s (Unicode White_Space): a word
 * containing one would not be one word. */
static int is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static void alphabet_free(alphabet *a)
{
    free(a->chars);
    a->chars = NULL;
    a->n = 0;
}

/* Fills a with a named alphabet's range, leaving out whitespace (for raw
 * bytes: the ASCII whitespace bytes). O(K). */
static bool alphabet_from_range(const named_alphabet *named, alphabet *a)
{
    a->chars = malloc((named->last - named->first + 1) * sizeof *a->chars);
    if (!a->chars)
        return false;
    for (uint32_t cp = named->first; cp <= named->last; cp++) {
        if (is_space(cp) && !(named->raw_bytes && cp >= 0x80)) /* 0x85, 0xA0: only as characters */
            continue;
        synth_char *c = &a->chars[a->n++];
        if (named->raw_bytes) {
            c->bytes[0] = (uint8_t)cp;
            c->len = 1;
        } else {
            c->len = (uint8_t)utf8_encode(cp, c->bytes);
        }
    }
    return true;
}

static int compare_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Fills a with the distinct characters of a UTF-8 string, in code point
 * order (so the same set in any order makes the same corpus). False with a
 * reason on invalid UTF-8 or whitespace. O(K log K). */
static bool alphabet_from_string(const char *spec, alphabet *a, char *err, size_t err_len)
{
    size_t len = strlen(spec), n = 0;
    uint32_t *cps = malloc((len + 1) * sizeof *cps);
    if (!cps) {
        snprintf(err, err_len, "out of memory for --alphabet");
        return false;
    }
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int step = utf8_decode((const uint8_t *)spec + i, len - i, &cp);
        if (step == 0 || is_space(cp)) {
            snprintf(err, err_len,
                     step == 0 ? "--alphabet '%s': invalid UTF-8 at byte offset %zu; give "
                                 "characters in UTF-8, or latin, cjk, devanagari or bytes"
                               : "--alphabet '%s': whitespace at byte offset %zu would split "
                                 "words; leave it out",
                     spec, i);
            free(cps);
            return false;
        }
        cps[n++] = cp;
        i += (size_t)step;
    }
    qsort(cps, n, sizeof *cps, compare_u32);
    a->chars = malloc((n + 1) * sizeof *a->chars);
    if (!a->chars) {
        free(cps);
        snprintf(err, err_len, "out of memory for --alphabet");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (i == 0 || cps[i] != cps[i - 1]) {
            synth_char *c = &a->chars[a->n++];
            c->len = (uint8_t)utf8_encode(cps[i], c->bytes);
        }
    free(cps);
    return true;
}

/* The alphabet named or spelled by spec. O(K log K). */
static bool alphabet_make(const char *spec, alphabet *a, char *err, size_t err_len)
{
    a->chars = NULL;
    a->n = 0;
    if (!spec || !*spec) {
        snprintf(err, err_len, "--alphabet is empty; give latin, cjk, devanagari, bytes or "
                               "the characters to use");
        return false;
    }
    for (size_t i = 0; i < sizeof NAMED_ALPHABETS / sizeof *NAMED_ALPHABETS; i++)
        if (strcmp(spec, NAMED_ALPHABETS[i].name) == 0) {
            if (alphabet_from_range(&NAMED_ALPHABETS[i], a))
                return true;
            snprintf(err, err_len, "out of memory for --alphabet %s", spec);
            return false;
        }
    return alphabet_from_string(spec, a, err, err_len);
}

/* ---------------------------------------------------------- validation */

bool synth_check(const synth_config *cfg, char *err, size_t err_len)
{
    if (cfg->words < 1 || cfg->words > SYNTH_MAX_WORDS) {
        snprintf(err, err_len, "--words %u: give 1 to %d distinct word types", cfg->words,
                 SYNTH_MAX_WORDS);
        return false;
    }
    if (cfg->zipf_milli > SYNTH_MAX_ZIPF_MILLI) {
        snprintf(err, err_len, "--zipf %u.%03u: give an exponent from 0 to %d",
                 cfg->zipf_milli / 1000, cfg->zipf_milli % 1000, SYNTH_MAX_ZIPF_MILLI / 1000);
        return false;
    }
    if (cfg->mean_len < 1 || cfg->mean_len > SYNTH_MAX_MEAN_LEN) {
        snprintf(err, err_len, "--mean-len %u: give 1 to %d characters", cfg->mean_len,
                 SYNTH_MAX_MEAN_LEN);
        return false;
    }
    if (cfg->bytes < 1) {
        snprintf(err, err_len, "--bytes 0: give the output size in bytes, such as 1000000");
        return false;
    }
    alphabet a;
    if (!alphabet_make(cfg->alphabet, &a, err, err_len))
        return false;
    /* One character makes one word per length: a, aa, aaa, ... */
    bool enough = a.n > 1 || cfg->words <= SYNTH_MAX_WORD_CHARS;
    if (!enough)
        snprintf(err, err_len, "--alphabet '%s' has one character, so at most %d distinct words "
                 "(not --words %u); add characters",
                 cfg->alphabet, SYNTH_MAX_WORD_CHARS, cfg->words);
    alphabet_free(&a);
    return enough;
}

/* ----------------------------------------------------------- vocabulary */

/* The W distinct word types. */
typedef struct {
    uint8_t *arena;    /* the types' bytes back to back, then the candidate; owned */
    size_t arena_len;  /* bytes of committed types */
    size_t arena_cap;  /* bytes allocated */
    size_t *start;     /* type t is arena[start[t], start[t+1]); W + 1 entries; owned */
    uint32_t *chars;   /* type t's length in characters; W entries; owned */
    uint32_t n;        /* types made so far */
    uint32_t *slots;   /* hash set: type index + 1, or 0 when free; owned */
    size_t mask;       /* slots has mask + 1 entries, a power of two ≥ 2W */
} vocabulary;

static void vocabulary_free(vocabulary *v)
{
    free(v->arena);
    free(v->start);
    free(v->chars);
    free(v->slots);
}

/* Allocates for W types: slots for a load factor ≤ 1/2, an arena sized for
 * one byte per character (it grows for wider alphabets). O(W). */
static bool vocabulary_init(vocabulary *v, uint32_t words, uint32_t mean_len)
{
    memset(v, 0, sizeof *v);
    size_t n_slots = 1;
    while (n_slots < 2 * (size_t)words)
        n_slots *= 2;
    v->mask = n_slots - 1;
    v->arena_cap = (size_t)words * (mean_len + 1) + 4 * SYNTH_MAX_WORD_CHARS; /* grows */
    v->arena = malloc(v->arena_cap);
    v->start = calloc((size_t)words + 1, sizeof *v->start);
    v->chars = malloc((size_t)words * sizeof *v->chars);
    v->slots = calloc(n_slots, sizeof *v->slots);
    return v->arena && v->start && v->chars && v->slots;
}

/* FNV-1a, 64-bit. O(len). */
static uint64_t hash_bytes(const uint8_t *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001b3u;
    return h;
}

/* Writes a random candidate of `chars` characters after the committed types
 * (growing the arena if needed); returns its length in bytes, 0 on OOM. O(chars). */
static size_t draw_candidate(vocabulary *v, const alphabet *a, uint32_t chars, uint64_t *rng)
{
    if (v->arena_cap - v->arena_len < (size_t)chars * 4) {
        size_t cap = 2 * v->arena_cap + (size_t)chars * 4;
        uint8_t *grown = realloc(v->arena, cap);
        if (!grown)
            return 0;
        v->arena = grown;
        v->arena_cap = cap;
    }
    size_t len = 0;
    for (uint32_t i = 0; i < chars; i++) {
        const synth_char *c = &a->chars[uniform_below(rng, a->n)];
        memcpy(v->arena + v->arena_len + len, c->bytes, c->len);
        len += c->len;
    }
    return len;
}

/* Adds the candidate (len bytes after the committed types) unless it is a
 * type already; true when it was added. Expected O(len). */
static bool commit_if_new(vocabulary *v, size_t len, uint32_t chars)
{
    const uint8_t *cand = v->arena + v->arena_len;
    size_t i = (size_t)hash_bytes(cand, len) & v->mask;
    for (; v->slots[i]; i = (i + 1) & v->mask) {
        uint32_t t = v->slots[i] - 1;
        if (v->start[t + 1] - v->start[t] == len && memcmp(v->arena + v->start[t], cand, len) == 0)
            return false;
    }
    v->slots[i] = v->n + 1;
    v->chars[v->n] = chars;
    v->arena_len += len;
    v->start[++v->n] = v->arena_len;
    return true;
}

/* Makes one new type: length drawn around L, redrawn on collision, longer
 * after TRIES_PER_LENGTH collisions. Expected O(L). */
static bool add_type(vocabulary *v, const alphabet *a, uint32_t mean_len, uint64_t *rng,
                     char *err, size_t err_len)
{
    for (uint32_t chars = draw_length(rng, mean_len); chars <= SYNTH_MAX_WORD_CHARS; chars++)
        for (int try = 0; try < TRIES_PER_LENGTH; try++) {
            size_t len = draw_candidate(v, a, chars, rng);
            if (len == 0) {
                snprintf(err, err_len, "out of memory for the vocabulary of %u words", v->n);
                return false;
            }
            if (commit_if_new(v, len, chars))
                return true;
        }
    snprintf(err, err_len, "no new word of up to %d characters after %u distinct ones; use a "
             "larger --alphabet or fewer --words", SYNTH_MAX_WORD_CHARS, v->n);
    return false;
}

/* ----------------------------------------------------------------- ranks */

/* A type and its length, for sorting types into ranks. */
typedef struct {
    uint32_t chars; /* length in characters */
    uint32_t type;  /* index in creation order */
} rank_key;

static int compare_rank_keys(const void *x, const void *y)
{
    const rank_key *a = x, *b = y;
    if (a->chars != b->chars)
        return (a->chars > b->chars) - (a->chars < b->chars);
    return (a->type > b->type) - (a->type < b->type);
}

/* by_rank[r] = the type of rank r + 1: shortest first, ties in creation order
 * (a total order, so any qsort gives the same result). O(W log W). */
static bool rank_types(const vocabulary *v, uint32_t *by_rank)
{
    rank_key *keys = malloc((size_t)v->n * sizeof *keys);
    if (!keys)
        return false;
    for (uint32_t t = 0; t < v->n; t++)
        keys[t] = (rank_key){v->chars[t], t};
    qsort(keys, v->n, sizeof *keys, compare_rank_keys);
    for (uint32_t r = 0; r < v->n; r++)
        by_rank[r] = keys[r].type;
    free(keys);
    return true;
}

/* cumulative[r] = Σ weights of ranks 1..r+1; strictly increasing (weights ≥ 1),
 * and below 2^56 because W ≤ 2^24 and each weight ≤ 2^32. O(W·FIX). */
static void cumulate_weights(uint32_t words, uint32_t s_milli, uint64_t *cumulative)
{
    exp2_table t;
    exp2_table_init(&t);
    uint64_t sum = 0;
    for (uint32_t r = 0; r < words; r++) {
        sum += zipf_weight(&t, r + 1, s_milli);
        cumulative[r] = sum;
    }
}

/* The rank (0-based) whose cumulative interval holds u < total: the first r
 * with cumulative[r] > u. Galloping search: probe ranks 0, 1, 3, 7, ... until
 * one is past u, then binary-search the last gap. O(log r) rather than
 * O(log W), and Zipf draws are mostly small ranks, whose entries stay in
 * the cache. */
static uint32_t rank_of(const uint64_t *cumulative, uint32_t words, uint64_t u)
{
    uint32_t lo = 0, hi = 0;
    while (cumulative[hi] <= u) {
        lo = hi + 1;
        hi = hi < (words - 1) / 2 ? 2 * hi + 1 : words - 1;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cumulative[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ------------------------------------------------------------------ text */

/* Fills text[0, n) with drawn words and separators; returns the length
 * written, final newline included, or 0 when not even one word fits. O((n/L)·log W). */
static size_t write_text(const vocabulary *v, const uint32_t *by_rank, const uint64_t *cumulative,
                         uint64_t n, uint64_t *rng, uint8_t *text)
{
    uint64_t total = cumulative[v->n - 1];
    size_t pos = 0;
    for (;;) {
        uint32_t t = by_rank[rank_of(cumulative, v->n, uniform_below(rng, total))];
        size_t len = v->start[t + 1] - v->start[t], sep = pos > 0;
        if (pos + sep + len + 1 > n)
            break;
        if (sep)
            text[pos++] = uniform_below(rng, NEWLINE_ONE_IN) == 0 ? '\n' : ' ';
        memcpy(text + pos, v->arena + v->start[t], len);
        pos += len;
    }
    if (pos > 0)
        text[pos++] = '\n';
    return pos;
}

bool synth_generate(const synth_config *cfg, uint8_t **text, size_t *len, char *err,
                    size_t err_len)
{
    *text = NULL;
    *len = 0;
    if (!synth_check(cfg, err, err_len))
        return false;
    if (cfg->bytes > SIZE_MAX) {
        snprintf(err, err_len, "--bytes %llu: too large for this machine's memory",
                 (unsigned long long)cfg->bytes);
        return false;
    }
    alphabet a;
    vocabulary v;
    uint64_t rng = cfg->seed;
    bool ok = alphabet_make(cfg->alphabet, &a, err, err_len);
    bool vocab_ok = vocabulary_init(&v, cfg->words, cfg->mean_len);
    uint32_t *by_rank = malloc((size_t)cfg->words * sizeof *by_rank);
    uint64_t *cumulative = malloc((size_t)cfg->words * sizeof *cumulative);
    uint8_t *out = malloc((size_t)cfg->bytes);
    if (ok && !(vocab_ok && by_rank && cumulative && out)) {
        snprintf(err, err_len, "out of memory for --words %u --bytes %llu", cfg->words,
                 (unsigned long long)cfg->bytes);
        ok = false;
    }
    while (ok && v.n < cfg->words)
        ok = add_type(&v, &a, cfg->mean_len, &rng, err, err_len);
    if (ok && !rank_types(&v, by_rank)) {
        snprintf(err, err_len, "out of memory ranking %u words", cfg->words);
        ok = false;
    }
    if (ok) {
        cumulate_weights(cfg->words, cfg->zipf_milli, cumulative);
        *len = write_text(&v, by_rank, cumulative, cfg->bytes, &rng, out);
        if (*len == 0) {
            snprintf(err, err_len, "--bytes %llu: too small for one word and a newline; give more",
                     (unsigned long long)cfg->bytes);
            ok = false;
        }
    }
    alphabet_free(&a);
    vocabulary_free(&v);
    free(by_rank);
    free(cumulative);
    if (ok)
        *text = out;
    else
        free(out);
    return ok;
}
