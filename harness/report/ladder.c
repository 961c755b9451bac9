/*
 * ladder.c — the course's steps (ladder.h), measured: the counters that show
 * the work a step removed, and the cell where its speedup is read.
 */
#include "report/ladder.h"

#include <string.h>

/* The value of counter `name` (its first `len` bytes) in rec. */
static bool counter_named(const bench_record *rec, const char *name, size_t len, uint64_t *value)
{
    for (int c = 0; c < rec->n_counters; c++)
        if (strlen(rec->counters[c].name) == len && memcmp(rec->counters[c].name, name, len) == 0) {
            *value = rec->counters[c].value;
            return true;
        }
    return false;
}

bool report_counter_value(const bench_record *rec, const char *spec, uint64_t *value)
{
    *value = 0;
    for (const char *p = spec;;) {
        size_t len = strcspn(p, "+");
        uint64_t v;
        if (!counter_named(rec, p, len, &v))
            return false;
        *value += v;
        if (p[len] == '\0')
            return true;
        p += len + 1;
    }
}

/* Whether the index holds a trainer of that name. O(trainers). */
static bool has_trainer(const report_index *ix, const char *name)
{
    return report_name_index(ix->trainers, ix->n_trainers, name) < ix->n_trainers;
}

bool report_step_present(const report_index *ix, const bpe_trainer *step)
{
    return step->builds_on && has_trainer(ix, step->name) && has_trainer(ix, step->builds_on);
}

bool report_step_cell(const report_index *ix, const bpe_trainer *step,
                      const bench_record **before, const bench_record **after)
{
    double slowest = -1;
    *before = *after = NULL;
    if (!step->builds_on)
        return false;
    for (size_t s = 0; s < ix->n_slices; s++)
        for (size_t v = 0; v < ix->n_vocab; v++) {
            const bench_record *b = report_find(ix, step->builds_on, ix->slices[s].name,
                                                ix->vocab[v]);
            const bench_record *a = report_find(ix, step->name, ix->slices[s].name,
                                                ix->vocab[v]);
            if (!record_finished(b) || !record_finished(a) || b->external || a->external)
                continue;
            double t = report_median(b, PHASE_MERGE);
            if (t > slowest) {
                slowest = t;
                *before = b;
                *after = a;
            }
        }
    return *before != NULL;
}
