/*
 * test_trace.c — `bpebench trace` (harness/trace/) over every registered
 * trainer: the trace is the trainer's own run.
 *
 *   - every trainer has a describe hook, and tracing it changes nothing:
 *     the merges and the counters are those of a run without an observer,
 *     and the setup's counters plus every merge's add up to the run's;
 *   - what a trainer shows is its state: its words spell the input, a merge
 *     rewrites A_i of them, and the chosen pair's count, recounted from the
 *     words it showed before the merge, is the count it reported;
 *   - the command's merges are `train`'s on the same text;
 *   - golden traces (tests/golden/trace/) of every trainer on the worked
 *     example of SPEC §2 and on `aaaaa`, regenerated into a temporary
 *     directory and compared byte for byte (after a deliberate change,
 *     `make trace-golden` rewrites them: review the diff before committing);
 *   - the limits, bad usage, and the page of --html (no script, escaped).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "trace/trace.h"
#include "report/svgclean.h"
#include "base/prng.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNTIL_EXHAUSTED UINT64_MAX

/* ------------------------------------------------------------- in process */

/* The bytes of row r of the words section of d, in `out` (NUL-terminated). */
static void row_bytes(const bpe_description *d, const bpe_vocab *v, size_t r, char *out,
                      size_t len)
{
    const bpe_shown_section *s = trace_words_of(d);
    const bpe_shown_row *row = &d->rows[s->first_row + r];
    size_t at = 0;
    for (size_t i = 0; i < row->n_items; i++) {
        bpe_token t = d->items[row->first_item + i].token;
        assert_true(t < v->n_tokens);
        assert_true(at + v->len[t] < len);
        memcpy(out + at, bpe_vocab_bytes(v, t), v->len[t]);
        at += v->len[t];
    }
    out[at] = '\0';
}

/* Checks that d's words spell the input, word for word. */
static void assert_words_spell_input(const bpe_description *d, const bpe_vocab *v,
                                     const bpe_words *words, const char *label)
{
    const bpe_shown_section *s = trace_words_of(d);
    if (!s)
        fail_msg("%s: no words section", label);
    assert_int_equal(s->n_rows, words->n_words);
    char bytes[256];
    for (size_t r = 0; r < words->n_words; r++) {
        row_bytes(d, v, r, bytes, sizeof bytes);
        if (strlen(bytes) != words->words[r].len ||
            memcmp(bytes, words->words[r].bytes, words->words[r].len) != 0)
            fail_msg("%s: word %zu shows as '%s'", label, r, bytes);
        assert_int_equal(d->rows[s->first_row + r].number[0], words->words[r].count);
    }
}

/* How many word rows differ between two descriptions. */
static size_t rows_rewritten(const bpe_description *before, const bpe_description *after)
{
    const bpe_shown_section *sb = trace_words_of(before), *sa = trace_words_of(after);
    size_t n = 0;
    for (size_t r = 0; r < sb->n_rows; r++)
        n += !trace_same_tokens(before, &before->rows[sb->first_row + r], after,
                                &after->rows[sa->first_row + r]);
    return n;
}

/* The counters of `trainer` on `in` after `merges` merges, run without an
 * observer (0: after setup). */
static bpe_counters counters_after(const bpe_trainer *trainer, const trace_input *in,
                                   uint64_t merges)
{
    bpe_result r;
    bpe_config config = {.max_merges = merges, .threads = TRACE_THREADS,
                         .parallel_grain = TRACE_GRAIN};
    assert_int_equal(bpe_train(trainer, &in->view, &config, NULL, &r), BPE_OK);
    bpe_counters c = r.counters;
    bpe_result_free(&r);
    return c;
}

/* Whether the trainer makes several merges in one step (a batch) on the
 * worked example, as its descriptions say (merges_ahead). Such a trainer
 * forms its next batch when it ends one (the workers trainer), so a run cut
 * after k merges forms other batches and counts other work. */
