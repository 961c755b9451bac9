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
 * Feasibility, checked before any work (synth_check). Step 2 can fail or
 * crawl: length ℓ holds only K^ℓ words, and a type whose drawn length is
 * full spends 32 candidates there before it tries ℓ + 1. Work is counted in
 * units of one candidate character, a candidate's hash-set probe counting
 * TRY_COST = 32 more (a cache miss in a large set); with no collision at
 * all, W types cost W·(L + TRY_COST). The settings are refused when
 *   (a) K = 1 and W + 2L − 2 > 1024: one character makes one word per
 *       length, and a type drawn at up to 2L − 1 characters moves up past
 *       at most the W − 1 lengths the other types hold, so only lengths up
 *       to W + 2L − 2 ≤ 1024 make success certain (a lucky seed may need
 *       fewer, but no rule can tell which seed);
 *   (b) or the work collisions may add — an upper bound on the expected
 *       work, less W·(L + TRY_COST) — is over 2^30 units (seconds).
 * The bound. While one type is placed the others stay put; if at most n of
 * them are at length ℓ, a candidate there collides with probability at most
 * f = min(1, n/K^ℓ), so the expected candidates at ℓ are at most
 * (1 − f^32)/(1 − f) (32 when f = 1) and the type moves on to ℓ + 1 with
 * probability at most f^32. Summing (ℓ + TRY_COST) × candidates over the
 * lengths from the drawn one, each weighted by the chance of getting there,
 * and averaging over the binomial drawn length bounds one type's expected
 * work: the true work only grows with the collision probabilities, and
 * those are at most f. For n: only types that drew ℓ or less ever get to
 * ℓ; on average μ = W·P(drawn ≤ ℓ) do, and more than μ + t with probability
 * below e^−40 (Bernstein's inequality, t = 40/3 + √((40/3)² + 80μ)), so the
 * bound holds except with probability below 10^−14. For K = 1 the i-th type
 * passes at most i full lengths, each at most 2L − 1 + i long. K ≥ 2 never
 * reaches the 1024-character limit: from the length where K^ℓ ≥ 2W on, no
 * length is more than half full and a type passes one with probability at
 * most 2^−32. The bound per type grows with W, so the W that pass form a
 * range 1..W_max, and the message names W_max (binary search). It refuses
 * short words over small alphabets: with L = 1, `ab` allows about 55,000
 * words, `a` 555; latin allows about 418,000 words of L = 2 and 1.7 million
 * of L = 5, and every W at L = 100. The bound is pessimistic (the largest
 * W it allows takes seconds, and some W it refuses would take one), but
 * sound: what it allows never fails, and its expected work is within it.
 *
 * Data structures, all owned by one synth_write call and freed before it
 * returns: the alphabet (K characters); the vocabulary — an arena holding the
 * types' bytes back to back with start offsets (type t is
 * arena[start[t], start[t+1])) and a hash set of slots holding type index + 1;
 * by_rank (rank → type) and cumulative (rank → sum of the weights up to it);
 * a TEXT_BUFFER of text, handed to the sink whenever the next word might not
 * fit, so that n never lives in memory.
 * Invariant: the types are pairwise distinct, and every type is in the slot
 * its hash probes to first or after a run of occupied slots.
 *
 * Complexity: vocabulary O(W·L) expected, ranks O(W log W), text
 * O((n/L)·log W) (less: see rank_of); memory O(W·L) + TEXT_BUFFER, whatever
 * n is (synth_generate, which keeps the text, O(n + W·L)).
 */
