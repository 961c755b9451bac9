/*
 * _bpebench.c — the C half of the Python package (harness/python/README.md):
 * a CPython extension over the library, as thin as it can be. Python does
 * the rest (bpebench/__init__.py turns what comes back into CS336's types).
 *
 * Each call that trains or counts runs in a child process of its own
 * (runner_in_child_stoppable, bench/runner.h), the child doing what the CLI
 * does with the library's entry points (run/run.h, run/output.h), and the
 * parent waiting with the GIL released:
 *   - Ctrl-C: Python's handler only sets a flag, which the waiting parent
 *     looks at every 50 ms (PyErr_CheckSignals); then the child gets SIGTERM,
 *     removes what it made (signals.h, as `bpebench train` does) and dies,
 *     and the call raises KeyboardInterrupt (or what the handler raised).
 *     Prompt in every phase, with no flag for the library to poll;
 *   - the child's memory (the word table, the trainer's structures) goes
 *     back to the system when it ends, and a crash ends the child, not the
 *     interpreter.
 * The child sends a fixed header (child_report) and then, for train_bpe,
 * its merges as bpe_merge records and, for count_words, its words; both
 * sides are the same binary, so the records go as they are in memory.
 * `check` runs in process: its trainer is a Python callable, called back
 * with the GIL held, between C steps that run without it.
 *
 * Ownership: every Python object made here is returned or released before
 * the function returns; the parent frees its C memory on every path, and a
 * child's goes with it when it ends (_exit).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first: it sets the feature macros */

#include "bench/check.h"
#include "bench/grid.h"
#include "bench/runner.h"
#include "run/output.h"
#include "run/run.h"
#include "tools/datatools.h"
#include "run/train.h"
#include "base/clobber.h"
#include "base/errors.h"
#include "base/fdio.h"
#include "base/byteunicode.h"
#include "base/treefile.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static PyObject *bpe_error;   /* bpebench.BpeError: a failure, with the CLI's one-line reason */
static PyObject *usage_error; /* bpebench.UsageError (also a ValueError): a bad argument */

/* ------------------------------------------------------------- requests */

/* What Python asks for, as the library takes it. The strings point into the
 * Python objects of the call's arguments, which outlive the request. */
typedef struct {
    const char **inputs;        /* corpus files or directories, as given; malloc'd array */
    size_t n_inputs;            /* entries in inputs */
    const char **specials;      /* the special tokens (UTF-8); malloc'd array */
    pretok_config pretok;       /* specials, pattern, invalid-UTF-8 mode */
    const bpe_trainer *trainer; /* train, train_bpe: which trainer */
    uint64_t vocab_size;        /* train, train_bpe: V (with vocab_sizes: the largest) */
    uint64_t vocab_sizes[TRAIN_MAX_VOCAB_SIZES]; /* train given a list: every V, ascending */
    size_t n_vocab_sizes;       /* entries in vocab_sizes; 0: one V, one set in out */
    unsigned threads;           /* threads counting and setting up (≥ 1) */
    const char *out;            /* train: the directory; count: the word-count file; or NULL */
} request;

static void request_free(request *q)
{
    free(q->inputs);
    free(q->specials);
    memset(q, 0, sizeof *q);
}

/* Raises `kind` with the one-line message; returns NULL for the caller's return. */
static void *raise_message(PyObject *kind, const char *message)
{
    PyErr_SetString(kind, message);
    return NULL;
}

/*
 * Fills q from the arguments every training or counting call shares:
 * inputs (a list of bytes: paths), specials (a list of str), the pattern,
 * "error" or "bytes", threads (0: every online core), out (bytes or None).
 * Checks what the CLI checks before it reads anything: the special tokens
 * (output_special_token_ok) and that the pattern compiles. False with an
 * exception set.
 */