static bool trainer_batches(const bpe_trainer *trainer)
{
    char err[256];
    trace_input in;
    trace_run run;
    assert_true(trace_input_example(&in, err, sizeof err));
    assert_true(trace_run_trainer(&run, trainer, &in, UNTIL_EXHAUSTED, err, sizeof err));
    bool batches = false;
    for (size_t k = 0; k < run.n_steps; k++)
        batches |= run.steps[k].after.merges_ahead > 0;
    trace_run_free(&run);
    trace_input_free(&in);
    return batches;
}

/* Traces `trainer` on `in` and checks the run against one without an
 * observer, the counters after setup and after each merge against runs cut
 * there (for a trainer that merges once per step), and every description
 * against the run. */
static void check_trace(const bpe_trainer *trainer, const trace_input *in, const char *label)
{
    char err[256], why[512];
    trace_run run;
    if (!trace_run_trainer(&run, trainer, in, UNTIL_EXHAUSTED, err, sizeof err))
        fail_msg("%s, %s: %s", label, trainer->name, err);
    bpe_result plain;
    bpe_config config = {.max_merges = UNTIL_EXHAUSTED, .threads = TRACE_THREADS,
                         .parallel_grain = TRACE_GRAIN};
    assert_int_equal(bpe_train(trainer, &in->view, &config, NULL, &plain), BPE_OK);
    if (first_merge_difference(&plain, &run.result, why, sizeof why) >= 0)
        fail_msg("%s, %s traced vs not: %s", label, trainer->name, why);
    assert_int_equal(run.n_steps, plain.n_merges);
    assert_memory_equal(&run.result.counters, &plain.counters, sizeof plain.counters);
    assert_int_equal(run.result.exhausted, plain.exhausted);
    if (!plain.exhausted) /* else the step that found no pair counted work too */
        assert_memory_equal(trace_counters_before(&run, run.n_steps), &plain.counters,
                            sizeof plain.counters);

    const bpe_vocab *v = &run.result.vocab;
    assert_words_spell_input(&run.setup, v, &in->view, label);
    bool batches = trainer_batches(trainer);
    for (size_t k = 0; k <= run.n_steps && !batches; k++) {
        bpe_counters cut = counters_after(trainer, in, k);
        if (memcmp(trace_counters_before(&run, k), &cut, sizeof cut) != 0)
            fail_msg("%s, %s: the counters traced after %zu merges are not a run's", label,
                     trainer->name, k);
    }
    size_t first, last;
    for (size_t k = 0; k < run.n_steps; k = last + 1) {
        trace_batch_of(&run, k, &first, &last);
        const bpe_description *before = trace_before(&run, first);
        const bpe_description *after = trace_after(&run, last);
        assert_words_spell_input(after, v, &in->view, label);
        uint64_t most = 0, sum = 0;
        for (size_t i = first; i <= last; i++) {
            uint64_t a = run.steps[i].merge.words_affected;
            most = a > most ? a : most;
            sum += a;
        }
        size_t rewritten = rows_rewritten(before, after);
        if (rewritten < most || rewritten > sum) /* one merge: exactly A_i */
            fail_msg("%s, %s, merges %zu-%zu: A_i of %llu to %llu, but the words show %zu "
                     "rewritten", label, trainer->name, first + 1, last + 1,
                     (unsigned long long)most, (unsigned long long)sum, rewritten);
        trace_change *changes;
        size_t n;
        assert_true(trace_count_changes(before, after, &changes, &n));
        for (size_t i = first; i <= last; i++) {
            const bpe_merge *m = &run.steps[i].merge;
            bool found = false;
            for (size_t j = 0; j < n; j++)
                if (changes[j].a == m->left && changes[j].b == m->right) {
                    found = true;
                    if (changes[j].before != m->count || changes[j].after != 0)
                        fail_msg("%s, %s, merge %zu: count %llu, the words say %llu -> %llu",
                                 label, trainer->name, i + 1, (unsigned long long)m->count,
                                 (unsigned long long)changes[j].before,
                                 (unsigned long long)changes[j].after);
                }
            if (!found)
                fail_msg("%s, %s, merge %zu: the chosen pair's count did not change", label,
                         trainer->name, i + 1);
        }
        free(changes);
    }
    bpe_result_free(&plain);
    trace_run_free(&run);
}

