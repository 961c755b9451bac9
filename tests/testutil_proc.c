/* testutil_proc.c — see testutil_proc.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"

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
    if (limits->in_child)
        limits->in_child();
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

test_output test_run_bpebench(const char *const *args, const char *cwd, const test_limits *limits)
{
    test_child c = test_start_bpebench(args, cwd, limits);
    test_output out;
    test_finish(&c, &out);
    return out;
}

int test_exit_status(const test_output *out)
{
    return WIFEXITED(out->status) ? WEXITSTATUS(out->status) : -1;
}

int test_run_status(const char *const *args)
{
    test_output out = test_run_bpebench(args, NULL, NULL);
    int status = test_exit_status(&out);
    test_output_free(&out);
    return status;
}

void test_output_free(test_output *out)
{
    free(out->out);
    free(out->err);
    memset(out, 0, sizeof *out);
}

/* Whether a line starts "bpebench: " or "bpebench COMMAND: ". */
static bool names_bpebench(const char *line)
{
    if (strncmp(line, "bpebench", 8) != 0)
        return false;
    line += 8;
    if (*line == ' ')
        line += 1 + strspn(line + 1, "abcdefghijklmnopqrstuvwxyz");
    return line[0] == ':' && line[1] == ' ';
}

void assert_one_line_stderr(const test_output *out, int code, const char *const *keys,
                            const char *what)
{
    if (!WIFEXITED(out->status))
        fail_msg("%s: killed by signal %d (a hang?); stderr: %s", what, WTERMSIG(out->status),
                 out->err);
    if (WEXITSTATUS(out->status) != code)
        fail_msg("%s: exit %d, expected %d; stderr: %s", what, WEXITSTATUS(out->status), code,
                 out->err);
    const char *nl = strchr(out->err, '\n');
    if (!names_bpebench(out->err) || !nl || nl[1])
        fail_msg("%s: stderr is not one \"bpebench: ...\" line: \"%s\"", what, out->err);
    for (size_t k = 0; keys[k]; k++)
        if (!strstr(out->err, keys[k]))
            fail_msg("%s: stderr lacks \"%s\": %s", what, keys[k], out->err);
}

void assert_failed_run(const test_output *out, int code, const char *const *keys,
                       const char *what)
{
    assert_one_line_stderr(out, code, keys, what);
    if (out->out[0])
        fail_msg("%s: a failed run printed on stdout: %s", what, out->out);
}

void assert_one_line_error(const test_output *out, int code, const char *needle)
{
    assert_failed_run(out, code, (const char *const[]){needle, NULL}, needle);
}

void assert_succeeded_run(const test_output *out, const char *what)
{
    if (!WIFEXITED(out->status) || WEXITSTATUS(out->status) != 0 || out->err[0])
        fail_msg("%s: expected success, got status 0x%x; stderr: %s", what, out->status,
                 out->err);
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