#include "tools/synth.h"
#include "array.h"
#include "base/errors.h"
#include "base/prng.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TRIES_PER_LENGTH = 32,    /* collisions at one length before a word grows */
    TRY_COST = 32,            /* a candidate's hash-set probe, in candidate characters */
    COLLISION_WORK_LOG2 = 30, /* the most work collisions may add, in those units (seconds) */
    TAIL = 40,                /* the count bound of a length fails with probability e^−TAIL */
    NEWLINE_ONE_IN = 16,      /* a newline instead of a space after ~1 word in 16 */
    TEXT_BUFFER = 1 << 16,    /* bytes of text gathered per write; > a word's 4·1024 + 2 */
    FIX = 30,                 /* fraction bits of log2 r and of exponents */
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
    if (!cps)
        return set_error(err, err_len, "out of memory for --alphabet");
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int step = utf8_decode((const uint8_t *)spec + i, len - i, &cp);
        if (step == 0 || is_space(cp)) {
            set_error(err, err_len,
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
        return set_error(err, err_len, "out of memory for --alphabet");
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
    if (!spec || !*spec)
        return set_error(err, err_len, "--alphabet is empty; give latin, cjk, devanagari, bytes or "
                                       "the characters to use");
    for (size_t i = 0; i < sizeof NAMED_ALPHABETS / sizeof *NAMED_ALPHABETS; i++)
        if (strcmp(spec, NAMED_ALPHABETS[i].name) == 0) {
            if (alphabet_from_range(&NAMED_ALPHABETS[i], a))
                return true;
            return set_error(err, err_len, "out of memory for --alphabet %s", spec);
        }
    return alphabet_from_string(spec, a, err, err_len);
}

/* ----------------------------------------------------------- feasibility */

/* x^32, by squaring. */
static double pow32(double x)
{
    for (int i = 0; i < 5; i++)
        x *= x;
    return x;
}

/* An upper bound on the expected work of add_type for one type over K ≥ 2
 * characters, from the length it drew: every length ℓ as crowded as it can
 * be, the fraction fill[ℓ] of its words taken (vocabulary_work_bound; the
 * header derives it). O(lengths visited). */
static double type_work_bound(const double *fill, uint32_t drawn)
{
    double reach = 1, work = 0; /* reach: the chance of getting to len */
    for (uint32_t len = drawn; len <= SYNTH_MAX_WORD_CHARS && reach > 0; len++) {
        double f = fill[len], miss = pow32(f); /* TRIES_PER_LENGTH collisions in a row */
        double tries = f < 1 ? (1 - miss) / (1 - f) : TRIES_PER_LENGTH;
        work += reach * tries * (len + TRY_COST);
        reach *= miss;
    }
    return work;
}

/* An upper bound on the expected work of add_type making W distinct types
 * over K characters, in units of one candidate character, a candidate's
 * hash-set probe counting TRY_COST more (the header derives it). Floating
 * point is fine here: the bound only decides whether to start.
 * O(L · lengths visited + SYNTH_MAX_WORD_CHARS). */
static double vocabulary_work_bound(uint64_t k, uint32_t words, uint32_t mean_len)
{
    double w = words, longest_draw = 2.0 * mean_len - 1;
    if (k == 1) { /* type i passes at most i full lengths, the j-th at most 2L−1+j long */
        double tries = TRIES_PER_LENGTH * w * (w - 1) / 2 + w;
        double chars = TRIES_PER_LENGTH * (longest_draw * w * (w - 1) / 2 +
                                           w * (w - 1) * (w - 2) / 6) + w * (longest_draw + w);
        return chars + TRY_COST * tries;
    }
    /* drawn[ℓ] = P(a type draws length ℓ) = C(2(L−1), ℓ−1) / 2^(2(L−1)) */
    uint32_t trials = 2 * (mean_len - 1);
    double drawn[SYNTH_MAX_WORD_CHARS + 1] = {0}, p = ldexp(1.0, -(int)trials);
    for (uint32_t b = 0; b <= trials; b++) {
        drawn[1 + b] = p;
        p = p * (trials - b) / (b + 1);
    }
    /* fill[ℓ]: the most of length ℓ's K^ℓ words that are ever taken, as a
     * fraction: only types that drew ℓ or less get there, and there are
     * μ = W·P(drawn ≤ ℓ) of those on average and more than μ + t with
     * probability below e^−TAIL (Bernstein: t = TAIL/3 + √((TAIL/3)² + 2·TAIL·μ)). */
    double fill[SYNTH_MAX_WORD_CHARS + 1], room = 1, at_most = 0;
    for (uint32_t len = 1; len <= SYNTH_MAX_WORD_CHARS; len++) {
        room = room < 1e300 ? room * (double)k : room;
        at_most += drawn[len];
        double mu = w * at_most, t = TAIL / 3.0 + sqrt(TAIL * TAIL / 9.0 + 2.0 * TAIL * mu);
        double taken = mu + t < w ? mu + t : w;
        fill[len] = taken < room ? taken / room : 1;
    }
    double per_type = 0;
    for (uint32_t len = 1; len <= trials + 1; len++)
        per_type += drawn[len] * type_work_bound(fill, len);
    return w * per_type;
}

/* The work collisions add: the bound less what W types of mean length L
 * cost when every first candidate is new, W·(L + TRY_COST). */
static double collision_work(uint64_t k, uint32_t words, uint32_t mean_len)
{
    return vocabulary_work_bound(k, words, mean_len) -
           (double)words * ((double)mean_len + TRY_COST);
}

/* One character makes one word per length, so W types drawn at up to 2L−1
 * characters need lengths up to W + 2L − 2 in the worst case. */
static bool lengths_suffice(uint64_t k, uint32_t words, uint32_t mean_len)
{
    return k > 1 || (uint64_t)words + 2 * (uint64_t)mean_len - 2 <= SYNTH_MAX_WORD_CHARS;
}

static bool vocabulary_feasible(uint64_t k, uint32_t words, uint32_t mean_len)
{
    return lengths_suffice(k, words, mean_len) &&
           collision_work(k, words, mean_len) <= ldexp(1.0, COLLISION_WORK_LOG2);
}

/* The largest W' ≤ W that is feasible (at least 1): binary search, as the
 * feasible W form a range from 1 (see the header). O(L · log W). */
static uint32_t most_feasible_words(uint64_t k, uint32_t words, uint32_t mean_len)
{
    uint32_t lo = 1, hi = words;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (vocabulary_feasible(k, mid, mean_len))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Refuses, with the reason and the largest --words that would do, W types
 * that the alphabet cannot hold or that would take too long to find. */
static bool check_feasible(const synth_config *cfg, uint64_t k, char *err, size_t err_len)
{
    if (vocabulary_feasible(k, cfg->words, cfg->mean_len))
        return true;
    uint32_t most = most_feasible_words(k, cfg->words, cfg->mean_len);
    if (!lengths_suffice(k, cfg->words, cfg->mean_len))
        return set_error(err, err_len, "--words %u with --alphabet '%s': one character makes "
                         "one word per length, and words drawn at up to 2L-1 = %u characters "
                         "may need lengths up to %llu, more than the %d a word may have; give "
                         "--words %u or fewer, a shorter --mean-len or more characters",
                         cfg->words, cfg->alphabet, 2 * cfg->mean_len - 1,
                         (unsigned long long)cfg->words + 2 * cfg->mean_len - 2,
                         SYNTH_MAX_WORD_CHARS, most);
    return set_error(err, err_len, "--words %u with --mean-len %u over %llu character%s: making "
                     "them distinct may take up to %.2g units of work for collisions, over the "
                     "%.2g allowed (short words over a small alphabet collide; see "
                     "harness/tools/synth.c); give --words %u or fewer, %s",
                     cfg->words, cfg->mean_len, (unsigned long long)k, k == 1 ? "" : "s",
                     collision_work(k, cfg->words, cfg->mean_len),
                     ldexp(1.0, COLLISION_WORK_LOG2), most,
                     k == 1 ? "a shorter --mean-len or more characters"
                            : "a longer --mean-len or a larger --alphabet");
}

/* ---------------------------------------------------------- validation */

bool synth_check(const synth_config *cfg, char *err, size_t err_len)
{
    if (cfg->words < 1 || cfg->words > SYNTH_MAX_WORDS)
        return set_error(err, err_len, "--words %u: give 1 to %d distinct word types",
                         cfg->words, SYNTH_MAX_WORDS);
    if (cfg->zipf_milli > SYNTH_MAX_ZIPF_MILLI)
        return set_error(err, err_len, "--zipf %u.%03u: give an exponent from 0 to %d",
                         cfg->zipf_milli / 1000, cfg->zipf_milli % 1000,
                         SYNTH_MAX_ZIPF_MILLI / 1000);
    if (cfg->mean_len < 1 || cfg->mean_len > SYNTH_MAX_MEAN_LEN)
        return set_error(err, err_len, "--mean-len %u: give 1 to %d characters", cfg->mean_len,
                         SYNTH_MAX_MEAN_LEN);
    if (cfg->bytes < 2)
        return set_error(err, err_len, "--bytes %llu: too small for one word and a newline; "
                         "give the output size in bytes, such as 1000000",
                         (unsigned long long)cfg->bytes);
    alphabet a;
    if (!alphabet_make(cfg->alphabet, &a, err, err_len))
        return false;
    bool ok = check_feasible(cfg, a.n, err, err_len);
    alphabet_free(&a);
    return ok;
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
    uint8_t *grown =
        bpe_array_reserve(v->arena, &v->arena_cap, v->arena_len + (size_t)chars * 4, 1);
    if (!grown)
        return 0;
    v->arena = grown;
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
            if (len == 0)
                return set_error(err, err_len, "out of memory for the vocabulary of %u words",
                                 v->n);
            if (commit_if_new(v, len, chars))
                return true;
        }
    return set_error(err, err_len, "no new word of up to %d characters after %u distinct ones; "
                     "use a larger --alphabet or fewer --words", SYNTH_MAX_WORD_CHARS, v->n);
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

/* Where the text goes: a buffer of TEXT_BUFFER bytes, emptied into the sink
 * whenever the next word might not fit. */
typedef struct {
    const byte_sink *out; /* the destination */
    uint8_t *buf;         /* TEXT_BUFFER bytes; owned by synth_write */
    size_t fill;          /* bytes waiting in buf */
} text_writer;

static bool text_flush(text_writer *w, char *err, size_t err_len)
{
    bool ok = w->fill == 0 || w->out->write(w->out->ctx, w->buf, w->fill, err, err_len);
    w->fill = 0;
    return ok;
}

/* Writes drawn words and separators, at most n bytes with the final newline,
 * to w; *written gets the length, 0 when not even one word fits (then nothing
 * is written). The draws are the same whatever the buffer size, so the
 * bytes only depend on the configuration. O((n/L)·log W), memory O(1). */
static bool write_text(const vocabulary *v, const uint32_t *by_rank, const uint64_t *cumulative,
                       uint64_t n, uint64_t *rng, text_writer *w, uint64_t *written, char *err,
                       size_t err_len)
{
    uint64_t total = cumulative[v->n - 1], pos = 0;
    for (;;) {
        uint32_t t = by_rank[rank_of(cumulative, v->n, uniform_below(rng, total))];
        size_t len = v->start[t + 1] - v->start[t], sep = pos > 0;
        if (pos + sep + len + 1 > n)
            break;
        if (w->fill + sep + len + 1 > TEXT_BUFFER && !text_flush(w, err, err_len))
            return false;
        if (sep)
            w->buf[w->fill++] = uniform_below(rng, NEWLINE_ONE_IN) == 0 ? '\n' : ' ';
        memcpy(w->buf + w->fill, v->arena + v->start[t], len);
        w->fill += len;
        pos += sep + len;
    }
    if (pos > 0) {
        w->buf[w->fill++] = '\n'; /* the room was kept above */
        pos++;
    }
    *written = pos;
    return text_flush(w, err, err_len);
}

bool synth_write(const synth_config *cfg, const byte_sink *out, uint64_t *len, char *err,
                 size_t err_len)
{
    *len = 0;
    if (!synth_check(cfg, err, err_len))
        return false;
    alphabet a;
    vocabulary v;
    uint64_t rng = cfg->seed;
    bool ok = alphabet_make(cfg->alphabet, &a, err, err_len);
    bool vocab_ok = vocabulary_init(&v, cfg->words, cfg->mean_len);
    uint32_t *by_rank = malloc((size_t)cfg->words * sizeof *by_rank);
    uint64_t *cumulative = malloc((size_t)cfg->words * sizeof *cumulative);
    text_writer writer = {.out = out, .buf = malloc(TEXT_BUFFER)};
    if (ok && !(vocab_ok && by_rank && cumulative && writer.buf))
        ok = set_error(err, err_len, "out of memory for --words %u --mean-len %u", cfg->words,
                       cfg->mean_len);
    while (ok && v.n < cfg->words)
        ok = add_type(&v, &a, cfg->mean_len, &rng, err, err_len);
    if (ok && !rank_types(&v, by_rank))
        ok = set_error(err, err_len, "out of memory ranking %u words", cfg->words);
    if (ok) {
        cumulate_weights(cfg->words, cfg->zipf_milli, cumulative);
        ok = write_text(&v, by_rank, cumulative, cfg->bytes, &rng, &writer, len, err, err_len);
        if (ok && *len == 0)
            ok = set_error(err, err_len, "--bytes %llu: too small for one word and a newline; "
                           "give more", (unsigned long long)cfg->bytes);
    }
    alphabet_free(&a);
    vocabulary_free(&v);
    free(by_rank);
    free(cumulative);
    free(writer.buf);
    return ok;
}

/* A growing buffer, the sink synth_generate writes to. */
typedef struct {
    uint8_t *data; /* malloc'd */
    size_t len;    /* bytes in data */
    size_t cap;    /* bytes allocated */
} memory_text;

static bool memory_write(void *ctx, const void *data, size_t len, char *err, size_t err_len)
{
    memory_text *m = ctx;
    uint8_t *grown = bpe_array_reserve(m->data, &m->cap, m->len + len, 1);
    if (!grown)
        return set_error(err, err_len, "out of memory for %zu bytes of text", m->len + len);
    m->data = grown;
    memcpy(m->data + m->len, data, len);
    m->len += len;
    return true;
}

bool synth_generate(const synth_config *cfg, uint8_t **text, size_t *len, char *err,
                    size_t err_len)
{
    *text = NULL;
    *len = 0;
    if (cfg->bytes > SIZE_MAX / 2)
        return set_error(err, err_len, "--bytes %llu: too large to hold in memory; write it "
                         "to a file instead", (unsigned long long)cfg->bytes);
    memory_text m = {0};
    byte_sink sink = {memory_write, &m};
    uint64_t n;
    if (!synth_write(cfg, &sink, &n, err, err_len)) {
        free(m.data);
        return false;
    }
    *text = m.data;
    *len = m.len;
    return true;
}
