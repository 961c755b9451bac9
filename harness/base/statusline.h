/*
 * statusline.h — one status line on a terminal, redrawn in place: the one
 * place that knows how (\r, erase to the end of the line, never wider than
 * the terminal, or \r would only return to the last row of a wrapped line).
 * Used by bench's progress (bench/progress.h) and train's (run/trainprogress.h).
 */
#ifndef BPE_STATUSLINE_H
#define BPE_STATUSLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *out;  /* where the line is drawn (stderr); not owned */
    bool tty;   /* out is a terminal: only then is anything drawn */
    bool open;  /* a line is on screen and must be erased before other output */
} status_line;

/* Starts with nothing on screen; tty says whether `out` is a terminal. */
void status_line_init(status_line *s, FILE *out);
/* Replaces the line on screen by `text`, cut to the terminal's width (80
 * columns when unknown). Does nothing when out is not a terminal. */
void status_line_draw(status_line *s, const char *text);
/* Erases the line, if one is on screen, so other output starts clean. */
void status_line_clear(status_line *s);

/* A duration as "1:05" or "1:02:03" (seconds rounded). */
void status_line_duration(double seconds, char *buf, size_t len);

#endif
