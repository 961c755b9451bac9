/* count.c — the registry of counting strategies; see count.h. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "input/count.h"

#include <string.h>
#include <unistd.h>

extern const count_strategy count_strategy_serial;
extern const count_strategy count_strategy_parallel;
extern const count_strategy count_strategy_dedup;

const count_strategy *const count_strategies[] = {
    &count_strategy_serial,
    &count_strategy_parallel,
    &count_strategy_dedup,
    NULL,
};

const count_strategy *count_strategy_find(const char *name)
{
    for (size_t i = 0; count_strategies[i]; i++)
        if (strcmp(count_strategies[i]->name, name) == 0)
            return count_strategies[i];
    return NULL;
}

const count_strategy *count_strategy_default(void)
{
    return &count_strategy_parallel;
}

unsigned count_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > COUNT_MAX_THREADS ? COUNT_MAX_THREADS : (unsigned)n;
}

bool count_parse_threads(const char *text, size_t len, unsigned *threads)
{
    if (len == 3 && memcmp(text, "all", 3) == 0) {
        *threads = count_online_cores();
        return true;
    }
    unsigned n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        n = n * 10 + (unsigned)(text[i] - '0');
        if (n > COUNT_MAX_THREADS)
            return false;
    }
    if (n < 1)
        return false;
    *threads = n;
    return true;
}

bool count_reads_stdin(const count_request *req)
{
    for (size_t i = 0; i < req->n_files; i++)
        if (strcmp(req->files[i], CORPUS_STDIN) == 0)
            return true;
    return false;
}

bool count_serially(const count_request *req, word_table *words, count_report *report,
                    const char *why, char *err, size_t err_len)
{
    bool ok = count_strategy_serial.count(req, words, report, err, err_len);
    report->fallback = why;
    return ok;
}

void count_add_stats(pretok_stats *a, const pretok_stats *b)
{
    a->bytes += b->bytes;
    a->pretokens += b->pretokens;
    a->specials += b->specials;
    a->invalid_runs += b->invalid_runs;
    a->unmatched_bytes += b->unmatched_bytes;
}
