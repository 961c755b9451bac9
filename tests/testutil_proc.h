/* testutil_proc.h — the binary under test run as a child process: limits, what it
 * printed, one-line errors; how far a child has read a file. */
#ifndef BPE_TESTUTIL_PROC_H
#define BPE_TESTUTIL_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Sleeps `ms` milliseconds, resuming after signals. */
void sleep_ms(long ms);

/* A program started by test_start. */
typedef struct {
    pid_t pid; /* the child */
    FILE *out; /* its stdout: an unnamed file */
    FILE *err; /* its stderr: an unnamed file */
} test_child;

/* What it did, once test_finish has waited for it. */
typedef struct {
    int status;     /* as from waitpid */
    char *out;      /* its stdout, NUL-terminated; malloc'd */
    char *err;      /* its stderr, NUL-terminated; malloc'd */
    long maxrss_kb; /* its peak resident set (ru_maxrss; Linux keeps the peak across exec) */
} test_output;

/* What a child of test_start_bpebench gets before exec; all zero: nothing. */
typedef struct {
    unsigned long file_size;     /* RLIMIT_FSIZE in bytes, 0 for none */
    unsigned long address_space; /* RLIMIT_AS in bytes, 0 for none */
    bool ignore_sigxfsz;         /* so that a write past file_size fails with EFBIG instead */
    unsigned alarm_s;            /* SIGALRM after this many seconds (a hang fails), 0 for none */
    int stdin_fd;                /* standard input from this descriptor; 0: /dev/null */
    void (*in_child)(void);      /* runs last, just before exec (variables); NULL: nothing */
} test_limits;

/* Starts argv[0] (a path) with argv (NULL-terminated) in directory cwd (NULL:
 * ours), with stdin from /dev/null and default signal actions; in_child (or
 * NULL) runs in the child just before exec, to set limits or variables. */
test_child test_start(const char *const *argv, const char *cwd, void (*in_child)(void));

/* Starts the binary under test with args (NULL-terminated, without the
 * program name) in directory cwd, as test_start does, under `limits` (NULL:
 * none). */
test_child test_start_bpebench(const char *const *args, const char *cwd, const test_limits *limits);

/* Waits for the child (resuming after signals) and collects what it did. */
void test_finish(test_child *c, test_output *out);
void test_output_free(test_output *out);
/* test_start_bpebench, then test_finish: runs the binary under test to the
 * end and returns what it did (free it with test_output_free). */
test_output test_run_bpebench(const char *const *args, const char *cwd, const test_limits *limits);
/* Its exit status, or -1 when a signal ended it (a crash, a hang's alarm). */
int test_exit_status(const test_output *out);
/* Runs the binary under test with args in our directory and returns its
 * exit status (test_exit_status), what it printed thrown away. */
int test_run_status(const char *const *args);

/* Exit status `code` (not a signal: a hang or a crash) and exactly one line
 * on stderr, "bpebench: ..." or "bpebench COMMAND: ...", holding every key
 * of the NULL-terminated keys; stdout unchecked (compare prints its table,
 * then fails). `what` names the run when the test fails. */
void assert_one_line_stderr(const test_output *out, int code, const char *const *keys,
                            const char *what);
/* A run that failed as bpebench fails: assert_one_line_stderr, and nothing
 * on stdout. */
void assert_failed_run(const test_output *out, int code, const char *const *keys,
                       const char *what);
/* assert_failed_run with the one key `needle`. */
void assert_one_line_error(const test_output *out, int code, const char *needle);
/* A run that succeeded: exit 0 and nothing on stderr. */
void assert_succeeded_run(const test_output *out, const char *what);

/* The binary under test: $BPEBENCH (set by make test-run), else
 * build/bpebench, as an absolute path (children may chdir). */
const char *test_bpebench(void);

/* Where process pid has got to in reading `path` (its file offset, from
 * /proc/PID/fdinfo), or -1 when the file is not open in it (yet, or any
 * more). */
long long test_read_position(pid_t pid, const char *path);

/* Whether the tests (and so the binary under test, built with the same
 * flags) run under AddressSanitizer, which reserves terabytes of address
 * space (no address-space limit there) and makes resident sizes larger. */
extern const bool test_under_asan;

#endif
