/*
 * pretok.c — special tokens, UTF-8 and PCRE2 pretokenization (SPEC §2.1–2.4),
 * streamed.
 *
 * Text arrives in chunks and is appended to `pending`. Each round cuts the
 * pending bytes into stretches between special tokens; each stretch into runs
 * of valid UTF-8 and runs of invalid bytes; each valid run into pretokens with
 * successive PCRE2 matches (what Python's regex.finditer does). Whatever a
 * later chunk could still change is kept for the next round:
 *   - the start of a possible special token at the end of the chunk;
 *   - a UTF-8 sequence cut by the end of the chunk;
 *   - a regex match that reaches the end of the chunk — PCRE2_PARTIAL_HARD
 *     reports it as partial instead of as a (possibly too short) match;
 *   - plus a few code points before it, as context for lookbehinds and so
 *     that `^` and `\A` cannot match in the middle of a piece.
 * The bytes kept are re-read by the next round, and a round waits until at
 * least as many new bytes have arrived as were kept, so re-reading costs at
 * most twice the new bytes: the total work is O(n) even when one pretoken
 * spans many chunks, and the memory O(chunk + longest pretoken).
 *
 * For gpt2 and gpt4 the valid runs are split by the hand-written lexer
 * (lexer.c), which hands over each pretoken with its hash, unless the
 * config asks for PCRE2 (--pretokenizer pcre2); any other pattern is
 * PCRE2's. Both give the same pretokens (tests/test_lexer.c): the lexer
 * says "undecided" where PCRE2 reports a partial match, and the bytes are
 * kept alike.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "input/pretok.h"
#include "input/specials.h"
#include "base/errors.h"

#include "array.h"
#include "base/utf8.h"
#include "input/lexer.h"

#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- patterns */

static const char GPT2_PATTERN[] =
    "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char GPT4_PATTERN[] =
    "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*"
    "|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+";

/* PCRE2 limits: pathological input fails with a clear error, never a crash. */
enum {
    MATCH_LIMIT = 100000000,      /* backtracking steps per match */
    DEPTH_LIMIT = 1000000,        /* nested backtracking depth (interpreter) */
    JIT_STACK_MAX = 64 << 20,     /* bytes of JIT stack */
};

const char *pretok_pattern_source(const char *name)
{
    if (strcmp(name, "gpt2") == 0)
        return GPT2_PATTERN;
    if (strcmp(name, "gpt4") == 0)
        return GPT4_PATTERN;
    return name;
}

/*
 * The same two patterns for other regex engines (pretok.h). `\s` becomes
 * PORTABLE_SPACE, the class PCRE2 10.42 means by it under PCRE2_UCP — \p{Z},
 * \h and \v: tab to carriage return, space, U+0085, U+00A0, U+1680, U+180E,
 * U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 — and `\S` its
 * complement. It is spelled in what every engine reads alike: ASCII escapes,
 * then the characters themselves, as UTF-8 (no \x{...}, which JavaScript
 * does not read; no \xhh above 0x7F, which Oniguruma reads as a byte).
 * Besides, gpt4's
 *   - possessive quantifiers (?+ ++) become greedy ones: what follows them
 *     can never match what they would give back ([^\r\n\p{L}\p{N}] is no
 *     letter; [\r\n]* always matches), so no match changes;
 *   - (?i:...) is spelled out: PCRE2's caseless s, d, m, t, l, v, e, r under
 *     UCP are those letters in both cases, and s also U+017F (ſ).
 * tests/test_pretok.c checks the class against PCRE2 at every code point
 * and the pieces of both spellings against each other.
 */
#define PORTABLE_SPACE                                                                  \
    "\\t\\n\\x0b\\f\\r \xc2\x85\xc2\xa0\xe1\x9a\x80\xe1\xa0\x8e\xe2\x80\x80-\xe2\x80\x8a"  \
    "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\x9f\xe3\x80\x80"
static const char GPT2_PORTABLE[] =
    "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^" PORTABLE_SPACE "\\p{L}\\p{N}]+"
    "|[" PORTABLE_SPACE "]+(?![^" PORTABLE_SPACE "])|[" PORTABLE_SPACE "]+";
static const char GPT4_PORTABLE[] =
    "'(?:[sdmtSDMT\xc5\xbf]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
    "|\\p{N}{1,3}| ?[^" PORTABLE_SPACE "\\p{L}\\p{N}]+[\\r\\n]*|[" PORTABLE_SPACE "]*[\\r\\n]"
    "|[" PORTABLE_SPACE "]+(?![^" PORTABLE_SPACE "])|[" PORTABLE_SPACE "]+";

const char *pretok_pattern_portable(const char *name)
{
    const char *source = pretok_pattern_source(name);
    /* by content: a word-count file names the pattern by its PCRE2 text */
    return strcmp(source, GPT2_PATTERN) == 0   ? GPT2_PORTABLE
           : strcmp(source, GPT4_PATTERN) == 0 ? GPT4_PORTABLE
                                               : source;
}

const char *pretok_engine_name(pretok_engine engine)
{
    return engine == PRETOK_PCRE2 ? "pcre2" : "lexer";
}

bool pretok_engine_parse(const char *name, pretok_engine *engine)
{
    if (strcmp(name, "lexer") == 0)
        *engine = PRETOK_LEXER;
    else if (strcmp(name, "pcre2") == 0)
        *engine = PRETOK_PCRE2;
    else
        return false;
    return true;
}

pretok_engine pretok_engine_used(const pretok_config *cfg)
{
    const char *source = pretok_pattern_source(cfg->pattern);
    bool named = source == GPT2_PATTERN || source == GPT4_PATTERN;
    return named && cfg->engine == PRETOK_LEXER ? PRETOK_LEXER : PRETOK_PCRE2;
}

/* --------------------------------------------------------------- state */

/* Pretokens waiting to be counted, in a ring: each is hashed when it is
 * found, its word-table slot prefetched at once, the entry that slot names
 * a third of the way through the ring and the word's bytes two thirds of
 * the way, and it is counted RING_WORDS pretokens
 * later, so that the work on the next pretokens hides the memory latency
 * of the table (wordtable.h). The pieces point into `pending`, so the ring
 * is emptied before pending changes. */
