/* testutil.c — see testutil.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"
#include "array.h"
#include "base/prng.h"
#include "base/utf8.h"
#include "input/corpus.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void sleep_ms(long ms)
{
    struct timespec left = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}

void test_words_init_raw(test_words *tw, size_t n, const uint8_t *const *bytes,
                         const uint32_t *lens, const uint64_t *counts)
{
    tw->words = calloc(n + 1, sizeof *tw->words);
    assert_non_null(tw->words);
    uint64_t symbols = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *copy = malloc(lens[i] + 1);
        assert_non_null(copy);
        memcpy(copy, bytes[i], lens[i]);
        tw->words[i] = (bpe_word){.bytes = copy, .len = lens[i], .count = counts[i]};
        symbols += lens[i];
    }
    tw->table = (bpe_words){.words = tw->words, .n_words = n, .n_symbols = symbols};
}

void test_words_init(test_words *tw, size_t n, const char *const *strings, const uint64_t *counts)
{
    const uint8_t **bytes = calloc(n + 1, sizeof *bytes);
    uint32_t *lens = calloc(n + 1, sizeof *lens);
    assert_true(bytes && lens);
    for (size_t i = 0; i < n; i++) {
        bytes[i] = (const uint8_t *)strings[i];
        lens[i] = (uint32_t)strlen(strings[i]);
    }
    test_words_init_raw(tw, n, bytes, lens, counts);
    free(bytes);
    free(lens);
}

void test_words_free(test_words *tw)
{
    for (size_t i = 0; i < tw->table.n_words; i++)
        free((void *)tw->words[i].bytes);
    free(tw->words);
    memset(tw, 0, sizeof *tw);
}

/* Prints token t's bytes into buf, escaping non-printable bytes as \xHH. */
static void describe_token(const bpe_vocab *v, bpe_token t, char *buf, size_t len)
{
    size_t at = 0;
    const uint8_t *p = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < v->len[t] && at + 5 < len; i++)
        at += (size_t)snprintf(buf + at, len - at, (p[i] >= 0x21 && p[i] < 0x7f) ? "%c" : "\\x%02x", p[i]);
    buf[at] = '\0';
}

static bool token_equals(const bpe_vocab *vx, bpe_token x, const bpe_vocab *vy, bpe_token y)
{
    return vx->len[x] == vy->len[y] &&
           memcmp(bpe_vocab_bytes(vx, x), bpe_vocab_bytes(vy, y), vx->len[x]) == 0;
}

long first_merge_difference(const bpe_result *x, const bpe_result *y, char *why, size_t why_len)
{
    size_t n = x->n_merges < y->n_merges ? x->n_merges : y->n_merges;
    for (size_t i = 0; i <= n; i++) {
        if (i == n) {
            if (x->n_merges == y->n_merges)
                return -1;
            snprintf(why, why_len, "merge lists differ in length: %zu vs %zu merges",
                     x->n_merges, y->n_merges);
            return (long)n;
        }
        const bpe_merge *mx = &x->merges[i], *my = &y->merges[i];
        if (mx->count == my->count && token_equals(&x->vocab, mx->left, &y->vocab, my->left) &&
            token_equals(&x->vocab, mx->right, &y->vocab, my->right))
            continue;
        char xl[64], xr[64], yl[64], yr[64];
        describe_token(&x->vocab, mx->left, xl, sizeof xl);
        describe_token(&x->vocab, mx->right, xr, sizeof xr);
        describe_token(&y->vocab, my->left, yl, sizeof yl);
        describe_token(&y->vocab, my->right, yr, sizeof yr);
        snprintf(why, why_len, "merge %zu differs: (%s, %s) count %llu vs (%s, %s) count %llu", i,
                 xl, xr, (unsigned long long)mx->count, yl, yr, (unsigned long long)my->count);
        return (long)i;
    }
    return -1;
}

