/*
 * prng.h — the one pseudo-random generator of the tree: splitmix64 (Steele,
 * Lea and Flood, "Fast splittable pseudorandom number generators", 2014).
 * Integer-only, so a seed gives the same stream on every machine; used by the
 * synthetic corpus generator and by the seeded random tests.
 */
#ifndef BPE_PRNG_H
#define BPE_PRNG_H

#include <stdint.h>

/* The next 64 random bits of the stream `state`. O(1). */
static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
