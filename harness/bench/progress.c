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
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void progress_start(progress *p, FILE *out, size_t total)
{
    p->out = out;
    p->tty = isatty(fileno(out)) == 1;
    p->total = total;
    p->done = p->executed = 0;
    p->start = clock_now();
    p->busy = 0;
    p->line_open = false;
}

/* "1:05" or "1:02:03". */
static void format_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* "[12/220] 1:05 elapsed, ~3:10 left" */
static void format_status(const progress *p, char *buf, size_t len)
{
    char elapsed[32], left[32] = "?";
    format_duration(clock_now() - p->start, elapsed, sizeof elapsed);
    if (p->executed > 0)
        format_duration(p->busy / (double)p->executed * (double)(p->total - p->done), left,
                        sizeof left);
    snprintf(buf, len, "[%zu/%zu] %s elapsed, ~%s left", p->done, p->total, elapsed, left);
}

/* Columns of the terminal (80 when unknown): a redrawn line must not wrap,
 * or \r would only return to its last row. */
static size_t terminal_width(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
        return ws.ws_col;
    return 80;
}

void progress_begin(progress *p, const char *what)
{
    if (!p->tty)
        return;
    char status[96], line[512];
    format_status(p, status, sizeof status);
    snprintf(line, sizeof line, "%s | %s", status, what);
    size_t width = terminal_width(p->out) - 1;
    if (strlen(line) > width)
        line[width] = '\0';
    fprintf(p->out, "\r\033[K%s", line);
    fflush(p->out);
    p->line_open = true;
}

void progress_end(progress *p, const char *what, const char *outcome, double seconds,
                  bool executed)
{
    p->done++;
    if (executed) {
        p->executed++;
        p->busy += seconds;
    }
    if (p->tty)
        return;
    char status[96];
    format_status(p, status, sizeof status);
    fprintf(p->out, "%s %s: %s\n", status, what, outcome);
    fflush(p->out);
}

void progress_clear(progress *p)
{
    if (p->line_open)
        fputs("\r\033[K", p->out);
    p->line_open = false;
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
