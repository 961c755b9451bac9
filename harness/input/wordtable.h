/*
 * wordtable.h — distinct pretokens ("words") and their 64-bit counts.
 *
 * A hash table of our own design: open addressing over slots that hold a
 * word's 32-bit hash and its index in a dense entry array (so most probes
 * never touch an entry), with every word's bytes copied once into a
 * growing arena. Adding a pretoken is O(len) expected and allocates nothing
 * unless a table grows (amortized O(1)), so counting a corpus is expected
 * O(n) and the memory is O(W + M), independent of how often words repeat.
 */
#ifndef BPE_WORDTABLE_H
#define BPE_WORDTABLE_H

#include "bpe.h"
#include "prefetch.h"

#include <string.h>

/* One distinct word. */
typedef struct {
    uint64_t offset; /* start of its bytes in the arena */
    uint64_t count;  /* occurrences so far */
    uint32_t len;    /* its length in bytes */
    uint32_t hash;   /* low 32 bits of its hash, to skip most byte compares */
} word_entry;

typedef struct {
    uint64_t *slots;      /* open-addressing slots: hash << 32 | (entry index + 1), 0 when free;
                           * pages mapped for them alone, grown in place (wordtable.c) */
    size_t slot_cap;      /* number of slots; a power of two */
    word_entry *entries;  /* the distinct words, in first-seen order */
    size_t n_entries;     /* W */
    size_t entry_cap;     /* capacity of `entries` */
    uint8_t *arena;       /* every distinct word's bytes, back to back */
    uint64_t arena_used;  /* bytes used in `arena` = M */
    size_t arena_cap;     /* capacity of `arena` */
    uint64_t pretokens;   /* words added, counting repeats */
} word_table;

bool word_table_init(word_table *t);
void word_table_free(word_table *t);

/* Adds `count` occurrences of the word. False when memory runs out, a count
 * would pass 2^64 − 1, the word is longer than 4 GiB − 1, or there would be
 * more than 2^32 − 2 distinct words. */
bool word_table_add(word_table *t, const uint8_t *bytes, size_t len, uint64_t count);

/*
 * The same in two steps, for a caller that counts many words in a row: hash
 * a word and prefetch its slot as soon as the word is known, and add it a
 * little later, when the slot has arrived in the cache. A lookup in a table
 * larger than the cache otherwise waits for memory on every word.
 * word_table_add_hashed takes the word_table_hash of the same bytes.
 */
uint64_t word_table_hash(const uint8_t *bytes, size_t len);
static inline void word_table_prefetch(const word_table *t, uint64_t hash)
{
    bpe_prefetch(&t->slots[(uint32_t)hash & (t->slot_cap - 1)]);
}
/* The later steps of a longer pipeline (pretok.c): once the slot has
 * arrived, start loading the entry of the first word it names with that
 * hash, and return its index (SIZE_MAX: none, a new word); once that entry
 * has arrived, the word's bytes in the arena, by that index (SIZE_MAX:
 * nothing). O(probe), then O(1). */
size_t word_table_prefetch_entry(const word_table *t, uint64_t hash);
void word_table_prefetch_bytes(const word_table *t, size_t index);
bool word_table_add_hashed(word_table *t, const uint8_t *bytes, size_t len, uint64_t full_hash,
                           uint64_t count);

/*
 * The steps of word_table_hash, for a scanner that hashes a word while it
 * reads it (lexer.c: no second pass over the bytes): start from
 * WORD_HASH_SEED, mix the word's 8-byte blocks in order (word_hash_load:
 * little-endian, first byte lowest), then its last 1 to 7 bytes as one more
 * block, zero above them, and finish with the length. O(1) per block.
 */
#define WORD_HASH_SEED 0x9E3779B97F4A7C15ull