/* A text input, pretokenized with the defaults (gpt2, <|endoftext|>). */
static void text_input(trace_input *in, const char *text)
{
    static const char *const specials[] = {"<|endoftext|>"};
    pretok_config pretok = {.specials = specials, .n_specials = 1, .pattern = "gpt2"};
    char err[256];
    if (!trace_input_text(in, "test", (const uint8_t *)text, strlen(text), &pretok, err,
                          sizeof err))
        fail_msg("%s", err);
}

static void every_trainer_has_a_describe_hook(void **state)
{
    (void)state;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        if (!(*t)->describe)
            fail_msg("%s has no describe hook: bpebench trace cannot show it", (*t)->name);
}

static void traces_are_the_runs_themselves(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "aaaaa", "aaabdaaabac", "abababab ab", "the cat sat on the mat, the hat",
        "low lower lowest newest widest", "ééé aé"};
    char err[256];
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        trace_input in;
        assert_true(trace_input_example(&in, err, sizeof err));
        check_trace(*t, &in, "worked example");
        trace_input_free(&in);
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
            text_input(&in, texts[i]);
            check_trace(*t, &in, texts[i]);
            trace_input_free(&in);
        }
    }
}

/* Seeded random word tables over a three-letter alphabet, where pairs tie,
 * overlap and die often. */
static void traces_of_random_tables(void **state)
{
    (void)state;
    uint64_t seed = 29;
    for (int round = 0; round < 24; round++) {
        char text[TRACE_MAX_TEXT];
        size_t at = 0;
        size_t words = 1 + splitmix64(&seed) % 10;
        for (size_t w = 0; w < words; w++) {
            size_t len = 1 + splitmix64(&seed) % 9, copies = 1 + splitmix64(&seed) % 4;
            char word[16];
            for (size_t i = 0; i < len; i++)
                word[i] = (char)('a' + splitmix64(&seed) % 3);
            for (size_t c = 0; c < copies; c++)
                at += (size_t)snprintf(text + at, sizeof text - at, " %.*s", (int)len, word);
        }
        for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
            trace_input in;
            text_input(&in, text);
            check_trace(*t, &in, text);
            trace_input_free(&in);
        }
    }
}

/* ------------------------------------------------------------ the command */

/* Runs bpebench with args; its output in *out (free with test_output_free). */
static void run_bpebench(const char *const *args, test_output *out)
{
    test_limits limits = {.alarm_s = 120};
    test_child c = test_start_bpebench(args, NULL, &limits);
    test_finish(&c, out);
}

static void golden_traces(void **state)
{
    const char *dir = *state;
    char path[512], golden[512];
    bool update = getenv("BPE_UPDATE_GOLDEN") != NULL, failed = false;
    size_t checked = 0;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        for (int example = 0; example < 2; example++) {
            const char *args[] = {"trace", "--trainer", (*t)->name, example ? "--text" : NULL,
                                  "aaaaa", NULL};
            test_output out;
            run_bpebench(args, &out);
            if (!WIFEXITED(out.status) || WEXITSTATUS(out.status) != 0)
                fail_msg("trace --trainer %s%s: %s", (*t)->name, example ? " --text aaaaa" : "",
                         out.err);
            snprintf(path, sizeof path, "%s/%s%s.txt", dir, (*t)->name,
                     example ? "-aaaaa" : "");
            snprintf(golden, sizeof golden, "tests/golden/trace/%s%s.txt", (*t)->name,
                     example ? "-aaaaa" : "");
            test_write_file(update ? golden : path, out.out, strlen(out.out));
            size_t len;
            char *want = test_slurp(golden, &len);
            if (!want || len != strlen(out.out) || memcmp(want, out.out, len) != 0) {
                print_error("golden trace differs: diff -u %s %s\n", golden, path);
                failed = true;
            }
            free(want);
            test_output_free(&out);
            checked++;
        }
    if (failed)
        fail_msg("%s: traces differ from tests/golden/trace (kept for diff; after a deliberate "
                 "change, make trace-golden rewrites them)", dir);
    assert_int_equal(test_count_entries("tests/golden/trace"), checked);
}

