/*
 * progress.c — see progress.h.
 *
 * The estimate of time left is (mean time of the runs executed so far) ×
 * (runs left). It is rough on purpose: runs skipped after a timeout cost
 * nothing, and large slices cost more than small ones, so it is shown as
 * "~" and improves as the grid advances.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/progress.h"
#include "base/clock.h"

#include <stdarg.h>

void progress_start(progress *p, FILE *out, size_t total)
{
    p->out = out;
    status_line_init(&p->line, out);
    p->total = total;
    p->done = p->executed = 0;
    p->start = clock_now();
    p->busy = 0;
}

/* "[12/220] 1:05 elapsed, ~3:10 left" */
static void format_status(const progress *p, char *buf, size_t len)
{
    char elapsed[32], left[32] = "?";
    status_line_duration(clock_now() - p->start, elapsed, sizeof elapsed);
    if (p->executed > 0)
        status_line_duration(p->busy / (double)p->executed * (double)(p->total - p->done),
                             left, sizeof left);
    snprintf(buf, len, "[%zu/%zu] %s elapsed, ~%s left", p->done, p->total, elapsed, left);
}

void progress_begin(progress *p, const char *what)
{
    if (!p->line.tty)
        return;
    char status[96], line[512];
    format_status(p, status, sizeof status);
    snprintf(line, sizeof line, "%s | %s", status, what);
    status_line_draw(&p->line, line);
}

void progress_end(progress *p, const char *what, const char *outcome, double seconds,
                  bool executed)
{
    p->done++;
    if (executed) {
        p->executed++;
        p->busy += seconds;
    }
    if (p->line.tty)
        return;
    char status[96];
    format_status(p, status, sizeof status);
    fprintf(p->out, "%s %s: %s\n", status, what, outcome);
    fflush(p->out);
}

void progress_clear(progress *p)
{
    status_line_clear(&p->line);
}

void progress_note(progress *p, const char *fmt, ...)
{
    progress_clear(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
    fflush(p->out);
}

void progress_finish(progress *p)
{
    progress_clear(p);
    char status[96];
    format_status(p, status, sizeof status);
    fprintf(p->out, "%s done\n", status);
    fflush(p->out);
}
