/*
 * count_dedup.c — segment deduplication: identical segments of text between
 * safe cuts are pretokenized once, their counts multiplied. (Not the "chunk
 * deduplication" of "From Hours to Seconds": its chunks are the regex's
 * pieces, our pretokens, which every word table deduplicates already.)
 *
 * Idea: corpora repeat themselves — boilerplate lines, licence headers,
 * whole documents between special tokens. Pretokenizing a chunk is a pure
 * function of its bytes when the chunk begins and ends at safe cuts (cut.h),
 * so a chunk seen k times may be pretokenized once and each of its pretokens
 * counted k times. The regex then runs over the distinct text only.
 *
 * Structures: a chunk table — the word table again (wordtable.h), its
 * "words" being whole chunks (the text between two successive safe cuts, or
 * a file boundary), with their multiplicities — and beside each distinct
 * chunk the file and byte offset of its first occurrence, for messages.
 * Pass 1 streams every file and counts chunks; pass 2 pretokenizes the
 * distinct chunks in first-seen order, each with its multiplicity.
 *
 * Invariant (why the word order is serial's): a word's first occurrence in
 * the text lies in the first occurrence of some chunk (a later occurrence
 * of a chunk repeats an earlier one). Pass 2 visits chunks in the order of
 * their first occurrences and each chunk's pretokens in text order, so words
 * enter the table in serial's order, with serial's counts. Statistics of a
 * chunk are multiplied likewise. The first chunk that fails is the one whose
 * first occurrence serial would have failed in first, at the same offset.
 *
 * Complexity: O(n) hashing and cut tests in pass 1, plus the regex over the
 * distinct chunks only: O(n_distinct) where n_distinct = Σ len(distinct
 * chunks). Memory: O(n_distinct + W + M) — the distinct chunks are kept.
 *
 * Leaves out: bounded memory (a corpus of distinct lines is held whole: the
 * price of the lesson); threads (pass 2 could run on N threads as
 * count_parallel does — the two compose in principle, see docs/counting.md
 * for why we did not); standard input (counted by serial, and the report
 * says so).
 */
#define _POSIX_C_SOURCE 200809L
#include "input/count.h"
#include "input/cut.h"

#include "array.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/fdio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { READ_BYTES = 1 << 20 }; /* bytes per read */

/* Pass 1's state. */
typedef struct {
    const count_request *req; /* what to count (borrowed) */
    const cut_finder *cuts;   /* where chunks may end (borrowed) */
    word_table chunks;        /* distinct chunks, first-seen order, with multiplicities; owned */
    size_t *first_file;       /* per distinct chunk: the file of its first occurrence; owned */
    uint64_t *first_offset;   /* per distinct chunk: its offset there; owned */
    size_t cap_first;         /* capacity of both */
    uint64_t occurrences;     /* chunks seen, counting repeats */
    uint8_t *buf;             /* the current file's unfinished chunk and the next read; owned */
    size_t buf_cap;           /* capacity of buf */
    double read_seconds;      /* time inside read() */
    uint64_t bytes_read;      /* over every file so far, for req->on_bytes */
} chunk_pass;

/* Counts one chunk occurrence: file `file`, bytes text[0, len) at `offset`. */
static bool add_chunk(chunk_pass *cp, size_t file, uint64_t offset, const uint8_t *text,
                      size_t len, char *err, size_t err_len)
{
    size_t before = cp->chunks.n_entries;
    if (!word_table_add(&cp->chunks, text, len, 1))
        return set_error(err, err_len, "%s: out of memory counting chunks (%zu distinct so "
                         "far, or one longer than 4 GiB)", cp->req->files[file], before);
    cp->occurrences++;
    if (cp->chunks.n_entries == before)
        return true;
    size_t cap = cp->cap_first;
    size_t *files = bpe_array_reserve(cp->first_file, &cap, before + 1, sizeof *files);
    if (files)
        cp->first_file = files;
    uint64_t *offsets = files ? bpe_array_reserve(cp->first_offset, &cp->cap_first, before + 1,
                                                  sizeof *offsets)
                              : NULL;
    if (!offsets)
        return set_error(err, err_len, "out of memory counting chunks");
    cp->first_offset = offsets;
    cp->first_file[before] = file;
    cp->first_offset[before] = offset;
    return true;
}

/*
 * Pass 1 over one open file: reads up to `end` (or its end when to_eof) and
 * counts the chunks between safe cuts. The cut test reads a little past a
 * candidate, so cuts in the last reach bytes wait for the next read.
 * O(file). *bytes_read says how far it got.
 */