/* The merges of `trace` are train's on the same text file. */
static void merges_equal_train(void **state)
{
    const char *dir = *state;
    char text[512], out_dir[512];
    snprintf(text, sizeof text, "%s/t.txt", dir);
    snprintf(out_dir, sizeof out_dir, "%s/tok", dir);
    const char *corpus = "the cat sat on the mat, the rat ate the hat.<|endoftext|> aaaa, a, aa";
    test_write_file(text, corpus, strlen(corpus));
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        const char *train[] = {"train", "--trainer", (*t)->name, "--vocab-size", "290",
                               "--quiet", "--out", out_dir, text, NULL};
        const char *trace[] = {"trace", "--trainer", (*t)->name, "--vocab-size", "290", text,
                               NULL};
        test_output a, b;
        run_bpebench(train, &a);
        run_bpebench(trace, &b);
        assert_true(WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0);
        assert_true(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 0);
        char *merges = test_file_contents(out_dir, "merges.txt");
        char *line = strchr(merges, '\n') + 1; /* past #version */
        size_t n = 0;
        for (const char *m = strstr(b.out, "\nmerge "); m; m = strstr(m + 1, "\nmerge ")) {
            const char *open = strchr(m, '('), *comma = strstr(open, ", "),
                       *close = strstr(comma, ") count");
            char want[128];
            snprintf(want, sizeof want, "%.*s %.*s\n", (int)(comma - open - 1), open + 1,
                     (int)(close - comma - 2), comma + 2);
            if (strncmp(line, want, strlen(want)) != 0)
                fail_msg("%s: trace's merge %zu is '%s', train's '%.*s'", (*t)->name, n + 1,
                         want, (int)strcspn(line, "\n"), line);
            line += strlen(want);
            n++;
        }
        assert_true(n >= 20);
        assert_int_equal(*line, '\0'); /* and train made no more */
        free(merges);
        test_output_free(&a);
        test_output_free(&b);
    }
}

/* Counter sums read from a trace's text: name and value of each. */
typedef struct {
    char name[BPE_MAX_COUNTERS][64]; /* as printed */
    uint64_t value[BPE_MAX_COUNTERS]; /* summed, or the run's */
    size_t n;                         /* names seen */
} printed_counters;

/* Adds one printed line of counters ("a +1 · b +0", or "a 1 · b 0") to c. */
static void add_printed_line(printed_counters *c, const char *line)
{
    for (const char *item = line; item;) {
        while (*item == ' ')
            item++;
        char name[64];
        unsigned long long value;
        assert_int_equal(sscanf(item, "%63s +%llu", name, &value) == 2 ||
                             sscanf(item, "%63s %llu", name, &value) == 2,
                         1);
        size_t i = 0;
        while (i < c->n && strcmp(c->name[i], name) != 0)
            i++;
        if (i == c->n) {
            assert_true(c->n < BPE_MAX_COUNTERS);
            snprintf(c->name[c->n++], sizeof c->name[0], "%s", name);
        }
        c->value[i] += value;
        item = strstr(item, " · ");
        if (item)
            item += strlen(" · ");
    }
}

/* The counters the command prints add up: the setup's and every step's
 * "work" lines, summed by name, are its "work of the run", for every
 * trainer on both golden examples (which test_trace also checks are the
 * run's counters, in process). */
