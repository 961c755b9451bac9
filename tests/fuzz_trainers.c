/*
 * fuzz_trainers.c — a differential fuzzer: every trainer must agree with naive.
 *
 * libFuzzer hands us byte strings; each one decodes into a small word table
 * and a merge limit, every registered trainer trains on it, and any
 * difference from naive.c (merges, counts, A_i, early stop) aborts with the
 * first difference printed, so libFuzzer saves the input as a crash. A
 * trainer that names a model (same_work_as, bpe.h) must also count exactly
 * its model's work. Naive and the models run their setup on one thread, the
 * trainer under test on 1, 2, 3 or 7 (the input says), so a setup whose result
 * depended on the thread count would show as a difference. Built
 * and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined), which
 * also catches memory errors on the way. The file name does not start with
 * test_, so `make test` leaves it alone.
 *
 * Input format, read front to back (missing bytes read as 0):
 *   byte 0  bits 0–2: alphabet; 0 = raw bytes, k = the first k+1 symbols of
 *           {a, 0x00, 0x80, 0xff, b, c, d, e} (small alphabets make ties and
 *           long runs such as [a, a, a, a]); bit 3: train until no pair is
 *           left, else stop after byte 1 + 1 merges; bits 4–5: the trainers
 *           under test run their setup (and threaded-walk its walks, workers its
 *           merge loop) on 1, 2, 3 or 7 threads (test_thread_counts[bits 4–5])
 *   byte 1  the merge limit − 1, when bit 3 of byte 0 is clear
 *   then words, each: a length byte (len = byte % 40 + 1), a count byte (top
 *           two bits pick a scale 1, 10^3, 10^6 or 10^10; the low six bits
 *           times it, plus 1), then len symbol bytes
 * At most 64 words are read; a repeated word is dropped (word tables hold
 * distinct words). Each input therefore trains on at most 2,560 symbols.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 64
#define MAX_LEN 40

/* A cursor over the fuzzer's bytes. */
typedef struct {
    const uint8_t *data; /* the input; owned by libFuzzer */
    size_t size;         /* its length */
    size_t at;           /* next byte to read */
} reader;

/* The next byte, or 0 past the end. */
static uint8_t next_byte(reader *r)
{
    return r->at < r->size ? r->data[r->at++] : 0;
}

/* One decoded input. */
typedef struct {
    uint8_t bytes[MAX_WORDS][MAX_LEN]; /* the words' symbols */
    uint32_t lens[MAX_WORDS];          /* their lengths */
    uint64_t counts[MAX_WORDS];        /* their counts, 1 … 6.4·10^11 */
    size_t n;                          /* distinct words decoded */
    uint64_t max_merges;               /* the merge limit */
    unsigned threads;                  /* threads for the setup of the trainers under test */
} fuzz_table;

static uint8_t symbol(uint8_t byte, unsigned alphabet)
{
    static const uint8_t symbols[] = {'a', 0x00, 0x80, 0xff, 'b', 'c', 'd', 'e'};
    return alphabet == 0 ? byte : symbols[byte % (alphabet + 1)];
}

static uint64_t decode_count(uint8_t byte)
{
    static const uint64_t scale[] = {1, 1000, 1000000, 10000000000ull};
    return (uint64_t)(byte & 63) * scale[byte >> 6] + 1;
}

static bool is_repeat(const fuzz_table *t, const uint8_t *word, uint32_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->lens[i] == len && memcmp(t->bytes[i], word, len) == 0)
            return true;
    return false;
}

/* Decodes the input as described in the file comment. O(size). */
static void decode(fuzz_table *t, const uint8_t *data, size_t size)
{
    reader r = {.data = data, .size = size};
    uint8_t mode = next_byte(&r);
    unsigned alphabet = mode & 7;
    uint64_t limit = (uint64_t)next_byte(&r) + 1;
    uint64_t symbols = 0;
    t->n = 0;
    while (r.at < r.size && t->n < MAX_WORDS) {
        uint32_t len = next_byte(&r) % MAX_LEN + 1;
        uint64_t count = decode_count(next_byte(&r));
        uint8_t word[MAX_LEN];
        for (uint32_t i = 0; i < len; i++)
            word[i] = symbol(next_byte(&r), alphabet);
        if (is_repeat(t, word, len))
            continue;
        memcpy(t->bytes[t->n], word, len);
        t->lens[t->n] = len;
        t->counts[t->n++] = count;
        symbols += len;
    }
    /* Pairs run out within M − W merges, so M + 1 is "until none is left". */
    t->max_merges = (mode & 8) ? symbols + 1 : limit;
    t->threads = test_thread_counts[(mode >> 4) & 3];
}