static bool chunk_file(chunk_pass *cp, size_t file, int fd, const char *name, uint64_t end,
                       bool to_eof, uint64_t *bytes_read, char *err, size_t err_len)
{
    size_t reach = cut_finder_reach(cp->cuts) + 4, len = 0, scan = 1;
    uint64_t base = 0; /* file offset of buf[0]: the start of the unfinished chunk */
    *bytes_read = 0;
    for (bool eof = false; !eof;) {
        size_t want = to_eof || end - *bytes_read >= READ_BYTES ? READ_BYTES
                                                                : (size_t)(end - *bytes_read);
        uint8_t *grown = bpe_array_reserve(cp->buf, &cp->buf_cap, len + want + 1, 1);
        if (!grown)
            return set_error(err, err_len, "%s: out of memory holding a %zu-byte chunk", name,
                             len + want);
        cp->buf = grown;
        size_t got;
        double t0 = clock_now();
        bool ok = read_full(fd, cp->buf + len, want, &got);
        cp->read_seconds += clock_now() - t0;
        if (!ok)
            return set_error(err, err_len, "%s: read failed at byte offset %llu: %s; check the "
                             "file", name, (unsigned long long)(*bytes_read + got),
                             strerror(errno));
        len += got;
        *bytes_read += got;
        cp->bytes_read += got;
        if (cp->req->on_bytes)
            cp->req->on_bytes(cp->req->ctx, cp->bytes_read);
        eof = got < want || (!to_eof && *bytes_read == end);
        size_t decided = eof ? len : len > reach ? len - reach : 0, start = 0;
        for (size_t c; (c = cut_find(cp->cuts, cp->buf, len, scan, decided)) < decided;) {
            if (!add_chunk(cp, file, base + start, cp->buf + start, c - start, err, err_len))
                return false;
            start = c;
            scan = c + 1;
        }
        if (eof && len > start && !add_chunk(cp, file, base + start, cp->buf + start,
                                             len - start, err, err_len))
            return false;
        memmove(cp->buf, cp->buf + start, len - start); /* keep the unfinished chunk */
        len -= start;
        base += start;
        scan = (decided > scan ? decided : scan) - start;
    }
    return true;
}

/* Pass 1 over every input, in order, as serial reads them (a word-safe
 * prefix with max_bytes). Stops at the first failure. */
static bool chunk_files(chunk_pass *cp, char *err, size_t err_len)
{
    const count_request *req = cp->req;
    uint64_t budget = req->max_bytes;
    for (size_t i = 0; i < req->n_files && !(req->max_bytes && budget == 0); i++) {
        int fd;
        struct stat st;
        const char *name;
        if (!corpus_open_input(req->files[i], &fd, &st, &name, err, err_len))
            return false;
        uint64_t size = (uint64_t)st.st_size, end = size, got = 0;
        bool cut = false, to_eof = size == 0; /* size 0: empty, or a /proc file: read it all */
        bool ok = !req->max_bytes || to_eof ||
                  corpus_prefix_end(fd, name, size, budget, req->pretok->specials,
                                    req->pretok->n_specials, &end, &cut, err, err_len);
        ok = ok && chunk_file(cp, i, fd, name, end, to_eof, &got, err, err_len) &&
             corpus_unchanged_while_read(fd, name, &st, 0, got, !cut, err, err_len);
        close(fd);
        if (!ok)
            return false;
        budget -= req->max_bytes ? got : 0;
        if (cut)
            break;
    }
    return true;
}

/* Pass 2: every distinct chunk pretokenized once, in first-seen order, each
 * pretoken counted as often as its chunk occurs; statistics scaled alike. */
static bool count_chunks(const chunk_pass *cp, pretokenizer *p, word_table *words,
                         pretok_stats *extra, char *err, size_t err_len)
{
    const word_table *t = &cp->chunks;
    for (size_t i = 0; i < t->n_entries; i++) {
        const word_entry *e = &t->entries[i];
        pretok_stats before = *pretok_get_stats(p);
        pretok_begin_at(p, cp->req->files[cp->first_file[i]], words, cp->first_offset[i]);
        pretok_set_multiplicity(p, e->count);
        if (!pretok_feed(p, t->arena + e->offset, e->len, err, err_len) ||
            !pretok_end(p, err, err_len))
            return false;
        const pretok_stats *after = pretok_get_stats(p);
        uint64_t more = e->count - 1;
        extra->bytes += (after->bytes - before.bytes) * more;
        extra->pretokens += (after->pretokens - before.pretokens) * more;
        extra->specials += (after->specials - before.specials) * more;
        extra->invalid_runs += (after->invalid_runs - before.invalid_runs) * more;
        extra->unmatched_bytes += (after->unmatched_bytes - before.unmatched_bytes) * more;
    }
    return true;
}

static bool count_dedup(const count_request *req, word_table *words, count_report *report,
                        char *err, size_t err_len)
{
    *report = (count_report){0};
    if (count_reads_stdin(req))
        return count_serially(req, words, report, "standard input is one stream: counted without deduplication", err,
                              err_len);
    cut_finder *cuts = cut_finder_new(req->pretok);
    pretokenizer *p = pretok_new(req->pretok, err, err_len);
    chunk_pass cp = {.req = req, .cuts = cuts};
    bool ok = p != NULL;
    if (ok && (!cuts || !word_table_init(&cp.chunks)))
        ok = set_error(err, err_len, "out of memory");
    if (ok) {
        if (!cut_finder_splits_text(cuts))
            report->fallback = "a user pattern: chunks are documents between special tokens";
        /* A reading error comes after the text before it: that text's error, if any, first. */
        char read_err[1024] = "";
        bool read_ok = chunk_files(&cp, read_err, sizeof read_err);
        pretok_stats extra = {0};
        ok = count_chunks(&cp, p, words, &extra, err, err_len);
        if (ok && !read_ok)
            ok = set_error(err, err_len, "%s", read_err);
        report->corpus = *pretok_get_stats(p);
        count_add_stats(&report->corpus, &extra);
    }
    report->read_seconds = cp.read_seconds;
    report->threads_used = 1;
    report->chunks = cp.occurrences;
    report->chunks_distinct = cp.chunks.n_entries;
    word_table_free(&cp.chunks);
    free(cp.first_file);
    free(cp.first_offset);
    free(cp.buf);
    pretok_free(p);
    cut_finder_free(cuts);
    return ok;
}

const count_strategy count_strategy_dedup = {
    .name = "dedup",
    .idea = "identical chunks between safe cuts pretokenized once, their counts multiplied",
    .count = count_dedup,
};
