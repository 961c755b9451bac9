/*
 * check.c — see check.h. Each case's input is written to a temporary
 * directory (its text, or slices cut from the unpacked corpora with
 * slice_files, and its word-count file), the reference merges come from
 * the naive trainer on that input, and the trainer under check gets the
 * same files. The directory is removed at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/check.h"

#include "run/output.h"
#include "run/run.h"
#include "tools/datatools.h"
#include "base/errors.h"
#include "base/tempdir.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- the battery */

/* One case. Its text is `words` (WORD:COUNT ..., each occurrence a piece of
 * its own between special tokens, as SPEC §2's word tables), or `text`, or
 * slices of the corpus directory `corpus` under the data dir. */
typedef struct {
    const char *name;          /* shown */
    const char *words;         /* "low:5 lower:2 ...", or NULL */
    const char *text;          /* a literal corpus, or NULL */
    const char *corpus;        /* a directory under the data dir, or NULL */
    size_t max_files;          /* slices: the first files of the directory ... */
    uint64_t file_bytes;       /* ... each cut word-safe to this many bytes */
    const char *specials[3];   /* NULL-terminated; {NULL}: the default <|endoftext|> */
    uint64_t vocab_size;       /* V */
} check_case;

static const check_case BATTERY[] = {
    {"spec-example-low-lower", "low:5 lower:2 widest:3 newest:6", NULL, NULL, 0, 0, {NULL}, 263},
    {"spec-example-aaabdaaabac", "aaabdaaabac:1", NULL, NULL, 0, 0, {NULL}, 260},
    {"spec-example-aaaaa", "aaaaa:1", NULL, NULL, 0, 0, {NULL}, 259},
    {"overlapping-runs", NULL, "aaaa aaaaaaa aaa bbbbbb aaaaa ab aaaaaaaaaaa ba\n", NULL, 0, 0,
     {NULL}, 262},
    {"overlapping-early-stop", NULL, "aaaa aaaaaaa aaa bbbbbb aaaaa ab aaaaaaaaaaa ba\n", NULL, 0,
     0, {NULL}, 400},
    {"prefix-ties", "xy:2 xyz:2 yz:2 zx:2 xyx:2 x:2 xx:2 yzy:2", NULL, NULL, 0, 0, {NULL}, 270},
    {"prefix-ties-bytes", NULL, "ab abc abcd b bc bcd a\xc3\xa9 \xc3\xa9\xc3\xa9 ab\n", NULL, 0, 0,
     {NULL}, 275},
    {"special-tokens", NULL,
     "hello<|end world<|endoftext|>foo<s>bar<|endofte x <s><s> end<|endoftext|>ending\n", NULL,
     0, 0, {"<|endoftext|>", "<|end", "<s>"}, 300},
    {"multilingual-slice", NULL, NULL, "multilingual", 5, 12000, {NULL}, 500},
    {"multilingual-slice", NULL, NULL, "multilingual", 5, 12000, {NULL}, 1000},
    {"gutenberg-slice", NULL, NULL, "gutenberg-en", 2, 30000, {NULL}, 500},
    {"gutenberg-slice", NULL, NULL, "gutenberg-en", 2, 30000, {NULL}, 1000},
};
enum { N_CASES = sizeof BATTERY / sizeof *BATTERY };

static const char *const DEFAULT_SPECIAL[] = {"<|endoftext|>"};

/* The case's special tokens as a pretok_config (pattern gpt2). */
static pretok_config case_pretok(const check_case *c)
{
    pretok_config p = {.pattern = "gpt2", .specials = DEFAULT_SPECIAL, .n_specials = 1};
    if (c->specials[0]) {
        p.specials = c->specials;
        for (p.n_specials = 0; p.n_specials < 3 && c->specials[p.n_specials];)
            p.n_specials++;
    }
    return p;
}

/* ------------------------------------------------------------- inputs */

/* Writes the text of a words case: each word `count` times, each time
 * followed by the first special token. */
static bool write_words_case(const check_case *c, const char *path, char *err, size_t err_len)
{
    atomic_file f;
    if (!atomic_file_open(&f, path, err, err_len))
        return false;
    const char *sep = DEFAULT_SPECIAL[0];
    bool ok = true;
    for (const char *p = c->words; ok && *p;) {
        size_t len = strcspn(p, ":");
        unsigned long count = strtoul(p + len + 1, NULL, 10);
        for (unsigned long k = 0; ok && k < count; k++)
            ok = atomic_file_write(&f, p, len, err, err_len) &&
                 atomic_file_write(&f, sep, strlen(sep), err, err_len);
        p += len + 1 + strcspn(p + len + 1, " ");
        p += *p == ' ';
    }
    return ok ? atomic_file_commit(&f, err, err_len) : false;
}

/* A case's files, as the trainer under check gets them. */
typedef struct {
    char *paths[8];   /* the corpus files; owned */
    size_t n;         /* how many */
    char counts[PATH_MAX]; /* its word-count file */
} case_files;

