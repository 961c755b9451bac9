/*
 * datatools.c — slices and statistics of corpora (datatools.h).
 *
 * Slices. A benchmark grows n by training on longer and longer prefixes of
 * one corpus. A prefix cut at an arbitrary byte would split a word (or a
 * UTF-8 character) in two and invent a word the corpus does not have, so the
 * cut is word-safe: corpus_safe_cut (corpus.c) moves it back to just after
 * the last newline or complete special token in the last MiB, else to a
 * character boundary. Whole files come first, so a slice of a directory is
 * its first files plus the head of one more — the same rule `bench` applies
 * to its slice sizes. A slice is streamed: bytes before the cut's look-back
 * window go out as they are read, and only the window (1 MiB) is held to find
 * the cut, so memory is O(CORPUS_CUT_LOOKBACK) however large --bytes is. A
 * regular file must keep its size and modification time while it is read
 * (checked at every read against the size it had when opened, and once
 * more at the end): a slice of a file being written would be a prefix of
 * nothing that ever existed.
 *
 * Statistics. The words come from corpus_count_words, the very code training
 * uses, so W here is the W a trainer sees. From the word table:
 *   W = distinct words, M = Σ len(w) over them (bytes: symbols before any
 *   merge), L = M / W, P = distinct adjacent byte pairs over the distinct
 *   words (a 65,536-bit set), and the ten most frequent words (a sorted
 *   array of ten, ties broken by bytes so the list is reproducible).
 * The script mix is a second pass over the raw bytes, decoding UTF-8 in
 * chunks and adding each character's byte length to its script (the ranges
 * are in input/wordstats.c).
 *
 * Complexity: slice O(bytes written), memory O(CORPUS_CUT_LOOKBACK); stats
 * O(n) to count and classify, O(M) for P, O(W) for the top words, memory
 * O(W + M) (the word table).
 */
#define _POSIX_C_SOURCE 200809L
#include "tools/datatools.h"
#include "input/count.h"
#include "base/errors.h"
#include "base/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SCRIPT_CHUNK = 1 << 20 }; /* bytes read at a time when classifying */

/* -------------------------------------------------------------- slices */

/* One input file being sliced. */
typedef struct {
    const char *path;    /* as given; not owned */
    int fd;              /* open for reading */
    struct stat opened;  /* fstat when opened: size and time a regular file must keep */
    uint64_t read;       /* bytes read so far */
    bool at_end;         /* a read stopped short: the end of the file */
} slice_input;

/* Whether a regular file stayed as it was while it was read: the bytes
 * read fit in its size at open (all of it once at the end), and its size
 * and modification time now are those at open. Else "changed while
 * reading", the words train uses for the same rule (corpus.c). O(1). */
static bool input_unchanged(const slice_input *in, char *err, size_t err_len)
{
    if (!S_ISREG(in->opened.st_mode))
        return true;
    struct stat now;
    if (fstat(in->fd, &now) != 0)
        return set_error(err, err_len, "%s: cannot examine: %s", in->path, strerror(errno));
    uint64_t size = (uint64_t)in->opened.st_size;
    bool same_size = (in->at_end ? in->read == size : in->read <= size) &&
                     now.st_size == in->opened.st_size;
    bool same_time = now.st_mtim.tv_sec == in->opened.st_mtim.tv_sec &&
                     now.st_mtim.tv_nsec == in->opened.st_mtim.tv_nsec;
    if (same_size && same_time)
        return true;
    return set_error(err, err_len, "%s: changed while reading (%llu bytes at open, %llu read, "
                     "%llu now%s); slice a copy that nothing writes to", in->path,
                     (unsigned long long)size, (unsigned long long)in->read,
                     (unsigned long long)now.st_size, same_time ? "" : ", modified since");
}

/* Reads up to `want` bytes into buf. False with a reason on a read error,
 * or as soon as a regular file turns out longer or shorter than it was when
 * opened. O(want). */
static bool input_read(slice_input *in, uint8_t *buf, size_t want, size_t *got, char *err,
                       size_t err_len)
{
    if (!read_full(in->fd, buf, want, got))
        return set_error(err, err_len, "%s: read failed at byte offset %llu: %s; check the file",
                         in->path, (unsigned long long)in->read, strerror(errno));
    in->read += *got;
    in->at_end = *got < want;
    uint64_t size = (uint64_t)in->opened.st_size;
    bool off_size = in->read > size || (in->at_end && in->read != size);
    return !S_ISREG(in->opened.st_mode) || !off_size || input_unchanged(in, err, err_len);
}

