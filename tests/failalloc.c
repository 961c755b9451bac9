/* failalloc.c — see failalloc.h. */
#include "failalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static _Atomic int mode = FAIL_NOTHING; /* read by every thread that allocates */
static atomic_long countdown;           /* FAIL_NTH: allocations left before the one that fails */
static pthread_t main_thread;           /* set once, before any other thread */

void fail_set_main_thread(void)
{
    main_thread = pthread_self();
}

void fail_from_now(failure_mode m, long nth)
{
    atomic_store(&countdown, nth);
    atomic_store(&mode, m);
}

void fail_nothing(void)
{
    atomic_store(&mode, FAIL_NOTHING);
}

bool fail_reached(void)
{
    return atomic_load(&countdown) <= 0;
}

/* Whether this allocation is to fail. */
static bool fail_now(void)
{
    switch (atomic_load(&mode)) {
    case FAIL_NTH:
        return atomic_fetch_sub(&countdown, 1) == 1;
    case FAIL_OFF_MAIN:
        return !pthread_equal(pthread_self(), main_thread);
    default:
        return false;
    }
}

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t alignment, size_t size);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);

void *__wrap_malloc(size_t size)
{
    return fail_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return fail_now() ? NULL : __real_realloc(p, size);
}

void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
    return fail_now() ? NULL : __real_aligned_alloc(alignment, size);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    if (atomic_load(&mode) == FAIL_THREAD_STARTS)
        return EAGAIN; /* what pthread_create says when no thread can be had */
    return __real_pthread_create(t, a, f, arg);
}