enum { RING_WORDS = 16, ENTRY_AGE = RING_WORDS / 3, BYTES_AGE = 2 * RING_WORDS / 3 };

typedef struct {
    const uint8_t *piece[RING_WORDS]; /* the pretokens' bytes, inside pending */
    size_t len[RING_WORDS];           /* their lengths */
    uint64_t hash[RING_WORDS];        /* word_table_hash of each */
    size_t entry[RING_WORDS];         /* its candidate entry, once ENTRY_AGE old (or SIZE_MAX) */
    size_t n;                         /* pretokens waiting */
    size_t next;                      /* where the next one goes; the oldest is n places back */
} word_batch;

/*
 * Words counted often, counted here before the word table. A text's most
 * frequent words are most of its pretokens (Zipf): on the Gutenberg books
 * the table holds 165,000 words in several megabytes of slots, entries and
 * bytes, and a lookup that misses the cache there costs more than lexing
 * the word. So a small table of words (HOT_WORDS slots, each with the
 * word's bytes, its index in the word table and the occurrences not yet
 * added there) takes a pretoken first: when it holds that word, the count
 * goes to `pending`, within the slot's own cache line. A word enters it only
 * after the word table has it (count_one), so the table's first-seen order
 * is untouched; a slot's pending count is added to the table when another
 * word takes the slot, and every slot's before the table's counts are
 * read (flush_hot_words: at the end of each input, pretok_end; or, for a
 * caller that reads only the words until its count ends, when it says so,
 * pretok_flush after inputs ended by pretok_end_words; a round that leaves
 * bytes for the next only empties the ring). The slots
 * name entries of one table: they stay from one input to the next counted
 * into it (pretok_continue_at: the next file, the next segment of a
 * thread), and start empty for another table (a new generation).
 *
 * A slot is 32 bytes and is matched with three comparisons and no loop:
 * the word's first 16 bytes are kept as two 8-byte values, zero past its
 * end (hot_key makes the same two from a pretoken, with two whole loads:
 * `pending` has HOT_BYTES readable bytes past its end), and one more value,
 * the tag, holds its length and the input it belongs to. The slots go in
 * pairs, one pair to a cache line: a word's hash picks a pair, and either
 * slot of it may hold the word (two-way set-associative, as a CPU's caches
 * are), so two frequent words whose hashes collide both stay. A new word
 * takes the second slot; a word found there moves to the first (the least
 * recently used goes first): so a word seen once pushes out the pair's
 * less recent word, never its more recent one, and most lookups end at
 * the first slot, with one comparison.
 *
 * Memory: 1 MB, half a core's second-level cache on the machines we
 * measure on. A lookup there costs a few nanoseconds; a word it misses
 * costs a lookup in the word table, which waits for memory at its slot,
 * its entry and its bytes (tens of nanoseconds, prefetched or not). Most
 * of a corpus's words are rare, so what a larger table catches is its
 * middle: words met often enough to be seen again before their slot is
 * taken. Pretokens that go on to the word table (`bpebench count
 * --threads 1 --counting serial`, count_in_table's calls under valgrind's
 * callgrind):
 *                        Gutenberg books   multilingual
 *   4,096 single slots        16.9%           22.4%
 *   4,096 in pairs            12.6%           19.0%
 *   8,192 in pairs             8.8%           15.3%
 *  16,384 in pairs             5.9%           12.4%
 *  32,768 in pairs             3.8%           10.3%
 *  65,536 in pairs             2.5%            9.0%
 * 131,072 in pairs             1.8%            8.3%
 * Past the second-level cache the lookups miss as the word table's do,
 * and with two threads counting, their tables compete for the caches:
 * so the table has 32,768, where the misses have mostly gone.
 * The slots are zeroed pages the kernel maps as they are first touched
 * (calloc of so large a block maps them): a pretokenizer that only
 * splits text (pretok_split) never touches them. One that counts writes
 * every slot once, when it begins its first table (begin_input): a slot
 * is read (the lookup) before it is written (make_hot), and a page read
 * first is mapped to the kernel's shared zero page, so the write after
 * it takes a second, copy-on-write fault that flushes the TLB of every
 * CPU the process runs on, an interrupt to each other counting thread
 * (wordtable.c says the same of the word table's slots). Written up
 * front, the 1 MiB takes one fault per page and no interrupt.
 */
enum { HOT_WORDS = 32768, HOT_BYTES = 16 };

/* A slot's tag: the input's number (pretokenizer.generation, from 1) and
 * the word's length (≤ HOT_BYTES) in one; 0 in an empty slot. */
enum { HOT_LEN_BITS = 5, HOT_GENERATIONS = 1u << (32 - HOT_LEN_BITS) };

typedef struct {
    uint64_t head;    /* the word's bytes 0–7, little-endian, zero past its end */
    uint64_t tail;    /* its bytes 8–15, the same way */
    uint32_t tag;     /* generation << HOT_LEN_BITS | length; another input's: empty */
    uint32_t index;   /* the word's index in the word table's entries */
    uint32_t pending; /* occurrences not yet added to the word table */
    uint32_t dirty;   /* 1 when the slot is in pretokenizer.dirty (pending may be > 0) */
} hot_word;
_Static_assert(sizeof(hot_word) == 32, "a pair of hot slots fills one 64-byte cache line");

/* A pretoken as a hot slot's key (len ≤ HOT_BYTES). */
typedef struct {
    uint64_t head, tail; /* as in hot_word */
    uint32_t tag;        /* the tag it must have */
} hot_key;

/* A PCRE2 pattern compiled once: read-only after pretok_compile, so the
 * pretokenizers of every thread may share it (PCRE2 allows that; each has
 * its own match data and JIT stack). */
struct pretok_compiled {
    pcre2_code *code;             /* the compiled pattern; owned */
    bool jit;                     /* the pattern is JIT-compiled */
    uint32_t lookbehind;          /* code points of context a match may look back */
};

struct pretokenizer {
    const pretok_compiled *pattern; /* the pattern it matches with (NULL for the lexer) */
    pretok_compiled *own_pattern; /* the pattern when not given in the config; owned */
    pcre2_match_data *match;      /* reused for every match; owned */
    pcre2_match_context *mctx;    /* limits and the JIT stack; owned */
    pcre2_jit_stack *jit_stack;   /* owned; NULL when JIT is unavailable */
    bool use_lexer;               /* split with the lexer instead of PCRE2 (code is NULL) */
    lexer_pattern lexer;          /* which pattern the lexer runs */

