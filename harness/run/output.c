/*
 * output.c — vocab.json and merges.txt (SPEC §3), loadable by HF tokenizers
 * (BPE.from_file / ByteLevel) and by the GPT-2 tools; files written
 * atomically, and a tokenizer's files replaced as one set (output.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "run/output.h"
#include "base/atomicfile.h"

#include "base/byteunicode.h"
#include "base/errors.h"
#include "base/signals.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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

/* ------------------------------------------------------------- sets */

/* The files of a tokenizer, in the order they are renamed into place. */
static const char *const TOKENIZER_FILES[] = {"vocab.json", "merges.txt"};
enum {
    N_TOKENIZER_FILES = sizeof TOKENIZER_FILES / sizeof *TOKENIZER_FILES,
    TEMP_SUFFIX_MAX = 32, /* the longest ".tmp.XXXXXX" or ".tmp.PID.K" added to a target */
};

/* Whether DIR/name and the temporary names beside it fit in PATH_MAX: a
 * longer path would be refused by the system (or, cut to fit a buffer,
 * name another file), so it is refused here first, with a reason. O(1). */
static bool path_fits(const char *dir, const char *name, char *err, size_t err_len)
{
    size_t len = strlen(dir) + 1 + strlen(name) + TEMP_SUFFIX_MAX;
    if (len < PATH_MAX)
        return true;
    return set_error(err, err_len, "--out %.40s...: a directory path of %zu bytes is too long for "
                     "%s and its temporary names (the system's limit is %d bytes); choose a "
                     "shorter --out", dir, strlen(dir), name, PATH_MAX - 1);
}

bool output_dir_fits(const char *dir, char *err, size_t err_len)
{
    for (size_t i = 0; i < N_TOKENIZER_FILES; i++)
        if (!path_fits(dir, TOKENIZER_FILES[i], err, err_len))
            return false;
    return true;
}

/* One file of a set on its way into place. */
typedef struct {
    char *target;     /* DIR/name; owned */
    atomic_file file; /* its new contents, finished but not yet renamed (atomicfile.h) */
    char *backup;     /* a second name of the old target while the set is replaced; owned, or NULL */
    bool renamed;     /* the new contents are at DIR/name */
} staged_file;

/* Opens DIR and takes the exclusive flock on it (released when *fd is
 * closed), waiting for another writer at most OUTPUT_LOCK_WAIT_SECONDS.
 * Polls every 10 ms rather than blocking, so that a lock held forever is an
 * error and not a hang. */
static bool lock_directory(const char *dir, int *fd, char *err, size_t err_len)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return set_error(err, err_len, "%s: cannot open the directory to lock it: %s; check --out",
                         dir, strerror(errno));
    for (long waited_ms = 0;; waited_ms += 10) {
        if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return set_error(err, err_len, "%s: cannot lock the directory: %s; choose an --out on "
                             "a local file system", dir, strerror(errno));
        if (waited_ms >= OUTPUT_LOCK_WAIT_SECONDS * 1000L)
            return set_error(err, err_len, "%s: another process has held the directory's lock for "
                             "%d s (another bpebench train writing there?); let it finish or "
                             "choose another --out", dir, OUTPUT_LOCK_WAIT_SECONDS);
        struct timespec pause = {0, 10 * 1000000L};
        nanosleep(&pause, NULL);
    }
}

/* Gives the old target a second name, a hard link path.tmp.PID.K, so that it
 * can be renamed back if the set fails; link() never replaces a file, so a
 * name left by an earlier, killed run is skipped. Does nothing when there is
 * no old target; refuses a target that is not a regular file (a rename could
 * not replace it). Signals held. */
