/*
 * prefetch.h — software prefetch and the spin-wait hint, the one place the
 * tree names a compiler builtin.
 *
 * A prefetch asks the CPU to start loading the cache line at an address now,
 * because the program will read it soon. It changes no value and cannot
 * fault (a prefetch of any address is allowed, even one past an array), so a
 * program means the same with or without it; only the time it waits on
 * memory changes. It pays where the next addresses are known well before
 * they are read but do not follow a stride the hardware prefetcher can
 * guess: a list of ids, each naming a record somewhere in a large array
 * (cache_aware.c's walks).
 *
 * C11 has no prefetch. GCC and Clang offer __builtin_prefetch(address, rw,
 * locality); elsewhere bpe_prefetch compiles to nothing, which is always
 * correct, only slower.
 *
 * Call it in the loop that will read the data, not from a helper function
 * whose only effect is the prefetch: GCC 12 at -O1 and above judged such a
 * helper free of side effects and deleted every call to it, prefetch and all
 * (cache_aware.c's first attempt; `objdump -d | grep prefetch` shows what
 * survived). A helper that computes the address to prefetch is fine.
 */
#ifndef BPE_PREFETCH_H
#define BPE_PREFETCH_H

/* Starts loading the cache line holding *p for a read, to be kept in every
 * cache level. No effect on any value; never faults. O(1). */
static inline void bpe_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 3);
#else
    (void)p;
#endif
}

/* Tells the CPU that the caller is spinning on a value another thread will
 * change (x86's `pause`): the loop yields the core's shared resources to a
 * sibling thread and leaves the wait without a memory-order flush when the
 * value arrives. No effect on any value; elsewhere it compiles to nothing. */
static inline void bpe_spin_pause(void)
{
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#endif
}

#endif