void assert_same_work_as_model(const bpe_trainer *trainer, const bpe_words *words,
                               uint64_t max_merges, const bpe_result *got, const char *label)
{
    if (!trainer->same_work_as)
        return;
    const bpe_trainer *model = bpe_trainer_find(trainer->same_work_as);
    if (!model)
        fail_msg("%s: %s names no trainer as its model: %s", label, trainer->name,
                 trainer->same_work_as);
    int n = bpe_trainer_counter_count(trainer);
    assert_int_equal(n, bpe_trainer_counter_count(model));
    bpe_result want;
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    assert_int_equal(bpe_train(model, words, &config, NULL, &want), BPE_OK);
    for (int i = 0; i < n; i++) {
        if (strcmp(trainer->counter_names[i], model->counter_names[i]) != 0)
            fail_msg("%s: counter %d is %s in %s, %s in %s", label, i, trainer->counter_names[i],
                     trainer->name, model->counter_names[i], model->name);
        if (got->counters.value[i] != want.counters.value[i])
            fail_msg("%s: %s counted %s = %llu, its model %s %llu", label, trainer->name,
                     trainer->counter_names[i], (unsigned long long)got->counters.value[i],
                     model->name, (unsigned long long)want.counters.value[i]);
    }
    bpe_result_free(&want);
}

void test_count_slice(const char *path, uint64_t bytes, word_table *table)
{
    const char *dir = getenv("BPE_DATA") ? getenv("BPE_DATA") : "build/data";
    char full[1024], err[1024];
    snprintf(full, sizeof full, "%s/%s", dir, path);
    const char *inputs[] = {full};
    char **files;
    size_t n_files;
    if (!corpus_list_files(inputs, 1, &files, &n_files, err, sizeof err))
        fail_msg("%s (run make data first)", err);
    const char *specials[] = {"<|endoftext|>"};
    pretok_config cfg = {.pattern = "gpt2", .specials = specials, .n_specials = 1};
    pretokenizer *p = pretok_new(&cfg, err, sizeof err);
    assert_non_null(p);
    assert_true(word_table_init(table));
    corpus_read read = {.max_bytes = bytes};
    if (!corpus_count_words(p, &cfg, files, n_files, &read, table, err, sizeof err))
        fail_msg("%s", err);
    pretok_free(p);
    corpus_free_files(files, n_files);
}

const unsigned test_thread_counts[4] = {1, 2, 3, 7};

/* Fails unless run `got` of `trainer` equals `want`: merges with counts, A_i
 * and the early stop. */
static void assert_same_run(const bpe_result *got, const bpe_result *want, const char *who,
                            const char *against, const char *label)
{
    char why[512];
    if (first_merge_difference(got, want, why, sizeof why) >= 0)
        fail_msg("%s: %s vs %s: %s", label, who, against, why);
    if (got->exhausted != want->exhausted)
        fail_msg("%s: %s %s early after %zu merges, %s %s", label, who,
                 got->exhausted ? "stopped" : "did not stop", got->n_merges, against,
                 want->exhausted ? "did" : "did not");
    for (size_t i = 0; i < want->n_merges; i++)
        if (got->merges[i].words_affected != want->merges[i].words_affected)
            fail_msg("%s: %s merge %zu: words_affected %llu, %s %llu", label, who, i,
                     (unsigned long long)got->merges[i].words_affected, against,
                     (unsigned long long)want->merges[i].words_affected);
}

