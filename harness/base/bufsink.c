/* bufsink.c — see bufsink.h. */
#include "base/bufsink.h"

#include "base/errors.h"

#include <stdlib.h>
#include <string.h>

bool bufsink_init(bufsink *b, byte_sink sink, char *err, size_t err_len)
{
    *b = (bufsink){.sink = sink, .err = err, .err_len = err_len, .buf = malloc(BUFSINK_BYTES)};
    return b->buf != NULL || bufsink_fail(b, "out of memory");
}

bool bufsink_fail(bufsink *b, const char *reason)
{
    if (!b->failed)
        set_error(b->err, b->err_len, "%s", reason);
    b->failed = true;
    return false;
}

/* Hands the pending bytes to the sink. */
static bool flush(bufsink *b)
{
    if (!b->failed && b->used > 0 && !b->sink.write(b->sink.ctx, b->buf, b->used, b->err,
                                                    b->err_len))
        b->failed = true;
    b->used = 0;
    return !b->failed;
}

char *bufsink_room(bufsink *b, size_t need)
{
    if (b->failed || (b->used + need > BUFSINK_BYTES && !flush(b)))
        return NULL;
    return b->buf + b->used;
}

void bufsink_advance(bufsink *b, size_t n)
{
    b->used += n;
}

bool bufsink_put(bufsink *b, const void *data, size_t len)
{
    const char *from = data;
    while (len > 0) {
        char *room = bufsink_room(b, 1);
        if (!room)
            return false;
        size_t n = BUFSINK_BYTES - b->used < len ? BUFSINK_BYTES - b->used : len;
        memcpy(room, from, n);
        b->used += n;
        from += n;
        len -= n;
    }
    return true;
}

size_t bufsink_decimal(char *at, uint64_t v)
{
    char digits[20];
    size_t n = 0, k = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n > 0)
        at[k++] = digits[--n];
    return k;
}

bool bufsink_finish(bufsink *b)
{
    bool ok = b->buf && flush(b);
    free(b->buf);
    b->buf = NULL;
    return ok;
}
