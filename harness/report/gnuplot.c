/*
 * gnuplot.c — see gnuplot.h. The child process's file descriptors:
 *   0 /dev/null, 1 and 2 its messages (an unnamed file we read afterwards),
 *   3 the variables, 4 the data, 5 the PNG, 6 the SVG (unnamed files);
 * its command line is `gnuplot /dev/fd/3 SCRIPT`.
 */
#define _POSIX_C_SOURCE 200809L
#include "report/gnuplot.h"

#include "base/errors.h"
#include "base/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ============================================================ quoting */

char *gnuplot_quote(const char *value, char *err, size_t err_len)
{
    size_t quotes = 0, len = strlen(value);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)value[i];
        if (c < 0x20 || c == 0x7F) {
            set_error(err, err_len, "byte 0x%02X at offset %zu is a control character, which "
                                    "gnuplot cannot be given", c, i);
            return NULL;
        }
        quotes += c == '\'';
    }
    /* q quotes as "'" (3 bytes each), at most q + 1 runs 'run' (2 bytes each
     * besides the text), at most 2q dots between pieces, and the NUL. */
    char *text = malloc(len + 7 * quotes + 3);
    if (!text) {
        set_error(err, err_len, "out of memory");
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < len || at == 0;) {
        if (at > 0)
            text[at++] = '.';
        if (i < len && value[i] == '\'') { /* one quote: "'" */
            memcpy(text + at, "\"'\"", 3);
            at += 3;
            i++;
            continue;
        }
        size_t run = strcspn(value + i, "'"); /* a run without quotes: 'run' */
        text[at++] = '\'';
        memcpy(text + at, value + i, run);
        at += run;
        text[at++] = '\'';
        i += run;
    }
    text[at] = '\0';
    return text;
}

bool gnuplot_set_string(FILE *vars, const char *name, const char *value, char *err,
                        size_t err_len)
{
    char why[128];
    char *expr = gnuplot_quote(value, why, sizeof why);
    if (!expr)
        return set_error(err, err_len, "%s \"%s\": %s", name, value, why);
    fprintf(vars, "%s=%s\n", name, expr);
    free(expr);
    return true;
}

/* ============================================================ files */

void gnuplot_images_free(gnuplot_images *img)
{
    free(img->png);
    free(img->svg);
    memset(img, 0, sizeof *img);
}

/* Reads the whole of an unnamed file another process wrote, from its start
 * and through the descriptor (our FILE buffer knows nothing of what was
 * written), into *out (malloc'd, NUL-terminated). False on OOM or a read
 * error. O(size). */
static bool read_back(FILE *f, char **out, size_t *len)
{
    int fd = fileno(f);
    struct stat st;
    *out = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0 || !(*out = malloc((size_t)st.st_size + 1)))
        return false;
    size_t done = 0, want = (size_t)st.st_size;
    bool ok = lseek(fd, 0, SEEK_SET) == 0 && read_full(fd, *out, want, &done);
    (*out)[done] = '\0';
    *len = done;
    return ok && done == want;
}

/* Whether a PNG ends with its IEND chunk, as a whole one does: gnuplot does
 * not always fail when a write does (a file size limit, a full disk). */
static bool png_complete(const char *png, size_t len)
{
    static const char iend[12] = "\0\0\0\0IEND\xAE\x42\x60\x82";
    return len >= 20 && memcmp(png, "\x89PNG", 4) == 0 && memcmp(png + len - 12, iend, 12) == 0;
}

/* Whether an SVG ends with its closing tag (then only blank lines). */
static bool svg_complete(const char *svg, size_t len)
{
    while (len > 0 && (svg[len - 1] == '\n' || svg[len - 1] == ' '))
        len--;
    return len >= 6 && memcmp(svg + len - 6, "</svg>", 6) == 0;
}

/* The last non-empty line of gnuplot's messages (what its error says). */
static void last_line(const char *text, size_t len, char *out, size_t out_len)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t start = len;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    snprintf(out, out_len, "%.*s", (int)(len - start), text + start);
}

/* ============================================================ the child */

enum { N_CHILD_FILES = 4 }; /* variables, data, PNG, SVG: descriptors 3 to 6 */

