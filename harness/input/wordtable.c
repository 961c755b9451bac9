/* wordtable.c — see wordtable.h. */
#define _GNU_SOURCE /* mremap */
#include "input/wordtable.h"

#include "array.h"
#include "prefetch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A little-endian 4-byte load, whatever the machine, like word_hash_load
 * (wordtable.h): a block's first byte is its lowest. */
static uint64_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/*
 * word_table_hash (wordtable.h): the 8-byte blocks of the word in order,
 * then its last 1 to 7 bytes as one more block (zero above them), then the
 * length. Every read is a whole 1-, 4- or 8-byte load inside [p, p + len):
 * the last block of a word longer than 8 is the last 8 bytes shifted down,
 * one of 4 to 7 bytes two overlapping 4-byte halves. (Copying a short tail
 * into a zeroed 8-byte variable and reading it back whole stalls the CPU:
 * the store cannot be forwarded to the wider load. That alone made an add
 * cost 33 ns instead of 16 on English text.) O(len).
 */
uint64_t word_table_hash(const uint8_t *p, size_t len)
{
    uint64_t h = WORD_HASH_SEED;
    size_t blocks = len / 8, tail = len % 8;
    for (size_t b = 0; b < blocks; b++)
        h = word_hash_mix(h, word_hash_load(p + 8 * b));
    if (tail == 0)
        return word_hash_finish(h, len);
    const uint8_t *t = p + 8 * blocks;
    uint64_t last;
    if (blocks > 0)
        last = word_hash_load(p + len - 8) >> (64 - 8 * tail);
    else if (tail >= 4)
        last = load32(t) | (load32(t + tail - 4) >> (8 * (8 - tail))) << 32;
    else
        last = (uint64_t)t[0] | (tail > 1 ? (uint64_t)t[1] << 8 : 0) |
               (tail > 2 ? (uint64_t)t[2] << 16 : 0);
    return word_hash_finish(word_hash_mix(h, last), len);
}

/*
 * The slot array has pages of its own (mmap), not heap memory, so that it
 * grows in place: mremap keeps the pages it has and adds the rest, so growing
 * from C to 2C slots takes C slots' worth of new pages, not 2C, and the old
 * ones, still in the cache, are cleared and reused rather than handed back.
 * A fresh page costs about 1.5 µs in our VM (the kernel zeroes it on first
 * touch), and the slots are rebuilt about log2(W) times. Counting
 * multilingual, from aligned_alloc + free to this (medians of 41 alternating
 * runs): on one thread 0.235 → 0.227 s and 12,600 → 10,500 page faults, on
 * two 0.135 → 0.126 s and 17,300 → 14,600. Mapping each array anew and
 * unmapping the old one, without mremap, gave about half of the two
 * threads' gain.
 *
 * Every new page is written before it is read (memset): a page read first is
 * mapped to the kernel's shared zero page, and the write after it takes a
 * second, copy-on-write fault that flushes the TLB of every CPU the process
 * runs on — an interrupt to each other counting thread. With two threads that
 * was 9% of counting multilingual (perf: do_wp_page → flush_tlb_mm_range).
 *
 * The slots are also asked to sit on transparent huge pages (madvise
 * MADV_HUGEPAGE, a hint the kernel may ignore). Slots are read at random: in
 * a table of millions of words nearly every probe misses the TLB as well
 * as the cache, and a virtual machine walks two page tables per miss; a
 * 2 MiB page covers 512 times what a 4 KiB page does. Reading the count
 * file of 10.5 million distinct words (train --counts) took 27% less CPU
 * time with it (medians of 3 alternating runs); counting multilingual, no
 * change beyond the noise. The kernel backs with huge pages only the
 * aligned 2 MiB stretches of a mapping, and mremap puts the array wherever
 * it likes: so an array of 2 MiB or more is mapped anew at a 2 MiB
 * boundary instead of moved (reserve_slots), the old one unmapped before
 * the new one is written, so that no more memory is held at once.
 * Otherwise half of the Gutenberg books' 4 MiB of slots sits on small
 * pages, and the slot prefetch waits for its address translation.
 *
 * ThreadSanitizer does not intercept mremap (google/sanitizers#1099): a range
 * it moves keeps the access history of whatever was mapped there before, and
 * TSan reports races that are not there. Under TSan the array moves by mmap
 * and munmap, which it follows.
 */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