static bool request_parse(PyObject *inputs, PyObject *specials, const char *pattern,
                          const char *invalid_utf8, unsigned threads, PyObject *out, request *q)
{
    memset(q, 0, sizeof *q);
    char err[1024];
    Py_ssize_t n_in = PyList_GET_SIZE(inputs), n_sp = PyList_GET_SIZE(specials);
    if (n_in < 1)
        return raise_message(usage_error, "give at least one input file or directory");
    q->inputs = calloc((size_t)n_in, sizeof *q->inputs);
    q->specials = calloc((size_t)n_sp + 1, sizeof *q->specials);
    if (!q->inputs || !q->specials) {
        request_free(q);
        PyErr_NoMemory();
        return false;
    }
    for (Py_ssize_t i = 0; i < n_in; i++)
        if (!(q->inputs[q->n_inputs++] = PyBytes_AsString(PyList_GET_ITEM(inputs, i)))) {
            request_free(q);
            return false;
        }
    for (Py_ssize_t i = 0; i < n_sp; i++) {
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(specials, i), &len);
        if (s && (size_t)len != strlen(s))
            PyErr_SetString(usage_error, "a special token holds a NUL character");
        else if (s && !output_special_token_ok(s, err, sizeof err))
            PyErr_SetString(usage_error, err);
        if (PyErr_Occurred()) {
            request_free(q);
            return false;
        }
        q->specials[i] = s;
    }
    q->pretok = (pretok_config){.specials = q->specials, .n_specials = (size_t)n_sp,
                                .pattern = pattern};
    if (strcmp(invalid_utf8, "bytes") == 0)
        q->pretok.invalid_utf8 = INVALID_UTF8_BYTES;
    else if (strcmp(invalid_utf8, "error") != 0)
        PyErr_Format(usage_error, "bad invalid_utf8 '%s': use error or bytes", invalid_utf8);
    if (!PyErr_Occurred() && threads > COUNT_MAX_THREADS)
        PyErr_Format(usage_error, "bad threads %u: give 1 to %d", threads, COUNT_MAX_THREADS);
    if (!PyErr_Occurred() && out != Py_None)
        q->out = PyBytes_AsString(out); /* NULL: the exception is set */
    pretokenizer *compiled = PyErr_Occurred() ? NULL : pretok_new(&q->pretok, err, sizeof err);
    if (compiled)
        pretok_free(compiled);
    else if (!PyErr_Occurred())
        PyErr_SetString(usage_error, err);
    if (PyErr_Occurred()) {
        request_free(q);
        return false;
    }
    q->threads = threads ? threads : count_online_cores();
    return true;
}

/* A list of sizes (train's vocab_size=[...]) into q->vocab_sizes, checked
 * and sorted as the CLI's --vocab-size list (train_sort_vocab_sizes); each
 * item is a whole number ≥ 0 (the Python side checked its type). False
 * with an exception set. */
static bool request_vocab_sizes(request *q, PyObject *sizes)
{
    char err[256];
    Py_ssize_t n = PyList_GET_SIZE(sizes);
    for (Py_ssize_t i = 0; i < n && i < TRAIN_MAX_VOCAB_SIZES; i++) {
        q->vocab_sizes[i] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(sizes, i));
        if (PyErr_Occurred())
            return false;
    }
    q->n_vocab_sizes = (size_t)n;
    if (!train_sort_vocab_sizes(q->vocab_sizes, (size_t)n, err, sizeof err)) {
        q->n_vocab_sizes = 0;
        return raise_message(usage_error, err);
    }
    return true;
}

/* The trainer and V of a training request: vocab is one V (an int) or, for
 * train, a list of them (every size checked against S, as train_run does);
 * false with an exception set. */
static bool request_training(request *q, const char *trainer, PyObject *vocab)
{
    char err[256];
    uint64_t max_merges;
    q->trainer = trainer ? bpe_trainer_find(trainer) : bpe_default_trainer;
    if (!q->trainer) {
        PyErr_Format(usage_error, "unknown trainer '%s'; bpebench.trainers() lists them",
                     trainer);
        return false;
    }
    if (PyList_Check(vocab)) {
        if (!request_vocab_sizes(q, vocab))
            return false;
        q->vocab_size = q->vocab_sizes[q->n_vocab_sizes - 1];
    } else if ((q->vocab_size = PyLong_AsUnsignedLongLong(vocab)), PyErr_Occurred()) {
        return false;
    }
    uint64_t smallest = q->n_vocab_sizes ? q->vocab_sizes[0] : q->vocab_size;
    if (!run_check_settings(&q->pretok, NULL, smallest, &max_merges, err, sizeof err))
        PyErr_SetString(usage_error, err);
    return !PyErr_Occurred();
}

/* The run of a request, as `bpebench train` configures it. */
static run_config request_config(const request *q, char *const *files, size_t n_files)
{
    return (run_config){.files = files, .n_files = n_files, .pretok = q->pretok,
                        .counting = count_strategy_default(), .threads = q->threads,
                        .trainer = q->trainer, .vocab_size = q->vocab_size};
}

/* ------------------------------------------------------------- the child */

/* How a child's work ended. */
enum { CHILD_DONE, CHILD_FAILED, CHILD_REFUSED /* the request is wrong: exit 2 in the CLI */ };