/* In the child: arranges the descriptors and runs gnuplot. Never returns. */
static void exec_gnuplot(pid_t parent, const char *script, FILE *const files[N_CHILD_FILES],
                         FILE *messages)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(126); /* the report is gone already */
    /* Moved above 10 first, so that no dup2 below overwrites a source. */
    int moved[N_CHILD_FILES], msg = fcntl(fileno(messages), F_DUPFD, 10);
    for (int i = 0; i < N_CHILD_FILES; i++)
        moved[i] = fcntl(fileno(files[i]), F_DUPFD, 10);
    int null = open("/dev/null", O_RDONLY);
    if (msg < 0 || null < 0 || dup2(null, 0) < 0 || dup2(msg, 1) < 0 || dup2(msg, 2) < 0)
        _exit(126);
    for (int i = 0; i < N_CHILD_FILES; i++)
        if (moved[i] < 0 || dup2(moved[i], 3 + i) < 0)
            _exit(126);
    if (chdir("/") != 0)
        _exit(126);
    execlp("gnuplot", "gnuplot", "/dev/fd/3", script, (char *)NULL);
    _exit(127);
}

/* Waits for the child; false with the reason when gnuplot failed. */
static bool wait_gnuplot(pid_t pid, const char *script, FILE *messages, char *err, size_t err_len)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return set_error(err, err_len, "waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return set_error(err, err_len, "cannot run gnuplot; install it (Debian: gnuplot-nox)");
    if (WIFSIGNALED(status))
        return set_error(err, err_len, "gnuplot was killed by signal %d (%s) drawing %s",
                         WTERMSIG(status), strsignal(WTERMSIG(status)), script);
    char *text, last[512];
    size_t len;
    bool read = read_back(messages, &text, &len);
    last_line(read ? text : "", read ? len : 0, last, sizeof last);
    free(text);
    return set_error(err, err_len, "gnuplot failed on %s: %s", script,
                     last[0] ? last : "(no message)");
}

/* Writes the variables gnuplot_draw adds, then the caller's. */
static bool write_vars(FILE *f, const char *script, const char *vars, size_t vars_len, char *err,
                       size_t err_len)
{
    char plotdir[PATH_MAX];
    size_t dir_len = (size_t)(strrchr(script, '/') - script);
    if (dir_len >= sizeof plotdir)
        return set_error(err, err_len, "%s: path too long", script);
    memcpy(plotdir, script, dir_len);
    plotdir[dir_len] = '\0';
    char why[512];
    if (!gnuplot_set_string(f, "plotdir", plotdir, why, sizeof why))
        return set_error(err, err_len, "the plots directory cannot be passed to gnuplot: %s; "
                                       "move the source tree", why);
    fprintf(f, "datafile='/dev/fd/4'\npngfile='/dev/fd/5'\nsvgfile='/dev/fd/6'\n");
    fwrite(vars, 1, vars_len, f);
    if (fflush(f) != 0 || ferror(f))
        return set_error(err, err_len, "cannot write gnuplot's variables: %s", strerror(errno));
    return true;
}

bool gnuplot_draw(const char *script, const char *vars, size_t vars_len, const char *data,
                  size_t data_len, gnuplot_images *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (script[0] != '/')
        return set_error(err, err_len, "%s: the script's path must be absolute", script);
    FILE *files[N_CHILD_FILES] = {tmpfile(), tmpfile(), tmpfile(), tmpfile()};
    FILE *messages = tmpfile();
    bool ok = files[0] && files[1] && files[2] && files[3] && messages;
    if (!ok)
        set_error(err, err_len, "cannot create a temporary file: %s", strerror(errno));
    ok = ok && write_vars(files[0], script, vars, vars_len, err, err_len);
    if (ok && (fwrite(data, 1, data_len, files[1]) != data_len || fflush(files[1]) != 0))
        ok = set_error(err, err_len, "cannot write gnuplot's data: %s", strerror(errno));
    if (ok) {
        fflush(stdout);
        fflush(stderr);
        pid_t parent = getpid(), pid = fork();
        if (pid == 0)
            exec_gnuplot(parent, script, files, messages);
        ok = pid > 0 ? wait_gnuplot(pid, script, messages, err, err_len)
                     : set_error(err, err_len, "fork: %s", strerror(errno));
    }
    if (ok && (!read_back(files[2], &out->png, &out->png_len) ||
               !read_back(files[3], &out->svg, &out->svg_len)))
        ok = set_error(err, err_len, "cannot read back the images gnuplot drew: %s",
                       strerror(errno));
    if (ok && (!png_complete(out->png, out->png_len) || !svg_complete(out->svg, out->svg_len)))
        ok = set_error(err, err_len, "gnuplot left an incomplete image drawing %s (a file size "
                                     "limit? a full /tmp?)", script);
    for (int i = 0; i < N_CHILD_FILES; i++)
        if (files[i])
            fclose(files[i]);
    if (messages)
        fclose(messages);
    if (!ok)
        gnuplot_images_free(out);
    return ok;
}
