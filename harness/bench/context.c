/*
 * context.c — the "context" block of results.json: where and how the
 * numbers were measured (date, host, CPU model, cores, compiler and flags,
 * git commit, dataset checksums). Without it two results files cannot be
 * compared honestly: a different CPU or compiler explains a ratio better
 * than any code change.
 *
 * Sources: /proc/cpuinfo, sysconf, __VERSION__, BPE_CFLAGS (passed by the
 * Makefile), git's HEAD of the source tree the binary was built from (run
 * without a shell, never in the current directory), and that tree's
 * datasets/MANIFEST.tsv (base/treefile.h; none, no checksums).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/results.h"
#include "array.h"
#include "base/errors.h"
#include "base/treefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BPE_CFLAGS
#define BPE_CFLAGS "unknown (built without the Makefile)"
#endif

#if defined(__clang__)
#define COMPILER_NAME "clang "
#elif defined(__GNUC__)
#define COMPILER_NAME "gcc "
#else
#define COMPILER_NAME ""
#endif

/* The first line `git -C SOURCE_TREE ARGS...` prints (trailing newline
 * removed), or NULL. No shell, and git runs in the tree the binary was built
 * from, never in the current directory: a repository someone sent could
 * configure git to run commands (core.fsmonitor, hooks). */
static char *git_first_line(const char *const *args)
{
    const char *argv[8] = {"git", "-C", tree_root()};
    size_t n = 3;
    for (; args[n - 3] && n < sizeof argv / sizeof *argv - 1; n++)
        argv[n] = args[n - 3];
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(null, 2) < 0)
            _exit(127);
        close(fds[0]);
        execvp("git", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char *out = NULL;
    FILE *p = pid > 0 ? fdopen(fds[0], "r") : NULL;
    char line[256];
    if (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = '\0';
        out = strdup(line);
    }
    if (p)
        fclose(p); /* closes fds[0] */
    else
        close(fds[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return out;
}

/* "abcdef123456" (with "-dirty" when tracked files changed), or "unknown". */
static char *git_commit(void)
{
    char *head = git_first_line((const char *const[]){"rev-parse", "--short=12", "HEAD", NULL});
    if (!head || !*head) {
        free(head);
        return strdup("unknown");
    }
    char *dirty = git_first_line(
        (const char *const[]){"status", "--porcelain", "--untracked-files=no", NULL});
    if (dirty && *dirty) {
        size_t n = strlen(head) + sizeof "-dirty";
        char *h = malloc(n);
        if (h)
            snprintf(h, n, "%s-dirty", head);
        free(head);
        head = h;
    }
    free(dirty);
    return head;
}

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        v += strspn(v, " \t");
        v[strcspn(v, "\r\n")] = '\0';
        fclose(f);
        return strdup(v);
    }
    if (f)
        fclose(f);
    return strdup("unknown");
}

static char *now_iso8601(void)
{
    char buf[64];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
    return strdup(buf);
}

/* argv joined with spaces. */
static char *join_argv(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* Index of `name` among the tab-separated fields of a header line, or -1. */
static int tsv_column(const char *header, const char *name)
{
    int col = 0;
    size_t len = strlen(name);
    for (const char *p = header;; col++) {
        size_t field = strcspn(p, "\t\r\n");
        if (field == len && strncmp(p, name, len) == 0)
            return col;
        if (p[field] != '\t')
            return -1;
        p += field + 1;
    }
}

/* A copy of field `col` of a tab-separated line, or NULL. */
static char *tsv_field(const char *line, int col)
{
    const char *p = line;
    for (int c = 0; c < col; c++) {
        p = strchr(p, '\t');
        if (!p)
            return NULL;
        p++;
    }
    return strndup(p, strcspn(p, "\t\r\n"));
}

/* Reads (path, sha256) pairs from the manifest. A missing file is not an
 * error (the list stays empty). O(size of the manifest). */
static bool read_manifest(bench_context *c, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    char *line = NULL;
    size_t cap = 0;
    bool ok = true;
    int path_col = -1, sha_col = -1;
    if (getline(&line, &cap, f) > 0) {
        path_col = tsv_column(line, "path");
        sha_col = tsv_column(line, "sha256");
    }
    if (path_col < 0 || sha_col < 0)
        ok = set_error(err, err_len, "%s: first line must name the columns \"path\" and \"sha256\"",
                       path);
    while (ok && getline(&line, &cap, f) > 0) {
        if (line[0] == '\n' || line[0] == '#')
            continue;
        bench_dataset *d = bpe_array_reserve(c->datasets, &c->cap_datasets, c->n_datasets + 1,
                                             sizeof *d);
        if (!d) {
            ok = set_error(err, err_len, "out of memory reading %s", path);
            break;
        }
        c->datasets = d;
        d = &c->datasets[c->n_datasets];
        d->path = tsv_field(line, path_col);
        d->sha256 = tsv_field(line, sha_col);
        if (!d->path || !d->sha256) {
            free(d->path);
            free(d->sha256);
            ok = set_error(err, err_len, "%s: line %zu has fewer columns than the header", path,
                           c->n_datasets + 2);
            break;
        }
        c->n_datasets++;
    }
    free(line);
    fclose(f);
    return ok;
}

bool context_collect(bench_context *c, int argc, char **argv, double time_limit_s, char *err,
                     size_t err_len)
{
    memset(c, 0, sizeof *c);
    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    c->date = now_iso8601();
    c->host = strdup(host);
    c->cpu = cpu_model();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->cores = cores > 0 ? (int)cores : 0;
    c->compiler = strdup(COMPILER_NAME __VERSION__);
    c->cflags = strdup(BPE_CFLAGS);
    c->git_commit = git_commit();
    c->command = join_argv(argc, argv);
    c->time_limit_s = time_limit_s;
    if (!c->date || !c->host || !c->cpu || !c->compiler || !c->cflags || !c->git_commit ||
        !c->command)
        return set_error(err, err_len, "out of memory collecting the benchmark context");
    char manifest[PATH_MAX];
    if (!tree_locate("datasets/MANIFEST.tsv", manifest, sizeof manifest))
        return true;
    return read_manifest(c, manifest, err, err_len);
}
