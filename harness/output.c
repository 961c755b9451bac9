/*
 * output.c — vocab.json and merges.txt (SPEC §3), loadable by HF tokenizers
 * (BPE.from_file / ByteLevel) and by the GPT-2 tools, written atomically.
 */
#include "output.h"

#include "byteunicode.h"
#include "signals.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *output_token_string(const bpe_vocab *v, bpe_token t)
{
    uint32_t len = v->len[t];
    char *s = malloc(2 * (size_t)len + 1);
    if (!s)
        return NULL;
    size_t at = 0;
    const uint8_t *bytes = bpe_vocab_bytes(v, t);
    for (uint32_t i = 0; i < len; i++)
        at += byte_to_unicode_utf8(bytes[i], s + at);
    s[at] = '\0';
    return s;
}

/* Removes a temporary file that will not be renamed, and forgets it. */
static void discard_temp(char *tmp)
{
    unlink(tmp);
    signals_untrack(tmp);
    free(tmp);
}

/* The mode a file created with open(..., 0666) would get: mkstemp makes its
 * files 0600, which would hide vocab.json from other users. */
static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Creates the temporary file *tmp (a template) and registers it for removal
 * on a signal (signals.h), as one step no signal can split. */
static int create_temp(char *tmp, bool *tracked)
{
    sigset_t saved;
    signals_hold(&saved);
    int fd = mkstemp(tmp);
    *tracked = fd >= 0 && signals_track(tmp, false);
    signals_release(&saved);
    return fd;
}

/* Writes data to a new temporary file beside `path`; *tmp gets its name
 * (malloc'd). On failure nothing is left behind. */
static bool write_temp(const char *path, const char *data, size_t len, char **tmp, char *err,
                       size_t err_len)
{
    size_t n = strlen(path) + 16;
    *tmp = malloc(n);
    if (!*tmp) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    snprintf(*tmp, n, "%s.tmp.XXXXXX", path);
    bool tracked;
    int fd = create_temp(*tmp, &tracked);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot create: %s; check that the directory exists and is "
                               "writable", path, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return false;
    }
    if (!tracked || fchmod(fd, new_file_mode()) != 0) {
        snprintf(err, err_len, "%s: cannot prepare the temporary file: %s; check --out", path,
                 tracked ? strerror(errno) : "path too long to track for signal cleanup");
        close(fd);
        discard_temp(*tmp);
        *tmp = NULL;
        return false;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int saved = done == len ? 0 : errno;
    if (saved == 0 && fsync(fd) != 0)
        saved = errno;
    if (close(fd) != 0 && saved == 0)
        saved = errno;
    if (saved != 0 || done != len) {
        snprintf(err, err_len, "%s: write failed after %zu of %zu bytes: %s; free space or "
                               "choose another --out", path, done, len,
                 strerror(saved ? saved : EIO));
        discard_temp(*tmp);
        *tmp = NULL;
        return false;
    }
    return true;
}

/* Renames a finished temporary file into place; removes it on failure.
 * Call with the signals held (signals.h). */
static bool commit_temp(char *tmp, const char *path, char *err, size_t err_len)
{
    if (rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot rename into place: %s; check --out", path,
                 strerror(errno));
        discard_temp(tmp);
        return false;
    }
    signals_untrack(tmp);
    free(tmp);
    return true;
}

bool output_write_atomic(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
    char *tmp;
    if (!write_temp(path, data, len, &tmp, err, err_len))
        return false;
    sigset_t saved;
    signals_hold(&saved);
    bool ok = commit_temp(tmp, path, err, err_len);
    signals_release(&saved);
    return ok;
}

/* ------------------------------------------------------------- contents */

/* A key and the id it is written with. */
typedef struct {
    char *key;   /* the token string; owned */
    uint64_t id; /* its id in vocab.json */
} vocab_entry;

