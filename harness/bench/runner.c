/*
 * runner.c — one benchmark repetition per forked process.
 *
 * Why a process per run: the peak resident set size (ru_maxrss) is a
 * per-process high-water mark that never goes down. Measured in one long
 * process, every run after the largest would report the largest run's peak.
 * A fresh child starts from the parent's small footprint, so wait4() gives
 * the run's own peak. A child is also easy to stop: past the time limit the
 * parent kills it and records `timeout`.
 *
 * Protocol. The parent makes a pipe and forks. The child runs run_training()
 * (the same code `bpebench train` runs), writes its merge list to an unnamed
 * file the parent made (for the first-difference report when digests
 * disagree), serializes its measurements as one results.json record
 * (record_to_json, so there is one serializer) to the pipe, and leaves with
 * _exit(). The parent reads the pipe with poll() against a deadline; at end
 * of file it reaps the child with wait4(), whose rusage carries ru_maxrss; at
 * the deadline it sends SIGKILL first. The child asks the kernel for SIGKILL
 * when its parent dies (PR_SET_PDEATHSIG), so a benchmark killed by a signal
 * never leaves a run going on without it; and since the child's only
 * outputs are the pipe and an unnamed file, nothing it made stays behind.
 *
 * The input probe is a second kind of child: it only reads and counts the
 * corpus slice and builds the trainers' view of the word table, then reads
 * VmRSS from /proc/self/status. That is the part of every run's memory that
 * belongs to the shared input; the rest of a run's peak is the trainer's.
 * (run.h runs counting and training in one call with no hook in between, so
 * the split is measured in a separate process of the same shape.)
 *
 * Costs: one fork + exec-free child per repetition (a few milliseconds);
 * the pipe carries O(1) numbers, or O(m) with a per-merge profile.
 */
#define _DEFAULT_SOURCE /* wait4 (rusage of a child) */
#include "bench/runner.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/fdio.h"
#include "base/signals.h"
#include "array.h"
#include "run/output.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ============================================================ child side */

/* Serializes a JSON value to fd and ends the child: exit status 0 when the
 * message was delivered. Never returns. */
static void child_send_and_exit(int fd, cJSON *msg)
{
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
    bool ok = text && write_full(fd, text, strlen(text)) == strlen(text);
    free(text);
    cJSON_Delete(msg);
    close(fd);
    _exit(ok ? 0 : 3);
}

bool runner_write_merge_list(FILE *list, const bpe_result *r, bool with_counts, char *err,
                             size_t err_len)
{
    size_t cap = 0, len = 0;
    char *buf = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < r->n_merges; i++) {
        char *a = output_token_string(&r->vocab, r->merges[i].left);
        char *b = output_token_string(&r->vocab, r->merges[i].right);
        ok = a && b;
        size_t need = ok ? strlen(a) + strlen(b) + 32 : 0;
        char *grown = ok ? bpe_array_reserve(buf, &cap, len + need, 1) : NULL;
        ok = grown != NULL;
        if (ok)
            buf = grown;
        if (ok)
            len += with_counts ? (size_t)snprintf(buf + len, cap - len, "%s %s %llu\n", a, b,
                                                  (unsigned long long)r->merges[i].count)
                               : (size_t)snprintf(buf + len, cap - len, "%s %s\n", a, b);
        free(a);
        free(b);
    }
    if (!ok)
        set_error(err, err_len, "out of memory writing the merge list");
    else if (write_full(fileno(list), buf, len) < len)
        ok = set_error(err, err_len, "writing the merge list to a temporary file: %s",
                       strerror(errno));
    free(buf);
    return ok;
}

/* Copies the trainer's counters with their names. O(counters). */
static void record_set_counters(bench_record *rec, const bpe_trainer *t, const bpe_counters *c)
{
    rec->n_counters = 0;
    for (int i = 0; i < BPE_MAX_COUNTERS && t->counter_names[i]; i++) {
        snprintf(rec->counters[i].name, sizeof rec->counters[i].name, "%s", t->counter_names[i]);
        rec->counters[i].value = c->value[i];
        rec->n_counters++;
    }
}

