/* corpus.c — see corpus.h. */
#define _POSIX_C_SOURCE 200809L
#include "input/corpus.h"

#include "input/specials.h"

#include "array.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/fdio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* read() size: large enough to amortize, small for RSS; and the look-back of
 * a cut, so that the last read before a byte limit holds all of it. */
enum { CHUNK_BYTES = CORPUS_CUT_LOOKBACK };

void corpus_free_files(char **files, size_t n_files)
{
    for (size_t i = 0; files && i < n_files; i++)
        free(files[i]);
    free(files);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of `path` to the list. False on OOM. */
static bool push_file(char ***files, size_t *n, size_t *cap, const char *path)
{
    char **grown = bpe_array_reserve(*files, cap, *n + 1, sizeof *grown);
    if (!grown)
        return false;
    *files = grown;
    if (!((*files)[*n] = strdup(path)))
        return false;
    (*n)++;
    return true;
}

/* ------------------------------------------------------------- inputs */

/* What a path is, by the one rule for everything we might read. */
typedef enum {
    INPUT_FILE,      /* a regular file: read */
    INPUT_DIRECTORY, /* named: its regular files are read; inside a directory: skipped */
    INPUT_OTHER,     /* a FIFO, socket or device: never read (skipped inside a directory,
                      * refused when named: a FIFO can block for ever, /dev/zero never ends) */
} input_kind;

/* The kind of the file st describes; *what names it for a message. O(1). */
static input_kind input_kind_of(const struct stat *st, const char **what)
{
    *what = file_kind_name(st->st_mode);
    return S_ISREG(st->st_mode) ? INPUT_FILE : S_ISDIR(st->st_mode) ? INPUT_DIRECTORY : INPUT_OTHER;
}

/* The message for a FIFO, socket or device named as an input. */
static bool refuse_other(const char *path, const char *what, bool allow_stdin, char *err,
                         size_t err_len)
{
    if (allow_stdin)
        return set_error(err, err_len, "%s: is %s, not a regular file; give regular files, or "
                         "pass it on standard input as - (cat %s | bpebench train ... -)", path,
                         what, path);
    return set_error(err, err_len, "%s: is %s, not a regular file; copy it to a file first",
                     path, what);
}

/*
 * Examines `path` (following symbolic links), named on the command line or
 * (`in_directory`) found in a directory. A path that cannot be examined — a
 * missing file, a dangling symbolic link, a link loop, a path longer than
 * PATH_MAX (refused whole, never cut to fit) — is an error rather
 * than silently skipped: the user meant it to be read, and training on less
 * text than intended would go unnoticed. O(1).
 */
static bool examine_input(const char *path, bool in_directory, input_kind *kind,
                          const char **what, char *err, size_t err_len)
{
    struct stat st;
    if (strlen(path) >= PATH_MAX)
        return set_error(err, err_len, "%.40s...: a path of %zu bytes, longer than the system's "
                         "limit of %d; give a shorter path", path, strlen(path), PATH_MAX - 1);
    if (stat(path, &st) == 0) {
        *kind = input_kind_of(&st, what);
        return true;
    }
    int saved_errno = errno;
    if (!in_directory)
        return set_error(err, err_len, "%s: %s; check the path", path, strerror(saved_errno));
    bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
    return set_error(err, err_len, "%s: cannot read this %s: %s; fix or remove it, or give the "
                     "files to read one by one", path,
                     link ? "symbolic link" : "directory entry", strerror(saved_errno));
}

/* Adds the regular files of directory `dir`, sorted by name (byte order);
 * sub-directories, FIFOs, sockets and devices are skipped (SPEC §2: every
 * regular file in it). */
static bool push_directory(char ***files, size_t *n, size_t *cap, const char *dir, char *err,
                           size_t err_len)
{
    DIR *d = opendir(dir);
    if (!d)
        return set_error(err, err_len, "%s: cannot open directory: %s; check its permissions", dir,
                         strerror(errno));
    size_t first = *n;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) {
            ok = set_error(err, err_len, "out of memory listing %s", dir);
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        input_kind kind;
        const char *what;
        ok = examine_input(path, true, &kind, &what, err, err_len);
        if (ok && kind == INPUT_FILE && !push_file(files, n, cap, path))
            ok = set_error(err, err_len, "out of memory listing %s", dir);
        free(path);
    }
    closedir(d);
    if (!ok)
        return false;
    if (*n == first)
        return set_error(err, err_len, "%s: the directory holds no regular files; give a file or a "
                                       "directory of text files", dir);
    qsort(*files + first, *n - first, sizeof **files, compare_names);
    return true;
}