/* One multiply-xorshift round folding a block into the state. */
static inline uint64_t word_hash_mix(uint64_t h, uint64_t block)
{
    h = (h ^ block) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

/* The state of a word of `len` bytes, its blocks mixed, made a hash. */
static inline uint64_t word_hash_finish(uint64_t h, uint64_t len)
{
    h ^= len * 0xff51afd7ed558ccdull;
    h = (h ^ (h >> 29)) * 0x94d049bb133111ebull;
    return h ^ (h >> 32);
}

/* The 8 bytes at p as one block: little-endian, whatever the machine, so
 * that the first byte is the lowest (a plain load on x86 and ARM). */
static inline uint64_t word_hash_load(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* word_table_add_hashed that tells where the word is: its index in
 * `entries`, or SIZE_MAX when the add is refused (as above). */
size_t word_table_insert(word_table *t, const uint8_t *bytes, size_t len, uint64_t full_hash,
                         uint64_t count);

/* Adds `count` more occurrences to the word at `index` (< n_entries). False,
 * and the table unchanged, when a count would pass 2^64 − 1. */
bool word_table_add_count(word_table *t, size_t index, uint64_t count);

/* Starts loading the count of the word at `index` (< n_entries), for a
 * word_table_add_count a little later. O(1). */
static inline void word_table_prefetch_count(const word_table *t, size_t index)
{
    bpe_prefetch(&t->entries[index].count);
}

/* The index in `entries` of the word bytes[0, len), or SIZE_MAX when the
 * table does not hold it. O(len) expected. */
size_t word_table_find(const word_table *t, const uint8_t *bytes, size_t len);

/*
 * Room for `words` more distinct words of `bytes` bytes in all, so that
 * `entries` and `arena` do not move while they are added (the slots may still
 * be rebuilt): a thread may then read the words already there while their
 * owner adds more (count_parallel.c). Capacity only: pages never written cost
 * no memory. has_room tells whether make_room would move anything. make_room
 * is false on OOM, the words unchanged. O(1), or O(W + M) when it moves.
 */
bool word_table_has_room(const word_table *t, size_t words, uint64_t bytes);
bool word_table_make_room(word_table *t, size_t words, uint64_t bytes);

/* Room in the slots for `words` more distinct words, so that adding them
 * rebuilds no slot array (the load factor stays at most 1/2). False on OOM,
 * the table unchanged. O(1), or O(W + slots) when it rebuilds. */
bool word_table_make_slot_room(word_table *t, size_t words);

/*
 * word_table_init, but on `done`'s slot array, cleared, instead of a new one:
 * a table about to count afresh takes the pages, already mapped and in the
 * cache, of one that is done (count_parallel.c). `done` keeps its words
 * (entries, arena) to be read and freed, but can no longer be added to or
 * searched. Cannot fail. O(slots).
 */
void word_table_init_taking_slots(word_table *t, word_table *done);

/* Bytes the table holds on the heap (slots, entries, arena capacities). */
uint64_t word_table_memory(const word_table *t);

/*
 * The trainers' view of the table: an array of W bpe_word pointing into the
 * arena. *array is malloc'd and owned by the caller (free it); the bytes stay
 * owned by the table, which must outlive the view. False on OOM.
 */
bool word_table_view(const word_table *t, bpe_word **array, bpe_words *view);

/*
 * The same view, once the table is complete: nothing more will be added or
 * looked up. The slots are unmapped first, and the view is written over
 * the entries (an entry and a bpe_word are both 24 bytes; entry i is read
 * before word i is written), so slots, entries and view never take memory
 * at once, and the view's pages are the entries', already mapped;
 * afterwards t holds only the arena the view points into and its totals
 * (n_entries, arena_used, pretokens), and can only be freed (word_table_free,
 * which the view must not outlive). That leaves 24·W + M bytes of the
 * 64·W to 80·W + M that table and view held together. False on OOM; t then
 * has no slots but still its words. O(W).
 */
bool word_table_into_view(word_table *t, bpe_word **array, bpe_words *view);

#endif