static bool keep_old_target(staged_file *f, char *err, size_t err_len)
{
    struct stat st;
    if (lstat(f->target, &st) != 0) {
        if (errno == ENOENT)
            return true;
        return set_error(err, err_len, "%s: cannot examine: %s; check --out", f->target,
                         strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return set_error(err, err_len, "%s: exists and is %s, not a regular file; remove it or "
                         "choose another --out", f->target, file_kind_name(st.st_mode));
    size_t n = strlen(f->target) + 48;
    if (!(f->backup = malloc(n)))
        return set_error(err, err_len, "out of memory");
    for (unsigned k = 0; k < 1000; k++) {
        snprintf(f->backup, n, "%s.tmp.%ld.%u", f->target, (long)getpid(), k);
        if (link(f->target, f->backup) == 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    set_error(err, err_len, "%s: cannot keep the old file while replacing it (hard link): %s; "
              "remove the old files or choose an --out on a file system with hard links",
              f->target, strerror(errno));
    free(f->backup);
    f->backup = NULL;
    return false;
}

/* Puts the old set back after a failed rename: every file already renamed
 * is renamed back from its second name, or removed when there was no old
 * file. Appends to err what could not be put back (an old file then stays
 * under its second name, which the message gives). Signals held. */
static void roll_back(staged_file *files, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (!f->renamed)
            continue;
        if (f->backup ? rename(f->backup, f->target) == 0 : unlink(f->target) == 0) {
            f->renamed = false;
        } else {
            size_t at = strlen(err);
            if (f->backup)
                snprintf(err + at, err_len - at, "; could not put back the old %s (%s): it is "
                         "kept as %s", f->target, strerror(errno), f->backup);
            else
                snprintf(err + at, err_len - at, "; could not remove the new %s (%s)", f->target,
                         strerror(errno));
        }
        free(f->backup); /* renamed back, or the only copy left: not to be removed */
        f->backup = NULL;
    }
}

/* Renames every temporary file into place, or none (roll_back). Signals held. */
static bool rename_all(staged_file *files, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (!atomic_file_commit(&f->file, err, err_len)) {
            size_t at = strlen(err);
            snprintf(err + at, err_len - at, "; the old files are kept; check --out");
            roll_back(files, n, err, err_len);
            return false;
        }
        f->renamed = true;
    }
    return true;
}

/* Drops what a set leaves once it is decided: the second names of old
 * files (replaced, or still in place), temporary files never renamed.
 * Signals held. */
static void drop_staged(staged_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        staged_file *f = &files[i];
        if (f->backup)
            unlink(f->backup);
        atomic_file_abort(&f->file); /* nothing left to do after a commit */
        free(f->target);
        free(f->backup);
    }
}

/* Writes one file of the set whole to its temporary name, not renamed. */
static bool stage(staged_file *f, const char *dir, const output_file *file, char *err,
                  size_t err_len)
{
    if (!path_fits(dir, file->name, err, err_len))
        return false;
    size_t n = strlen(dir) + strlen(file->name) + 2;
    if (!(f->target = malloc(n)))
        return set_error(err, err_len, "out of memory");
    snprintf(f->target, n, "%s/%s", dir, file->name);
    return atomic_file_open(&f->file, f->target, err, err_len) &&
           atomic_file_write(&f->file, file->data, file->len, err, err_len) &&
           atomic_file_finish(&f->file, err, err_len);
}

bool output_write_set(const char *dir, const output_file *files, size_t n_files, char *err,
                      size_t err_len)
{
    staged_file *staged = calloc(n_files + 1, sizeof *staged);
    bool ok = staged != NULL;
    if (!ok)
        set_error(err, err_len, "out of memory");
    for (size_t i = 0; ok && i < n_files; i++)
        staged[i].file.fd = -1; /* holds nothing until staged (atomic_file_abort is a no-op) */
    for (size_t i = 0; ok && i < n_files; i++)
        ok = stage(&staged[i], dir, &files[i], err, err_len);
    int dir_fd = -1;
    ok = ok && lock_directory(dir, &dir_fd, err, err_len);
    /* From here to the end of the renames no handled signal can come: its
     * handler would see either the old set with temporary files (and remove
     * them) or the new set, never a mix; so second names need no tracking. */
    sigset_t saved;
    signals_hold(&saved);
    for (size_t i = 0; ok && i < n_files; i++)
        ok = keep_old_target(&staged[i], err, err_len);
    ok = ok && rename_all(staged, n_files, err, err_len);
    if (staged)
        drop_staged(staged, n_files);
    signals_release(&saved);
    if (dir_fd >= 0) {
        if (ok)
            fsync(dir_fd); /* the renames reach the disk with the files (best effort) */
        close(dir_fd);     /* releases the lock */
    }
    free(staged);
    return ok;
}

/* ------------------------------------------------------- special tokens */

/* Writes bytes d[0, len) for a message: quoted when printable ASCII, else
 * in hex; at most 24 bytes, then "...". */
static void describe_bytes(const uint8_t *d, size_t len, char *out, size_t out_len)
{
    bool printable = true;
    for (size_t i = 0; i < len; i++)
        printable = printable && d[i] >= 0x20 && d[i] < 0x7F;
    size_t shown = len < 24 ? len : 24, at = 0;
    if (printable) {
        snprintf(out, out_len, "\"%.*s%s\"", (int)shown, (const char *)d, shown < len ? "..." : "");
        return;
    }
    out[0] = '\0';
    for (size_t i = 0; i < shown && at < out_len; i++)
        at += (size_t)snprintf(out + at, out_len - at, "%s%02X", i ? " " : "", d[i]);
    if (shown < len && at < out_len)
        snprintf(out + at, out_len - at, " ...");
}

/* How much of a token a message shows: all of it up to 64 bytes, else its
 * first 64 bytes or fewer, cut at a character boundary (then "..."). */
static int shown_length(const char *token)
{
    size_t n = strlen(token);
    if (n <= 64)
        return (int)n;
    for (n = 64; n > 0 && ((uint8_t)token[n] & 0xC0) == 0x80;)
        n--;
    return (int)n;
}

/* The fix both collisions of output_special_token_ok suggest. */
static const char SPECIAL_TOKEN_FIX[] =
    "choose a token of two or more printable ASCII characters (such as <|endoftext|>) or one "
    "with a space in it";

bool output_special_token_ok(const char *token, char *err, size_t err_len)
{
    const uint8_t *s = (const uint8_t *)token;
    size_t len = strlen(token), n_stood = 0;
    int shown = shown_length(token);
    const char *more = (size_t)shown < len ? "..." : "";
    uint8_t *stood_for = malloc(len + 1); /* d: the bytes its characters stand for */
    if (!stood_for)
        return set_error(err, err_len, "out of memory");
    bool all_stand_ins = true;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            free(stood_for);
            return set_error(err, err_len, "bad --special-token \"%.*s%s\": not valid UTF-8 "
                             "(byte 0x%02X at offset %zu), and vocab.json holds UTF-8 text; give "
                             "the token in UTF-8", shown, token, more, s[i], i);
        }
        int b = codepoint_to_byte(cp);
        if (b < 0)
            all_stand_ins = false;
        else
            stood_for[n_stood++] = (uint8_t)b;
        i += (size_t)n;
    }
    bool ok = true;
    if (all_stand_ins && n_stood == 1) {
        ok = set_error(err, err_len, "bad --special-token \"%.*s%s\": vocab.json spells byte "
                       "0x%02X that way (GPT-2 byte alphabet), so the two tokens would share one "
                       "key; %s", shown, token, more, stood_for[0], SPECIAL_TOKEN_FIX);
    } else if (all_stand_ins && (n_stood != len || memcmp(stood_for, s, len) != 0)) {
        char bytes[128];
        describe_bytes(stood_for, n_stood, bytes, sizeof bytes);
        ok = set_error(err, err_len, "bad --special-token \"%.*s%s\": vocab.json spells the "
                       "bytes %s that way (GPT-2 byte alphabet), and training can learn a token "
                       "of those bytes, so the two would share one key; %s", shown, token, more,
                       bytes, SPECIAL_TOKEN_FIX);
    }
    free(stood_for);
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
    for (size_t k = 0; k < n_specials; k++)
        if (!output_special_token_ok(specials[k], err, err_len))
            return false;
    size_t merges_len = 0;
    char *vocab = vocab_json(r, specials, n_specials);
    char *merges = merges_text(r, &merges_len);
    bool ok = vocab && merges;
    if (!ok) {
        set_error(err, err_len, "out of memory formatting the output files");
    } else {
        const output_file files[N_TOKENIZER_FILES] = {
            {.name = TOKENIZER_FILES[0], .data = vocab, .len = strlen(vocab)},
            {.name = TOKENIZER_FILES[1], .data = merges, .len = merges_len},
        };
        ok = output_write_set(dir, files, N_TOKENIZER_FILES, err, err_len);
    }
    free(vocab);
    free(merges);
    return ok;
}
