/* clock.h — the monotonic clock every phase time comes from. */
#ifndef BPE_CLOCK_H
#define BPE_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
