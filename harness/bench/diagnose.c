/*
 * diagnose.c — see diagnose.h. The replay keeps every word's tokens in
 * one flat array (segmentation.h) and rewrites them merge after merge, as
 * naive.c does; it runs once per failed case, on a case's small input.
 */
#include "bench/diagnose.h"

#include "run/output.h"
#include "segmentation.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- counting */

/* Rewrites t[0, len) with merge m, left to right, non-overlapping (SPEC
 * §2.8); returns the new length. O(len). */
static uint32_t apply_merge(bpe_token *t, uint32_t len, const bpe_merge *m)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < len; i++) {
        bool here = i + 1 < len && t[i] == m->left && t[i + 1] == m->right;
        t[kept++] = here ? m->id : t[i];
        i += here;
    }
    return kept;
}

/* Whether token t of v has exactly these bytes. */
static bool token_is(const bpe_vocab *v, bpe_token t, const uint8_t *bytes, uint32_t len)
{
    return v->len[t] == len && memcmp(bpe_vocab_bytes(v, t), bytes, len) == 0;
}

uint64_t diagnose_pair_count(const bpe_words *words, const bpe_result *ref, size_t applied,
                             const uint8_t *left, uint32_t left_len, const uint8_t *right,
                             uint32_t right_len)
{
    bpe_segmentation seg;
    if (!bpe_segmentation_init(&seg, words))
        return UINT64_MAX;
    uint64_t count = 0;
    for (size_t w = 0; w < seg.n_words; w++) {
        bpe_token *t = bpe_segmentation_tokens(&seg, w);
        uint32_t len = seg.word[w].len;
        for (size_t k = 0; k < applied && len > 1; k++)
            len = apply_merge(t, len, &ref->merges[k]);
        for (uint32_t i = 0; i + 1 < len; i++)
            if (token_is(&ref->vocab, t[i], left, left_len) &&
                token_is(&ref->vocab, t[i + 1], right, right_len))
                count += seg.word[w].count;
    }
    bpe_segmentation_free(&seg);
    return count;
}

/* ------------------------------------------------------------- the hint */

/* Whether any word holds byte b. O(M). */
static bool words_hold(const bpe_words *words, uint8_t b)
{
    for (size_t w = 0; w < words->n_words; w++)
        if (memchr(words->words[w].bytes, b, words->words[w].len))
            return true;
    return false;
}

/* The likely mistake behind d (diagnose.h's table), or NULL. */
static const char *hint_for(const diagnose_input *in, const diagnosis *d)
{
    const bpe_vocab *v = &d->want->vocab;
    if (!d->has_got)
        return "your list ends first: V - 256 - S merges are asked for (the special tokens "
               "take ids too), and training stops early only when no pair occurs any more";
    if (!d->has_want)
        return "your list goes on after ours ended: V - 256 - S merges are asked for (the "
               "special tokens take ids too), and training stops when no pair occurs any more";
    if (d->got_count == UINT64_MAX)
        return NULL;
    const bpe_merge *m = &d->want->merges[d->index];
    bool cr_expected = memchr(bpe_vocab_bytes(v, m->left), '\r', v->len[m->left]) ||
                       memchr(bpe_vocab_bytes(v, m->right), '\r', v->len[m->right]);
    if ((cr_expected || d->got_count == 0) && words_hold(in->words, '\r'))
        return "the text has CR LF line ends, which your trainer seems not to see: Python's "
               "open() in text mode reads b'\\r\\n' as b'\\n' (universal newlines); open the "
               "file with newline=\"\" or in binary mode";
    if (d->got_count == d->want_count)
        return "a tie: both pairs occur as often, and docs/spec.md §2.7 gives it to the greater pair, "
               "comparing bytes(a), then bytes(b), as byte strings (in Python, max over "
               "pairs of bytes with key=lambda p: (count[p], p)), not token ids, not strings";
    if (d->got_count < d->want_count && token_is(v, m->left, bpe_vocab_bytes(v, m->right),
                                                 v->len[m->right]))
        return "the expected pair is one token twice, and in a run of it every position "
               "counts (docs/spec.md §2.6: [a, a, a] adds 2 to (a, a)); your trainer seems to count "
               "overlapping occurrences once";
    if (d->got_count == 0)
        return "your pair does not occur here: your words differ from ours (pattern, special "
               "tokens, reading the file), or an earlier merge was applied otherwise (docs/spec.md §2.8)";
    return "your pair occurs fewer times here: your pair counts are not those of docs/spec.md §2.6 (every "
           "adjacent position of every word, times the word's count)";
}