/* A transparent huge page on x86-64 and on most ARM64 kernels. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* A new array of `cap` slots, not written yet, at a huge-page boundary when
 * it is at least a huge page long (the kernel can then back all of it with
 * huge pages); NULL when memory runs out. */
static uint64_t *reserve_slots(size_t cap)
{
    size_t bytes = cap * sizeof(uint64_t);
    size_t slack = bytes >= HUGE_PAGE_BYTES ? HUGE_PAGE_BYTES : 0;
    uint8_t *raw = mmap(NULL, bytes + slack, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *start = raw;
    if (slack && (uintptr_t)raw % HUGE_PAGE_BYTES)
        start += HUGE_PAGE_BYTES - (uintptr_t)raw % HUGE_PAGE_BYTES;
    if (start > raw) /* the slack before the boundary and after the array */
        munmap(raw, (size_t)(start - raw));
    if (raw + slack > start)
        munmap(start + bytes, (size_t)(raw + slack - start));
    madvise(start, bytes, MADV_HUGEPAGE);
    return (uint64_t *)(void *)start;
}

/* A new array of `cap` free slots, or NULL when memory runs out. */
static uint64_t *map_slots(size_t cap)
{
    uint64_t *p = reserve_slots(cap);
    if (p)
        memset(p, 0, cap * sizeof(uint64_t));
    return p;
}

static void unmap_slots(uint64_t *slots, size_t cap)
{
    if (slots)
        munmap(slots, cap * sizeof *slots);
}

/* The array grown from `cap` to `new_cap` slots, whose contents are to be
 * rebuilt; NULL when memory runs out, `slots` then unchanged. A new array
 * is not written before the old one is unmapped: no more memory is held. */
static uint64_t *remap_slots(uint64_t *slots, size_t cap, size_t new_cap)
{
    if (UNDER_TSAN || new_cap * sizeof *slots >= HUGE_PAGE_BYTES) {
        uint64_t *moved = reserve_slots(new_cap);
        if (moved)
            unmap_slots(slots, cap);
        return moved;
    }
    void *p = mremap(slots, cap * sizeof *slots, new_cap * sizeof *slots, MREMAP_MAYMOVE);
    return p == MAP_FAILED ? NULL : p;
}

bool word_table_init(word_table *t)
{
    memset(t, 0, sizeof *t);
    t->slot_cap = 1024;
    t->slots = map_slots(t->slot_cap);
    return t->slots != NULL;
}

void word_table_free(word_table *t)
{
    unmap_slots(t->slots, t->slot_cap);
    free(t->entries);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

/* A slot's content: the word's hash beside its entry index + 1 (never 0). */
static uint64_t slot_value(uint32_t hash, size_t entry)
{
    return (uint64_t)hash << 32 | (uint32_t)(entry + 1);
}

/* Grows the slots to `cap` (a power of two, more than twice the entries) and
 * re-places every entry there by its stored hash. O(W + cap). */
static bool resize_slots(word_table *t, size_t cap)
{
    uint64_t *slots = remap_slots(t->slots, t->slot_cap, cap);
    if (!slots)
        return false;
    madvise(slots, cap * sizeof *slots, MADV_HUGEPAGE);
    memset(slots, 0, cap * sizeof *slots);
    for (size_t e = 0; e < t->n_entries; e++) {
        size_t s = t->entries[e].hash & (cap - 1);
        while (slots[s])
            s = (s + 1) & (cap - 1);
        slots[s] = slot_value(t->entries[e].hash, e);
    }
    t->slots = slots;
    t->slot_cap = cap;
    return true;
}

/* The first blocks of `entries` and `arena` (both then double, array.h):
 * large enough that a corpus's first words do not make them grow again and again. */
#define FIRST_ENTRIES 1024
#define FIRST_ARENA_BYTES 65536

/* The larger of two sizes. */
static size_t at_least(size_t need, size_t first)
{
    return need > first ? need : first;
}

bool word_table_has_room(const word_table *t, size_t words, uint64_t bytes)
{
    return words <= t->entry_cap - t->n_entries && bytes <= t->arena_cap - t->arena_used;
}

bool word_table_make_room(word_table *t, size_t words, uint64_t bytes)
{
    if (words > SIZE_MAX - t->n_entries || bytes > SIZE_MAX - t->arena_used)
        return false;
    word_entry *e = bpe_array_reserve(t->entries, &t->entry_cap,
                                      at_least(t->n_entries + words, FIRST_ENTRIES), sizeof *e);
    if (!e)
        return false;
    t->entries = e;
    uint8_t *arena = bpe_array_reserve(t->arena, &t->arena_cap,
                                       at_least((size_t)(t->arena_used + bytes), FIRST_ARENA_BYTES),
                                       1);
    if (!arena)
        return false;
    t->arena = arena;
    return true;
}

/* The one place the load factor is kept at most 1/2, so that probe runs stay
 * short: for the words to come (a merge), or for the one just added (0). */
bool word_table_make_slot_room(word_table *t, size_t words)
{
    size_t limit = SIZE_MAX / (4 * sizeof *t->slots); /* the slots' bytes must fit a size_t */
    if (words > limit || t->n_entries > limit - words)
        return false;
    size_t cap = t->slot_cap;
    while ((t->n_entries + words) * 2 > cap)
        cap *= 2;
    return cap == t->slot_cap || resize_slots(t, cap);
}

/* Appends a new distinct word (entry + its bytes in the arena). Amortized
 * O(len). With room made beforehand it writes neither `entries` nor `arena`
 * (the pointers), so a thread reading older words is not disturbed. */
static bool append_entry(word_table *t, const uint8_t *bytes, size_t len, uint32_t hash)
{
    if (!word_table_has_room(t, 1, len) && !word_table_make_room(t, 1, len))
        return false;
    memcpy(t->arena + t->arena_used, bytes, len);
    t->entries[t->n_entries++] = (word_entry){
        .offset = t->arena_used, .count = 0, .len = (uint32_t)len, .hash = hash};
    t->arena_used += len;
    return true;
}

/* The entry of the first slot with the word's hash (the word itself, most
 * likely), or NULL. O(probe). */
static const word_entry *first_candidate(const word_table *t, uint32_t hash)
{
    size_t mask = t->slot_cap - 1;
    for (size_t s = hash & mask; t->slots[s]; s = (s + 1) & mask)
        if ((uint32_t)(t->slots[s] >> 32) == hash)
            return &t->entries[(uint32_t)t->slots[s] - 1];
    return NULL;
}

size_t word_table_prefetch_entry(const word_table *t, uint64_t hash)
{
    const word_entry *e = first_candidate(t, (uint32_t)hash);
    if (!e)
        return SIZE_MAX;
    bpe_prefetch(e); /* an entry (24 bytes) may straddle two cache lines: ask for both */
    bpe_prefetch((const uint8_t *)(e + 1) - 1);
    return (size_t)(e - t->entries);
}

void word_table_prefetch_bytes(const word_table *t, size_t index)
{
    if (index < t->n_entries)
        bpe_prefetch(t->arena + t->entries[index].offset);
}

/* Whether a[0, len) and b[0, len) hold the same bytes: memcmp for the
 * short words that most pretokens are, in one or two loads of each side
 * (calling the library's memcmp cost more than the compare). O(len). */
static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len)
{
    if (len >= 8) {
        for (size_t i = 0; i + 8 < len; i += 8)
            if (word_hash_load(a + i) != word_hash_load(b + i))
                return false;
        return word_hash_load(a + len - 8) == word_hash_load(b + len - 8);
    }
    if (len >= 4)
        return load32(a) == load32(b) && load32(a + len - 4) == load32(b + len - 4);
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

bool word_table_add(word_table *t, const uint8_t *bytes, size_t len, uint64_t count)
{
    return word_table_add_hashed(t, bytes, len, word_table_hash(bytes, len), count);
}

bool word_table_add_hashed(word_table *t, const uint8_t *bytes, size_t len, uint64_t full_hash,
                           uint64_t count)
{
    return word_table_insert(t, bytes, len, full_hash, count) != SIZE_MAX;
}

size_t word_table_insert(word_table *t, const uint8_t *bytes, size_t len, uint64_t full_hash,
                         uint64_t count)
{
    if (len > UINT32_MAX)
        return SIZE_MAX;
    uint32_t hash = (uint32_t)full_hash;
    size_t mask = t->slot_cap - 1, s = hash & mask;
    for (; t->slots[s]; s = (s + 1) & mask) {
        if ((uint32_t)(t->slots[s] >> 32) != hash)
            continue;
        size_t index = (uint32_t)t->slots[s] - 1;
        const word_entry *e = &t->entries[index];
        if (e->len == len && same_bytes(t->arena + e->offset, bytes, len))
            return word_table_add_count(t, index, count) ? index : SIZE_MAX;
    }
    uint64_t pretokens;
    if (__builtin_add_overflow(t->pretokens, count, &pretokens) ||
        t->n_entries >= UINT32_MAX - 1 || !append_entry(t, bytes, len, hash))
        return SIZE_MAX;
    size_t index = t->n_entries - 1;
    t->slots[s] = slot_value(hash, index);
    t->entries[index].count = count;
    t->pretokens = pretokens;
    if (!word_table_make_slot_room(t, 0)) /* the load factor back to at most 1/2 */
        return SIZE_MAX;
    return index;
}

bool word_table_add_count(word_table *t, size_t index, uint64_t count)
{
    /* Both sums are checked before either is stored: a refused add leaves
     * the table as it was, never with a wrapped count. */
    uint64_t word_count, pretokens;
    if (__builtin_add_overflow(t->entries[index].count, count, &word_count) ||
        __builtin_add_overflow(t->pretokens, count, &pretokens))
        return false;
    t->entries[index].count = word_count;
    t->pretokens = pretokens;
    return true;
}

size_t word_table_find(const word_table *t, const uint8_t *bytes, size_t len)
{
    uint32_t hash = (uint32_t)word_table_hash(bytes, len);
    size_t mask = t->slot_cap - 1;
    for (size_t s = hash & mask; t->slots[s]; s = (s + 1) & mask) {
        if ((uint32_t)(t->slots[s] >> 32) != hash)
            continue;
        const word_entry *e = &t->entries[(uint32_t)t->slots[s] - 1];
        if (e->len == len && same_bytes(t->arena + e->offset, bytes, len))
            return (uint32_t)t->slots[s] - 1;
    }
    return SIZE_MAX;
}

void word_table_init_taking_slots(word_table *t, word_table *done)
{
    memset(t, 0, sizeof *t);
    memset(done->slots, 0, done->slot_cap * sizeof *done->slots);
    t->slots = done->slots;
    t->slot_cap = done->slot_cap;
    done->slots = NULL;
    done->slot_cap = 0;
}

uint64_t word_table_memory(const word_table *t)
{
    return t->slot_cap * sizeof *t->slots + t->entry_cap * sizeof *t->entries + t->arena_cap;
}

bool word_table_view(const word_table *t, bpe_word **array, bpe_words *view)
{
    bpe_word *words = malloc((t->n_entries + 1) * sizeof *words);
    if (!words)
        return false;
    for (size_t i = 0; i < t->n_entries; i++) {
        const word_entry *e = &t->entries[i];
        words[i] = (bpe_word){.bytes = t->arena + e->offset, .len = e->len, .count = e->count};
    }
    *array = words;
    *view = (bpe_words){.words = words, .n_words = t->n_entries, .n_symbols = t->arena_used};
    return true;
}

/* A word's view is as large as its entry, so the view can take the
 * entries' place (word_table_into_view). Their fields lie differently (an
 * entry's count where a view's length goes), so each entry is copied out
 * whole before its view is written over it. */
_Static_assert(sizeof(bpe_word) == sizeof(word_entry), "a view written over the entries");

bool word_table_into_view(word_table *t, bpe_word **array, bpe_words *view)
{
    unmap_slots(t->slots, t->slot_cap);
    t->slots = NULL;
    t->slot_cap = 0;
    /* one more than W, as word_table_view allocates */
    bpe_word *words = realloc(t->entries, (t->n_entries + 1) * sizeof *words);
    if (!words)
        return false;
    t->entries = NULL;
    t->entry_cap = 0;
    for (size_t i = 0; i < t->n_entries; i++) { /* word i's view over its entry */
        word_entry e;
        memcpy(&e, &words[i], sizeof e);
        words[i] = (bpe_word){.bytes = t->arena + e.offset, .len = e.len, .count = e.count};
    }
    *array = words;
    *view = (bpe_words){.words = words, .n_words = t->n_entries, .n_symbols = t->arena_used};
    return true;
}