static int compare_entries(const void *a, const void *b)
{
    const vocab_entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* vocab.json: {token string: id} in id order. Two merges can build the same
 * byte string; JSON cannot hold a key twice, so such a token keeps its first
 * id (as HF tokenizers does). O(V log V). */
static char *vocab_json(const bpe_result *r, const char *const *specials, size_t n_specials)
{
    size_t n = r->vocab.n_tokens + n_specials;
    vocab_entry *entries = calloc(n + 1, sizeof *entries);
    cJSON *json = cJSON_CreateObject();
    char *text = NULL;
    bool ok = entries && json;
    for (size_t i = 0; ok && i < n; i++) {
        if (i >= BPE_BYTE_TOKENS && i < BPE_BYTE_TOKENS + n_specials) {
            entries[i].key = strdup(specials[i - BPE_BYTE_TOKENS]);
        } else {
            bpe_token t = (bpe_token)(i < BPE_BYTE_TOKENS ? i : i - n_specials);
            entries[i].key = output_token_string(&r->vocab, t);
        }
        entries[i].id = i;
        ok = entries[i].key != NULL;
    }
    if (ok) {
        vocab_entry *sorted = malloc((n + 1) * sizeof *sorted);
        bool *dropped = calloc(n + 1, sizeof *dropped);
        ok = sorted && dropped;
        if (ok) {
            memcpy(sorted, entries, n * sizeof *sorted);
            qsort(sorted, n, sizeof *sorted, compare_entries);
            for (size_t i = 1; i < n; i++)
                if (strcmp(sorted[i].key, sorted[i - 1].key) == 0)
                    dropped[sorted[i].id] = true;
            for (size_t i = 0; ok && i < n; i++)
                if (!dropped[i])
                    ok = cJSON_AddNumberToObject(json, entries[i].key, (double)entries[i].id) != NULL;
        }
        free(sorted);
        free(dropped);
    }
    if (ok)
        text = cJSON_PrintUnformatted(json);
    for (size_t i = 0; entries && i < n; i++)
        free(entries[i].key);
    free(entries);
    cJSON_Delete(json);
    return text;
}

/* merges.txt: "#version: 0.2", then "left right" per merge. */
static char *merges_text(const bpe_result *r, size_t *len)
{
    size_t cap = 64, at = 0;
    for (size_t i = 0; i < r->n_merges; i++)
        cap += 2 * ((size_t)r->vocab.len[r->merges[i].left] + r->vocab.len[r->merges[i].right]) + 2;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    at += (size_t)sprintf(text, "#version: 0.2\n");
    for (size_t i = 0; i < r->n_merges; i++) {
        const bpe_merge *m = &r->merges[i];
        const uint8_t *left = bpe_vocab_bytes(&r->vocab, m->left);
        for (uint32_t k = 0; k < r->vocab.len[m->left]; k++)
            at += byte_to_unicode_utf8(left[k], text + at);
        text[at++] = ' ';
        const uint8_t *right = bpe_vocab_bytes(&r->vocab, m->right);
        for (uint32_t k = 0; k < r->vocab.len[m->right]; k++)
            at += byte_to_unicode_utf8(right[k], text + at);
        text[at++] = '\n';
    }
    *len = at;
    return text;
}

bool output_write_tokenizer(const char *dir, const bpe_result *r, const char *const *specials,
                            size_t n_specials, char *err, size_t err_len)
{
    size_t merges_len = 0;
    char *vocab = vocab_json(r, specials, n_specials);
    char *merges = merges_text(r, &merges_len);
    size_t path_len = strlen(dir) + 16;
    char *vocab_path = malloc(path_len), *merges_path = malloc(path_len);
    char *vocab_tmp = NULL, *merges_tmp = NULL;
    bool ok = vocab && merges && vocab_path && merges_path;
    if (!ok) {
        snprintf(err, err_len, "out of memory formatting the output files");
    } else {
        snprintf(vocab_path, path_len, "%s/vocab.json", dir);
        snprintf(merges_path, path_len, "%s/merges.txt", dir);
        /* Both files are complete on disk before either is renamed into place,
         * and a signal cannot come between the two renames. */
        ok = write_temp(vocab_path, vocab, strlen(vocab), &vocab_tmp, err, err_len) &&
             write_temp(merges_path, merges, merges_len, &merges_tmp, err, err_len);
        sigset_t saved;
        signals_hold(&saved);
        if (ok) {
            ok = commit_temp(vocab_tmp, vocab_path, err, err_len);
            vocab_tmp = NULL;
        }
        if (ok) {
            ok = commit_temp(merges_tmp, merges_path, err, err_len);
            merges_tmp = NULL;
        }
        signals_release(&saved);
    }
    if (vocab_tmp)
        discard_temp(vocab_tmp);
    if (merges_tmp)
        discard_temp(merges_tmp);
    free(vocab_path);
    free(merges_path);
    free(vocab);
    free(merges);
    return ok;
}
