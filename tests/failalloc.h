/*
 * failalloc.h — failing the library's allocations and thread starts on
 * purpose, for the tests of what it does when memory or threads run out.
 *
 * A test program that uses it is linked with failalloc.o and
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=mmap,--wrap=mremap,
 * --wrap=pthread_create (see the Makefile), so those calls of the library
 * come through the wrappers in failalloc.c (not those inside other
 * libraries: PCRE2's JIT maps its code itself). Disarmed, every call goes
 * through; armed, the wrappers fail the calls the mode names, in whichever
 * thread they fall.
 */
#ifndef BPE_TESTS_FAILALLOC_H
#define BPE_TESTS_FAILALLOC_H

#include <stdbool.h>

/* What the wrappers fail. */
typedef enum {
    FAIL_NOTHING,       /* every call goes through */
    FAIL_NTH,           /* the allocation numbered `nth` from the arming, then none */
    FAIL_OFF_MAIN,      /* every allocation made off the main thread */
    FAIL_THREAD_STARTS, /* every pthread_create */
} failure_mode;

/* Names the calling thread the main one (for FAIL_OFF_MAIN); call it first
 * in main, before any other thread exists. */
void fail_set_main_thread(void);

/* Arms a failure (nth counts from 1, for FAIL_NTH); disarmed by fail_nothing. */
void fail_from_now(failure_mode mode, long nth);
void fail_nothing(void);

/* Whether the allocation numbered `nth` was reached since the arming (so a
 * FAIL_NTH run that did not fail made fewer calls: larger n fail nothing). */
bool fail_reached(void);

#endif
