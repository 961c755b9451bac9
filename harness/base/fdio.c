/* fdio.c — see fdio.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/fdio.h"

#include <errno.h>
#include <unistd.h>

/* One read() when offset < 0, else one pread() from there, retried after
 * EINTR: the bytes read, 0 at the end of the input, -1 on an error. */
static ssize_t read_once(int fd, void *buf, size_t len, long long offset)
{
    for (;;) {
        ssize_t n = offset < 0 ? read(fd, buf, len) : pread(fd, buf, len, (off_t)offset);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

ssize_t read_some(int fd, void *buf, size_t len)
{
    return read_once(fd, buf, len, -1);
}

/* read_full and pread_full: read() when offset < 0, else pread() from there. */
static bool read_loop(int fd, void *buf, size_t want, long long offset, size_t *got)
{
    char *bytes = buf;
    *got = 0;
    while (*got < want) {
        ssize_t n = read_once(fd, bytes + *got, want - *got,
                              offset < 0 ? -1 : offset + (long long)*got);
        if (n < 0)
            return false;
        if (n == 0)
            break;
        *got += (size_t)n;
    }
    return true;
}

bool read_full(int fd, void *buf, size_t want, size_t *got)
{
    return read_loop(fd, buf, want, -1, got);
}

bool pread_full(int fd, void *buf, size_t want, unsigned long long offset, size_t *got)
{
    return read_loop(fd, buf, want, (long long)offset, got);
}

size_t write_full(int fd, const void *buf, size_t len)
{
    const char *bytes = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, bytes + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    return done;
}
