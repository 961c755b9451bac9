/* estimate.c — see estimate.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/estimate.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* The pairs that merges add to a trainer's structures grow with m and level
 * off, sooner or later: of what they add on gutenberg-en between V = 300 and
 * 32000, linked-list's have 94% by V = 8000, heap's 59%, cache-aware's 45%
 * (harness/run/memory_runs.tsv). This puts 95% at m = 7489, one curve for
 * all, and the fit (fit_memory.py) sets the share's size around it. */
#define MERGES_LEVEL_OFF 2500.0

uint64_t estimate_resident(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, resident;
    bool read = f && fscanf(f, "%llu %llu", &size, &resident) == 2;
    if (f)
        fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return read && page > 0 ? (uint64_t)resident * (uint64_t)page : 0;
}

void estimate_measure(const run_input *in, uint64_t base, uint64_t max_merges,
                      estimate_input *e)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    e->counted_peak = (uint64_t)ru.ru_maxrss * 1024; /* Linux reports kilobytes */
    e->base = base;
    e->input_bytes = in->memory_bytes;
    e->words = in->view.n_words;
    e->symbols = in->view.n_symbols;
    e->merges = max_merges;
}

estimate estimate_trainer(const bpe_trainer *trainer, const estimate_input *e)
{
    const bpe_memory_model *k = &trainer->memory;
    double w = (double)e->words, sym = (double)e->symbols, m = (double)e->merges;
    double merged = 1 - exp(-m / MERGES_LEVEL_OFF);
    double setup_bytes = k->fixed + k->per_word * w + k->per_symbol * sym;
    double trainer_bytes = setup_bytes + k->per_symbol_merged * merged * sym;
    double training = (double)(e->base + e->input_bytes) + trainer_bytes;
    if (trainer->copies_words) { /* the input is freed once setup is done (run/run.h) */
        double at_setup = (double)(e->base + e->input_bytes) + setup_bytes;
        double merging = (double)e->base + trainer_bytes;
        training = at_setup > merging ? at_setup : merging;
    }
    double peak = training > (double)e->counted_peak ? training : (double)e->counted_peak;
    double ns = k->ns_per_symbol * sym + k->ns_per_merge_symbol * m * sym;
    return (estimate){.peak_bytes = (uint64_t)peak, .merge_seconds = ns / 1e9};
}
