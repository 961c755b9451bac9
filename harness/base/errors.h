/*
 * errors.h — how the harness reports a failure: one line (naming the file,
 * the offset or the value, and the fix) written into the caller's buffer, so
 * the command that called it decides where the line goes.
 */
#ifndef BPE_ERRORS_H
#define BPE_ERRORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

/* Asks the compiler to check a printf-style function's calls (gcc and clang
 * know the attribute; other compilers get nothing): `fmt` is the position
 * of the format argument, `first` of the first value. */
#if defined(__GNUC__) || defined(__clang__)
#define BPE_PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define BPE_PRINTF_LIKE(fmt, first)
#endif

/* Formats the message into err[0, err_len) and returns false, so a failing
 * function can end with `return set_error(err, err_len, "...", ...);`. */
bool set_error(char *err, size_t err_len, const char *fmt, ...) BPE_PRINTF_LIKE(3, 4);
/* The same with a va_list, for functions that take a format themselves. */
bool set_error_v(char *err, size_t err_len, const char *fmt, va_list ap) BPE_PRINTF_LIKE(3, 0);

/* What kind of file a st_mode describes, for a message: "a regular file",
 * "a directory", "a symbolic link", "a FIFO", "a socket", "a character
 * device" or "a block device". */
const char *file_kind_name(mode_t mode);

/* Opens `path` for reading ("rb") when it is a regular file; otherwise NULL,
 * with "PATH: cannot open: …" or "PATH: is a FIFO (…), not a regular file;
 * give EXPECTED" in err. The open does not block (O_NONBLOCK), so a FIFO
 * without a writer is refused at once instead of hanging the command, and
 * /dev/zero is refused before a byte is read. O(1). */
FILE *open_regular_file(const char *path, const char *expected, char *err, size_t err_len);

#endif