void assert_runs_match_reference(const bpe_trainer *trainer, const bpe_words *words,
                                 uint64_t max_merges, const bpe_result *reference,
                                 const char *reference_name, const char *label)
{
    bpe_result one_thread = {0};
    for (size_t k = 0; k < sizeof test_thread_counts / sizeof *test_thread_counts; k++) {
        /* Grain 1: a trainer that shares its merge loop's work among the threads
         * shares every piece it can, not only the large ones it shares by default
         * (threaded-walk: every list of two words or more). */
        const bpe_config config = {.max_merges = max_merges, .threads = test_thread_counts[k],
                                   .parallel_grain = 1};
        char who[96];
        snprintf(who, sizeof who, "%s on %u thread%s", trainer->name, config.threads,
                 config.threads == 1 ? "" : "s");
        bpe_result got;
        assert_int_equal(bpe_train(trainer, words, &config, NULL, &got), BPE_OK);
        assert_same_run(&got, reference, who, reference_name, label);
        if (config.threads == 1) {
            assert_same_work_as_model(trainer, words, max_merges, &got, label);
            one_thread = got;
            continue;
        }
        for (int c = 0; c < bpe_trainer_counter_count(trainer); c++)
            if (got.counters.value[c] != one_thread.counters.value[c])
                fail_msg("%s: %s counted %s = %llu, on 1 thread %llu", label, who,
                         trainer->counter_names[c], (unsigned long long)got.counters.value[c],
                         (unsigned long long)one_thread.counters.value[c]);
        bpe_result_free(&got);
    }
    bpe_result_free(&one_thread);
}

void assert_merges_equal(const bpe_trainer *trainer, const bpe_words *words, uint64_t max_merges,
                         const test_merge *expected, size_t n_expected)
{
    bpe_result r;
    const bpe_config config = {.max_merges = max_merges, .threads = 1};
    assert_int_equal(bpe_train(trainer, words, &config, NULL, &r), BPE_OK);
    for (size_t i = 0; i < n_expected && i < r.n_merges; i++) {
        const bpe_merge *m = &r.merges[i];
        size_t la = strlen(expected[i].left), lb = strlen(expected[i].right);
        bool same = r.vocab.len[m->left] == la && r.vocab.len[m->right] == lb &&
                    memcmp(bpe_vocab_bytes(&r.vocab, m->left), expected[i].left, la) == 0 &&
                    memcmp(bpe_vocab_bytes(&r.vocab, m->right), expected[i].right, lb) == 0 &&
                    m->count == expected[i].count;
        if (!same) {
            char l[64], rt[64];
            describe_token(&r.vocab, m->left, l, sizeof l);
            describe_token(&r.vocab, m->right, rt, sizeof rt);
            fail_msg("%s: merge %zu is (%s, %s) count %llu, expected (%s, %s) count %llu",
                     trainer->name, i, l, rt, (unsigned long long)m->count, expected[i].left,
                     expected[i].right, (unsigned long long)expected[i].count);
        }
    }
    if (r.n_merges != n_expected)
        fail_msg("%s: %zu merges, expected %zu", trainer->name, r.n_merges, n_expected);
    bpe_result_free(&r);
}

/* ============================================================ results and grids */

/* Sets why and returns false when the two differ. */
static bool same(bool equal, char *why, size_t why_len, const char *what, size_t index)
{
    if (!equal)
        snprintf(why, why_len, "%s differs (entry %zu)", what, index);
    return equal;
}