static void case_files_free(case_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->paths[i]);
    f->n = 0;
}

/* Adds dir/name to the case's files. */
static char *add_path(case_files *f, const char *dir, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return NULL;
    return f->paths[f->n++] = strdup(path);
}

/* Writes the case's corpus files into dir. */
static bool write_case_input(const check_case *c, const pretok_config *p, const char *data_dir,
                             const char *dir, case_files *f, char *err, size_t err_len)
{
    if (c->words || c->text) {
        char *path = add_path(f, dir, "corpus.txt");
        if (!path)
            return set_error(err, err_len, "%s: path too long, or out of memory", dir);
        if (c->words)
            return write_words_case(c, path, err, err_len);
        return atomic_file_write_whole(path, c->text, strlen(c->text), err, err_len);
    }
    char source_dir[PATH_MAX], **sources = NULL;
    size_t n_sources = 0;
    snprintf(source_dir, sizeof source_dir, "%s/%s", data_dir, c->corpus);
    const char *inputs[1] = {source_dir};
    if (!corpus_list_files(inputs, 1, &sources, &n_sources, err, err_len))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < n_sources && i < c->max_files; i++) {
        char name[32];
        snprintf(name, sizeof name, "slice%zu.txt", i);
        char *path = add_path(f, dir, name);
        uint64_t len;
        size_t joined;
        ok = path ? slice_files_to_path(&sources[i], 1, c->file_bytes, p->specials,
                                        p->n_specials, path, &len, &joined, err, err_len)
                  : set_error(err, err_len, "%s: path too long, or out of memory", dir);
    }
    corpus_free_files(sources, n_sources);
    return ok;
}

/* ------------------------------------------------------------- comparing */

/* A token's text in the alphabet of merges.txt, into out. */
static void token_text(const bpe_vocab *v, bpe_token t, char *out, size_t out_len)
{
    char *s = output_token_string(v, t);
    snprintf(out, out_len, "%s", s ? s : "?");
    free(s);
}

/* Describes merge i of r: "(LEFT, RIGHT) count N" (count omitted when the
 * trainer does not report counts), or "none" past its end. */
static void describe_merge(const bpe_result *r, size_t i, bool has_counts, char *out,
                           size_t out_len)
{
    if (i >= r->n_merges) {
        snprintf(out, out_len, "none (its list ends after %zu merges)", r->n_merges);
        return;
    }
    char left[200], right[200];
    token_text(&r->vocab, r->merges[i].left, left, sizeof left);
    token_text(&r->vocab, r->merges[i].right, right, sizeof right);
    if (has_counts)
        snprintf(out, out_len, "(%s, %s) count %llu", left, right,
                 (unsigned long long)r->merges[i].count);
    else
        snprintf(out, out_len, "(%s, %s)", left, right);
}

/* Whether merge i has the same bytes in both lists. */
static bool same_merge(const bpe_result *a, const bpe_result *b, size_t i)
{
    const bpe_merge *x = &a->merges[i], *y = &b->merges[i];
    uint32_t xl = a->vocab.len[x->left], xr = a->vocab.len[x->right];
    return xl == b->vocab.len[y->left] && xr == b->vocab.len[y->right] &&
           memcmp(bpe_vocab_bytes(&a->vocab, x->left), bpe_vocab_bytes(&b->vocab, y->left),
                  xl) == 0 &&
           memcmp(bpe_vocab_bytes(&a->vocab, x->right), bpe_vocab_bytes(&b->vocab, y->right),
                  xr) == 0;
}

/* The index of the first merge where the lists differ, or -1. O(m · token length). */
static long first_difference(const bpe_result *want, const bpe_result *got)
{
    size_t n = want->n_merges < got->n_merges ? want->n_merges : got->n_merges;
    for (size_t i = 0; i < n; i++)
        if (!same_merge(want, got, i))
            return (long)i;
    return want->n_merges == got->n_merges ? -1 : (long)n;
}

/* ------------------------------------------------------------- trainers */

static bool builtin_train(void *ctx, const check_input *in, bpe_result *merges, char *why,
                          size_t why_len)
{
    run_config cfg = {.files = in->files, .n_files = in->n_files, .pretok = in->pretok,
                      .trainer = ctx, .vocab_size = in->vocab_size};
    run_outcome out;
    if (!run_training(&cfg, &out, why, why_len))
        return false;
    *merges = out.result;
    memset(&out.result, 0, sizeof out.result);
    run_outcome_free(&out);
    return true;
}

check_trainer check_builtin(const bpe_trainer *trainer)
{
    return (check_trainer){.train = builtin_train, .ctx = (void *)trainer, .name = trainer->name};
}

/* A check run's time limit for one external case. */
enum { CHECK_EXTERNAL_LIMIT_S = 300 };

