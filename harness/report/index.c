/*
 * index.c — a results file indexed for the report, and the report's files
 * in memory (index.h).
 */
#include "report/index.h"

#include "array.h"
#include "base/errors.h"
#include "input/count.h"

#include <stdlib.h>
#include <string.h>

/* ============================================================ the index */

/* The corpus family of a slice name: what comes before '@'. */
static void family_of(const char *corpus, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(corpus, "@"), corpus);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_slice(const void *a, const void *b)
{
    const report_slice *x = a, *y = b;
    if (x->family != y->family)
        return (x->family > y->family) - (x->family < y->family);
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

size_t report_name_index(const char (*list)[32], size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcmp(list[i], name) != 0)
        i++;
    return i;
}

size_t report_slice_index(const report_index *ix, const char *corpus)
{
    size_t i = 0;
    while (i < ix->n_slices && strcmp(ix->slices[i].name, corpus) != 0)
        i++;
    return i;
}

/* Adds name to a list of distinct names (kept in order of first appearance). */
static bool add_name(char (**list)[32], size_t *n, size_t *cap, const char *name)
{
    if (report_name_index(*list, *n, name) < *n)
        return true;
    char(*grown)[32] = bpe_array_reserve(*list, cap, *n + 1, sizeof **list);
    if (!grown)
        return false;
    *list = grown;
    snprintf(grown[(*n)++], sizeof *grown, "%s", name);
    return true;
}

static bool add_family(report_index *ix, const char *family, size_t *index)
{
    for (size_t i = 0; i < ix->n_families; i++)
        if (strcmp(ix->families[i], family) == 0) {
            *index = i;
            return true;
        }
    char(*grown)[96] = bpe_array_reserve(ix->families, &ix->cap_families, ix->n_families + 1,
                                         sizeof *grown);
    if (!grown)
        return false;
    ix->families = grown;
    snprintf(grown[ix->n_families], sizeof *grown, "%s", family);
    *index = ix->n_families++;
    return true;
}

static bool add_vocab(report_index *ix, uint64_t v)
{
    for (size_t i = 0; i < ix->n_vocab; i++)
        if (ix->vocab[i] == v)
            return true;
    uint64_t *grown = bpe_array_reserve(ix->vocab, &ix->cap_vocab, ix->n_vocab + 1, sizeof *grown);
    if (!grown)
        return false;
    ix->vocab = grown;
    ix->vocab[ix->n_vocab++] = v;
    return true;
}

static bool add_slice(report_index *ix, const bench_record *rec)
{
    size_t i = report_slice_index(ix, rec->corpus);
    if (i < ix->n_slices) {
        if (rec->corpus_bytes > ix->slices[i].bytes)
            ix->slices[i].bytes = rec->corpus_bytes;
        return true;
    }
    char family[96];
    family_of(rec->corpus, family, sizeof family);
    report_slice s = {.bytes = rec->corpus_bytes};
    snprintf(s.name, sizeof s.name, "%s", rec->corpus);
    if (!add_family(ix, family, &s.family))
        return false;
    report_slice *grown = bpe_array_reserve(ix->slices, &ix->cap_slices, ix->n_slices + 1,
                                             sizeof *grown);
    if (!grown)
        return false;
    ix->slices = grown;
    ix->slices[ix->n_slices++] = s;
    return true;
}

/* ============================================================ counting groups */

/* A finished built-in run and the group it counts towards. */
typedef struct {
    report_pretok key;        /* slice, counting and threads (the rest unused) */
    const bench_record *rec;  /* the run; not owned */
} grouped_run;

/* Orders groups by (slice, counting, threads). */
static int cmp_pretok(const report_pretok *x, const report_pretok *y)
{
    if (x->slice != y->slice)
        return (x->slice > y->slice) - (x->slice < y->slice);
    if (x->counting != y->counting)
        return (x->counting > y->counting) - (x->counting < y->counting);
    return (x->threads > y->threads) - (x->threads < y->threads);
}

static int cmp_grouped(const void *a, const void *b)
{
    return cmp_pretok(&((const grouped_run *)a)->key, &((const grouped_run *)b)->key);
}

/* Pools the runs runs[0, n) of one group (their repetitions copied into
 * `pool`, room enough) into its summary. O(repetitions log repetitions). */
static report_pretok pool_group(const grouped_run *runs, size_t n, run_times *pool)
{
    report_pretok g = runs[0].key;
    size_t reps = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_record *rec = runs[i].rec;
        memcpy(pool + reps, rec->reps, rec->n_reps * sizeof *pool);
        reps += rec->n_reps;
        if (rec->peak_rss_bytes && (!g.lowest_peak || rec->peak_rss_bytes < g.lowest_peak))
            g.lowest_peak = rec->peak_rss_bytes;
    }
    g.time = bench_summarize(pool, reps, PHASE_PRETOKENIZE);
    return g;
}

/* The pretok groups: the finished built-in runs sorted by (slice, counting,
 * threads), each run of equal keys pooled. Needs the slices sorted and the
 * countings collected. False on OOM. O(R log R + R · (slices + countings)
 * + repetitions) for R runs. */
