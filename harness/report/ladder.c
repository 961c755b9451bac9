/*
 * ladder.c — the course's steps (ladder.h): which lesson each trainer's
 * builds on, and which counters show the work the step removed.
 */
#include "report/ladder.h"

#include <stdlib.h>
#include <string.h>

/*
 * In teaching order. Each row names the work its lesson removes, as the two
 * trainers count it: naive recounts every position (pair_increments),
 * incremental updates by deltas (pair_count_updates); incremental looks
 * through every word (words_scanned), the inverted index reads only the
 * listed ones (words_touched); the inverted index scans every live pair
 * (pairs_compared), heap pops and pushes a few entries; bucket files almost
 * every entry in O(1) and pushes only the front's in a heap; linked-list
 * visits occurrences where heap reads whole words. cache-aware and
 * threaded-walk do their predecessor's work exactly: the counters are equal,
 * and only the time may differ.
 */
static const report_step steps[] = {
    {"naive", NULL, NULL, "pair_increments"},
    {"incremental", "naive", "pair_increments", "pair_count_updates"},
    {"inverted-index", "incremental", "words_scanned", "words_touched"},
    {"heap", "inverted-index", "pairs_compared", "heap_pushes+heap_pops"},
    {"bucket", "heap", "heap_pushes", "front_pushes"},
    {"linked-list", "heap", "words_touched+postings_stale", "occurrences_visited"},
    {"cache-aware", "heap", "pair_count_updates", "pair_count_updates"},
    {"threaded-walk", "cache-aware", "words_touched", "words_touched"},
};

const report_step *report_step_of(const char *trainer)
{
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (strcmp(steps[i].trainer, trainer) == 0)
            return &steps[i];
    return NULL;
}

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

bool report_step_present(const report_index *ix, const report_step *step)
{
    return step->builds_on && has_trainer(ix, step->trainer) && has_trainer(ix, step->builds_on);
}

bool report_step_cell(const report_index *ix, const report_step *step,
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
            const bench_record *a = report_find(ix, step->trainer, ix->slices[s].name,
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
