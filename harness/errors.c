/* errors.c — see errors.h. */
#include "errors.h"

#include <stdarg.h>
#include <stdio.h>

bool set_error(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}