    special_trie *specials;       /* the special tokens (specials.h); owned */
    size_t n_specials;            /* S */
    int shared_first_byte;        /* the byte every special token starts with, or -1 */
    invalid_utf8_mode invalid_utf8; /* error or bytes */

    const char *name;             /* the current input, for messages; borrowed */
    word_table *words;            /* where pretokens are counted; NULL when emitting */
    word_batch batch;             /* pretokens matched and not yet counted in `words` */
    hot_word *hot;                /* HOT_WORDS frequent words of `words`, inside hot_block */
    void *hot_block;              /* the zeroed block holding them, 64-byte aligned inside; owned */
    bool hot_written;             /* every slot written once: its pages mapped writable */
    uint32_t *dirty;              /* the hot slots whose pending count may be nonzero; owned */
    size_t n_dirty;               /* entries in dirty (at most HOT_WORDS) */
    uint32_t generation;          /* the current input's number, from 1 (hot_word.tag) */
    bool exact;                   /* the last input ended well: `words` holds every word,
                                   * and every count but those the hot words hold (none
                                   * after pretok_end), and the hot words name its entries
                                   * (pretok_continue_at) */
    uint64_t multiplicity;        /* each pretoken counts this many times (dedup's chunks) */
    int64_t hot_room;             /* UINT32_MAX − multiplicity, or −1 when that is negative:
                                   * a hot slot pending more cannot count one more pretoken */
    pretok_emit_fn emit;          /* or: where pretokens are passed */
    void *emit_ctx;               /* passed to emit */

    uint8_t *pending;             /* bytes received and not yet consumed, then HOT_BYTES
                                   * readable ones (hot_key_of); owned */
    size_t pending_len;           /* bytes in `pending` */
    size_t pending_cap;           /* capacity of `pending` */
    size_t context;               /* pending[0, context) is already consumed, kept as regex context */
    uint64_t pending_offset;      /* input offset of pending[0] */
    size_t retry_len;             /* next round waits until pending holds this many bytes */
    pretok_stats stats;           /* running totals */
    char *err;                    /* where the current call reports an error */
    size_t err_len;               /* its size */
};

/* Formats a one-line error into the current call's buffer; returns false. */
static bool fail(pretokenizer *p, const char *fmt, ...) BPE_PRINTF_LIKE(2, 3);
static bool fail(pretokenizer *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(p->err, p->err_len, fmt, ap);
    va_end(ap);
    return false;
}

/* --------------------------------------------------------------- output */

/* The lowest n (0 to 8) bytes of v, the others zero; by a table, so that
 * no branch on a pretoken's length is mispredicted. */
static uint64_t low_bytes(uint64_t v, size_t n)
{
    static const uint64_t LOW_BYTES[9] = {
        0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFull, 0xFFFFFFFFFFFFull,
        0xFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull,
    };
    return v & LOW_BYTES[n];
}

/* The hot key of the pretoken piece[0, len), len ≤ HOT_BYTES, inside
 * `pending` (which has HOT_BYTES readable bytes past its end). */
static hot_key hot_key_of(const pretokenizer *p, const uint8_t *piece, size_t len)
{
    return (hot_key){.head = low_bytes(word_hash_load(piece), len < 8 ? len : 8),
                     .tail = low_bytes(word_hash_load(piece + 8), len > 8 ? len - 8 : 0),
                     .tag = p->generation << HOT_LEN_BITS | (uint32_t)len};
}

/* The pair of hot slots (HOT_WAYS of them, one cache line) that may hold
 * a word with this hash. */
enum { HOT_WAYS = 2 };
static hot_word *hot_set(pretokenizer *p, uint64_t hash)
{
    return &p->hot[(hash >> 32) % (HOT_WORDS / HOT_WAYS) * HOT_WAYS];
}

/* Whether slot h holds a word of the current input (else it is empty). */
static bool hot_is_current(const pretokenizer *p, const hot_word *h)
{
    return (h->tag >> HOT_LEN_BITS) == p->generation;
}

/* Adds the hot slot's pending count to the word table. False (the table
 * unchanged) when a count would pass 2^64 − 1. */
static bool flush_slot(pretokenizer *p, hot_word *h)
{
    if (h->pending && !word_table_add_count(p->words, h->index, h->pending))
        return false;
    h->pending = 0;
    return true;
}

/* Makes the word table exact: every pending count added to it, each
 * count prefetched FLUSH_AHEAD slots before it is added (the entries of
 * the hot words lie anywhere in the table). */
enum { FLUSH_AHEAD = 8 };
static bool flush_hot_words(pretokenizer *p)
{
    bool ok = true;
    for (size_t k = 0; k < p->n_dirty; k++) {
        if (k + FLUSH_AHEAD < p->n_dirty)
            word_table_prefetch_count(p->words, p->hot[p->dirty[k + FLUSH_AHEAD]].index);
        hot_word *h = &p->hot[p->dirty[k]];
        ok = ok && flush_slot(p, h);
        h->dirty = 0;
    }
    p->n_dirty = 0;
    return ok || fail(p, "%s: a word's count passed 2^64 - 1; count less text at a time",
                      p->name);
}

/* Zero when hot slot h holds the word of this key, else nonzero. */
static inline uint64_t hot_differs(const hot_word *h, hot_key key)
{
    return (h->head ^ key.head) | (h->tail ^ key.tail) | (h->tag ^ key.tag);
}

/* Puts hot slot h in the dirty list, unless it is there. */
static void mark_dirty(pretokenizer *p, hot_word *h)
{
    if (!h->dirty) {
        h->dirty = 1;
        p->dirty[p->n_dirty++] = (uint32_t)(h - p->hot);
    }
}

/* Swaps the words of the hot pair `set`, each with its index and pending
 * count: the word in the second slot, just counted, moves to the first.
 * The dirty marks stay with the slots (the dirty list names slots), and a
 * slot with a count pending is put in the list. An empty slot's pending
 * count is stale (an input that failed): dropped. */