/* Copies the per-merge profile (time and A_i). False on OOM. O(m). */
static bool record_set_profile(bench_record *rec, const run_outcome *out)
{
    size_t m = out->result.n_merges;
    if (!out->merge_seconds || m == 0)
        return true;
    rec->profile_seconds = malloc(m * sizeof *rec->profile_seconds);
    rec->profile_affected = malloc(m * sizeof *rec->profile_affected);
    if (!rec->profile_seconds || !rec->profile_affected)
        return false;
    for (size_t i = 0; i < m; i++) {
        rec->profile_seconds[i] = out->merge_seconds[i];
        rec->profile_affected[i] = out->result.merges[i].words_affected;
    }
    rec->n_profile = m;
    return true;
}

/* Everything one finished run measured, as a record with one repetition. */
static bool record_from_outcome(bench_record *rec, const run_config *cfg, const run_outcome *out)
{
    rec->status = STATUS_OK;
    snprintf(rec->trainer, sizeof rec->trainer, "%s", cfg->trainer->name);
    rec->corpus_bytes = out->corpus.bytes;
    rec->pretokens = out->corpus.pretokens;
    rec->words_distinct = out->words_distinct;
    rec->symbols = out->symbols;
    rec->word_table_bytes = out->word_table_bytes;
    rec->vocab_size = cfg->vocab_size;
    rec->max_merges = out->max_merges;
    rec->merges = out->result.n_merges;
    rec->exhausted = out->result.exhausted;
    rec->digest = bpe_merges_digest(&out->result);
    rec->has_digest = true;
    record_set_counters(rec, cfg->trainer, &out->result.counters);
    return record_add_rep(rec, &out->times) && record_set_profile(rec, out);
}

/* The child of runner_run. Never returns. */
static void run_child(const runner_job *job, int fd)
{
    bench_record rec;
    memset(&rec, 0, sizeof rec);
    run_outcome out;
    char err[sizeof rec.error];
    if (!run_training(job->cfg, &out, err, sizeof err)) {
        rec.status = STATUS_ERROR;
        snprintf(rec.error, sizeof rec.error, "%s", err);
    } else {
        if (!record_from_outcome(&rec, job->cfg, &out)) {
            rec.status = STATUS_ERROR;
            snprintf(rec.error, sizeof rec.error, "out of memory after training");
        } else if (job->merges_out &&
                   !runner_write_merge_list(job->merges_out, &out.result, true, err,
                                            sizeof err)) {
            rec.status = STATUS_ERROR;
            snprintf(rec.error, sizeof rec.error, "%s", err);
        }
        run_outcome_free(&out);
    }
    cJSON *msg = record_to_json(&rec);
    record_free(&rec);
    child_send_and_exit(fd, msg);
}

/* A "VmXXX:   1234 kB" line of /proc/self/status, in bytes (0 if absent). */
static uint64_t proc_status_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    size_t klen = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            kb = strtoull(line + klen + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return kb * 1024;
}

/* The child of runner_probe_input: counts the input as every run does
 * (run_count_input) and sends its record_add_input fields. Never returns. */
static void probe_child(const run_config *cfg, int fd)
{
    char err[512];
    run_input in;
    cJSON *msg = cJSON_CreateObject();
    if (!run_count_input(cfg, &in, err, sizeof err)) {
        cJSON_AddStringToObject(msg, "error", err);
        child_send_and_exit(fd, msg);
    }
    bench_record input = {
        .corpus_bytes = in.corpus.bytes,
        .pretokens = in.corpus.pretokens,
        .words_distinct = in.view.n_words,
        .symbols = in.view.n_symbols,
        .pairs_initial = words_initial_pairs(&in.view),
        .word_table_bytes = in.memory_bytes,
        .input_rss_bytes = proc_status_bytes("VmRSS"),
    };
    words_script_bytes(&in.view, input.script_bytes);
    if (input.pairs_initial == UINT64_MAX)
        cJSON_AddStringToObject(msg, "error", "out of memory counting the initial pairs");
    else if (!record_add_input(msg, &input))
        cJSON_AddStringToObject(msg, "error", "out of memory reporting the input");
    run_input_free(&in);
    child_send_and_exit(fd, msg);
}

/* ============================================================ parent side */

/* Room for more bytes at the end of rep->text. With a bound (`keep` > 0)
 * the buffer holds 2·keep bytes, and when it is full its last `keep` bytes
 * move to the front, the older ones dropped: each byte moves at most once,
 * so O(1) per byte read, and the memory stays O(keep) however much is
 * written. Without one it grows. False on OOM. */
