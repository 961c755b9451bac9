/* errors.c — see errors.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

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