/* What slicing has produced so far. */
typedef struct {
    const byte_sink *out; /* where the bytes go */
    uint64_t len;         /* bytes sent */
    int last_byte;        /* the last byte sent, or -1 before the first */
} slice_output;

static bool output_send(slice_output *o, const uint8_t *data, size_t len, char *err,
                        size_t err_len)
{
    if (len == 0)
        return true;
    o->len += len;
    o->last_byte = data[len - 1];
    return o->out->write(o->out->ctx, data, len, err, err_len);
}

/*
 * Sends one open file to o: all of it when it has at most `budget` bytes,
 * else its word-safe head. The bytes before the cut's look-back window are
 * copied as they come; the window — the last CORPUS_CUT_LOOKBACK bytes of
 * the budget and one more, which tells whether the file goes on — is read
 * whole into buf (CORPUS_CUT_LOOKBACK + 1 bytes) and cut there, exactly as
 * corpus_count_words cuts its last read. *cut says whether the file was cut.
 * O(bytes sent).
 */
static bool slice_one(slice_input *in, uint64_t budget, const char *const *specials,
                      size_t n_specials, uint8_t *buf, slice_output *o, bool *cut, char *err,
                      size_t err_len)
{
    uint64_t window_start = budget > CORPUS_CUT_LOOKBACK ? budget - CORPUS_CUT_LOOKBACK : 0;
    size_t got;
    *cut = false;
    while (!in->at_end && in->read < window_start) {
        uint64_t left = window_start - in->read;
        size_t want = left < CORPUS_CUT_LOOKBACK ? (size_t)left : CORPUS_CUT_LOOKBACK;
        if (!input_read(in, buf, want, &got, err, err_len) ||
            !output_send(o, buf, got, err, err_len))
            return false;
    }
    if (!in->at_end) {
        size_t window = (size_t)(budget - window_start);
        if (!input_read(in, buf, window + 1, &got, err, err_len))
            return false;
        *cut = got > window;
        size_t keep = got;
        if (*cut && !corpus_safe_cut(buf, got, window, specials, n_specials, &keep))
            return set_error(err, err_len, "out of memory");
        if (!output_send(o, buf, keep, err, err_len))
            return false;
    }
    return input_unchanged(in, err, err_len);
}

bool slice_files(char *const *files, size_t n_files, uint64_t limit,
                 const char *const *specials, size_t n_specials, const byte_sink *out,
                 uint64_t *len, size_t *joined, char *err, size_t err_len)
{
    *len = 0;
    *joined = 0;
    uint8_t *buf = malloc(CORPUS_CUT_LOOKBACK + 1);
    if (!buf)
        return set_error(err, err_len, "out of memory");
    slice_output o = {.out = out, .last_byte = -1};
    bool ok = true, cut = false;
    for (size_t i = 0; ok && !cut && i < n_files && o.len < limit; i++) {
        slice_input in = {.path = files[i], .fd = open(files[i], O_RDONLY)};
        if (in.fd < 0 || fstat(in.fd, &in.opened) != 0) {
            ok = set_error(err, err_len, "%s: cannot open: %s; check the path and its "
                           "permissions", files[i], strerror(errno));
            if (in.fd >= 0)
                close(in.fd);
            break;
        }
        uint64_t before = o.len;
        bool unterminated = o.last_byte >= 0 && o.last_byte != '\n';
        ok = slice_one(&in, limit - o.len, specials, n_specials, buf, &o, &cut, err, err_len);
        close(in.fd);
        *joined += ok && o.len > before && unterminated;
    }
    free(buf);
    if (ok && o.len == 0)
        ok = set_error(err, err_len, "--bytes %llu: the first file has no word-safe cut that "
                       "short (or the input is empty); give more bytes",
                       (unsigned long long)limit);
    *len = o.len;
    return ok;
}

bool slice_files_to_path(char *const *files, size_t n_files, uint64_t limit,
                         const char *const *specials, size_t n_specials, const char *path,
                         uint64_t *len, size_t *joined, char *err, size_t err_len)
{
    atomic_file out;
    if (!atomic_file_open(&out, path, err, err_len))
        return false;
    byte_sink sink = atomic_file_sink(&out);
    if (!slice_files(files, n_files, limit, specials, n_specials, &sink, len, joined, err,
                     err_len) ||
        !atomic_file_commit(&out, err, err_len)) {
        atomic_file_abort(&out);
        return false;
    }
    return true;
}