static bool same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool records_equal(const bench_record *a, const bench_record *b, size_t i, char *why,
                          size_t why_len)
{
#define FIELD(f) same(a->f == b->f, why, why_len, #f, i)
#define TEXT(f) same(strcmp(a->f, b->f) == 0, why, why_len, #f, i)
    bool ok = TEXT(trainer) && TEXT(corpus) && FIELD(corpus_bytes) && FIELD(slice_bytes) &&
              FIELD(threads) && TEXT(counting) &&
              FIELD(vocab_size) && FIELD(max_merges) && FIELD(merges) && FIELD(exhausted) &&
              FIELD(words_distinct) && FIELD(symbols) && FIELD(pretokens) &&
              FIELD(pairs_initial) && FIELD(n_reps) && FIELD(peak_rss_bytes) &&
              FIELD(input_rss_bytes) && FIELD(trainer_rss_bytes) && FIELD(word_table_bytes) &&
              FIELD(n_counters) && FIELD(has_digest) && FIELD(digest) && FIELD(verified) &&
              TEXT(verified_against) && FIELD(status) && TEXT(error) && FIELD(time_limit_s) &&
              FIELD(skipped_after_timeout) && FIELD(n_profile);
#undef FIELD
#undef TEXT
    for (int k = 0; ok && k < SCRIPT_COUNT; k++)
        ok = same(a->script_bytes[k] == b->script_bytes[k], why, why_len, script_names[k], i);
    for (size_t r = 0; ok && r < a->n_reps; r++)
        for (int p = 0; ok && p < BENCH_PHASES; p++)
            ok = same(bench_phase_seconds(&a->reps[r], p) == bench_phase_seconds(&b->reps[r], p),
                      why, why_len, bench_phase_names[p], i);
    for (int c = 0; ok && c < a->n_counters; c++)
        ok = same(strcmp(a->counters[c].name, b->counters[c].name) == 0 &&
                      a->counters[c].value == b->counters[c].value,
                  why, why_len, "a counter", i);
    for (size_t m = 0; ok && m < a->n_profile; m++)
        ok = same(a->profile_seconds[m] == b->profile_seconds[m] &&
                      a->profile_affected[m] == b->profile_affected[m],
                  why, why_len, "a profile entry", i);
    return ok;
}

bool test_results_equal(const bench_results *a, const bench_results *b, char *why,
                        size_t why_len)
{
    const bench_context *x = &a->context, *y = &b->context;
    bool ok = same(same_str(x->date, y->date) && same_str(x->host, y->host) &&
                       same_str(x->cpu, y->cpu) && x->cores == y->cores &&
                       same_str(x->compiler, y->compiler) && same_str(x->cflags, y->cflags) &&
                       same_str(x->git_commit, y->git_commit) &&
                       same_str(x->command, y->command) && x->time_limit_s == y->time_limit_s &&
                       x->n_datasets == y->n_datasets,
                   why, why_len, "the context", 0);
    for (size_t i = 0; ok && i < x->n_datasets; i++)
        ok = same(same_str(x->datasets[i].path, y->datasets[i].path) &&
                      same_str(x->datasets[i].sha256, y->datasets[i].sha256),
                  why, why_len, "a dataset", i);
    ok = ok && same(a->n_records == b->n_records, why, why_len, "the number of records", 0);
    for (size_t i = 0; ok && i < a->n_records; i++)
        ok = records_equal(&a->records[i], &b->records[i], i, why, why_len);
    return ok;
}

static bool sizes_equal(const grid_sizes *a, const grid_sizes *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].bytes != b->items[i].bytes || strcmp(a->items[i].label, b->items[i].label))
            return false;
    return true;
}

