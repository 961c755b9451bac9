/*
 * trainprogress.c — see trainprogress.h.
 *
 * The time left while reading is (bytes left) / (bytes per second so far):
 * reading and pretokenizing run at a steady rate, so the estimate is fair.
 * Merging has no estimate: merges get cheaper as a run goes on for most
 * trainers, so a straight line would mislead; the line shows m done of m.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/trainprogress.h"
#include "base/clock.h"

#include <stdio.h>

/* Redraws at most this often (seconds). */
#define REDRAW_EVERY 0.1

static void on_progress(void *ctx, run_phase phase, uint64_t done, uint64_t total)
{
    train_progress_at(ctx, phase, done, total, clock_now());
}

void train_progress_start(train_progress *t, FILE *out, bool enabled, double after)
{
    status_line_init(&t->line, out);
    t->enabled = enabled && t->line.tty;
    t->start = t->phase_start = clock_now();
    t->last_draw = t->start - REDRAW_EVERY; /* the first event past `after` draws */
    t->after = after;
    t->phase = t->last_phase = RUN_PHASE_READING;
    t->hooks = (run_progress){.on_progress = on_progress, .ctx = t};
}

/* "reading 52.4 of 104.9 MB (50%), 25.0 MB/s, ~0:02 left" (no total, no
 * share and no time left when the total is unknown: standard input). */
static void format_reading(const train_progress *t, uint64_t done, uint64_t total, double now,
                           char *buf, size_t len)
{
    double seconds = now - t->phase_start, mb = (double)done / 1e6;
    double rate = seconds > 0 ? mb / seconds : 0;
    if (total == 0 || done > total) {
        snprintf(buf, len, "train: reading %.1f MB, %.1f MB/s", mb, rate);
        return;
    }
    char left[32] = "?";
    if (rate > 0)
        status_line_duration((double)(total - done) / 1e6 / rate, left, sizeof left);
    snprintf(buf, len, "train: reading %.1f of %.1f MB (%.0f%%), %.1f MB/s, ~%s left", mb,
             (double)total / 1e6, 100.0 * (double)done / (double)total, rate, left);
}

void train_progress_at(train_progress *t, run_phase phase, uint64_t done, uint64_t total,
                       double now)
{
    if (!t->enabled)
        return;
    if (phase != t->phase) {
        t->phase = phase;
        t->phase_start = now;
    }
    bool new_phase = phase != t->last_phase;
    if (now - t->start < t->after || (!new_phase && now - t->last_draw < REDRAW_EVERY))
        return;
    char text[160], elapsed[32];
    status_line_duration(now - t->start, elapsed, sizeof elapsed);
    if (phase == RUN_PHASE_READING)
        format_reading(t, done, total, now, text, sizeof text);
    else if (phase == RUN_PHASE_SETUP)
        snprintf(text, sizeof text, "train: %s elapsed, setting up the trainer on W = %llu words",
                 elapsed, (unsigned long long)done);
    else
        snprintf(text, sizeof text, "train: %s elapsed, merges %llu of %llu", elapsed,
                 (unsigned long long)done, (unsigned long long)total);
    status_line_draw(&t->line, text);
    t->last_draw = now;
    t->last_phase = phase;
}

void train_progress_finish(train_progress *t)
{
    status_line_clear(&t->line);
}