diagnosis diagnose(const diagnose_input *in, const bpe_result *want, const bpe_result *got)
{
    diagnosis d = {.index = -1, .want = want, .got = got};
    size_t n = want->n_merges < got->n_merges ? want->n_merges : got->n_merges;
    for (size_t i = 0; i < n && d.index < 0; i++) {
        const bpe_merge *x = &want->merges[i], *y = &got->merges[i];
        if (!token_is(&got->vocab, y->left, bpe_vocab_bytes(&want->vocab, x->left),
                      want->vocab.len[x->left]) ||
            !token_is(&got->vocab, y->right, bpe_vocab_bytes(&want->vocab, x->right),
                      want->vocab.len[x->right]))
            d.index = (long)i;
    }
    if (d.index < 0 && want->n_merges == got->n_merges)
        return d;
    if (d.index < 0)
        d.index = (long)n;
    size_t i = (size_t)d.index;
    d.has_want = i < want->n_merges;
    d.has_got = i < got->n_merges;
    if (d.has_want)
        d.want_count = want->merges[i].count;
    if (d.has_got) {
        const bpe_vocab *gv = &got->vocab;
        bpe_token l = got->merges[i].left, r = got->merges[i].right;
        d.got_count = diagnose_pair_count(in->words, want, i, bpe_vocab_bytes(gv, l), gv->len[l],
                                          bpe_vocab_bytes(gv, r), gv->len[r]);
    }
    d.hint = hint_for(in, &d);
    return d;
}

/* ------------------------------------------------------------- showing */

void diagnose_bytes_literal(const uint8_t *bytes, size_t len, char *out, size_t out_len)
{
    /* repr's rule: single quotes, unless the bytes hold ' and no " */
    char quote = memchr(bytes, '\'', len) && !memchr(bytes, '"', len) ? '"' : '\'';
    size_t at = 0;
    const size_t room = out_len > 8 ? out_len - 8 : 0; /* a whole escape, "...", the quote */
    at += (size_t)snprintf(out, out_len, "b%c", quote);
    for (size_t i = 0; i < len && at < room; i++) {
        uint8_t c = bytes[i];
        if (c == quote || c == '\\')
            at += (size_t)snprintf(out + at, out_len - at, "\\%c", c);
        else if (c == '\t' || c == '\n' || c == '\r')
            at += (size_t)snprintf(out + at, out_len - at, "\\%c",
                                   c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        else if (c < 0x20 || c >= 0x7f)
            at += (size_t)snprintf(out + at, out_len - at, "\\x%02x", c);
        else
            out[at++] = (char)c;
        if (i + 1 < len && at >= room)
            at += (size_t)snprintf(out + at, out_len - at, "...");
    }
    if (at + 2 <= out_len)
        snprintf(out + at, out_len - at, "%c", quote);
}

/* One side: "b'\r' + b'\n'  (č Ċ)  count 261". */
static void print_side(FILE *out, const char *label, const bpe_result *r, size_t i, bool known,
                       uint64_t count)
{
    const bpe_merge *m = &r->merges[i];
    char left[160], right[160];
    diagnose_bytes_literal(bpe_vocab_bytes(&r->vocab, m->left), r->vocab.len[m->left], left,
                           sizeof left);
    diagnose_bytes_literal(bpe_vocab_bytes(&r->vocab, m->right), r->vocab.len[m->right], right,
                           sizeof right);
    char *l = output_token_string(&r->vocab, m->left), *g = output_token_string(&r->vocab,
                                                                                m->right);
    fprintf(out, "      %-9s%s + %s  (%s %s)", label, left, right, l ? l : "?", g ? g : "?");
    if (known && count != UINT64_MAX)
        fprintf(out, "  count %llu", (unsigned long long)count);
    fputc('\n', out);
    free(l);
    free(g);
}

void diagnose_print(FILE *out, const diagnosis *d)
{
    size_t i = (size_t)d->index;
    if (d->has_want)
        print_side(out, "expected", d->want, i, true, d->want_count);
    if (d->has_got)
        print_side(out, "got", d->got, i, true, d->got_count);
    if (d->hint)
        fprintf(out, "      %-9s%s\n", "hint", d->hint);
}