static void promote(pretokenizer *p, hot_word *set)
{
    if (!hot_is_current(p, &set[0]))
        set[0].pending = 0;
    uint32_t first_dirty = set[0].dirty, second_dirty = set[1].dirty;
    hot_word moved = set[1];
    set[1] = set[0];
    set[0] = moved;
    set[0].dirty = first_dirty;
    set[1].dirty = second_dirty;
    if (set[0].pending)
        mark_dirty(p, &set[0]);
    if (set[1].pending)
        mark_dirty(p, &set[1]);
}

/* count_hot (below) in the second slot of the pair, where the key's word
 * is less often: the word, counted, moves to the first slot. */
static bool count_hot_second(pretokenizer *p, hot_word *set, hot_key key)
{
    hot_word *h = &set[1];
    if (hot_differs(h, key) || h->pending > p->hot_room)
        return false;
    h->pending += (uint32_t)p->multiplicity;
    promote(p, set);
    return true;
}

/* Counts the pretoken in a slot of its hot pair `set` if one holds it;
 * false when neither does (or its pending count would pass 2^32 − 1
 * there): then the word table does. A word found in the second slot moves
 * to the first, so that the first, checked first, holds the pair's more
 * frequent word (most pretokens are counted there, as in a table of single
 * slots), and a new word (make_hot) takes the second. */
static inline bool count_hot(pretokenizer *p, hot_word *set, const uint8_t *piece, size_t len)
{
    if (len > HOT_BYTES)
        return false;
    hot_key key = hot_key_of(p, piece, len);
    hot_word *h = set;
    if ((hot_differs(h, key) != 0) | (h->pending > p->hot_room)) /* one branch, mostly */
        return count_hot_second(p, set, key);
    h->pending += (uint32_t)p->multiplicity;
    mark_dirty(p, h);
    return true;
}

/* Puts a word the table has just counted (at `index`) into the second slot
 * of its hot pair, adding what the slot's previous word had pending to the
 * table; or, when the first slot holds the word already (it became hot
 * while it waited in the ring), into that one. */
static bool make_hot(pretokenizer *p, const uint8_t *piece, size_t len, uint64_t hash,
                     size_t index)
{
    if (len > HOT_BYTES)
        return true;
    hot_word *set = hot_set(p, hash);
    hot_key key = hot_key_of(p, piece, len);
    hot_word *h = hot_differs(&set[0], key) ? &set[1] : &set[0];
    if (hot_is_current(p, h) && !flush_slot(p, h))
        return fail(p, "%s: a word's count passed 2^64 - 1; count less text at a time", p->name);
    h->pending = 0; /* what an input that failed left there is not this table's */
    h->head = key.head;
    h->tail = key.tail;
    h->tag = key.tag;
    h->index = (uint32_t)index;
    return true;
}

/* Counts ring position i's pretoken in the word table; a word that became
 * hot while it waited is counted there too (make_hot adds what its slot
 * had pending and takes the slot again): looking first cost more, on every
 * pretoken that waits, than the few table lookups it saved. */
static bool count_one(pretokenizer *p, size_t i)
{
    word_batch *b = &p->batch;
    size_t index = word_table_insert(p->words, b->piece[i], b->len[i], b->hash[i],
                                     p->multiplicity);
    if (index != SIZE_MAX)
        return make_hot(p, b->piece[i], b->len[i], b->hash[i], index);
    b->n = 0;
    if (p->words->n_entries >= UINT32_MAX - 1) /* the table's limit, not the machine's */
        return fail(p, "%s: more than %u distinct words, the word table's limit; "
                       "train on less text", p->name, UINT32_MAX - 2);
    return fail(p, "%s: out of memory while counting words (%zu distinct so far)", p->name,
                p->words->n_entries);
}

/* Counts the waiting pretokens in the word table, in the order they came:
 * the ring then points into no byte of `pending`. */
static bool count_batch(pretokenizer *p)
{
    word_batch *b = &p->batch;
    while (b->n > 0) {
        if (!count_one(p, (b->next + RING_WORDS - b->n) % RING_WORDS))
            return false;
        b->n--;
    }
    return true;
}

/* Counts a pretoken that its hot slot does not hold: it waits in the
 * ring, its slot and entry being fetched. */
static bool count_in_table(pretokenizer *p, const uint8_t *piece, size_t len, uint64_t hash)
{
    if (len > UINT32_MAX)
        return fail(p, "%s: a pretoken at byte offset %llu is longer than 4 GiB; "
                       "use a pattern that splits it", p->name,
                    (unsigned long long)(p->pending_offset + (uint64_t)(piece - p->pending)));
    word_batch *b = &p->batch;
    if (b->n == RING_WORDS) { /* the oldest, at `next`, makes room */
        if (!count_one(p, b->next))
            return false;
        b->n--;
    }
    word_table_prefetch(p->words, hash);
    hot_word *h = &hot_set(p, hash)[1]; /* make_hot will add its word's pending count */
    if (len <= HOT_BYTES && h->pending && hot_is_current(p, h))
        word_table_prefetch_count(p->words, h->index);
    if (b->n >= ENTRY_AGE) {
        size_t i = (b->next + RING_WORDS - ENTRY_AGE) % RING_WORDS;
        b->entry[i] = word_table_prefetch_entry(p->words, b->hash[i]);
    }
    if (b->n >= BYTES_AGE)
        word_table_prefetch_bytes(p->words, b->entry[(b->next + RING_WORDS - BYTES_AGE) % RING_WORDS]);
    b->piece[b->next] = piece;
    b->len[b->next] = len;
    b->hash[b->next] = hash;
    b->next = (b->next + 1) % RING_WORDS;
    b->n++;
    return true;
}

/* Counts (or emits) one pretoken whose word_table_hash is `hash`. */
static bool take_hashed_piece(pretokenizer *p, const uint8_t *piece, size_t len, uint64_t hash)
{
    p->stats.pretokens++;
    if (p->emit) {
        p->emit(p->emit_ctx, piece, len, false);
        return true;
    }
    return count_hot(p, hot_set(p, hash), piece, len) || count_in_table(p, piece, len, hash);
}