/* What a child sends first; records may follow (n_records of them). */
typedef struct {
    int status;                 /* CHILD_DONE, CHILD_FAILED or CHILD_REFUSED */
    char message[2 * PATH_MAX]; /* not done: the one-line reason, as the CLI prints it */
    size_t n_files;             /* corpus files read */
    pretok_stats corpus;        /* n, pretokens, specials cut out, ... */
    uint64_t words_distinct;    /* W */
    uint64_t symbols;           /* M */
    unsigned threads_used;      /* threads that counted */
    uint64_t max_merges;        /* V − 256 − S */
    uint64_t n_merges;          /* m */
    bool exhausted;             /* stopped early: no pair left */
    run_times times;            /* seconds per phase */
    uint64_t n_records;         /* bpe_merge records (train_bpe) or words (count) that follow */
} child_report;

/* The head of one word of count_words' records; its bytes follow. */
typedef struct {
    uint64_t count; /* occurrences */
    uint32_t len;   /* bytes that follow */
} word_record;

/* Sends the report and `len` bytes of records, and ends the child. */
_Noreturn static void child_send(int fd, child_report *h, const void *records, size_t len)
{
    if (h->status != CHILD_DONE)
        h->n_records = 0, len = 0;
    bool sent = write_full(fd, h, sizeof *h) == sizeof *h && write_full(fd, records, len) == len;
    _exit(sent ? 0 : 3);
}

/* The summary fields of a finished run. */
static void report_outcome(child_report *h, const run_outcome *o, size_t n_files)
{
    h->n_files = n_files;
    h->corpus = o->corpus;
    h->words_distinct = o->words_distinct;
    h->symbols = o->symbols;
    h->threads_used = o->counting.threads_used;
    h->max_merges = o->max_merges;
    h->n_merges = o->result.n_merges;
    h->exhausted = o->result.exhausted;
    h->times = o->times;
}

/* train_bpe's child: list, count, train (run_training); sends the merges. */
static void train_bpe_child(const void *arg, int fd)
{
    const request *q = arg;
    child_report h = {.status = CHILD_FAILED};
    char **files = NULL;
    size_t n_files = 0;
    run_outcome o = {0};
    if (corpus_list_files(q->inputs, q->n_inputs, &files, &n_files, h.message,
                          sizeof h.message)) {
        run_config cfg = request_config(q, files, n_files);
        if (run_training(&cfg, &o, h.message, sizeof h.message)) {
            report_outcome(&h, &o, n_files);
            h.n_records = o.result.n_merges;
            h.status = CHILD_DONE;
        }
    }
    child_send(fd, &h, o.result.merges, h.n_records * sizeof *o.result.merges);
}

/* train's child: `bpebench train`'s one call (run/train.h): list the
 * inputs, refuse outputs that reach one, prepare DIR, count, train, write
 * the tokenizer files as one set, settle DIR. */
static void train_child(const void *arg, int fd)
{
    const request *q = arg;
    child_report h = {.status = CHILD_FAILED};
    train_request req = {.inputs = q->inputs, .n_inputs = q->n_inputs, .trainer = q->trainer,
                         .vocab_size = q->vocab_size,
                         .vocab_sizes = q->n_vocab_sizes ? q->vocab_sizes : NULL,
                         .n_vocab_sizes = q->n_vocab_sizes, .pretok = q->pretok,
                         .threads = q->threads, .out_dir = q->out};
    train_outcome o;
    run_verdict verdict = train_run(&req, &o, h.message, sizeof h.message);
    if (verdict == RUN_OK) {
        report_outcome(&h, &o.run, o.n_files);
        h.status = CHILD_DONE;
        train_outcome_free(&o);
    } else if (verdict == RUN_REFUSED) {
        h.status = CHILD_REFUSED;
    }
    child_send(fd, &h, NULL, 0);
}

/* count_words' child: the flow of `bpebench count` (with an output file),
 * then every word as a word_record and its bytes. */