static void printed_counters_add_up(void **state)
{
    (void)state;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++) {
        for (int example = 0; example < 2; example++) {
            const char *args[] = {"trace", "--trainer", (*t)->name,
                                  example ? "--text" : NULL, "aaaaa", NULL};
            test_output out;
            run_bpebench(args, &out);
            assert_true(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
            printed_counters steps = {0}, run = {0}, *into = NULL;
            size_t sections = 0;
            for (char *line = strtok(out.out, "\n"); line; line = strtok(NULL, "\n")) {
                if (strncmp(line, "    ", 4) == 0) {
                    if (into)
                        add_printed_line(into, line + 4);
                    continue;
                }
                into = strncmp(line, "  work of the run", 17) == 0 ? &run
                       : strncmp(line, "  work", 6) == 0           ? &steps
                                                                   : NULL;
                sections += into != NULL;
            }
            assert_true(sections >= 3); /* the setup, a merge, the run */
            assert_int_equal(steps.n, run.n);
            for (size_t i = 0; i < run.n; i++) {
                assert_string_equal(steps.name[i], run.name[i]);
                if (steps.value[i] != run.value[i])
                    fail_msg("%s: the printed %s add up to %llu, the run's are %llu",
                             (*t)->name, run.name[i], (unsigned long long)steps.value[i],
                             (unsigned long long)run.value[i]);
            }
            test_output_free(&out);
        }
    }
}

static void limits_and_usage(void **state)
{
    const char *dir = *state;
    char big[512], many[512], path[512];
    snprintf(big, sizeof big, "%s/big.txt", dir);
    char text[TRACE_MAX_TEXT + 2];
    memset(text, 'a', sizeof text);
    for (size_t i = 7; i < sizeof text; i += 8)
        text[i] = ' ';
    test_write_file(big, text, sizeof text);
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(many, sizeof many, "%s/many.txt", dir);
    const char *words = "a b c d e f g h i j k l m n o p q r s t u v w x y z";
    test_write_file(many, words, strlen(words));
    static const struct {
        const char *args[8];
        int code;
        const char *needle;
    } cases[] = {
        {{"trace", NULL}, 2, "give --trainer"},
        {{"trace", "--trainer", "nope", NULL}, 2, "unknown trainer 'nope'"},
        {{"trace", "--trainer", "heap", "--text", "a", "FILE", NULL}, 2, "give one input"},
        {{"trace", "--trainer", "heap", "--vocab-size", "100", NULL}, 2, "too small"},
        {{"trace", "--trainer", "heap", "--max-merges", "x", NULL}, 2, "--max-merges"},
        {{"trace", "--trainer", "heap", "--pattern", "gpt4", NULL}, 2, "is a word table"},
        {{"trace", "--trainer", "heap", "--frobnicate", NULL}, 2, "unknown option"},
        {{"trace", "--trainer", "heap", "--text", "", NULL}, 1, "no words to trace"},
        {{"trace", "--trainer", "heap", "--text", "abcdefghijklmnopq", NULL}, 1,
         "at most 16 bytes"},
        {{"trace", "--trainer", "heap", "BIG", NULL}, 1, "at most 4096"},
        {{"trace", "--trainer", "heap", "MANY", NULL}, 1, "shows at most 24"},
        {{"trace", "--trainer", "heap", "--html", "MANY", "MANY", NULL}, 2, "many.txt"},
        {{"trace", "--trainer", "heap", "--svg", "MANY", "MANY", NULL}, 2, "many.txt"},
        {{"trace", "--trainer", "heap", "--svg", "", NULL}, 2, "--svg is empty"},
        {{"trace", "--trainer", "heap", "--text", "a", "--svg", "BIG", NULL}, 1,
         "no merge to draw"},
        {{"trace", "--trainer", "heap", "--text", "\xff", NULL}, 1, "invalid UTF-8"},
        {{"trace", "--trainer", "heap", "FIFO", NULL}, 1, "is a FIFO"}, /* at once, no hang */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *args[8];
        for (size_t i = 0; i < 8; i++) {
            const char *a = cases[c].args[i];
            args[i] = !a                        ? a
                      : strcmp(a, "BIG") == 0  ? big
                      : strcmp(a, "MANY") == 0 ? many
                      : strcmp(a, "FIFO") == 0 ? fifo
                                               : a;
            if (!a)
                break;
        }
        test_output out;
        run_bpebench(args, &out);
        assert_one_line_error(&out, cases[c].code, cases[c].needle);
        test_output_free(&out);
    }
    /* --max-merges cuts a run; --vocab-size counts the special token. */
    const char *cut[] = {"trace", "--trainer", "bucket", "--max-merges", "2", NULL};
    const char *vocab[] = {"trace", "--trainer", "bucket", "--vocab-size", "259", "--text",
                           "low lower newest", NULL};
    test_output out;
    run_bpebench(cut, &out);
    assert_non_null(strstr(out.out, "\nmerge 2:"));
    assert_null(strstr(out.out, "\nmerge 3:"));
    assert_non_null(strstr(out.out, "end: 2 merges, as many as asked"));
    test_output_free(&out);
    run_bpebench(vocab, &out);
    assert_non_null(strstr(out.out, "\nmerge 2:"));
    assert_null(strstr(out.out, "\nmerge 3:"));
    test_output_free(&out);
    snprintf(path, sizeof path, "%s/big.txt", dir);
    assert_true(access(path, F_OK) == 0); /* refused inputs are left alone */
}

