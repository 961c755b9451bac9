/* errors.c — see errors.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/errors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool set_error_v(char *err, size_t err_len, const char *fmt, va_list ap)
{
    if (err_len > 0)
        vsnprintf(err, err_len, fmt, ap);
    return false;
}

bool set_error(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

const char *file_kind_name(mode_t mode)
{
    return S_ISREG(mode)    ? "a regular file"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISLNK(mode)  ? "a symbolic link"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

FILE *open_regular_file(const char *path, const char *expected, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        set_error(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        set_error(err, err_len, "%s: is %s, not a regular file; give %s", path,
                  file_kind_name(st.st_mode), expected);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        set_error(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}