static bool external_train(void *ctx, const check_input *in, bpe_result *merges, char *why,
                           size_t why_len)
{
    char out_dir[PATH_MAX];
    snprintf(out_dir, sizeof out_dir, "%s/out", in->work_dir);
    if (mkdir(out_dir, 0700) != 0)
        return set_error(why, why_len, "%s: cannot create: %s", out_dir, strerror(errno));
    external_job job = {.files = in->files, .n_files = in->n_files,
                        .counts_path = in->counts_path, .vocab_size = in->vocab_size,
                        .pretok = &in->pretok, .out_dir = out_dir,
                        .time_limit_s = CHECK_EXTERNAL_LIMIT_S};
    external_outcome out;
    if (!external_run(ctx, &job, &out, why, why_len))
        return false;
    if (out.status != EXTERNAL_OK)
        return set_error(why, why_len, "%s", out.message);
    *merges = out.merges;
    return true;
}

check_trainer check_external(const external_trainer *ext)
{
    return (check_trainer){.train = external_train, .ctx = (void *)ext, .name = ext->name};
}

/* ------------------------------------------------------------- running */

/* Runs one case in dir; prints its line; true when it passed. */
static bool run_case(const check_trainer *t, const check_case *c, const char *data_dir,
                     const char *dir, FILE *out)
{
    char err[1024], label[96];
    snprintf(label, sizeof label, "%s V=%llu", c->name, (unsigned long long)c->vocab_size);
    pretok_config p = case_pretok(c);
    case_files files = {0};
    check_input in = {.pretok = p, .vocab_size = c->vocab_size, .work_dir = dir};
    bpe_result want = {0}, got = {0};
    bool passed = false;
    if (!write_case_input(c, &p, data_dir, dir, &files, err, sizeof err)) {
        fprintf(out, "FAIL  %-34s cannot prepare the input: %s\n", label, err);
        goto done;
    }
    in.files = files.paths;
    in.n_files = files.n;
    if (snprintf(files.counts, sizeof files.counts, "%s/words.counts", dir) >=
        (int)sizeof files.counts) {
        fprintf(out, "FAIL  %-34s %s: path too long\n", label, dir);
        goto done;
    }
    in.counts_path = files.counts;
    run_config cfg = {.files = files.paths, .n_files = files.n, .pretok = p};
    run_input counted;
    if (!run_count_input(&cfg, &counted, err, sizeof err)) {
        fprintf(out, "FAIL  %-34s cannot count the input: %s\n", label, err);
        goto done;
    }
    bool wrote = wordcount_write_file(files.counts, &counted.view, pretok_pattern_source("gpt2"),
                                      p.specials, p.n_specials, err, sizeof err);
    run_input_free(&counted);
    if (!wrote || !builtin_train((void *)bpe_trainers[0], &in, &want, err, sizeof err)) {
        fprintf(out, "FAIL  %-34s the reference failed: %s\n", label, err);
        goto done;
    }
    if (!t->train(t->ctx, &in, &got, err, sizeof err)) {
        fprintf(out, "FAIL  %-34s %s: %s\n", label, t->name, err);
        goto done;
    }
    long i = first_difference(&want, &got);
    if (i < 0) {
        fprintf(out, "ok    %-34s %zu merges%s\n", label, want.n_merges,
                want.exhausted ? " (stopped early: no pair left)" : "");
        passed = true;
    } else {
        bool counts = t->train == builtin_train;
        char a[512], b[512];
        describe_merge(&want, (size_t)i, true, a, sizeof a);
        describe_merge(&got, (size_t)i, counts, b, sizeof b);
        fprintf(out, "FAIL  %-34s first differing merge %ld: expected %s, got %s\n", label, i,
                a, b);
    }
done:
    bpe_result_free(&want);
    bpe_result_free(&got);
    case_files_free(&files);
    return passed;
}

bool check_run(const check_trainer *t, const char *data_dir, FILE *out, size_t *n_failed,
               size_t *n_cases, char *err, size_t err_len)
{
    char root[PATH_MAX];
    if (!temp_dir_make("bpebench-check", root, sizeof root, err, err_len))
        return false;
    *n_failed = 0;
    *n_cases = N_CASES;
    for (size_t k = 0; k < N_CASES; k++) {
        char dir[PATH_MAX];
        bool passed = false;
        if (snprintf(dir, sizeof dir, "%s/case%zu", root, k) >= (int)sizeof dir ||
            mkdir(dir, 0700) != 0)
            fprintf(out, "FAIL  %s: cannot create %s: %s\n", BATTERY[k].name, dir,
                    strerror(errno));
        else
            passed = run_case(t, &BATTERY[k], data_dir, dir, out);
        *n_failed += !passed;
        fflush(out);
    }
    fprintf(out, "%zu passed, %zu failed\n", *n_cases - *n_failed, *n_failed);
    temp_dir_remove(root);
    return true;
}