/* The same for a pretoken not hashed yet (PCRE2's matches, invalid runs). */
static bool take_piece(pretokenizer *p, const uint8_t *piece, size_t len)
{
    return take_hashed_piece(p, piece, len, word_table_hash(piece, len));
}

/* ---------------------------------------------------------------- lexer */

/* How many pretokens the lexer finds in one call (lexer_split: each call
 * starts a new 64-byte window, so more per call means fewer windows cut
 * short; 6 KB of pieces and slots), and how many places ahead of the one
 * being counted a pretoken's hot slot is prefetched: the hot words
 * (1 MB) outgrow the first-level cache, and a lookup waited there for
 * the slot more than for anything else. */
enum { LEXED_PIECES = 256, HOT_AHEAD = 8 };

/* split_valid_run (below) with the lexer: each pretoken counted as the
 * lexer emits it, with the hash it made while scanning. O(end − from). */
static bool lex_valid_run(pretokenizer *p, size_t run, size_t from, size_t end, bool open,
                          size_t *consumed)
{
    const uint8_t *text = p->pending + run;
    size_t len = end - run, at = from - run;
    lexer_piece pieces[LEXED_PIECES];
    while (at < len) {
        size_t n = lexer_split(p->lexer, text, len, at, open, pieces, LEXED_PIECES);
        if (p->emit) {
            for (size_t k = 0; k < n; at = pieces[k++].end)
                take_hashed_piece(p, text + at, pieces[k].end - at, pieces[k].hash);
        } else {
            p->stats.pretokens += n;
            hot_word *slot[LEXED_PIECES]; /* each piece's hot pair, found as it is prefetched */
            for (size_t k = 0; k < n && k < HOT_AHEAD; k++)
                bpe_prefetch(slot[k] = hot_set(p, pieces[k].hash));
            for (size_t k = 0; k < n; at = pieces[k++].end) {
                if (k + HOT_AHEAD < n)
                    bpe_prefetch(slot[k + HOT_AHEAD] = hot_set(p, pieces[k + HOT_AHEAD].hash));
                const uint8_t *piece = text + at;
                size_t piece_len = pieces[k].end - at;
                if (!count_hot(p, slot[k], piece, piece_len) &&
                    !count_in_table(p, piece, piece_len, pieces[k].hash))
                    return false;
            }
        }
        if (n < LEXED_PIECES && at < len) { /* undecided: when more text has arrived */
            *consumed = run + at;
            return true;
        }
    }
    *consumed = end;
    return true;
}

/* ---------------------------------------------------------------- regex */

/* Describes a PCRE2 match error at `offset` of the input; returns false. */
static bool regex_failure(pretokenizer *p, int rc, uint64_t offset)
{
    PCRE2_UCHAR message[160];
    pcre2_get_error_message(rc, message, sizeof message);
    return fail(p, "%s: pattern matching failed at byte offset %llu (%s); the text there is "
                   "pathological for this pattern: split the line or simplify --pattern",
                p->name, (unsigned long long)offset, (const char *)message);
}

/* Runs one match at `start` of subject[0, len); returns PCRE2's code. */
static int match_once(pretokenizer *p, const uint8_t *subject, size_t len, size_t start,
                      uint32_t options)
{
    options |= PCRE2_NO_UTF_CHECK; /* validated by utf8_valid_prefix */
    const pcre2_code *code = p->pattern->code;
    if (p->pattern->jit)
        return pcre2_jit_match(code, subject, len, start, options, p->match, p->mctx);
    return pcre2_match(code, subject, len, start, options, p->match, p->mctx);
}

/*
 * Splits the valid run pending[run, end) into pretokens, starting at `from`
 * (run ≤ from; the bytes before `from` are context only). When `open`, the
 * run may continue in the next chunk: a match touching `end` is partial and
 * *consumed is set to where it starts. O(end − from) for the patterns we ship.
 */
static bool split_valid_run(pretokenizer *p, size_t run, size_t from, size_t end, bool open,
                            size_t *consumed)
{
    if (p->use_lexer)
        return lex_valid_run(p, run, from, end, open, consumed);
    const uint8_t *subject = p->pending + run;
    size_t len = end - run, at = from - run;
    uint32_t options = open ? PCRE2_PARTIAL_HARD : 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->match);
    uint32_t not_empty_here = 0; /* after an empty match, finditer wants a non-empty one */
    while (at < len) {
        int rc = match_once(p, subject, len, at, options | not_empty_here);
        if (rc == PCRE2_ERROR_PARTIAL) { /* decide when more text has arrived */
            if (ov[0] > at) /* no match can start before the partial one: skipped */
                p->stats.unmatched_bytes += ov[0] - at;
            *consumed = run + (ov[0] > at ? ov[0] : at);
            return true;
        }
        if (rc == PCRE2_ERROR_NOMATCH) {
            p->stats.unmatched_bytes += len - at;
            break;
        }
        if (rc < 0)
            return regex_failure(p, rc, p->pending_offset + run + at);
        p->stats.unmatched_bytes += ov[0] - at;
        at = ov[0];
        not_empty_here = ov[1] == ov[0] ? PCRE2_NOTEMPTY_ATSTART : 0;
        if (ov[1] == ov[0])
            continue; /* an empty match yields no pretoken */
        if (!take_piece(p, subject + ov[0], ov[1] - ov[0]))
            return false;
        at = ov[1];
    }
    *consumed = end;
    return true;
}

/* ----------------------------------------------------------- text runs */

/* End of the maximal run of invalid bytes starting at i (< end). When the
 * text is `open`, a run that reaches `end` (or an unfinished sequence there)
 * might continue: *undecided is set. In closed text an unfinished sequence at
 * `end` is invalid and joins the run. O(run). */
static size_t invalid_run_end(const uint8_t *s, size_t i, size_t end, bool open, bool *undecided)
{
    while (i < end) {
        int n = utf8_sequence_length(s + i, end - i);
        if (n > 0)
            break;
        if (n < 0) { /* unfinished sequence running to `end` */
            if (open)
                break;
            i = end;
            break;
        }
        i++;
    }
    *undecided = open && (i == end || utf8_sequence_length(s + i, end - i) < 0);
    return i;
}