bool test_grids_equal(const bench_grid *a, const bench_grid *b, char *why, size_t why_len)
{
    bool ok = same(a->n_trainers == b->n_trainers &&
                       memcmp(a->trainers, b->trainers, a->n_trainers * sizeof *a->trainers) == 0,
                   why, why_len, "trainers", 0) &&
              same(a->n_corpora == b->n_corpora && a->corpora_from_cli == b->corpora_from_cli,
                   why, why_len, "the corpus list", 0) &&
              same(sizes_equal(&a->sizes, &b->sizes), why, why_len, "sizes", 0) &&
              same(a->n_vocab == b->n_vocab &&
                       memcmp(a->vocab, b->vocab, a->n_vocab * sizeof *a->vocab) == 0,
                   why, why_len, "vocab", 0) &&
              same(a->n_threads == b->n_threads &&
                       memcmp(a->threads, b->threads, a->n_threads * sizeof *a->threads) == 0,
                   why, why_len, "threads", 0) &&
              same(a->n_counting == b->n_counting &&
                       memcmp(a->counting, b->counting, a->n_counting * sizeof *a->counting) == 0,
                   why, why_len, "counting", 0) &&
              same(a->n_pretokenizers == b->n_pretokenizers &&
                       memcmp(a->pretokenizers, b->pretokenizers,
                              a->n_pretokenizers * sizeof *a->pretokenizers) == 0,
                   why, why_len, "pretokenizer", 0) &&
              same(a->repeats == b->repeats && a->repeat_time_s == b->repeat_time_s &&
                       a->time_limit_s == b->time_limit_s,
                   why, why_len, "repeats, repeat-time or time-limit", 0) &&
              same(same_str(a->out_dir, b->out_dir) && same_str(a->data_dir, b->data_dir) &&
                       same_str(a->profile, b->profile) && !a->data_dir == !b->data_dir &&
                       !a->profile == !b->profile,
                   why, why_len, "out, data-dir or profile", 0);
    for (size_t i = 0; ok && i < a->n_corpora; i++)
        ok = same(strcmp(a->corpora[i].name, b->corpora[i].name) == 0 &&
                      strcmp(a->corpora[i].path, b->corpora[i].path) == 0 &&
                      sizes_equal(&a->corpora[i].sizes, &b->corpora[i].sizes),
                  why, why_len, "a corpus", i);
    ok = ok && same(a->n_externals == b->n_externals, why, why_len, "the external list", 0);
    for (size_t i = 0; ok && i < a->n_externals; i++)
        ok = same(strcmp(a->externals[i].name, b->externals[i].name) == 0 &&
                      strcmp(a->externals[i].command, b->externals[i].command) == 0,
                  why, why_len, "an external trainer", i);
    return ok;
}

/* ============================================================ processes and files */

/* Applies limits in the child, before exec. */
static void apply_limits(const test_limits *limits)
{
    if (limits->stdin_fd > 0 && dup2(limits->stdin_fd, 0) < 0)
        _exit(126);
    if (limits->ignore_sigxfsz)
        signal(SIGXFSZ, SIG_IGN);
    if (limits->file_size) {
        struct rlimit l = {limits->file_size, limits->file_size};
        setrlimit(RLIMIT_FSIZE, &l);
    }
    if (limits->address_space) {
        struct rlimit l = {limits->address_space, limits->address_space};
        setrlimit(RLIMIT_AS, &l);
    }
    if (limits->alarm_s)
        alarm(limits->alarm_s); /* survives exec */
}

/* test_start and test_start_bpebench: in_child and limits may be NULL. */
static test_child start(const char *const *argv, const char *cwd, void (*in_child)(void),
                        const test_limits *limits)
{
    test_child c = {.out = tmpfile(), .err = tmpfile()};
    assert_true(c.out && c.err);
    fflush(NULL);
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid > 0)
        return c;
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(fileno(c.out), 1) < 0 ||
        dup2(fileno(c.err), 2) < 0 || (cwd && chdir(cwd) != 0))
        _exit(126);
    /* Whatever we inherited, the program starts as from a terminal. */
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        signal(signals[i], SIG_DFL);
    if (limits)
        apply_limits(limits);
    if (in_child)
        in_child();
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

test_child test_start(const char *const *argv, const char *cwd, void (*in_child)(void))
{
    return start(argv, cwd, in_child, NULL);
}

