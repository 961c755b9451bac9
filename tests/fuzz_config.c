/*
 * fuzz_config.c — the benchmark's config files (harness/bench/grid.c) on
 * arbitrary bytes and on mutations of a real one (make fuzz seeds it with
 * harness/bench/default-grid.conf). These properties must hold (any violation
 * aborts, so libFuzzer keeps the input as a crash):
 *   1. no crash, no sanitizer report, whatever the bytes;
 *   2. a grid read from a config file can be written back (grid_to_config
 *      refuses only values a config line cannot hold, and a config line
 *      never holds one);
 *   3. the text written reads back as the same grid (test_grids_equal);
 *   4. every corpus name, external trainer name and slice size label in an
 *      accepted grid is a safe name (untrusted.h), and no slice size is 0
 *      bytes but "all".
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 * The file name does not start with test_, so `make test` leaves it alone.
 */
#include "bench/grid.h"
#include "testutil.h"
#include "base/untrusted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints why and aborts, so libFuzzer keeps the input. */
static void give_up(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_config: %s: %s\n", what, why);
    abort();
}

/* Property 4 for one list of sizes. */
static void check_sizes(const grid_sizes *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!untrusted_name_ok(s->items[i].label))
            give_up("an unsafe size label was accepted", s->items[i].label);
        if (s->items[i].bytes == 0 && strcmp(s->items[i].label, "all") != 0)
            give_up("a size of 0 bytes was accepted", s->items[i].label);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_grid g, back;
    char err[512], why[256];
    if (!grid_init(&g))
        give_up("grid_init", "out of memory");
    if (!grid_parse_config(&g, (const char *)data, size, "fuzz.conf", err, sizeof err)) {
        grid_free(&g);
        return 0;
    }
    check_sizes(&g.sizes);
    for (size_t i = 0; i < g.n_corpora; i++) {
        if (!untrusted_name_ok(g.corpora[i].name))
            give_up("an unsafe corpus name was accepted", g.corpora[i].name);
        check_sizes(&g.corpora[i].sizes);
    }
    for (size_t i = 0; i < g.n_externals; i++)
        if (!untrusted_name_ok(g.externals[i].name))
            give_up("an unsafe external trainer name was accepted", g.externals[i].name);
    char *text = grid_to_config(&g, err, sizeof err);
    if (!text)
        give_up("an accepted grid cannot be written", err);
    if (!grid_init(&back))
        give_up("grid_init", "out of memory");
    if (!grid_parse_config(&back, text, strlen(text), "written.conf", err, sizeof err))
        give_up("the written config is refused", err);
    if (!test_grids_equal(&g, &back, why, sizeof why))
        give_up("the written config reads back differently", why);
    free(text);
    grid_free(&g);
    grid_free(&back);
    return 0;
}