static bool build_pretok(report_index *ix)
{
    const bench_results *r = ix->r;
    grouped_run *runs = malloc((r->n_records + 1) * sizeof *runs);
    size_t n = 0, total_reps = 0;
    for (size_t i = 0; runs && i < r->n_records; i++) {
        const bench_record *rec = &r->records[i];
        if (!record_finished(rec) || rec->external)
            continue;
        runs[n].rec = rec;
        runs[n].key = (report_pretok){
            .slice = report_slice_index(ix, rec->corpus),
            .counting = report_name_index(ix->countings, ix->n_countings,
                                          report_counting_of(rec, (char[REPORT_COUNTING_MAX]){0})),
            .threads = rec->threads};
        total_reps += rec->n_reps;
        n++;
    }
    run_times *pool = runs ? malloc((total_reps + 1) * sizeof *pool) : NULL;
    ix->pretok = pool ? malloc((n + 1) * sizeof *ix->pretok) : NULL;
    if (ix->pretok) {
        qsort(runs, n, sizeof *runs, cmp_grouped);
        for (size_t start = 0, end; start < n; start = end) {
            for (end = start + 1; end < n && cmp_pretok(&runs[start].key, &runs[end].key) == 0;
                 end++)
                ;
            ix->pretok[ix->n_pretok++] = pool_group(runs + start, end - start, pool);
        }
    }
    free(pool);
    free(runs);
    return ix->pretok != NULL;
}

const report_pretok *report_pretok_find(const report_index *ix, size_t slice,
                                        const char *counting, uint64_t threads)
{
    report_pretok key = {.slice = slice, .threads = threads,
                         .counting = report_name_index(ix->countings, ix->n_countings, counting)};
    size_t lo = 0, hi = ix->n_pretok;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_pretok(&ix->pretok[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n_pretok && cmp_pretok(&ix->pretok[lo], &key) == 0 ? &ix->pretok[lo] : NULL;
}

const char *report_counting_of(const bench_record *rec, char *buf)
{
    snprintf(buf, REPORT_COUNTING_MAX, "%s%s%s", rec->counting[0] ? rec->counting : "serial",
             rec->pretokenizer[0] ? ", " : "", rec->pretokenizer);
    return buf;
}

bool report_threads_shown(uint64_t threads)
{
    return threads >= 1 && threads <= COUNT_MAX_THREADS;
}

/* ============================================================ building */

bool report_index_build(report_index *ix, const bench_results *r)
{
    memset(ix, 0, sizeof *ix);
    ix->r = r;
    for (size_t i = 0; i < r->n_records; i++) {
        const bench_record *rec = &r->records[i];
        if (!add_name(&ix->trainers, &ix->n_trainers, &ix->cap_trainers, rec->trainer) ||
            !add_vocab(ix, rec->vocab_size) || !add_slice(ix, rec) ||
            (!rec->external && !add_name(&ix->countings, &ix->n_countings, &ix->cap_countings,
                                         report_counting_of(rec, (char[REPORT_COUNTING_MAX]){0})))) {
            report_index_free(ix);
            return false;
        }
    }
    if (ix->n_vocab)
        qsort(ix->vocab, ix->n_vocab, sizeof *ix->vocab, cmp_u64);
    if (ix->n_slices)
        qsort(ix->slices, ix->n_slices, sizeof *ix->slices, cmp_slice);
    for (size_t t = 0; t < ix->n_trainers; t++)
        if (strcmp(ix->trainers[t], bpe_trainers[0]->name) == 0)
            ix->reference = ix->trainers[t];
    if (!results_index_build(&ix->runs, r) || !build_pretok(ix)) {
        report_index_free(ix);
        return false;
    }
    return true;
}

void report_index_free(report_index *ix)
{
    results_index_free(&ix->runs);
    free(ix->trainers);
    free(ix->vocab);
    free(ix->families);
    free(ix->slices);
    free(ix->countings);
    free(ix->pretok);
    memset(ix, 0, sizeof *ix);
}

const bench_record *report_find(const report_index *ix, const char *trainer, const char *slice,
                                uint64_t vocab)
{
    return trainer ? results_index_find(&ix->runs, trainer, slice, vocab) : NULL;
}

double report_median(const bench_record *rec, int phase)
{
    return bench_summarize(rec->reps, rec->n_reps, phase).median;
}

/* ============================================================ report files */

bool report_files_add(report_files *files, const char *name, char *bytes, size_t len, char *err,
                      size_t err_len)
{
    report_file *grown = bpe_array_reserve(files->items, &files->cap, files->n + 1, sizeof *grown);
    if (!grown || strlen(name) >= sizeof grown->name) {
        free(bytes);
        files->items = grown ? grown : files->items;
        return set_error(err, err_len, "%s", grown ? "file name too long" : "out of memory");
    }
    files->items = grown;
    report_file *f = &files->items[files->n++];
    strcpy(f->name, name);
    f->bytes = bytes;
    f->len = len;
    return true;
}

bool report_files_has(const report_files *files, const char *name)
{
    for (size_t i = 0; i < files->n; i++)
        if (strcmp(files->items[i].name, name) == 0)
            return true;
    return false;
}

void report_files_free(report_files *files)
{
    for (size_t i = 0; i < files->n; i++)
        free(files->items[i].bytes);
    free(files->items);
    memset(files, 0, sizeof *files);
}