/* Prints why and aborts, so libFuzzer keeps the input. */
static void disagree(const char *trainer, const char *why)
{
    fprintf(stderr, "fuzz_trainers: %s disagrees with naive: %s\n", trainer, why);
    abort();
}

/* Trains with `trainer` for max_merges, its setup on `threads` threads;
 * aborts if memory runs out (it cannot, at these sizes). */
static void train(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                  unsigned threads, bpe_result *r)
{
    /* Grain 1: merge-loop work is shared among the threads wherever it can be
     * (threaded-walk: every list of two words or more). */
    const bpe_config config = {.max_merges = max_merges, .threads = threads, .parallel_grain = 1};
    if (bpe_train(trainer, words, &config, NULL, r) != BPE_OK)
        disagree(trainer->name, "bpe_train ran out of memory");
}

/* When `trainer` repeats another's work (same_work_as), its counters `got`
 * must equal that trainer's on the same input. */
static void check_same_work(const bpe_trainer *trainer, const bpe_words *words,
                            uint64_t max_merges, const bpe_result *got)
{
    if (!trainer->same_work_as)
        return;
    const bpe_trainer *model = bpe_trainer_find(trainer->same_work_as);
    if (!model)
        disagree(trainer->name, "same_work_as names no trainer");
    bpe_result want;
    train(model, words, max_merges, 1, &want);
    for (int i = 0; i < bpe_trainer_counter_count(trainer); i++) {
        if (got->counters.value[i] != want.counters.value[i]) {
            char why[256];
            snprintf(why, sizeof why, "counted %s = %llu, its model %s %llu",
                     trainer->counter_names[i], (unsigned long long)got->counters.value[i],
                     model->name, (unsigned long long)want.counters.value[i]);
            disagree(trainer->name, why);
        }
    }
    bpe_result_free(&want);
}

/* Every trainer's run, its setup on `threads` threads, must equal naive's. */
static void check_all_trainers(const bpe_words *words, uint64_t max_merges, unsigned threads)
{
    const bpe_trainer *naive = bpe_trainer_find("naive");
    bpe_result want;
    train(naive, words, max_merges, 1, &want);
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        if (*t == naive)
            continue;
        bpe_result got;
        train(*t, words, max_merges, threads, &got);
        char why[512];
        if (first_merge_difference(&got, &want, why, sizeof why) >= 0)
            disagree((*t)->name, why);
        if (got.exhausted != want.exhausted)
            disagree((*t)->name, "the early stop differs");
        for (size_t i = 0; i < want.n_merges; i++) {
            if (got.merges[i].words_affected != want.merges[i].words_affected) {
                snprintf(why, sizeof why, "merge %zu: words_affected %llu, naive %llu", i,
                         (unsigned long long)got.merges[i].words_affected,
                         (unsigned long long)want.merges[i].words_affected);
                disagree((*t)->name, why);
            }
        }
        check_same_work(*t, words, max_merges, &got);
        bpe_result_free(&got);
    }
    bpe_result_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_table t; /* large: kept off the stack */
    decode(&t, data, size);
    bpe_word words[MAX_WORDS];
    uint64_t symbols = 0;
    for (size_t i = 0; i < t.n; i++) {
        words[i] = (bpe_word){.bytes = t.bytes[i], .len = t.lens[i], .count = t.counts[i]};
        symbols += t.lens[i];
    }
    bpe_words table = {.words = words, .n_words = t.n, .n_symbols = symbols};
    check_all_trainers(&table, t.max_merges, t.threads);
    return 0;
}
