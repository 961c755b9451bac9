/* failalloc.c — see failalloc.h. */
#include "failalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

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
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
void *__real_mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
void *__wrap_mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
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

/* The word tables' slot arrays are mapped pages (wordtable.c). A failed
 * mapping says ENOMEM, as the kernel's does. The library never moves a
 * mapping to an address of its choice (MREMAP_FIXED), so mremap's optional
 * fifth argument is never there to pass on. */
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    if (fail_now()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mmap(addr, len, prot, flags, fd, offset);
}

void *__wrap_mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    if (fail_now()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mremap(old, old_len, new_len, flags);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    if (atomic_load(&mode) == FAIL_THREAD_STARTS)
        return EAGAIN; /* what pthread_create says when no thread can be had */
    return __real_pthread_create(t, a, f, arg);
}