/* The page: report.html's rules (no script, a policy, text escaped). */
static void html_page(void **state)
{
    const char *dir = *state;
    char page[512];
    snprintf(page, sizeof page, "%s/t.html", dir);
    const char *args[] = {"trace", "--trainer", "linked-list", "--text", "a<b&c a<b&c \"x'",
                          "--html", page, NULL};
    test_output out;
    run_bpebench(args, &out);
    assert_true(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
    size_t len;
    char *html = test_slurp(page, &len);
    assert_non_null(html);
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<b&c"));
    assert_null(strstr(html, "href="));
    assert_non_null(strstr(html, "Content-Security-Policy"));
    assert_non_null(strstr(html, "&lt;"));
    size_t figures = 0;
    for (const char *f = strstr(html, "<figure"); f; f = strstr(f + 1, "<figure"))
        figures++;
    const char *said = strstr(out.out, "drawings, one per merge");
    assert_non_null(said);
    size_t merges = 0;
    for (const char *m = strstr(out.out, "\nmerge "); m; m = strstr(m + 1, "\nmerge "))
        merges++;
    assert_true(merges > 0);
    assert_int_equal(figures, merges);
    free(html);
    test_output_free(&out);

    /* --svg: the last merge's drawing, standalone, within the allowlist. */
    char svg_path[512];
    snprintf(svg_path, sizeof svg_path, "%s/m.svg", dir);
    const char *svg_args[] = {"trace", "--trainer", "heap", "--max-merges", "3", "--svg",
                              svg_path, NULL};
    run_bpebench(svg_args, &out);
    assert_true(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
    assert_non_null(strstr(out.out, "the drawing of merge 3\n"));
    char *svg = test_slurp(svg_path, &len), *clean, why[256];
    assert_non_null(svg);
    assert_true(strncmp(svg, "<svg width=\"1280\" ", strlen("<svg width=\"1280\" ")) == 0);
    assert_non_null(strstr(svg, "merge 3 of 3"));
    size_t clean_len;
    if (!svg_clean(svg, len, "t-", &clean, &clean_len, why, sizeof why))
        fail_msg("the drawing is refused by report.html's allowlist: %s", why);
    free(clean);
    free(svg);
    test_output_free(&out);
}

/* The traces docs/algorithms.md shows are the command's output today: for
 * each `build/bpebench trace ... --svg docs/trace/NAME.svg | sed -n '/^START/,/^$/p'`
 * line, the command is run (its drawing written to a temporary file), and
 * the text block under it must be the output's block from START to the first
 * empty line, and docs/trace/NAME.svg the drawing, byte for byte. */
static void docs_traces_are_current(void **state)
{
    const char *dir = *state;
    char svg[512];
    snprintf(svg, sizeof svg, "%s/d.svg", dir);
    char *doc = test_slurp("docs/algorithms.md", NULL);
    assert_non_null(doc);
    size_t checked = 0;
    for (char *at = strstr(doc, "\nbuild/bpebench trace "); at;
         at = strstr(at + 1, "\nbuild/bpebench trace ")) {
        char line[512], command[512], *args[16], *start, *end;
        size_t len = strcspn(at + 1, "\n");
        assert_true(len < sizeof line);
        memcpy(line, at + 1, len);
        line[len] = '\0';
        memcpy(command, line, len + 1);
        assert_non_null(start = strstr(line, " | sed -n '/^"));
        *start = '\0';
        start += strlen(" | sed -n '/^");
        assert_non_null(end = strstr(start, "/,/^$/p'"));
        *end = '\0';
        size_t n = 0;
        const char *doc_svg = NULL;
        for (char *word = strtok(line + strlen("build/bpebench "), " "); word && n < 15;
             word = strtok(NULL, " ")) {
            bool is_svg = n > 0 && strcmp(args[n - 1], "--svg") == 0;
            if (is_svg)
                doc_svg = word;
            args[n++] = is_svg ? svg : word;
        }
        args[n] = NULL;
        assert_non_null(doc_svg);
        test_output out;
        run_bpebench((const char *const *)args, &out);
        assert_true(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0);
        /* the output's block, and the doc's: the ``` block after the command's */
        char want_start[64];
        snprintf(want_start, sizeof want_start, "\n%s", start);
        const char *got = strstr(out.out, want_start), *got_end;
        assert_non_null(got);
        got++;
        assert_non_null(got_end = strstr(got, "\n\n"));
        const char *block = strstr(at + 1 + len, "```\n\n```\n");
        assert_non_null(block);
        block += strlen("```\n\n```\n");
        size_t got_len = (size_t)(got_end - got) + 1;
        if (strncmp(block, got, got_len) != 0 || strncmp(block + got_len, "```", 3) != 0)
            fail_msg("docs/algorithms.md: the trace under '%s' is not the command's output "
                     "today (run it and paste its block)", command);
        size_t want_len, have_len;
        char *want = test_slurp(doc_svg, &want_len), *have = test_slurp(svg, &have_len);
        if (!want || !have || want_len != have_len || memcmp(want, have, want_len) != 0)
            fail_msg("%s is not the drawing '%s' makes today (run it)", doc_svg, command);
        free(want);
        free(have);
        test_output_free(&out);
        checked++;
    }
    free(doc);
    size_t trainers = 0;
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        trainers++;
    assert_int_equal(checked, trainers); /* every lesson opens with one */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_trainer_has_a_describe_hook),
        cmocka_unit_test(traces_are_the_runs_themselves),
        cmocka_unit_test(traces_of_random_tables),
        cmocka_unit_test_setup_teardown(golden_traces, test_setup_dir, test_teardown_dir),
        cmocka_unit_test_setup_teardown(merges_equal_train, test_setup_dir, test_teardown_dir),
        cmocka_unit_test(printed_counters_add_up),
        cmocka_unit_test_setup_teardown(limits_and_usage, test_setup_dir, test_teardown_dir),
        cmocka_unit_test_setup_teardown(html_page, test_setup_dir, test_teardown_dir),
        cmocka_unit_test_setup_teardown(docs_traces_are_current, test_setup_dir, test_teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