/*
 * With the lexer, the text is checked for UTF-8 and split CHECK_AHEAD bytes
 * at a time, not all at once: the lexer then reads bytes that the check
 * has just brought into the first-level cache, instead of a whole chunk
 * (a megabyte, more than a core's second-level cache) read a second time.
 * From *from, in a valid run that began at `run`: checks a stretch, splits
 * it as open text (the run goes on), and moves *from to where the lexer
 * stopped and *checked to the end of the stretch; again while more than a
 * stretch is left before `end`, no invalid byte is met and the lexer moved
 * on. The caller checks and splits the rest at once, as before: so a
 * pretoken longer than a stretch is read by the lexer once more, not once
 * per stretch. O(checked − from).
 */
enum { CHECK_AHEAD = 1 << 15 };
static bool lex_checked_ahead(pretokenizer *p, size_t run, size_t *from, size_t *checked,
                              size_t end)
{
    while (end - *checked > CHECK_AHEAD) {
        int stop;
        *checked += utf8_valid_prefix(p->pending + *checked, CHECK_AHEAD, &stop);
        size_t before = *from;
        if (stop == 1 || !lex_valid_run(p, run, before, *checked, true, from))
            return stop == 1; /* an invalid byte is the caller's; else a count failed */
        if (*from == before)
            break; /* one pretoken fills the stretch */
    }
    return true;
}

/*
 * Pretokenizes pending[from, end): text with no special token in it. `run`
 * (≤ from) is where the valid run containing `from` began (context). When
 * `open`, the text may continue in the next chunk; *consumed says how far it
 * was finished and *run_out where the valid run containing *consumed began.
 */
static bool split_text(pretokenizer *p, size_t run, size_t from, size_t end, bool open,
                       size_t *consumed, size_t *run_out)
{
    size_t i = from;
    for (;;) {
        size_t checked = i;
        if (p->use_lexer && !lex_checked_ahead(p, run, &i, &checked, end))
            return false;
        int stop;
        size_t valid_end = checked + utf8_valid_prefix(p->pending + checked, end - checked, &stop);
        bool run_is_open = open && stop != 1; /* only invalid bytes close it */
        if (!split_valid_run(p, run, i, valid_end, run_is_open, consumed))
            return false;
        *run_out = run;
        if (stop == 0 || (stop == -1 && open))
            return true;
        /* Invalid bytes, or a sequence cut off by the true end of the input. */
        uint64_t offset = p->pending_offset + valid_end;
        if (p->invalid_utf8 == INVALID_UTF8_ERROR)
            return fail(p, "%s: invalid UTF-8 at byte offset %llu (byte 0x%02X); fix the file or "
                           "pass --invalid-utf8=bytes to keep such bytes as tokens",
                        p->name, (unsigned long long)offset, p->pending[valid_end]);
        bool undecided;
        size_t bad_end = invalid_run_end(p->pending, valid_end, end, open, &undecided);
        if (undecided) { /* the run may go on: decide next round */
            *consumed = valid_end;
            *run_out = valid_end;
            return true;
        }
        p->stats.invalid_runs++;
        if (!take_piece(p, p->pending + valid_end, bad_end - valid_end))
            return false;
        if (bad_end == end) {
            *consumed = *run_out = end;
            return true;
        }
        i = run = bad_end;
    }
}

/* ------------------------------------------------------- special tokens */

typedef enum { SPECIAL_NONE, SPECIAL_FOUND, SPECIAL_UNDECIDED } special_match;

/* The longest special token at pending[i], if any. UNDECIDED when a special
 * token could still match there once more bytes arrive. O(bytes that match
 * some token's start), whatever S is (specials.h). */
static special_match special_at(const pretokenizer *p, size_t i, bool final, size_t *len)
{
    special_hit hit = special_trie_match(p->specials, p->pending + i, p->pending_len - i);
    *len = hit.len;
    if (hit.cut_off && !final)
        return SPECIAL_UNDECIDED;
    return hit.len ? SPECIAL_FOUND : SPECIAL_NONE;
}

/* The next special token at or after `from`: its position in *at (or the end
 * of pending) and its length in *len. Candidates are found with memchr when
 * every special token starts with the same byte (the usual case), else by a
 * table of first bytes. O(distance scanned). */
static special_match next_special(const pretokenizer *p, size_t from, bool final, size_t *at,
                                  size_t *len)
{
    const uint8_t *base = p->pending, *end = p->pending + p->pending_len;
    for (const uint8_t *c = base + from; p->n_specials > 0 && c < end; c++) {
        if (p->shared_first_byte >= 0) {
            c = memchr(c, p->shared_first_byte, (size_t)(end - c));
            if (!c)
                break;
        } else if (!special_trie_starts_with(p->specials, *c)) {
            continue;
        }
        special_match m = special_at(p, (size_t)(c - base), final, len);
        if (m != SPECIAL_NONE) {
            *at = (size_t)(c - base);
            return m;
        }
    }
    *at = p->pending_len;
    return SPECIAL_NONE;
}

/* ----------------------------------------------------------------- rounds */

/* Moves the unconsumed tail (with a little context) to the front of pending. */
static void keep_tail(pretokenizer *p, size_t run, size_t consumed)
{
    size_t keep = consumed;
    uint32_t back = p->use_lexer || p->pattern->lookbehind == 0 ? 1 : p->pattern->lookbehind;
    while (back > 0 && keep > run) { /* step back whole code points within the run */
        keep--;
        if ((p->pending[keep] & 0xC0) != 0x80)
            back--;
    }
    p->context = consumed - keep;
    p->pending_offset += keep;
    p->pending_len -= keep;
    memmove(p->pending, p->pending + keep, p->pending_len);
}

/* Consumes as much of pending as is final; everything when `final`, and
 * then adds the hot words' pending counts to the table too when `flush`. */
static bool process_pending(pretokenizer *p, bool final, bool flush)
{
    size_t run = 0, from = p->context;
    for (;;) {
        size_t at, len, consumed = from, run_out = run;
        special_match m = next_special(p, from, final, &at, &len);
        bool open = !final && m != SPECIAL_FOUND;
        if (!split_text(p, run, from, at, open, &consumed, &run_out))
            return false;
        if (open) {
            if (!count_batch(p)) /* before keep_tail moves the bytes */
                return false;
            keep_tail(p, run_out, consumed);
            return true;
        }
        if (m == SPECIAL_NONE) { /* final and nothing left: every word in the table */
            if (!count_batch(p) || (flush && !flush_hot_words(p)))
                return false;
            p->pending_offset += p->pending_len;
            p->pending_len = p->context = 0;
            return true;
        }
        p->stats.specials++;
        if (p->emit)
            p->emit(p->emit_ctx, p->pending + at, len, true);
        run = from = at + len;
    }
}