static void count_child(const void *arg, int fd)
{
    const request *q = arg;
    child_report h = {.status = CHILD_FAILED};
    char **files = NULL;
    size_t n_files = 0;
    run_input in;
    const char *const outputs[] = {q->out};
    if (!corpus_list_files(q->inputs, q->n_inputs, &files, &n_files, h.message,
                           sizeof h.message))
        child_send(fd, &h, NULL, 0);
    clobber_paths paths = {.inputs = q->inputs, .n_inputs = q->n_inputs,
                           .read = (const char *const *)files, .n_read = n_files,
                           .outputs = outputs, .n_outputs = q->out ? 1 : 0};
    if (!clobber_check(&paths, h.message, sizeof h.message)) {
        h.status = CHILD_REFUSED;
        child_send(fd, &h, NULL, 0);
    }
    run_config cfg = request_config(q, files, n_files);
    if (!run_count_input(&cfg, &in, h.message, sizeof h.message) ||
        (q->out && !wordcount_write_file(q->out, &in.view, pretok_pattern_source(q->pretok.pattern),
                                         q->pretok.specials, q->pretok.n_specials, h.message,
                                         sizeof h.message)))
        child_send(fd, &h, NULL, 0);
    h.status = CHILD_DONE;
    h.n_files = n_files;
    h.corpus = in.corpus;
    h.words_distinct = h.n_records = in.view.n_words;
    h.symbols = in.view.n_symbols;
    h.threads_used = in.counting.threads_used;
    h.times.read = in.read_seconds;
    h.times.pretokenize = in.pretokenize_seconds;
    h.times.total = in.read_seconds + in.pretokenize_seconds;
    FILE *pipe = fdopen(fd, "wb");
    bool sent = pipe && fwrite(&h, sizeof h, 1, pipe) == 1;
    for (size_t i = 0; sent && i < in.view.n_words; i++) {
        const bpe_word *w = &in.view.words[i];
        word_record r = {.count = w->count, .len = w->len};
        sent = fwrite(&r, sizeof r, 1, pipe) == 1 && fwrite(w->bytes, 1, w->len, pipe) == w->len;
    }
    _exit(sent && fflush(pipe) == 0 ? 0 : 3);
}

/* ------------------------------------------------------------- the parent */

/* The waiting parent's view of Python: its thread state while the GIL is
 * released, and whether a signal handler raised meanwhile. */
typedef struct {
    PyThreadState *released; /* from PyEval_SaveThread */
    bool raised;             /* PyErr_CheckSignals raised (KeyboardInterrupt): stop the child */
} python_wait;

/* runner_stop's question: takes the GIL, lets Python run its signal
 * handlers, gives the GIL back. */
static bool python_signal_raised(void *ctx)
{
    python_wait *w = ctx;
    PyEval_RestoreThread(w->released);
    w->raised = PyErr_CheckSignals() != 0;
    w->released = PyEval_SaveThread();
    return w->raised;
}

/*
 * Runs body(q) in a child with the GIL released and checks how it ended.
 * On success rep->text holds a child_report (*report points to it) and its
 * records; free rep->text. False with an exception set: the one the signal
 * handler raised, KeyboardInterrupt when the child died of SIGINT (Ctrl-C
 * reaches the terminal's whole process group), UsageError or BpeError with
 * the child's message.
 */
