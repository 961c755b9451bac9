/*
 * compare.c — see compare.h. One line per matched run:
 *
 *   heap/gutenberg-en@5M/V=2000         0.812     1.640    2.020  REGRESSION
 *
 * old and new medians (seconds), new ÷ old, and the verdict; lines below a
 * run name any counter or digest that changed. The geometric mean of the
 * ratios summarizes the whole grid (a ratio of ratios is meaningful where an
 * arithmetic mean of ratios is not).
 */
#include "report/compare.h"
#include "base/errors.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Prints (when out) and counts every counter that differs between a and b;
 * counters missing on one side altogether are one line. */
static size_t counter_changes(const bench_record *a, const bench_record *b, FILE *out)
{
    if ((a->n_counters == 0) != (b->n_counters == 0)) {
        if (out)
            fprintf(out, "    COUNTERS missing from the %s run (%d in the other)\n",
                    a->n_counters ? "current" : "baseline",
                    a->n_counters ? a->n_counters : b->n_counters);
        return 1;
    }
    size_t changes = 0;
    for (int i = 0; i < a->n_counters; i++) {
        const bench_counter *ca = &a->counters[i], *cb = NULL;
        for (int j = 0; j < b->n_counters; j++)
            if (strcmp(b->counters[j].name, ca->name) == 0)
                cb = &b->counters[j];
        if (cb && cb->value == ca->value)
            continue;
        changes++;
        if (!out)
            continue;
        if (cb)
            fprintf(out, "    counter %s changed: %llu -> %llu\n", ca->name,
                    (unsigned long long)ca->value, (unsigned long long)cb->value);
        else
            fprintf(out, "    counter %s is missing from the current run\n", ca->name);
    }
    for (int j = 0; j < b->n_counters; j++) {
        bool known = false;
        for (int i = 0; i < a->n_counters; i++)
            known |= strcmp(a->counters[i].name, b->counters[j].name) == 0;
        if (!known) {
            changes++;
            if (out)
                fprintf(out, "    counter %s is new in the current run\n", b->counters[j].name);
        }
    }
    return changes;
}

/* The verdict on two finished runs; updates the counts. */
static const char *time_verdict(const bench_record *a, const bench_record *b, int phase,
                                double threshold, double *ratio, compare_summary *sum)
{
    bench_summary old = bench_summarize(a->reps, a->n_reps, phase);
    bench_summary new = bench_summarize(b->reps, b->n_reps, phase);
    if (!(old.median > 0))
        return "n/a (zero time in the baseline)";
    /* +inf when the quotient overflows (a baseline of 1e-320 s, a median of
     * 1e308 s): slower than any threshold, not a run to leave out. */
    *ratio = new.median / old.median;
    sum->compared++;
    if (*ratio > 1 + threshold) {
        if (new.min > old.max) {
            sum->regressions++;
            return "REGRESSION";
        }
        sum->noisy++;
        return "noise (spreads overlap)";
    }
    if (*ratio < 1 - threshold) {
        if (new.max < old.min) {
            sum->improvements++;
            return "faster";
        }
        sum->noisy++;
        return "noise (spreads overlap)";
    }
    return "same";
}

/* The verdict when a side did not finish. */
static const char *status_verdict(const bench_record *a, const bench_record *b,
                                  compare_summary *sum)
{
    if (record_finished(a) != record_finished(b))
        sum->compared++;
    if (record_finished(a) && !record_finished(b)) {
        sum->regressions++;
        return b->status == STATUS_TIMEOUT ? "REGRESSION (now timeout)" : "REGRESSION (now error)";
    }
    if (!record_finished(a) && record_finished(b)) {
        sum->improvements++;
        return "faster (finished now)";
    }
    return "not finished on either side";
}

/* "trainer/corpus/V=vocab", then "/threads=N", "/STRATEGY" and
 * "/PRETOKENIZER" when the run records them (over a threads, counting or
 * pretokenizer grid the key repeats without them): the name of a run in the
 * table. */
static void run_name(const bench_record *r, char *buf, size_t len)
{
    char threads[32] = "";
    if (r->threads)
        snprintf(threads, sizeof threads, "/threads=%llu", (unsigned long long)r->threads);
    snprintf(buf, len, "%s/%s/V=%llu%s%s%s%s%s", r->trainer, r->corpus,
             (unsigned long long)r->vocab_size, threads, r->counting[0] ? "/" : "", r->counting,
             r->pretokenizer[0] ? "/" : "", r->pretokenizer);
}

/* Whether a's merge digest differs from b's, or only one side has one;
 * prints which (when out). */
static bool digest_changed(const bench_record *a, const bench_record *b, FILE *out)
{
    if (a->has_digest != b->has_digest) {
        if (out)
            fprintf(out, "    MERGE DIGEST missing from the %s run\n",
                    a->has_digest ? "current" : "baseline");
        return true;
    }
    if (!a->has_digest || a->digest == b->digest)
        return false;
    if (out)
        fprintf(out, "    MERGE DIGEST changed: %016llx -> %016llx (the merge list differs)\n",
                (unsigned long long)a->digest, (unsigned long long)b->digest);
    return true;
}

static void print_times(FILE *out, const bench_record *r, int phase)
{
    if (record_finished(r))
        fprintf(out, " %10.4g", bench_summarize(r->reps, r->n_reps, phase).median);
    else
        fprintf(out, " %10s", bench_status_name(r->status));
}