test_child test_start_bpebench(const char *const *args, const char *cwd, const test_limits *limits)
{
    const char *argv[64] = {test_bpebench()};
    size_t n = 1;
    for (; args[n - 1]; n++) {
        assert_true(n < sizeof argv / sizeof *argv - 1);
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;
    return start(argv, cwd, NULL, limits);
}

/* Reads an unnamed file the child wrote through its own descriptor. */
static char *read_unnamed(FILE *f)
{
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    char *text = malloc((size_t)st.st_size + 1);
    assert_non_null(text);
    assert_int_equal(pread(fileno(f), text, (size_t)st.st_size, 0), st.st_size);
    text[st.st_size] = '\0';
    fclose(f);
    return text;
}

void test_finish(test_child *c, test_output *out)
{
    pid_t got;
    struct rusage usage;
    while ((got = wait4(c->pid, &out->status, 0, &usage)) < 0 && errno == EINTR)
        ;
    assert_int_equal(got, c->pid);
    out->maxrss_kb = usage.ru_maxrss;
    out->out = read_unnamed(c->out);
    out->err = read_unnamed(c->err);
    memset(c, 0, sizeof *c);
}

void test_output_free(test_output *out)
{
    free(out->out);
    free(out->err);
    memset(out, 0, sizeof *out);
}

void assert_one_line_error(const test_output *out, int code, const char *needle)
{
    if (!WIFEXITED(out->status))
        fail_msg("killed by signal %d (a hang?); stderr: %s", WTERMSIG(out->status), out->err);
    if (WEXITSTATUS(out->status) != code)
        fail_msg("exit %d, expected %d; stderr: %s", WEXITSTATUS(out->status), code, out->err);
    const char *nl = strchr(out->err, '\n');
    if (!nl || nl[1])
        fail_msg("stderr is not one line: %s", out->err);
    if (!strstr(out->err, needle))
        fail_msg("stderr does not say \"%s\": %s", needle, out->err);
}

const char *test_bpebench(void)
{
    static char path[PATH_MAX];
    if (!path[0]) {
        const char *b = getenv("BPEBENCH") ? getenv("BPEBENCH") : "build/bpebench";
        if (!realpath(b, path))
            fail_msg("%s: %s; build it first (make test-run sets BPEBENCH)", b, strerror(errno));
    }
    return path;
}

char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t used = 0, cap = 0, got;
    do {
        text = bpe_array_reserve(text, &cap, used + 65536 + 1, 1);
        assert_non_null(text);
        got = fread(text + used, 1, 65536, f);
        used += got;
    } while (got > 0);
    fclose(f);
    text[used] = '\0';
    if (len)
        *len = used;
    return text;
}

void test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

void test_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    DIR *d = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = malloc(strlen(path) + strlen(e->d_name) + 2);
        assert_non_null(child);
        sprintf(child, "%s/%s", path, e->d_name);
        test_remove_tree(child);
        free(child);
    }
    if (d)
        closedir(d);
    if (remove(path) != 0)
        fail_msg("cannot remove %s: %s", path, strerror(errno));
}

bool test_find_temporary(const char *root, char *found, size_t found_len)
{
    DIR *d = opendir(root);
    bool hit = false;
    for (struct dirent *e; d && !hit && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = malloc(strlen(root) + strlen(e->d_name) + 2);
        assert_non_null(child);
        sprintf(child, "%s/%s", root, e->d_name);
        if (strstr(e->d_name, ".tmp.") || strncmp(e->d_name, ".bpebench-probe", 15) == 0) {
            snprintf(found, found_len, "%s", child);
            hit = true;
        } else if (e->d_type == DT_DIR) {
            hit = test_find_temporary(child, found, found_len);
        }
        free(child);
    }
    if (d)
        closedir(d);
    return hit;
}

long long test_read_position(pid_t pid, const char *path)
{
    char dir[64], link[PATH_MAX], target[PATH_MAX], info[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    long long pos = -1;
    for (struct dirent *e; d && pos < 0 && (e = readdir(d));) {
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, path) != 0)
            continue;
        snprintf(info, sizeof info, "/proc/%d/fdinfo/%s", (int)pid, e->d_name);
        FILE *f = fopen(info, "r");
        if (f && fscanf(f, "pos: %lld", &pos) != 1)
            pos = -1;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return pos;
}

void assert_no_temporary_files(const char *root)
{
    char found[PATH_MAX];
    if (test_find_temporary(root, found, sizeof found))
        fail_msg("temporary file left behind: %s", found);
}

#if defined(__SANITIZE_ADDRESS__)
const bool test_under_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
const bool test_under_asan = true;
#else
const bool test_under_asan = false;
#endif
#else
const bool test_under_asan = false;
#endif