/* ------------------------------------------------------------- the API */

/* PCRE2's code for pattern source `pattern`, or NULL with PCRE2's reason
 * and the offset ("missing closing parenthesis at offset 1") in why. */
static pcre2_code *compile_source(const char *pattern, char *why, size_t why_len)
{
    int rc;
    PCRE2_SIZE offset;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_UCP, &rc, &offset, NULL);
    if (!code) {
        PCRE2_UCHAR message[160];
        pcre2_get_error_message(rc, message, sizeof message);
        set_error(why, why_len, "%s at offset %zu", (const char *)message, (size_t)offset);
    }
    return code;
}

bool pretok_pattern_compiles(const char *pattern, char *why, size_t why_len)
{
    pcre2_code *code = compile_source(pretok_pattern_source(pattern), why, why_len);
    pcre2_code_free(code);
    return code != NULL;
}

bool pretok_compile(const pretok_config *cfg, pretok_compiled **out, char *err,
                    size_t err_len)
{
    *out = NULL;
    if (pretok_engine_used(cfg) == PRETOK_LEXER)
        return true;
    pretok_compiled *c = calloc(1, sizeof *c);
    if (!c)
        return set_error(err, err_len, "out of memory compiling the pattern");
    char why[256];
    if (!(c->code = compile_source(pretok_pattern_source(cfg->pattern), why, sizeof why))) {
        free(c);
        return set_error(err, err_len, "bad --pattern: %s; fix the pattern or use gpt2 or gpt4",
                         why);
    }
    /* (*NO_JIT) in the pattern makes pcre2_jit_compile succeed without JIT
     * code; pcre2_jit_match would then fail on every match. */
    size_t jit_size = 0;
    c->jit = pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD) == 0 &&
             pcre2_pattern_info(c->code, PCRE2_INFO_JITSIZE, &jit_size) == 0 && jit_size > 0;
    pcre2_pattern_info(c->code, PCRE2_INFO_MAXLOOKBEHIND, &c->lookbehind);
    *out = c;
    return true;
}

void pretok_compiled_free(pretok_compiled *c)
{
    if (c)
        pcre2_code_free(c->code);
    free(c);
}

/* The pattern cfg gives compiled (borrowed), or p's own; then p's match
 * data, limits and JIT stack, which are never shared. */
static bool compile_pattern(pretokenizer *p, const pretok_config *cfg)
{
    if (cfg->compiled)
        p->pattern = cfg->compiled;
    else if (!pretok_compile(cfg, &p->own_pattern, p->err, p->err_len))
        return false;
    else
        p->pattern = p->own_pattern;
    p->match = pcre2_match_data_create_from_pattern(p->pattern->code, NULL);
    p->mctx = pcre2_match_context_create(NULL);
    if (!p->match || !p->mctx)
        return fail(p, "out of memory compiling the pattern");
    pcre2_set_match_limit(p->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(p->mctx, DEPTH_LIMIT);
    if (p->pattern->jit) {
        p->jit_stack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, NULL);
        if (!p->jit_stack)
            return fail(p, "out of memory for the JIT stack");
        pcre2_jit_stack_assign(p->mctx, NULL, p->jit_stack);
    }
    return true;
}

/* Checks the special tokens (non-empty, distinct: duplicates would make
 * ids ambiguous; an empty one would match everywhere) and builds their trie. */
static bool load_specials(pretokenizer *p, const pretok_config *cfg)
{
    p->n_specials = cfg->n_specials;
    for (size_t k = 0; k < cfg->n_specials; k++)
        if (cfg->specials[k][0] == '\0')
            return fail(p, "bad --special-token: the empty string; give a non-empty token");
    size_t twice;
    if (!(p->specials = special_trie_new(cfg->specials, cfg->n_specials, &twice)))
        return fail(p, "out of memory");
    if (twice != SIZE_MAX)
        return fail(p, "bad --special-token: \"%s\" is given twice; give each once",
                    cfg->specials[twice]);
    p->shared_first_byte = cfg->n_specials ? (uint8_t)cfg->specials[0][0] : -1;
    for (size_t k = 1; k < cfg->n_specials; k++)
        if ((uint8_t)cfg->specials[k][0] != p->shared_first_byte)
            p->shared_first_byte = -1;
    return true;
}

pretokenizer *pretok_new(const pretok_config *cfg, char *err, size_t err_len)
{
    pretokenizer *p = calloc(1, sizeof *p);
    if (!p) {
        set_error(err, err_len, "out of memory");
        return NULL;
    }
    p->err = err;
    p->err_len = err_len;
    p->invalid_utf8 = cfg->invalid_utf8;
    p->use_lexer = pretok_engine_used(cfg) == PRETOK_LEXER;
    p->lexer = pretok_pattern_source(cfg->pattern) == GPT2_PATTERN ? LEXER_GPT2 : LEXER_GPT4;
    if (!load_specials(p, cfg) ||
        (!p->use_lexer && !compile_pattern(p, cfg))) {
        pretok_free(p);
        return NULL;
    }
    /* Never NULL, even before the first chunk: pointer arithmetic on an
     * empty pending buffer (an empty file) must stay defined. */
    p->pending_cap = 1 << 16;
    p->pending = calloc(p->pending_cap, 1);
    /* a pair to a cache line: the slots start at the block's first 64-byte boundary */
    p->hot_block = calloc(1, HOT_WORDS * sizeof *p->hot + 63);
    if (p->hot_block)
        p->hot = (hot_word *)(void *)((uint8_t *)p->hot_block +
                                      (64 - (uintptr_t)p->hot_block % 64) % 64);
    p->dirty = malloc(HOT_WORDS * sizeof *p->dirty);
    if (!p->pending || !p->hot || !p->dirty) {
        set_error(err, err_len, "out of memory");
        pretok_free(p);
        return NULL;
    }
    return p;
}

