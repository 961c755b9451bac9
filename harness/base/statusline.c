/* statusline.c — see statusline.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/statusline.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void status_line_init(status_line *s, FILE *out)
{
    s->out = out;
    s->tty = isatty(fileno(out)) == 1;
    s->open = false;
}

/* Columns of the terminal (80 when unknown). */
static size_t terminal_width(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
        return ws.ws_col;
    return 80;
}

void status_line_draw(status_line *s, const char *text)
{
    if (!s->tty)
        return;
    size_t width = terminal_width(s->out) - 1, len = strlen(text);
    fprintf(s->out, "\r\033[K%.*s", (int)(len < width ? len : width), text);
    fflush(s->out);
    s->open = true;
}

void status_line_clear(status_line *s)
{
    if (s->open) {
        fputs("\r\033[K", s->out);
        fflush(s->out);
    }
    s->open = false;
}

void status_line_duration(double seconds, char *buf, size_t len)
{
    long t = (long)(seconds + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}