/* One matched run: its line, then any counter or digest change. */
static void compare_one(const bench_record *a, const bench_record *b, double threshold,
                        int phase, FILE *out, compare_summary *sum, double *log_sum,
                        size_t *n_logs)
{
    double ratio = NAN;
    const char *verdict = record_finished(a) && record_finished(b)
                              ? time_verdict(a, b, phase, threshold, &ratio, sum)
                              : status_verdict(a, b, sum);
    if (isfinite(ratio) && ratio > 0) {
        *log_sum += log(ratio);
        (*n_logs)++;
    }
    if (out) {
        char name[256];
        run_name(a, name, sizeof name);
        fprintf(out, "%-48s", name);
        print_times(out, a, phase);
        print_times(out, b, phase);
        if (isfinite(ratio))
            fprintf(out, " %8.3f  %s\n", ratio, verdict);
        else
            fprintf(out, " %8s  %s\n", "-", verdict);
    }
    if (record_finished(a) && record_finished(b)) {
        if (digest_changed(a, b, out) && sum->digest_changes++ == 0)
            run_name(a, sum->first_digest_change, sizeof sum->first_digest_change);
        if (counter_changes(a, b, out) > 0 && sum->counter_changes++ == 0)
            run_name(a, sum->first_counter_change, sizeof sum->first_counter_change);
    }
}

/* The run of `ix` with a's key (trainer, corpus, slice, vocab size, threads,
 * counting, pretokenizer), or NULL. A file older than the pretokenizer field
 * records none: its runs match those of the default pretokenizer (lexer),
 * and the other way round, so that an old baseline still compares (both
 * pretokenizers give the same word table). O(log n). */
static const bench_record *matching(const results_index *ix, const bench_record *a)
{
    const bench_record *b = results_index_find_run(ix, a);
    if (!b && !a->external && (!a->pretokenizer[0] || strcmp(a->pretokenizer, "lexer") == 0)) {
        bench_record key = *a;
        snprintf(key.pretokenizer, sizeof key.pretokenizer, "%s", a->pretokenizer[0] ? "" : "lexer");
        b = results_index_find_run(ix, &key);
    }
    return b && b->slice_bytes == a->slice_bytes ? b : NULL;
}

bool compare_results(const bench_results *base, const bench_results *cur, double threshold,
                     int phase, FILE *out, compare_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    results_index base_ix, cur_ix;
    if (!results_index_build(&base_ix, base))
        return false;
    if (!results_index_build(&cur_ix, cur)) {
        results_index_free(&base_ix);
        return false;
    }
    double log_sum = 0;
    size_t n_logs = 0;
    if (out)
        fprintf(out, "%-48s %10s %10s %8s  %s\n%.*s\n", "Benchmark (trainer/corpus/vocab)",
                "Old (s)", "New (s)", "New/Old", "Verdict", 100,
                "----------------------------------------------------------------------------"
                "------------------------");
    for (size_t i = 0; i < base->n_records; i++) {
        const bench_record *a = &base->records[i], *b = matching(&cur_ix, a);
        if (!b) {
            char name[256];
            run_name(a, name, sizeof name);
            if (sum->only_base++ == 0)
                snprintf(sum->first_missing, sizeof sum->first_missing, "%s", name);
            if (out)
                fprintf(out, "%-48s %10s %10s %8s  MISSING from the current file\n", name, "",
                        "-", "-");
            continue;
        }
        sum->matched++;
        compare_one(a, b, threshold, phase, out, sum, &log_sum, &n_logs);
    }
    for (size_t i = 0; i < cur->n_records; i++)
        sum->only_current += !matching(&base_ix, &cur->records[i]);
    sum->geomean = n_logs ? exp(log_sum / (double)n_logs) : 0;
    if (out)
        fprintf(out, "%-48s %10s %10s %8.3f\n", "OVERALL_GEOMEAN", "", "", sum->geomean);
    results_index_free(&base_ix);
    results_index_free(&cur_ix);
    return true;
}

/* Appends "; " (after the first) and a formatted reason to why. */
static void add_reason(char *why, size_t why_len, const char *fmt, ...)
    BPE_PRINTF_LIKE(3, 4);
static void add_reason(char *why, size_t why_len, const char *fmt, ...)
{
    size_t used = strlen(why);
    if (used + 2 >= why_len)
        return;
    if (used) {
        memcpy(why + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + used, why_len - used, fmt, ap);
    va_end(ap);
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

bool compare_passed(const compare_summary *sum, const char *base_name, const char *cur_name,
                    char *why, size_t why_len)
{
    why[0] = '\0';
    if (sum->matched + sum->only_base == 0)
        add_reason(why, why_len, "%s has no results", base_name);
    if (sum->matched + sum->only_current == 0)
        add_reason(why, why_len, "%s has no results", cur_name);
    else if (sum->matched == 0 && sum->only_base)
        add_reason(why, why_len, "no run of %s is in %s: nothing to compare", base_name,
                   cur_name);
    if (sum->matched && sum->only_base)
        add_reason(why, why_len, "%zu run%s of the baseline %s missing from %s, first %s "
                                 "(all marked MISSING above)",
                   sum->only_base, plural(sum->only_base), sum->only_base == 1 ? "is" : "are",
                   cur_name, sum->first_missing);
    if (sum->matched && sum->compared == 0)
        add_reason(why, why_len, "no matched run finished on both sides with a time to "
                                 "compare");
    if (sum->regressions)
        add_reason(why, why_len, "%zu regression%s", sum->regressions, plural(sum->regressions));
    if (sum->digest_changes)
        add_reason(why, why_len, "%zu merge digest change%s, first %s", sum->digest_changes,
                   plural(sum->digest_changes), sum->first_digest_change);
    if (sum->counter_changes)
        add_reason(why, why_len, "%zu counter change%s, first %s", sum->counter_changes,
                   plural(sum->counter_changes), sum->first_counter_change);
    return why[0] == '\0';
}
