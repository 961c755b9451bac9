/* corpus.c — see corpus.h. */
#include "corpus.h"

#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
    if (*n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        char **grown = realloc(*files, grown_cap * sizeof *grown);
        if (!grown)
            return false;
        *files = grown;
        *cap = grown_cap;
    }
    if (!((*files)[*n] = strdup(path)))
        return false;
    (*n)++;
    return true;
}

/* Whether directory entry `path` is a regular file to read (following
 * symbolic links). An entry that cannot be examined — a dangling symbolic
 * link, a link loop — is an error rather than silently skipped: the user
 * meant it to be read, and training on less text than intended would go
 * unnoticed. Sub-directories, FIFOs, sockets and devices are not regular
 * files and are skipped (SPEC §2: every regular file in it). O(1). */
static bool entry_is_regular(const char *path, bool *regular, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        *regular = S_ISREG(st.st_mode);
        return true;
    }
    int saved_errno = errno;
    bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
    snprintf(err, err_len, "%s: cannot read this %s: %s; fix or remove it, or give the files "
                           "to read one by one", path,
             link ? "symbolic link" : "directory entry", strerror(saved_errno));
    return false;
}

/* Adds the regular files of directory `dir`, sorted by name (byte order). */
static bool push_directory(char ***files, size_t *n, size_t *cap, const char *dir, char *err,
                           size_t err_len)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "%s: cannot open directory: %s; check its permissions", dir,
                 strerror(errno));
        return false;
    }
    size_t first = *n;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) {
            ok = false;
            snprintf(err, err_len, "out of memory listing %s", dir);
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        bool regular = false;
        ok = entry_is_regular(path, &regular, err, err_len);
        if (ok && regular && !push_file(files, n, cap, path)) {
            ok = false;
            snprintf(err, err_len, "out of memory listing %s", dir);
        }
        free(path);
    }
    closedir(d);
    if (!ok)
        return false;
    if (*n == first) {
        snprintf(err, err_len, "%s: the directory holds no regular files; give a file or a "
                               "directory of text files", dir);
        return false;
    }
    qsort(*files + first, *n - first, sizeof **files, compare_names);
    return true;
}

bool corpus_list_files(const char *const *inputs, size_t n_inputs, char ***files, size_t *n_files,
                       char *err, size_t err_len)
{
    size_t n = 0, cap = 0;
    *files = NULL;
    for (size_t i = 0; i < n_inputs; i++) {
        struct stat st;
        bool ok;
        if (stat(inputs[i], &st) != 0) {
            snprintf(err, err_len, "%s: %s; check the path", inputs[i], strerror(errno));
            ok = false;
        } else if (S_ISDIR(st.st_mode)) {
            ok = push_directory(files, &n, &cap, inputs[i], err, err_len);
        } else if (!(ok = push_file(files, &n, &cap, inputs[i]))) {
            snprintf(err, err_len, "out of memory");
        }
        if (!ok) {
            corpus_free_files(*files, n);
            *files = NULL;
            return false;
        }
    }
    *n_files = n;
    return true;
}

/* End of the last complete special token within text[floor, limit), or 0. */
static size_t last_special_end(const uint8_t *text, size_t floor, size_t limit,
                               const char *const *specials, size_t n_specials)
{
    size_t best = 0;
    for (size_t k = 0; k < n_specials; k++) {
        size_t n = strlen(specials[k]);
        if (n == 0 || limit - floor < n)
            continue;
        for (size_t i = limit - n + 1; i-- > floor;) {
            if (i + n <= best)
                break;
            if (memcmp(text + i, specials[k], n) == 0) {
                best = i + n;
                break;
            }
        }
    }
    return best;
}

size_t corpus_safe_cut(const uint8_t *text, size_t len, size_t limit, const char *const *specials,
                       size_t n_specials)
{
    if (len <= limit)
        return len;
    size_t floor = limit > CORPUS_CUT_LOOKBACK ? limit - CORPUS_CUT_LOOKBACK : 0, cut = 0;
    for (size_t i = limit; i-- > floor;)
        if (text[i] == '\n') {
            cut = i + 1;
            break;
        }
    size_t special = last_special_end(text, floor, limit, specials, n_specials);
    if (special > cut)
        cut = special;
    if (cut > 0)
        return cut;
    for (cut = limit; cut > 0 && (text[cut] & 0xC0) == 0x80;)
        cut--; /* no boundary in the look-back: at least never split a character */
    return cut;
}

/* Reads until `want` bytes or the end of the file; *got says how many. */
static bool read_full(int fd, uint8_t *buf, size_t want, size_t *got)
{
    *got = 0;
    while (*got < want) {
        ssize_t n = read(fd, buf + *got, want - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            break;
        *got += (size_t)n;
    }
    return true;
}

/* Streams one file into the pretokenizer. `budget` (0: unlimited) is how many
 * more bytes may be read; *used says how many were and *cut whether the
 * slice ended inside this file. `chunk` holds CHUNK_BYTES + 1. O(file). */
static bool count_file(pretokenizer *p, const pretok_config *cfg, const char *path,
                       uint8_t *chunk, uint64_t budget, corpus_read *opts, word_table *words,
                       uint64_t *used, bool *cut, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open: %s; check the path and its permissions", path,
                 strerror(errno));
        return false;
    }
    pretok_begin(p, path, words);
    bool ok = true;
    *used = 0;
    *cut = false;
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
            snprintf(err, err_len, "%s: read failed at byte offset %llu: %s; check the file",
                     path, (unsigned long long)(*used + got), strerror(errno));
            ok = false;
            break;
        }
        if (got == 0)
            break;
        size_t take = got;
        if (last && take == want) { /* the slice ends inside this file: cut word-safe */
            take = corpus_safe_cut(chunk, take, want - 1, cfg->specials, cfg->n_specials);
            *cut = true;
        }
        *used += take;
        if (!(ok = pretok_feed(p, chunk, take, err, err_len)))
            break;
    }
    close(fd);
    return ok && pretok_end(p, err, err_len);
}

bool corpus_count_words(pretokenizer *p, const pretok_config *cfg, char *const *files,
                        size_t n_files, corpus_read *opts, word_table *words, char *err,
                        size_t err_len)
{
    uint8_t *chunk = malloc(CHUNK_BYTES + 1);
    if (!chunk) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    bool ok = true, cut = false;
    for (size_t i = 0; ok && !cut && i < n_files; i++) {
        uint64_t budget = 0, used = 0;
        if (opts->max_bytes) {
            budget = opts->max_bytes - opts->bytes_read;
            if (budget == 0)
                break;
        }
        ok = count_file(p, cfg, files[i], chunk, budget, opts, words, &used, &cut, err, err_len);
        opts->bytes_read += used;
        opts->files_read++;
    }
    free(chunk);
    return ok;
}