static bool run_in_child(void (*body)(const void *, int), const request *q,
                         runner_child_report *rep, const child_report **report)
{
    python_wait w = {.released = PyEval_SaveThread()};
    runner_stop stop = {.requested = python_signal_raised, .ctx = &w};
    bool stopped = false;
    char err[512];
    bool ran = runner_in_child_stoppable(body, q, &stop, &stopped, rep, err, sizeof err);
    PyEval_RestoreThread(w.released);
    int st = rep->wait_status;
    const child_report *h = (const child_report *)rep->text;
    if (w.raised) {
        /* the handler's exception is set */
    } else if (!ran)
        PyErr_SetString(bpe_error, err);
    else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    else if (WIFSIGNALED(st))
        PyErr_Format(bpe_error, "the process doing the work was killed by signal %d (%s)",
                     WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || rep->len < sizeof *h)
        PyErr_Format(bpe_error, "the process doing the work ended with status %d and no report "
                     "(out of memory?)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    else if (h->status != CHILD_DONE)
        PyErr_SetString(h->status == CHILD_REFUSED ? usage_error : bpe_error, h->message);
    if (PyErr_Occurred()) {
        free(rep->text);
        rep->text = NULL;
        return false;
    }
    *report = h;
    return true;
}

/* The summary of a report as a dict; NULL with an exception. */
static PyObject *summary_dict(const request *q, const child_report *h)
{
    return Py_BuildValue(
        "{s:s,s:K,s:K,s:K,s:O,s:n,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:I,s:d,s:d,s:d,s:d,s:d}",
        "trainer", q->trainer ? q->trainer->name : "", "vocab_size",
        (unsigned long long)q->vocab_size, "merges", (unsigned long long)h->n_merges,
        "max_merges", (unsigned long long)h->max_merges, "exhausted",
        h->exhausted ? Py_True : Py_False, "files", (Py_ssize_t)h->n_files, "bytes",
        (unsigned long long)h->corpus.bytes, "pretokens", (unsigned long long)h->corpus.pretokens,
        "specials_cut", (unsigned long long)h->corpus.specials, "invalid_runs",
        (unsigned long long)h->corpus.invalid_runs, "unmatched_bytes",
        (unsigned long long)h->corpus.unmatched_bytes, "words",
        (unsigned long long)h->words_distinct, "symbols", (unsigned long long)h->symbols,
        "threads", h->threads_used, "read_s", h->times.read, "pretokenize_s",
        h->times.pretokenize, "setup_s", h->times.setup, "merge_s", h->times.merge, "total_s",
        h->times.total);
}

/*
 * Parses a call's arguments into q: inputs, specials, pattern, invalid_utf8,
 * threads and out (request_parse), then, for a training, the trainer's name
 * (or None) and V, an int or a list of them (request_training). False with
 * an exception set.
 */
static bool parse_call(PyObject *args, bool training, request *q)
{
    PyObject *inputs, *specials, *out;
    const char *pattern, *invalid, *trainer = NULL;
    unsigned threads;
    PyObject *vocab = NULL;
    bool parsed = training ? PyArg_ParseTuple(args, "O!O!ssIOzO", &PyList_Type, &inputs,
                                              &PyList_Type, &specials, &pattern, &invalid,
                                              &threads, &out, &trainer, &vocab)
                           : PyArg_ParseTuple(args, "O!O!ssIO", &PyList_Type, &inputs,
                                              &PyList_Type, &specials, &pattern, &invalid,
                                              &threads, &out);
    if (!parsed || !request_parse(inputs, specials, pattern, invalid, threads, out, q))
        return false;
    if (training && !request_training(q, trainer, vocab)) {
        request_free(q);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------- functions */

PyDoc_STRVAR(train_bpe_doc,
             "train_bpe(inputs, specials, pattern, invalid_utf8, threads, out, trainer, "
             "vocab_size)\n--\n\n"
             "Trains in a child process. Returns (tokens, merges, summary): every token's "
             "bytes by trainer id (0-255 the bytes, 256 + i merge i), each merge as (left id, "
             "right id, count), and the run's summary dict.");

/* Appends item (a new reference, or NULL after a failure) to list, and
 * lets go of it; false with an exception set. */
static bool append_new(PyObject *list, PyObject *item)
{
    bool appended = item && PyList_Append(list, item) == 0;
    Py_XDECREF(item);
    return appended;
}

/* train_bpe's answer from its child's report of `len` bytes: (tokens,
 * merges, summary); NULL with an exception set. The tokens' bytes come
 * from replaying the merges on a vocabulary (bpe_vocab_add_merge). */
static PyObject *training_result(const request *q, const child_report *h, size_t len)
{
    const bpe_merge *merges = (const bpe_merge *)(h + 1);
    if (len != sizeof *h + h->n_records * sizeof *merges)
        return raise_message(bpe_error, "a malformed report from the training process");
    bpe_vocab vocab;
    if (!bpe_vocab_init(&vocab))
        return PyErr_NoMemory();
    PyObject *tokens = PyList_New(0), *pairs = PyList_New(0), *summary = summary_dict(q, h);
    bool ok = tokens && pairs && summary;
    for (uint32_t t = 0; ok && t < BPE_BYTE_TOKENS + h->n_records; t++) {
        const bpe_merge *m = t < BPE_BYTE_TOKENS ? NULL : &merges[t - BPE_BYTE_TOKENS];
        if (m && bpe_vocab_add_merge(&vocab, m->left, m->right) == BPE_NO_TOKEN) {
            PyErr_NoMemory();
            ok = false;
            break;
        }
        ok = (!m || append_new(pairs, Py_BuildValue("(IIK)", m->left, m->right,
                                                    (unsigned long long)m->count))) &&
             append_new(tokens, PyBytes_FromStringAndSize(
                                    (const char *)bpe_vocab_bytes(&vocab, t), vocab.len[t]));
    }
    PyObject *result = ok ? PyTuple_Pack(3, tokens, pairs, summary) : NULL;
    Py_XDECREF(tokens);
    Py_XDECREF(pairs);
    Py_XDECREF(summary);
    bpe_vocab_free(&vocab);
    return result;
}

static PyObject *py_train_bpe(PyObject *self, PyObject *args)
{
    (void)self;
    request q;
    if (!parse_call(args, true, &q))
        return NULL;
    if (q.n_vocab_sizes) { /* bpebench.train_bpe says why, before it calls */
        request_free(&q);
        return raise_message(usage_error, "train_bpe takes one vocab_size");
    }
    runner_child_report rep = {0};
    const child_report *h;
    PyObject *result = run_in_child(train_bpe_child, &q, &rep, &h)
                           ? training_result(&q, h, rep.len)
                           : NULL;
    free(rep.text);
    request_free(&q);
    return result;
}

PyDoc_STRVAR(train_doc,
             "train(inputs, specials, pattern, invalid_utf8, threads, out_dir, trainer, "
             "vocab_size)\n--\n\n"
             "`bpebench train` in a child process: writes the tokenizer files into out_dir "
             "(all of them or none) and returns the run's summary dict. vocab_size is one V "
             "or a list of them (`--vocab-size V1,V2,...`): one run to the largest, a set "
             "per size in out_dir/V/; the summary is the largest's.");

static PyObject *py_train(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *summary = NULL;
    request q;
    char err[4 * PATH_MAX];
    if (!parse_call(args, true, &q))
        return NULL;
    runner_child_report rep = {0};
    const child_report *h;
    if (!q.out || !*q.out)
        PyErr_SetString(usage_error, "out_dir is empty; give a directory");
    else if (!output_dir_fits(q.out, err, sizeof err))
        PyErr_SetString(usage_error, err);
    else if (run_in_child(train_child, &q, &rep, &h))
        summary = summary_dict(&q, h);
    free(rep.text);
    request_free(&q);
    return summary;
}

PyDoc_STRVAR(count_words_doc,
             "count_words(inputs, specials, pattern, invalid_utf8, threads, out)\n--\n\n"
             "Counts the words in a child process (and writes them to the word-count file out, "
             "when given, as `bpebench count --out`). Returns (words, summary): a list of "
             "(bytes, count) in first-seen order and the summary dict.");

static PyObject *py_count_words(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *result = NULL;
    request q;
    if (!parse_call(args, false, &q))
        return NULL;
    runner_child_report rep = {0};
    const child_report *h;
    if (q.out && !*q.out) {
        PyErr_SetString(usage_error, "out is empty; give a file name");
    } else if (run_in_child(count_child, &q, &rep, &h)) {
        PyObject *words = PyList_New(0), *summary = summary_dict(&q, h);
        const char *at = rep.text + sizeof *h, *end = rep.text + rep.len;
        bool ok = words && summary;
        for (uint64_t i = 0; ok && i < h->n_records; i++) {
            word_record r;
            if ((size_t)(end - at) < sizeof r ||
                (memcpy(&r, at, sizeof r), (size_t)(end - at - sizeof r) < r.len)) {
                PyErr_SetString(bpe_error, "a malformed report from the counting process");
                ok = false;
                break;
            }
            ok = append_new(words, Py_BuildValue("(y#K)", at + sizeof r, (Py_ssize_t)r.len,
                                                 (unsigned long long)r.count));
            at += sizeof r + r.len;
        }
        result = ok ? PyTuple_Pack(2, words, summary) : NULL;
        Py_XDECREF(words);
        Py_XDECREF(summary);
    }
    free(rep.text);
    request_free(&q);
    return result;
}

PyDoc_STRVAR(trainers_doc, "trainers()\n--\n\n"
                           "The trainer registry: (name, idea, complexity, is_default) for each, "
                           "in teaching order.");

static PyObject *py_trainers(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && bpe_trainers[i]; i++) {
        const bpe_trainer *t = bpe_trainers[i];
        PyObject *row = Py_BuildValue("(sssO)", t->name, t->idea, t->complexity,
                                      t == bpe_default_trainer ? Py_True : Py_False);
        if (!row || PyList_Append(list, row) != 0)
            Py_CLEAR(list);
        Py_XDECREF(row);
    }
    return list;
}

PyDoc_STRVAR(slice_doc, "slice(inputs, max_bytes, specials, out)\n--\n\n"
                        "`bpebench slice`: the word-safe prefix of at most max_bytes bytes of the "
                        "inputs' concatenation, into the file out. Returns its length.");

static PyObject *py_slice(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *inputs, *specials;
    unsigned long long max_bytes;
    const char *out;
    request q;
    if (!PyArg_ParseTuple(args, "O!KO!y", &PyList_Type, &inputs, &max_bytes, &PyList_Type,
                          &specials, &out) ||
        !request_parse(inputs, specials, "gpt2", "error", 1, Py_None, &q))
        return NULL;
    char err[2 * PATH_MAX], **files = NULL;
    size_t n_files = 0, joined;
    uint64_t len = 0;
    bool ok;
    Py_BEGIN_ALLOW_THREADS
    ok = corpus_list_files(q.inputs, q.n_inputs, &files, &n_files, err, sizeof err) &&
         slice_files_to_path(files, n_files, max_bytes, q.specials, q.pretok.n_specials, out,
                             &len, &joined, err, sizeof err);
    Py_END_ALLOW_THREADS
    corpus_free_files(files, n_files);
    request_free(&q);
    if (!ok)
        return raise_message(bpe_error, err);
    return PyLong_FromUnsignedLongLong(len);
}

PyDoc_STRVAR(parse_size_doc, "parse_size(text)\n--\n\n"
                             "A slice size as `bench --sizes` reads it (500K, 5M, 1Gi, all): "
                             "(bytes, label), bytes 0 for all.");

static PyObject *py_parse_size(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *text = PyUnicode_AsUTF8(arg);
    grid_sizes sizes = {0};
    char err[256];
    if (!text)
        return NULL;
    if (strchr(text, ',') || !grid_parse_sizes(text, &sizes, err, sizeof err))
        return raise_message(usage_error, strchr(text, ',') ? "give one size" : err);
    PyObject *r = Py_BuildValue("(Ks)", (unsigned long long)sizes.items[0].bytes,
                                sizes.items[0].label);
    free(sizes.items);
    return r;
}

/* ------------------------------------------------------------- check */

/* `check` with a Python trainer. Its cases run in process with the GIL
 * released; the trainer and the observer are Python callables, called back
 * with the GIL taken again. */
typedef struct {
    PyObject *run_case;      /* run_case(files, V, specials, out_dir): None once it has written
                                out_dir/merges.txt, or a str saying why the case failed */
    PyObject *on_case;       /* on_case(dict): told of each case; true to go on */
    PyThreadState *released; /* this thread's state while the GIL is released */
    bool raised;             /* a Python exception is pending (Ctrl-C): stop, raise it */
} python_check;

/* A list of str from C strings (paths decoded as the file system does). */
static PyObject *str_list(const char *const *items, size_t n, bool paths)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *s = paths ? PyUnicode_DecodeFSDefault(items[i]) : PyUnicode_FromString(items[i]);
        if (!s)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

/* check_trainer.train for a Python trainer: run_case writes merges.txt,
 * read back as an external trainer's (external_read_merges). */
static bool python_train(void *ctx, const check_input *in, bpe_result *merges, char *why,
                         size_t why_len)
{
    python_check *c = ctx;
    char out_dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(out_dir, sizeof out_dir, "%s/out", in->work_dir);
    snprintf(path, sizeof path, "%s/merges.txt", out_dir);
    if (mkdir(out_dir, 0700) != 0)
        return set_error(why, why_len, "%s: cannot create: %s", out_dir, strerror(errno));
    PyEval_RestoreThread(c->released);
    PyObject *files = str_list((const char *const *)in->files, in->n_files, true);
    PyObject *specials = str_list(in->pretok.specials, in->pretok.n_specials, false);
    PyObject *r = files && specials && PyErr_CheckSignals() == 0
                      ? PyObject_CallFunction(c->run_case, "OKOs", files,
                                              (unsigned long long)in->vocab_size, specials,
                                              out_dir)
                      : NULL;
    bool ran = r == Py_None;
    if (!r)
        c->raised = true;
    else if (!ran)
        set_error(why, why_len, "%s", PyUnicode_Check(r) ? PyUnicode_AsUTF8(r) : "failed");
    Py_XDECREF(r);
    Py_XDECREF(files);
    Py_XDECREF(specials);
    c->released = PyEval_SaveThread();
    uint64_t max_merges;
    if (c->raised)
        return set_error(why, why_len, "interrupted");
    return ran &&
           run_check_settings(&in->pretok, NULL, in->vocab_size, &max_merges, why, why_len) &&
           external_read_merges(path, max_merges, merges, why, why_len);
}

/* Merge i of r as (left bytes, right bytes, count), the count None when it
 * could not be counted (UINT64_MAX: out of memory). */
static PyObject *pair_tuple(const bpe_result *r, size_t i, uint64_t count)
{
    const bpe_merge *m = &r->merges[i];
    const bpe_vocab *v = &r->vocab;
    PyObject *n = count == UINT64_MAX ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(count);
    return n ? Py_BuildValue("(y#y#N)", bpe_vocab_bytes(v, m->left), (Py_ssize_t)v->len[m->left],
                             bpe_vocab_bytes(v, m->right), (Py_ssize_t)v->len[m->right], n)
             : NULL;
}

/* A verdict as the dict on_case gets. */
static PyObject *verdict_dict(const check_verdict *v)
{
    const diagnosis *d = &v->diff;
    bool differs = v->compared && d->index >= 0;
    PyObject *want = differs && d->has_want ? pair_tuple(d->want, (size_t)d->index, d->want_count)
                                            : Py_NewRef(Py_None);
    PyObject *got = differs && d->has_got ? pair_tuple(d->got, (size_t)d->index, d->got_count)
                                          : Py_NewRef(Py_None);
    PyObject *dict = want && got
                         ? Py_BuildValue("{s:s,s:K,s:O,s:s,s:s,s:l,s:O,s:O,s:z}", "name",
                                         v->name, "vocab_size",
                                         (unsigned long long)v->vocab_size, "passed",
                                         v->passed ? Py_True : Py_False, "text", v->text,
                                         "input", v->input, "index", differs ? d->index : -1L,
                                         "expected", want, "got", got, "hint",
                                         differs ? d->hint : NULL)
                         : NULL;
    Py_XDECREF(want);
    Py_XDECREF(got);
    return dict;
}

/* check_observer.on_case: hands the verdict to Python's on_case. */
static bool python_on_case(void *ctx, const check_verdict *v)
{
    python_check *c = ctx;
    if (c->raised)
        return false;
    PyEval_RestoreThread(c->released);
    PyObject *dict = PyErr_CheckSignals() == 0 ? verdict_dict(v) : NULL;
    PyObject *r = dict ? PyObject_CallOneArg(c->on_case, dict) : NULL;
    int go_on = r ? PyObject_IsTrue(r) : -1;
    c->raised = go_on < 0;
    Py_XDECREF(dict);
    Py_XDECREF(r);
    c->released = PyEval_SaveThread();
    return go_on > 0;
}

PyDoc_STRVAR(check_doc,
             "check(trainer, data_dir, on_case)\n--\n\n"
             "`bpebench check`'s battery, in process, on a built-in trainer (its name) or on a "
             "Python trainer (run_case(files, vocab_size, specials, out_dir), which writes "
             "out_dir/merges.txt or returns why not). on_case(dict) is told of each case. "
             "Returns (failed, cases).");

static PyObject *py_check(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *trainer, *on_case;
    const char *data_dir;
    if (!PyArg_ParseTuple(args, "OyO", &trainer, &data_dir, &on_case))
        return NULL;
    python_check c = {.run_case = trainer, .on_case = on_case};
    check_trainer t = {.train = python_train, .ctx = &c, .name = "your trainer"};
    if (PyUnicode_Check(trainer)) {
        const bpe_trainer *builtin = bpe_trainer_find(PyUnicode_AsUTF8(trainer));
        if (!builtin)
            return PyErr_Format(usage_error, "unknown trainer '%U'; bpebench.trainers() lists "
                                "them", trainer);
        t = check_builtin(builtin);
    }
    check_observer observer = {.on_case = python_on_case, .ctx = &c};
    size_t failed = 0, cases = 0;
    char err[1024];
    c.released = PyEval_SaveThread();
    bool ran = check_run(&t, data_dir, NULL, &observer, &failed, &cases, err, sizeof err);
    PyEval_RestoreThread(c.released);
    if (c.raised)
        return NULL;
    if (!ran)
        return raise_message(bpe_error, err);
    return Py_BuildValue("(nn)", (Py_ssize_t)failed, (Py_ssize_t)cases);
}

/* The GPT-2 byte alphabet (base/byteunicode.h) as a str of 256 characters. */
static PyObject *gpt2_alphabet(void)
{
    char utf8[2 * 256], *at = utf8;
    for (unsigned b = 0; b < 256; b++)
        at += byte_to_unicode_utf8((uint8_t)b, at);
    return PyUnicode_FromStringAndSize(utf8, at - utf8);
}

/* ------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"train_bpe", py_train_bpe, METH_VARARGS, train_bpe_doc},
    {"train", py_train, METH_VARARGS, train_doc},
    {"count_words", py_count_words, METH_VARARGS, count_words_doc},
    {"trainers", py_trainers, METH_NOARGS, trainers_doc},
    {"slice", py_slice, METH_VARARGS, slice_doc},
    {"parse_size", py_parse_size, METH_O, parse_size_doc},
    {"check", py_check, METH_VARARGS, check_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bpebench",
    "The C library of bpebench, for the bpebench package (harness/python/).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bpebench(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    bpe_error = PyErr_NewExceptionWithDoc(
        "bpebench.BpeError", "A failure, with the one-line reason the command line prints.",
        NULL, NULL);
    PyObject *bases = bpe_error ? PyTuple_Pack(2, bpe_error, PyExc_ValueError) : NULL;
    usage_error = bases ? PyErr_NewExceptionWithDoc(
                              "bpebench.UsageError",
                              "A bad argument (the command line exits 2 for it).", bases, NULL)
                        : NULL;
    Py_XDECREF(bases);
    if (!usage_error || PyModule_AddObjectRef(m, "BpeError", bpe_error) != 0 ||
        PyModule_AddObjectRef(m, "UsageError", usage_error) != 0 ||
        PyModule_AddStringConstant(m, "source_dir", tree_root()) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *alphabet = gpt2_alphabet();
    int added = alphabet ? PyModule_AddObjectRef(m, "gpt2_alphabet", alphabet) : -1;
    Py_XDECREF(alphabet);
    if (added != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
