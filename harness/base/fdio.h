/*
 * fdio.h — reading and writing a file descriptor whole: the one read loop
 * and the one write loop of the harness.
 *
 * read(2) and write(2) may move fewer bytes than asked (a pipe, a signal
 * arriving, a full disk) and fail with EINTR when a signal interrupts them
 * before any byte moved. Every caller wants the same thing: all the bytes,
 * or a clear reason why not. These two loops give it, so no caller writes
 * its own; read_some is the one read a polling caller makes.
 */
#ifndef BPE_FDIO_H
#define BPE_FDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads into buf until `want` bytes have arrived or the input ends,
 * retrying after EINTR; *got says how many arrived (fewer than `want` only
 * at the end of the input or on an error). False on a read error (errno
 * says which; *got bytes arrived before it). O(want). */
bool read_full(int fd, void *buf, size_t want, size_t *got);

/* The same from byte `offset` of a file (pread: the file position is not
 * used, so threads may share the descriptor). O(want). */
bool pread_full(int fd, void *buf, size_t want, unsigned long long offset, size_t *got);

/* One read of at most `len` bytes, retried after EINTR: what a caller
 * that polls wants (it reads what is there, not `len` bytes). Returns the
 * bytes read, 0 at the end of the input, -1 on an error (errno). O(len). */
ssize_t read_some(int fd, void *buf, size_t len);

/* Writes all `len` bytes of buf, retrying after EINTR and short writes.
 * Returns the bytes written: `len`, or fewer when a write failed (errno
 * says why; ENOSPC when a write made no progress, which would otherwise
 * loop for ever). O(len). */
size_t write_full(int fd, const void *buf, size_t len);

#endif
