/* clobber.c — see clobber.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/clobber.h"
#include "base/errors.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Which file a path reaches. */
typedef struct {
    dev_t dev;        /* its device */
    ino_t ino;        /* its inode on that device */
    bool is_dir;      /* a directory (whose files an input stands for) */
    const char *name; /* the path as the user gave it, or "- (standard input)"; borrowed */
} file_ref;

/* What a path that may not exist yet leads to. */
typedef enum {
    PLACE_EXISTS,  /* an existing file: *ref says which */
    PLACE_NEW,     /* a directory `mkdir -p` would create: nothing in it is an input */
    PLACE_UNKNOWN, /* cannot be examined: the command reports that itself */
} place;

static bool stat_ref(const char *path, const char *name, file_ref *ref)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    *ref = (file_ref){st.st_dev, st.st_ino, S_ISDIR(st.st_mode), name};
    return true;
}

static bool same_file(const file_ref *a, const file_ref *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/*
 * Where directory path `dir` leads, as out_dir_prepare (mkdir -p, one
 * prefix at a time) and the final open resolve it: components are followed
 * while they exist (the kernel resolves links and `..`); from the first
 * missing one on, they are new directories, and a `..` leaves one of them,
 * so `a/new/../b` is a/b. O(length) stats.
 */
static place resolve_dir(const char *dir, const char *name, file_ref *ref)
{
    if (stat_ref(dir, name, ref))
        return PLACE_EXISTS;
    char real[PATH_MAX];
    size_t len = strlen(dir), at = 0, new_depth = 0;
    if (len >= sizeof real)
        return PLACE_UNKNOWN;
    if (dir[0] == '/')
        real[at++] = '/';
    real[at] = '\0';
    for (size_t i = 0; i < len;) {
        size_t n = strcspn(dir + i, "/");
        const char *c = dir + i;
        i += n + 1;
        bool dotdot = n == 2 && memcmp(c, "..", 2) == 0;
        if (n == 0 || (n == 1 && c[0] == '.'))
            continue;
        if (new_depth > 0) {
            new_depth = dotdot ? new_depth - 1 : new_depth + 1;
            continue;
        }
        size_t kept = at;
        if (at > 0 && real[at - 1] != '/')
            real[at++] = '/';
        memcpy(real + at, c, n);
        at += n;
        real[at] = '\0';
        struct stat st;
        if (stat(real, &st) == 0)
            continue;
        if (errno != ENOENT)
            return PLACE_UNKNOWN;
        real[at = kept] = '\0';
        new_depth = 1;
    }
    if (new_depth > 0)
        return PLACE_NEW;
    return stat_ref(at ? real : ".", name, ref) ? PLACE_EXISTS : PLACE_UNKNOWN;
}

/* The directory a file path is in, lexically (trailing slashes dropped):
 * "a/b" → "a", "b" → ".", "/b" → "/". False when it does not fit. */
static bool parent_of(const char *path, char *out, size_t out_len)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    while (len > 0 && path[len - 1] != '/')
        len--;
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *dir = len == 0 ? "." : path;
    size_t dir_len = len == 0 ? 1 : len;
    if (dir_len >= out_len)
        return false;
    memcpy(out, dir, dir_len);
    out[dir_len] = '\0';
    return true;
}

/* The inputs as files: each named input (standard input when it is a
 * regular file) and each file read. Paths that cannot be examined are
 * skipped. *refs is malloc'd. */
static bool input_refs(const clobber_paths *p, file_ref **refs, size_t *n, char *err,
                       size_t err_len)
{
    *n = 0;
    *refs = malloc((p->n_inputs + p->n_read + 1) * sizeof **refs);
    if (!*refs)
        return set_error(err, err_len, "out of memory");
    for (size_t i = 0; i < p->n_inputs + p->n_read; i++) {
        const char *path = i < p->n_inputs ? p->inputs[i] : p->read[i - p->n_inputs];
        struct stat st;
        if (strcmp(path, "-") == 0) {
            if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode))
                (*refs)[(*n)++] = (file_ref){st.st_dev, st.st_ino, false, "- (standard input)"};
        } else if (stat_ref(path, path, &(*refs)[*n])) {
            (*n)++;
        }
    }
    return true;
}

/* An output file must not be an input, nor go into an input directory. */
static bool output_file_ok(const char *out, const file_ref *in, size_t n_in, char *err,
                           size_t err_len)
{
    char dir[PATH_MAX];
    file_ref where, target;
    if (parent_of(out, dir, sizeof dir) && resolve_dir(dir, dir, &where) == PLACE_EXISTS)
        for (size_t i = 0; i < n_in; i++)
            if (in[i].is_dir && same_file(&where, &in[i]))
                return set_error(err, err_len, "%s: this output would go into the input "
                                 "directory %s, every file of which is read, so it would "
                                 "replace an input or be read as one next time; write it "
                                 "outside %s", out, in[i].name, in[i].name);
    if (stat_ref(out, out, &target))
        for (size_t i = 0; i < n_in; i++)
            if (same_file(&target, &in[i]))
                return set_error(err, err_len, "%s: this output and the input %s are the "
                                 "same file, which writing it would replace; write the output "
                                 "elsewhere", out, in[i].name);
    return true;
}

/* Whether input `path` lies directly in directory `dir`, as named or where
 * a symbolic link leads. */
static bool input_lies_in(const char *path, const file_ref *dir)
{
    char parent[PATH_MAX], *real;
    file_ref ref;
    if (strcmp(path, "-") == 0)
        return false;
    if (parent_of(path, parent, sizeof parent) && stat_ref(parent, parent, &ref) &&
        same_file(&ref, dir))
        return true;
    bool inside = false;
    if ((real = realpath(path, NULL)) != NULL) {
        inside = parent_of(real, parent, sizeof parent) && stat_ref(parent, parent, &ref) &&
                 same_file(&ref, dir);
        free(real);
    }
    return inside;
}

/* A directory of output files named later must not be an input directory,
 * nor hold an input. */
static bool output_dir_ok(const clobber_paths *p, const char *out, const file_ref *in,
                          size_t n_in, char *err, size_t err_len)
{
    file_ref dir;
    if (resolve_dir(out, out, &dir) != PLACE_EXISTS)
        return true;
    for (size_t i = 0; i < n_in; i++)
        if (in[i].is_dir && same_file(&dir, &in[i]))
            return set_error(err, err_len, "%s: this output directory is the input directory "
                             "%s, every file of which is read; choose another output directory",
                             out, in[i].name);
    for (size_t i = 0; i < p->n_inputs + p->n_read; i++) {
        const char *path = i < p->n_inputs ? p->inputs[i] : p->read[i - p->n_inputs];
        if (input_lies_in(path, &dir))
            return set_error(err, err_len, "%s: this output directory holds the input %s, "
                             "which a file written there under a name chosen as it goes could "
                             "replace; move the input or choose another output directory", out,
                             path);
    }
    return true;
}

bool clobber_check(const clobber_paths *p, char *err, size_t err_len)
{
    file_ref *in;
    size_t n_in;
    if (!input_refs(p, &in, &n_in, err, err_len))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < p->n_outputs; i++)
        ok = output_file_ok(p->outputs[i], in, n_in, err, err_len);
    for (size_t i = 0; ok && i < p->n_output_dirs; i++)
        ok = output_dir_ok(p, p->output_dirs[i], in, n_in, err, err_len);
    free(in);
    return ok;
}