/* Adds one input named on the command line: a file, a directory's files, or
 * standard input ("-") when the command reads it. */
static bool push_input(char ***files, size_t *n, size_t *cap, const char *input, bool allow_stdin,
                       bool *stdin_seen, char *err, size_t err_len)
{
    if (strcmp(input, CORPUS_STDIN) == 0) {
        if (!allow_stdin)
            return set_error(err, err_len, "-: only train reads standard input (the other "
                             "commands read their inputs more than once); save it to a file first");
        if (*stdin_seen)
            return set_error(err, err_len, "-: standard input is given twice; give it once");
        *stdin_seen = true;
        struct stat st; /* a device on standard input is refused as one named directly */
        if (fstat(STDIN_FILENO, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
            return set_error(err, err_len, "-: standard input is %s, not a regular file or a "
                             "pipe (a device may never end, a terminal waits for typing); "
                             "redirect it from a file (- < FILE) or pipe the text in "
                             "(cat FILE | bpebench ... -)", file_kind_name(st.st_mode));
    } else {
        input_kind kind;
        const char *what;
        if (!examine_input(input, false, &kind, &what, err, err_len))
            return false;
        if (kind == INPUT_DIRECTORY)
            return push_directory(files, n, cap, input, err, err_len);
        if (kind == INPUT_OTHER)
            return refuse_other(input, what, allow_stdin, err, err_len);
    }
    if (!push_file(files, n, cap, input))
        return set_error(err, err_len, "out of memory");
    return true;
}

/* Which file a listed name is. */
typedef struct {
    dev_t dev;    /* its device */
    ino_t ino;    /* its inode on that device */
    size_t index; /* the name's position in the list */
} file_id;

static int cmp_file_id(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Whether no file is listed twice (a name given twice, a file also inside a
 * directory given, a hard link): read twice, its words would silently count
 * double. Names that cannot be examined are left to the reader to report.
 * O(n log n). */
static bool files_distinct(char *const *files, size_t n, char *err, size_t err_len)
{
    file_id *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return set_error(err, err_len, "out of memory");
    size_t k = 0;
    struct stat st;
    for (size_t i = 0; i < n; i++)
        if (strcmp(files[i], CORPUS_STDIN) != 0 && stat(files[i], &st) == 0)
            ids[k++] = (file_id){st.st_dev, st.st_ino, i};
    qsort(ids, k, sizeof *ids, cmp_file_id);
    bool ok = true;
    for (size_t i = 1; ok && i < k; i++)
        if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino)
            ok = set_error(err, err_len, "%s and %s are the same file, which would be read "
                           "twice; give it once", files[ids[i - 1].index], files[ids[i].index]);
    free(ids);
    return ok;
}

bool corpus_list_inputs(const char *const *inputs, size_t n_inputs, bool allow_stdin,
                        char ***files, size_t *n_files, char *err, size_t err_len)
{
    size_t n = 0, cap = 0;
    bool stdin_seen = false;
    *files = NULL;
    for (size_t i = 0; i < n_inputs; i++)
        if (!push_input(files, &n, &cap, inputs[i], allow_stdin, &stdin_seen, err, err_len)) {
            corpus_free_files(*files, n);
            *files = NULL;
            return false;
        }
    if (!files_distinct(*files, n, err, err_len)) {
        corpus_free_files(*files, n);
        *files = NULL;
        return false;
    }
    *n_files = n;
    return true;
}

bool corpus_list_files(const char *const *inputs, size_t n_inputs, char ***files, size_t *n_files,
                       char *err, size_t err_len)
{
    return corpus_list_inputs(inputs, n_inputs, false, files, n_files, err, err_len);
}

/* ------------------------------------------------------------- cutting */

/* End of the last complete special token within text[floor, limit), or 0:
 * from each start, scanning back from the limit, the longest token that
 * fits, until no earlier start can end later. O((limit − floor) · bytes
 * matched), whatever S is. */
static size_t last_special_end(const uint8_t *text, size_t floor, size_t limit,
                               const special_trie *specials)
{
    size_t best = 0, longest = special_trie_longest(specials);
    for (size_t i = limit; i-- > floor && i + longest > best;) {
        if (!special_trie_starts_with(specials, text[i]))
            continue;
        size_t n = special_trie_match(specials, text + i, limit - i).len;
        if (n > 0 && i + n > best)
            best = i + n;
    }
    return best;
}

bool corpus_safe_cut(const uint8_t *text, size_t len, size_t limit, const char *const *specials,
                     size_t n_specials, size_t *cut)
{
    if (len <= limit) {
        *cut = len;
        return true;
    }
    size_t twice; /* duplicates change no cut */
    special_trie *trie = special_trie_new(specials, n_specials, &twice);
    if (!trie)
        return false;
    size_t floor = limit > CORPUS_CUT_LOOKBACK ? limit - CORPUS_CUT_LOOKBACK : 0;
    *cut = 0;
    for (size_t i = limit; i-- > floor;)
        if (text[i] == '\n') {
            *cut = i + 1;
            break;
        }
    size_t special = last_special_end(text, floor, limit, trie);
    special_trie_free(trie);
    if (special > *cut)
        *cut = special;
    if (*cut > 0)
        return true;
    for (*cut = limit; *cut > 0 && (text[*cut] & 0xC0) == 0x80;)
        --*cut; /* no boundary in the look-back: at least never split a character */
    return true;
}

/* Opens an input for count_file (and the parallel strategy): standard input for CORPUS_STDIN, else the
 * file, which must still be regular (it was when listed; opening with
 * O_NONBLOCK means a FIFO put there since cannot block us). *st is the
 * file's state at open; *name what messages call it. */
bool corpus_open_input(const char *path, int *fd, struct stat *st, const char **name, char *err,
                       size_t err_len)
{
    bool is_stdin = strcmp(path, CORPUS_STDIN) == 0;
    *name = is_stdin ? "standard input" : path;
    *fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return set_error(err, err_len, "%s: cannot open: %s; check the path and its permissions",
                         path, strerror(errno));
    if (fstat(*fd, st) != 0) {
        int saved_errno = errno;
        if (!is_stdin)
            close(*fd);
        return set_error(err, err_len, "%s: cannot examine: %s", *name, strerror(saved_errno));
    }
    const char *what;
    if (!is_stdin && input_kind_of(st, &what) != INPUT_FILE) {
        close(*fd);
        return set_error(err, err_len, "%s: is %s now, not the regular file it was when listed; "
                         "train on files nothing changes meanwhile", path, what);
    }
    return true;
}

/*
 * Whether a regular file stayed as it was while it was read, from offset
 * `start` (0, or where standard input redirected from a file stood) to
 * `start` + bytes_read: when read to the end, that end is its size at open,
 * and its size and modification time now are those at open. A file
 * appended to, cut short or rewritten in place while read would otherwise
 * give a corpus that is part old, part new, or partial, without a word.
 * Streams (standard input from a pipe) have no size to check. O(1).
 */
bool corpus_unchanged_while_read(int fd, const char *name, const struct stat *at_open,
                                 uint64_t start, uint64_t bytes_read, bool to_end, char *err,
                                 size_t err_len)
{
    if (!S_ISREG(at_open->st_mode))
        return true;
    struct stat now;
    if (fstat(fd, &now) != 0)
        return set_error(err, err_len, "%s: cannot examine: %s", name, strerror(errno));
    uint64_t end = start + bytes_read, size = (uint64_t)at_open->st_size;
    bool same_size = (to_end ? end == size : end <= size) && now.st_size == at_open->st_size;
    bool same_time = now.st_mtim.tv_sec == at_open->st_mtim.tv_sec &&
                     now.st_mtim.tv_nsec == at_open->st_mtim.tv_nsec;
    if (same_size && same_time)
        return true;
    if (size == 0 && now.st_size == 0 && same_time) /* /proc and /sys files say 0 */
        return set_error(err, err_len, "%s: gave %llu bytes but reports a size of 0 (a /proc or "
                         "/sys file?), so a change while reading could not be seen; copy it to "
                         "a file first", name, (unsigned long long)bytes_read);
    return set_error(err, err_len, "%s: changed while reading (%llu bytes at open, %llu read, %llu "
                     "now%s); train on a copy that nothing writes to", name,
                     (unsigned long long)at_open->st_size, (unsigned long long)bytes_read,
                     (unsigned long long)now.st_size, same_time ? "" : ", modified since");
}

/* Streams one input into the pretokenizer. `budget` (0: unlimited) is how
 * many more bytes may be read; *used says how many were and *cut whether the
 * slice ended inside this input. `chunk` holds CHUNK_BYTES + 1. O(file). */
bool corpus_prefix_end(int fd, const char *name, uint64_t size, uint64_t budget,
                       const char *const *specials, size_t n_specials, uint64_t *end, bool *cut,
                       char *err, size_t err_len)
{
    *cut = size > budget;
    *end = *cut ? budget : size;
    if (!*cut)
        return true;
    /* count_file's last read: the CHUNK_BYTES before the budget and one more. */
    uint64_t window_start = budget > CHUNK_BYTES ? budget - CHUNK_BYTES : 0;
    size_t want = (size_t)(budget - window_start) + 1, got, kept;
    uint8_t *window = malloc(want);
    if (!window)
        return set_error(err, err_len, "out of memory");
    bool ok = pread_full(fd, window, want, window_start, &got);
    if (!ok)
        set_error(err, err_len, "%s: read failed at byte offset %llu: %s; check the file", name,
                  (unsigned long long)(window_start + got), strerror(errno));
    else if (got < want)
        ok = set_error(err, err_len, "%s: changed while reading (%llu bytes at open, %llu now); "
                       "train on a copy that nothing writes to", name, (unsigned long long)size,
                       (unsigned long long)(window_start + got));
    else if (!corpus_safe_cut(window, want, want - 1, specials, n_specials, &kept))
        ok = set_error(err, err_len, "out of memory");
    else
        *end = window_start + kept;
    free(window);
    return ok;
}

static bool count_file(pretokenizer *p, const pretok_config *cfg, const char *path,
                       uint8_t *chunk, uint64_t budget, corpus_read *opts, word_table *words,
                       bool first_file, uint64_t *used, bool *cut, char *err, size_t err_len)
{
    int fd;
    struct stat at_open;
    const char *name;
    *used = 0;
    *cut = false;
    if (!corpus_open_input(path, &fd, &at_open, &name, err, err_len))
        return false;
    off_t start = S_ISREG(at_open.st_mode) ? lseek(fd, 0, SEEK_CUR) : 0;
    if (first_file)
        pretok_begin(p, name, words);
    else
        pretok_continue_at(p, name, 0);
    bool ok = true;
    uint64_t bytes_read = 0;
    while (!*cut) {
        /* The last read before the budget takes the whole look-back of the
         * cut, plus one byte that tells whether the file goes on; the read
         * before it stops short to leave that much. */
        uint64_t left = budget - *used;
        bool last = budget && left <= CHUNK_BYTES;
        size_t want = !budget || left >= 2 * (uint64_t)CHUNK_BYTES ? CHUNK_BYTES
                      : last ? (size_t)left + 1
                             : (size_t)(left - CHUNK_BYTES);
        size_t got;
        double t0 = clock_now();
        bool read_ok = read_full(fd, chunk, want, &got);
        opts->read_seconds += clock_now() - t0;
        if (!read_ok) {
            ok = set_error(err, err_len, "%s: read failed at byte offset %llu: %s; check the file",
                           name, (unsigned long long)(bytes_read + got), strerror(errno));
            break;
        }
        bytes_read += got;
        if (got == 0)
            break;
        size_t take = got;
        if (last && take == want) { /* the slice ends inside this file: cut word-safe */
            if (!corpus_safe_cut(chunk, got, want - 1, cfg->specials, cfg->n_specials, &take)) {
                ok = set_error(err, err_len, "out of memory");
                break;
            }
            *cut = true;
        }
        *used += take;
        if (!(ok = pretok_feed(p, chunk, take, err, err_len)))
            break;
        if (opts->on_bytes)
            opts->on_bytes(opts->ctx, opts->bytes_read + *used);
    }
    ok = ok && corpus_unchanged_while_read(fd, name, &at_open, start > 0 ? (uint64_t)start : 0,
                                    bytes_read, !*cut, err, err_len);
    if (fd != STDIN_FILENO)
        close(fd);
    return ok && pretok_end(p, err, err_len);
}

bool corpus_count_words(pretokenizer *p, const pretok_config *cfg, char *const *files,
                        size_t n_files, corpus_read *opts, word_table *words, char *err,
                        size_t err_len)
{
    uint8_t *chunk = malloc(CHUNK_BYTES + 1);
    if (!chunk)
        return set_error(err, err_len, "out of memory");
    bool ok = true, cut = false;
    for (size_t i = 0; ok && !cut && i < n_files; i++) {
        uint64_t budget = 0, used = 0;
        if (opts->max_bytes) {
            budget = opts->max_bytes - opts->bytes_read;
            if (budget == 0)
                break;
        }
        ok = count_file(p, cfg, files[i], chunk, budget, opts, words, i == 0, &used, &cut, err,
                        err_len);
        opts->bytes_read += used;
        opts->files_read++;
    }
    free(chunk);
    return ok;
}

bool corpus_planned_bytes(char *const *files, size_t n_files, uint64_t max_bytes,
                          uint64_t *total)
{
    *total = 0;
    for (size_t i = 0; i < n_files; i++) {
        struct stat st;
        if (strcmp(files[i], CORPUS_STDIN) == 0 || stat(files[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            return false;
        *total += (uint64_t)st.st_size;
    }
    if (max_bytes && *total > max_bytes)
        *total = max_bytes;
    return true;
}