void test_write_slow_corpus(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t s = 7;
    for (size_t written = 0; written < 300000;) {
        size_t len = 3 + splitmix64(&s) % 7;
        for (size_t i = 0; i < len; i++)
            fputc('a' + (int)(splitmix64(&s) % 26), f);
        fputc(' ', f);
        written += len + 1;
    }
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
}

char *test_file_contents(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = test_slurp(path, NULL);
    if (!text)
        text = strdup("-");
    assert_non_null(text);
    return text;
}

size_t test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

const size_t test_fuzz_chunk_sizes[8] = {1, 2, 3, 5, 8, 13, 64, 4096};

static const char *const no_specials[] = {NULL};
static const char *const eot[] = {"<|endoftext|>"};
static const char *const overlapping[] = {"<s>", "<s><s>", "s>"};
static const char *const utf8_cutting[] = {"\xff", "a\xc3", "\xc3\xa9"};

const test_special_set test_fuzz_special_sets[4] = {
    {no_specials, 0}, {eot, 1}, {overlapping, 3}, {utf8_cutting, 3}};

uint8_t *test_generate_text(uint64_t seed, size_t len, const char *const *atoms, size_t n_atoms,
                            bool invalid, size_t *out_len)
{
    uint8_t *text = malloc(len + 64);
    assert_non_null(text);
    size_t at = 0;
    while (at < len) {
        const char *atom = atoms[splitmix64(&seed) % n_atoms];
        size_t n = strlen(atom);
        uint32_t cp;
        if (!invalid && utf8_decode((const uint8_t *)atom, n, &cp) == 0)
            continue;
        assert_true(n <= 64);
        memcpy(text + at, atom, n);
        at += n;
    }
    *out_len = at;
    return text;
}

void test_add_span(void *ctx, const uint8_t *piece, size_t len, bool is_special)
{
    (void)piece;
    test_spans *s = ctx;
    if (s->n == s->cap) {
        s->cap = 2 * s->cap + 1024;
        s->end = realloc(s->end, s->cap * sizeof *s->end);
        s->special = realloc(s->special, s->cap * sizeof *s->special);
        if (!s->end || !s->special)
            abort();
    }
    s->at += len;
    s->end[s->n] = s->at;
    s->special[s->n++] = is_special;
}

void test_spans_free(test_spans *s)
{
    free(s->end);
    free(s->special);
    memset(s, 0, sizeof *s);
}

void assert_vocab_json_whole(const char *path, size_t n_tokens)
{
    size_t len;
    char *text = test_slurp(path, &len);
    if (!text)
        fail_msg("%s: cannot read it", path);
    int stop;
    if (utf8_valid_prefix((const uint8_t *)text, len, &stop) != len)
        fail_msg("%s: not valid UTF-8", path);
    cJSON *vocab = cJSON_Parse(text);
    if (!vocab || !cJSON_IsObject(vocab))
        fail_msg("%s: not a JSON object", path);
    bool *seen = calloc(n_tokens + 1, sizeof *seen);
    assert_non_null(seen);
    size_t keys = 0;
    for (cJSON *item = vocab->child; item; item = item->next, keys++) {
        double id = cJSON_GetNumberValue(item);
        if (!(id >= 0 && id < (double)n_tokens) || id != (double)(size_t)id || seen[(size_t)id])
            fail_msg("%s: key \"%s\" has id %g: not a fresh id below %zu", path, item->string, id,
                     n_tokens);
        seen[(size_t)id] = true;
    }
    if (keys != n_tokens)
        fail_msg("%s: %zu keys for %zu tokens", path, keys, n_tokens);
    for (cJSON *a = vocab->child; a; a = a->next) /* cJSON keeps a repeated key twice */
        for (cJSON *b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                fail_msg("%s: key \"%s\" appears twice", path, a->string);
    free(seen);
    cJSON_Delete(vocab);
    free(text);
}

void test_write_file_in(const char *dir, const char *name, const void *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    test_write_file(path, data, len);
}
