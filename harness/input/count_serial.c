/*
 * count_serial.c — the reference counting strategy: one pretokenizer streams
 * every file, chunk after chunk, into one word table (pretok.h, corpus.h).
 *
 * Idea: nothing beyond SPEC §2 — the text in order, each pretoken counted as
 * it is matched. Structures: one pretokenizer, one 1 MiB read buffer, the
 * word table. Invariant: the table's entries are in first-seen order.
 * Complexity: O(n) time, O(W + M + chunk + longest pretoken) memory, one core.
 * Leaves out: every other core, and text that repeats (dedup).
 */
#include "input/count.h"

static bool count_serial(const count_request *req, word_table *words, count_report *report,
                         char *err, size_t err_len)
{
    pretokenizer *p = pretok_new(req->pretok, err, err_len);
    if (!p)
        return false;
    corpus_read read = {.max_bytes = req->max_bytes, .on_bytes = req->on_bytes, .ctx = req->ctx};
    bool ok = corpus_count_words(p, req->pretok, req->files, req->n_files, &read, words, err,
                                 err_len);
    *report = (count_report){.corpus = *pretok_get_stats(p), .read_seconds = read.read_seconds,
                             .threads_used = 1, .chunks = read.files_read};
    pretok_free(p);
    return ok;
}

const count_strategy count_strategy_serial = {
    .name = "serial",
    .idea = "one pretokenizer streams the files in order into one word table",
    .count = count_serial,
};
