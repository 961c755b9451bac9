/*
 * bufsink.h — a buffer in front of a byte_sink (atomicfile.h), for a
 * producer that writes many small pieces (a line, a key, a number): they
 * reach the sink in blocks of BUFSINK_BYTES, one write(2) each, and the
 * whole output never has to be in memory.
 *
 * A failure is sticky: once the sink refuses a block, every later put does
 * nothing and returns false, and bufsink_finish reports it, so a producer
 * may write `ok = ok && bufsink_put(...)` or check only at the end. The
 * reason is in the caller's err buffer given to bufsink_init.
 *
 * Usage:
 *     bufsink b;
 *     if (!bufsink_init(&b, sink, err, err_len)) fail;
 *     bufsink_put(&b, "text", 4);
 *     char *at = bufsink_room(&b, 20);   // up to 20 bytes written in place
 *     if (at) bufsink_advance(&b, bufsink_decimal(at, n));
 *     if (!bufsink_finish(&b)) fail;     // flushes and frees
 */
#ifndef BPE_BUFSINK_H
#define BPE_BUFSINK_H

#include "base/atomicfile.h"

#include <stdint.h>

enum { BUFSINK_BYTES = 1 << 20 };

typedef struct {
    byte_sink sink;   /* where the bytes go; not owned */
    char *buf;        /* BUFSINK_BYTES pending bytes; owned */
    size_t used;      /* how many are pending */
    bool failed;      /* a write failed or memory ran out: nothing more is written */
    char *err;        /* where the reason goes (the caller's buffer) */
    size_t err_len;   /* its size */
} bufsink;

/* A buffer in front of `sink`. False (and b failed) when out of memory;
 * bufsink_finish must be called either way. */
bool bufsink_init(bufsink *b, byte_sink sink, char *err, size_t err_len);

/* Appends data[0, len), of any length. False once the sink has failed. */
bool bufsink_put(bufsink *b, const void *data, size_t len);

/* Room for `need` ≤ BUFSINK_BYTES bytes, written in place and then counted
 * with bufsink_advance; NULL once the sink has failed. */
char *bufsink_room(bufsink *b, size_t need);
void bufsink_advance(bufsink *b, size_t n);

/* Writes v in decimal at `at` (room for 20 bytes, no NUL): a number put
 * in place; returns the bytes written. O(digits). */
size_t bufsink_decimal(char *at, uint64_t v);

/* Marks b failed with a reason of the producer's own (e.g. out of memory
 * formatting), unless it failed already; returns false. */
bool bufsink_fail(bufsink *b, const char *reason);

/* Writes what is pending and frees the buffer. True when every byte
 * reached the sink. */
bool bufsink_finish(bufsink *b);

#endif