static bool make_room(runner_child_report *rep, size_t *cap, size_t keep)
{
    if (keep == 0) {
        char *text = bpe_array_reserve(rep->text, cap, rep->len + 65536, 1);
        rep->text = text ? text : rep->text;
        return text != NULL;
    }
    if (!rep->text && !(rep->text = malloc(*cap = 2 * keep + 1)))
        return false;
    if (rep->len + 1 == *cap) {
        memmove(rep->text, rep->text + rep->len - keep, keep);
        rep->len = keep;
    }
    return true;
}

/* Reads fd until end of file, the deadline (≤ 0: none) or a stop the
 * caller asks for (stop may be NULL; then *stopped is set), keeping all of
 * it, or its last `keep` bytes. False on OOM or a read error. Not read_full
 * (fdio.h) but read_some: it polls, so that the deadline holds while the
 * child writes nothing. */
static bool read_pipe(int fd, double deadline, size_t keep, const runner_stop *stop,
                      bool *stopped, runner_child_report *rep)
{
    size_t cap = 0;
    for (;;) {
        int wait_ms = -1;
        if (deadline > 0) {
            double left = deadline - clock_now();
            if (left <= 0) {
                rep->timed_out = true;
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        if (stop && stop->requested(stop->ctx)) {
            *stopped = true;
            break;
        }
        if (stop && (wait_ms < 0 || wait_ms > RUNNER_STOP_POLL_MS))
            wait_ms = RUNNER_STOP_POLL_MS;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, wait_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return false;
        if (r == 0)
            continue; /* the deadline and stop checks above decide */
        if (!make_room(rep, &cap, keep))
            return false;
        ssize_t n = read_some(fd, rep->text + rep->len, cap - rep->len - 1);
        if (n < 0)
            return false;
        if (n == 0)
            break;
        rep->len += (size_t)n;
    }
    char *text = bpe_array_reserve(rep->text, &cap, rep->len + 1, 1);
    if (!text)
        return false;
    rep->text = text;
    rep->text[rep->len] = '\0';
    return true;
}

/* runner_in_child, and with `stop` runner_in_child_stoppable. */
static bool in_child(void (*body)(const void *arg, int fd), const void *arg, double time_limit_s,
                     bool untrusted, const runner_stop *stop, bool *stopped,
                     runner_child_report *rep, char *err, size_t err_len)
{
    memset(rep, 0, sizeof *rep);
    int fds[2];
    if (pipe(fds) != 0) {
        return set_error(err, err_len, "pipe: %s", strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    double deadline = time_limit_s > 0 ? clock_now() + time_limit_s : 0;
    pid_t parent = getpid();
    sigset_t saved;
    signals_hold(&saved); /* the reaper is registered before a signal can see it */
    pid_t pid = fork();
    if (pid < 0) {
        signals_release(&saved);
        set_error(err, err_len, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        /* A signal removes what the child registered, as in the CLI, whatever
         * handler the parent had (the Python binding's parent has Python's).
         * A stoppable child is stopped with SIGTERM: that one it must not
         * inherit ignored (a parent started by `nohup … &` ignores it). */
        if (stop)
            signal(SIGTERM, SIG_DFL);
        bool handled = signals_install_cleanup();
        signals_release(&saved);
        /* Die with the parent; if it is already gone, do not start. */
        if (!handled || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent ||
            (untrusted && setpgid(0, 0) != 0))
            _exit(5);
        close(fds[0]);
        body(arg, fds[1]);
        _exit(4); /* body never returns */
    }
    close(fds[1]);
    if (untrusted) {
        setpgid(pid, pid); /* also here, so that the group exists before anything else */
        signals_track_reaper(pid); /* asked to stop if a signal stops us */
    }
    signals_release(&saved);
    bool ok = read_pipe(fds[0], deadline, untrusted ? RUNNER_TAIL_BYTES : 0, stop, stopped, rep);
    if (!ok || rep->timed_out)
        kill(pid, untrusted ? SIGTERM : SIGKILL); /* the reaper kills what it started */
    else if (stop && *stopped)
        kill(pid, SIGTERM);
    close(fds[0]);
    struct rusage ru;
    while (wait4(pid, &rep->wait_status, 0, &ru) < 0)
        if (errno != EINTR) {
            return set_error(err, err_len, "wait4: %s", strerror(errno));
        }
    rep->maxrss = (uint64_t)ru.ru_maxrss * 1024; /* Linux reports kilobytes */
    if (untrusted) {
        signals_hold(&saved);
        signals_untrack_reaper(pid);
        signals_release(&saved);
    }
    if (!ok)
        return set_error(err, err_len, "out of memory or read error collecting a child's report");
    return true;
}

bool runner_in_child(void (*body)(const void *arg, int fd), const void *arg, double time_limit_s,
                     bool untrusted, runner_child_report *rep, char *err, size_t err_len)
{
    return in_child(body, arg, time_limit_s, untrusted, NULL, NULL, rep, err, err_len);
}

bool runner_in_child_stoppable(void (*body)(const void *arg, int fd), const void *arg,
                               const runner_stop *stop, bool *stopped, runner_child_report *rep,
                               char *err, size_t err_len)
{
    *stopped = false;
    return in_child(body, arg, 0, false, stop, stopped, rep, err, err_len);
}

/* Why a child that did not time out gave no usable report, or NULL if it exited 0. */
static const char *child_failure(const runner_child_report *rep, char *buf, size_t len)
{
    int st = rep->wait_status;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return NULL;
    if (WIFSIGNALED(st))
        snprintf(buf, len, "the run's process was killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "the run's process exited with status %d", WEXITSTATUS(st));
    return buf;
}

static void run_child_thunk(const void *arg, int fd)
{
    run_child(arg, fd);
}

bool runner_run(const runner_job *job, bench_record *rec, char *err, size_t err_len)
{
    runner_child_report rep;
    memset(rec, 0, sizeof *rec);
    if (!runner_in_child(run_child_thunk, job, job->time_limit_s, false, &rep, err, err_len)) {
        free(rep.text);
        return false;
    }
    char why[256];
    const char *failure = rep.timed_out ? NULL : child_failure(&rep, why, sizeof why);
    if (rep.timed_out) {
        rec->status = STATUS_TIMEOUT;
    } else if (failure) {
        rec->status = STATUS_ERROR;
        snprintf(rec->error, sizeof rec->error, "%s", failure);
    } else {
        cJSON *msg = cJSON_ParseWithLength(rep.text, rep.len);
        char perr[256];
        if (!msg || !record_from_json(msg, rec, perr, sizeof perr)) {
            rec->status = STATUS_ERROR;
            snprintf(rec->error, sizeof rec->error, "unreadable report from the run's process%s%s",
                     msg ? ": " : "", msg ? perr : "");
        }
        cJSON_Delete(msg);
    }
    snprintf(rec->trainer, sizeof rec->trainer, "%s", job->cfg->trainer->name);
    rec->vocab_size = job->cfg->vocab_size;
    rec->time_limit_s = job->time_limit_s;
    rec->peak_rss_bytes = rep.maxrss;
    free(rep.text);
    return true;
}

static void probe_child_thunk(const void *arg, int fd)
{
    probe_child(arg, fd);
}

bool runner_probe_input(const run_config *cfg, double time_limit_s, bench_record *input,
                        char *err, size_t err_len)
{
    runner_child_report rep;
    memset(input, 0, sizeof *input);
    if (!runner_in_child(probe_child_thunk, cfg, time_limit_s, false, &rep, err, err_len)) {
        free(rep.text);
        return false;
    }
    char why[256];
    const char *failure = child_failure(&rep, why, sizeof why);
    cJSON *msg = rep.timed_out || failure ? NULL : cJSON_ParseWithLength(rep.text, rep.len);
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");
    bool ok = false;
    if (rep.timed_out)
        set_error(err, err_len, "reading the input took longer than %.0f s", time_limit_s);
    else if (failure)
        set_error(err, err_len, "input probe: %s", failure);
    else if (!msg)
        set_error(err, err_len, "input probe: unreadable report");
    else if (error)
        set_error(err, err_len, "%s", cJSON_IsString(error) ? error->valuestring : "input error");
    else
        ok = record_read_input(msg, input, err, err_len);
    cJSON_Delete(msg);
    free(rep.text);
    return ok;
}