/* Reads up to `want` bytes of the open file into buf; false on a read
 * error. O(want). */
static bool read_up_to(FILE *f, const char *path, uint8_t *buf, size_t want, size_t *got,
                       char *err, size_t err_len)
{
    *got = fread(buf, 1, want, f);
    if (ferror(f))
        return set_error(err, err_len, "%s: read failed: %s; check the file", path,
                         strerror(errno));
    return true;
}

/* Adds one file's bytes per script, streaming: up to 3 bytes of a character
 * cut by the chunk end wait for the next chunk. O(file). */
static bool classify_file(const char *path, uint8_t *buf, uint64_t *bytes, char *err,
                          size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return set_error(err, err_len, "%s: cannot open: %s; check the path and its permissions",
                         path, strerror(errno));
    size_t carry = 0, got;
    bool ok;
    do {
        ok = read_up_to(f, path, buf + carry, SCRIPT_CHUNK, &got, err, err_len);
        size_t len = carry + got;
        bool last = !ok || got < SCRIPT_CHUNK;
        size_t done = script_classify(buf, len, last ? len : len - 3, bytes);
        carry = len - done;
        memmove(buf, buf + done, carry);
        if (last)
            break;
    } while (ok);
    fclose(f);
    return ok;
}

/* --------------------------------------------------------------- stats */

/* True when a should be listed before b: more frequent, or as frequent with
 * smaller bytes (the shorter first when one is a prefix of the other).
 * O(length). */
static bool ranks_before(const stats_word *a, const stats_word *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    uint32_t common = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, common);
    return c != 0 ? c < 0 : a->len < b->len;
}

/* Keeps the STATS_TOP_WORDS best words in s->top by insertion. O(W · 10). */
static void find_top_words(corpus_stats *s)
{
    const word_table *t = &s->table;
    for (size_t w = 0; w < t->n_entries; w++) {
        stats_word cand = {t->arena + t->entries[w].offset, t->entries[w].len,
                           t->entries[w].count};
        size_t at = s->n_top;
        while (at > 0 && ranks_before(&cand, &s->top[at - 1]))
            at--;
        if (at >= STATS_TOP_WORDS)
            continue;
        size_t last = s->n_top < STATS_TOP_WORDS ? s->n_top : STATS_TOP_WORDS - 1;
        memmove(&s->top[at + 1], &s->top[at], (last - at) * sizeof *s->top);
        s->top[at] = cand;
        if (s->n_top < STATS_TOP_WORDS)
            s->n_top++;
    }
}

/* The word-table part: words counted as training counts them, by the dedup
 * strategy (the same table as serial's, count.h), which also tells how much
 * of the text repeats: chunks seen and distinct. O(n). */
static bool count_words(const pretok_config *cfg, char *const *files, size_t n_files,
                        corpus_stats *s, char *err, size_t err_len)
{
    count_request req = {.files = files, .n_files = n_files, .pretok = cfg, .threads = 1};
    count_report report;
    bool ok = count_strategy_find("dedup")->count(&req, &s->table, &report, err, err_len);
    s->corpus = report.corpus;
    s->chunks = report.chunks;
    s->chunks_distinct = report.chunks_distinct;
    return ok;
}

bool corpus_stats_compute(const pretok_config *cfg, char *const *files, size_t n_files,
                          corpus_stats *s, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    uint8_t *buf = malloc(SCRIPT_CHUNK + 3);
    bool ok = buf && word_table_init(&s->table);
    if (!ok)
        set_error(err, err_len, "out of memory");
    ok = ok && count_words(cfg, files, n_files, s, err, err_len);
    for (size_t i = 0; ok && i < n_files; i++)
        ok = classify_file(files[i], buf, s->script_bytes, err, err_len);
    free(buf);
    if (ok) {
        s->words = s->table.n_entries;
        s->symbols = s->table.arena_used;
        bpe_word *array = NULL;
        bpe_words view;
        s->pairs = word_table_view(&s->table, &array, &view) ? words_initial_pairs(&view)
                                                              : UINT64_MAX;
        free(array);
        find_top_words(s);
        if (s->pairs == UINT64_MAX)
            ok = set_error(err, err_len, "out of memory counting pairs");
    }
    if (!ok)
        corpus_stats_free(s);
    return ok;
}

void corpus_stats_free(corpus_stats *s)
{
    word_table_free(&s->table);
    memset(s, 0, sizeof *s);
}