void pretok_free(pretokenizer *p)
{
    if (!p)
        return;
    pcre2_match_data_free(p->match);
    pcre2_match_context_free(p->mctx);
    pcre2_jit_stack_free(p->jit_stack);
    pretok_compiled_free(p->own_pattern);
    special_trie_free(p->specials);
    free(p->pending);
    free(p->hot_block);
    free(p->dirty);
    free(p);
}

void pretok_begin(pretokenizer *p, const char *name, word_table *words)
{
    pretok_begin_at(p, name, words, 0);
}

/* Starts an input at `offset`; the hot words stay when `keep_hot` (the
 * same table, exact, pretok_continue_at). */
static void begin_input(pretokenizer *p, const char *name, word_table *words, uint64_t offset,
                        bool keep_hot)
{
    p->name = name;
    p->pending_len = p->context = p->retry_len = 0;
    p->pending_offset = offset;
    pretok_set_multiplicity(p, 1);
    p->exact = false;
    if (keep_hot)
        return; /* the batch and the dirty slots are empty: the last input ended well */
    if (words && !p->hot_written) { /* write before read: no zero-page copy faults */
        memset(p->hot, 0, HOT_WORDS * sizeof *p->hot);
        p->hot_written = true;
    }
    p->words = words;
    p->batch.n = 0; /* what a failed run left waiting points into bytes now gone */
    for (size_t k = 0; k < p->n_dirty; k++) /* what a failed run left pending is dropped */
        p->hot[p->dirty[k]].dirty = 0;
    p->n_dirty = 0;
    /* The hot words name entries of the previous table: a new generation
     * empties them all at once, and before the tags wrap, every slot. */
    if (++p->generation == HOT_GENERATIONS) {
        memset(p->hot, 0, HOT_WORDS * sizeof *p->hot);
        p->generation = 1;
    }
}

void pretok_begin_at(pretokenizer *p, const char *name, word_table *words, uint64_t offset)
{
    begin_input(p, name, words, offset, false);
}

void pretok_continue_at(pretokenizer *p, const char *name, uint64_t offset)
{
    begin_input(p, name, p->words, offset, p->exact && p->words && !p->emit);
}

void pretok_set_multiplicity(pretokenizer *p, uint64_t times)
{
    p->multiplicity = times;
    p->hot_room = times > UINT32_MAX ? -1 : (int64_t)(UINT32_MAX - times);
}

/* After a round failed: the pretokens it and the rounds before found are
 * counted into the table, those waiting in the ring and those pending in
 * the hot words, as at the end of an input; so a failed input leaves the
 * same table whatever the hot words held when it began (tests/test_lexer.c
 * checks it). A failure here is not reported: the round's error stands. */
static void settle_failure(pretokenizer *p)
{
    char *err = p->err, scratch[256];
    size_t err_len = p->err_len;
    p->err = scratch;
    p->err_len = sizeof scratch;
    if (count_batch(p))
        flush_hot_words(p);
    p->err = err;
    p->err_len = err_len;
}

uint8_t *pretok_feed_room(pretokenizer *p, size_t len, char *err, size_t err_len)
{
    p->err = err;
    p->err_len = err_len;
    uint8_t *grown = len > SIZE_MAX - HOT_BYTES - p->pending_len ? NULL :
        bpe_array_reserve(p->pending, &p->pending_cap, p->pending_len + len + HOT_BYTES, 1);
    if (!grown) {
        fail(p, "%s: out of memory holding a %zu-byte pretoken", p->name, p->pending_len + len);
        return NULL;
    }
    p->pending = grown;
    return p->pending + p->pending_len;
}

bool pretok_feed_written(pretokenizer *p, size_t len, char *err, size_t err_len)
{
    p->err = err;
    p->err_len = err_len;
    p->pending_len += len;
    memset(p->pending + p->pending_len, 0, HOT_BYTES); /* for hot_key_of's whole loads */
    p->stats.bytes += len;
    /* A round re-reads the kept tail. Waiting until at least as many new bytes
     * have arrived keeps that O(n) in total even when one pretoken spans many
     * chunks (a 50 MB line without spaces), instead of O(n^2 / chunk). */
    if (p->pending_len < p->retry_len)
        return true;
    bool ok = process_pending(p, false, false);
    p->retry_len = 2 * p->pending_len;
    if (!ok)
        settle_failure(p);
    return ok;
}

bool pretok_feed(pretokenizer *p, const uint8_t *data, size_t len, char *err, size_t err_len)
{
    uint8_t *room = pretok_feed_room(p, len, err, err_len);
    if (!room)
        return false;
    memcpy(room, data, len);
    return pretok_feed_written(p, len, err, err_len);
}

/* pretok_end, adding the hot words' pending counts to the table or not. */
static bool end_input(pretokenizer *p, bool flush, char *err, size_t err_len)
{
    p->err = err;
    p->err_len = err_len;
    p->exact = process_pending(p, true, flush);
    if (!p->exact)
        settle_failure(p);
    return p->exact;
}

bool pretok_end(pretokenizer *p, char *err, size_t err_len)
{
    return end_input(p, true, err, err_len);
}

bool pretok_end_words(pretokenizer *p, char *err, size_t err_len)
{
    return end_input(p, false, err, err_len);
}

bool pretok_flush(pretokenizer *p, char *err, size_t err_len)
{
    p->err = err;
    p->err_len = err_len;
    return flush_hot_words(p);
}

bool pretok_split(pretokenizer *p, const char *name, const uint8_t *text, size_t len, size_t chunk,
                  pretok_emit_fn emit, void *ctx, char *err, size_t err_len)
{
    pretok_begin(p, name, NULL);
    p->emit = emit;
    p->emit_ctx = ctx;
    bool ok = true;
    for (size_t at = 0; ok && at < len; at += chunk ? chunk : len) {
        size_t n = chunk && len - at > chunk ? chunk : len - at;
        ok = pretok_feed(p, text + at, n, err, err_len);
    }
    ok = ok && pretok_end(p, err, err_len);
    p->emit = NULL;
    p->emit_ctx = NULL;
    return ok;
}

const pretok_stats *pretok_get_stats(const pretokenizer *p)
{
    return &p->stats;
}
