/*
 * bpe.c — what every trainer shares: the token vocabulary, the SPEC §2.7
 * tie-break (the only one in the tree), the training driver and the merge
 * digest. The trainers themselves live one per file beside this one.
 */
#include "bpe.h"
#include "array.h"

#include <stdlib.h>
#include <string.h>

/* ================================================================ vocab */

/* Makes room for one more token and `extra` more bytes. False on OOM.
 * Amortized O(extra). */
static bool vocab_reserve(bpe_vocab *v, size_t extra)
{
    size_t tokens = (size_t)v->n_tokens + 1;
    uint64_t *offset = bpe_array_reserve(v->offset, &v->offset_cap, tokens, sizeof *offset);
    if (!offset)
        return false;
    v->offset = offset;
    uint32_t *len = bpe_array_reserve(v->len, &v->len_cap, tokens, sizeof *len);
    if (!len)
        return false;
    v->len = len;
    if (extra > SIZE_MAX - v->bytes_used)
        return false;
    uint8_t *bytes = bpe_array_reserve(v->bytes, &v->bytes_cap, v->bytes_used + extra, 1);
    if (!bytes)
        return false;
    v->bytes = bytes;
    return true;
}

bool bpe_vocab_init(bpe_vocab *v)
{
    memset(v, 0, sizeof *v);
    for (unsigned b = 0; b < BPE_BYTE_TOKENS; b++) {
        if (!vocab_reserve(v, 1))
            return false;
        v->offset[b] = v->bytes_used;
        v->len[b] = 1;
        v->bytes[v->bytes_used++] = (uint8_t)b;
        v->n_tokens++;
    }
    return true;
}

bool bpe_vocab_copy(bpe_vocab *to, const bpe_vocab *from)
{
    memset(to, 0, sizeof *to);
    size_t n = from->n_tokens;
    to->bytes = malloc(from->bytes_used + 1);
    to->offset = malloc((n + 1) * sizeof *to->offset);
    to->len = malloc((n + 1) * sizeof *to->len);
    if (!to->bytes || !to->offset || !to->len) {
        bpe_vocab_free(to);
        return false;
    }
    memcpy(to->bytes, from->bytes, from->bytes_used);
    memcpy(to->offset, from->offset, n * sizeof *to->offset);
    memcpy(to->len, from->len, n * sizeof *to->len);
    to->bytes_used = from->bytes_used;
    to->bytes_cap = from->bytes_used + 1;
    to->n_tokens = from->n_tokens;
    to->offset_cap = to->len_cap = n + 1;
    return true;
}

void bpe_vocab_free(bpe_vocab *v)
{
    free(v->bytes);
    free(v->offset);
    free(v->len);
    memset(v, 0, sizeof *v);
}

bpe_token bpe_vocab_add_merge(bpe_vocab *v, bpe_token a, bpe_token b)
{
    size_t la = v->len[a], lb = v->len[b];
    if (la + lb > UINT32_MAX || v->n_tokens == BPE_NO_TOKEN || !vocab_reserve(v, la + lb))
        return BPE_NO_TOKEN;
    bpe_token id = v->n_tokens++;
    v->offset[id] = v->bytes_used;
    v->len[id] = (uint32_t)(la + lb);
    memcpy(v->bytes + v->bytes_used, v->bytes + v->offset[a], la);
    memcpy(v->bytes + v->bytes_used + la, v->bytes + v->offset[b], lb);
    v->bytes_used += la + lb;
    return id;
}

/* Forgets the last token added (the merge the driver does not keep). O(1). */
static void vocab_drop_last(bpe_vocab *v)
{
    v->n_tokens--;
    v->bytes_used -= v->len[v->n_tokens];
}

/* ============================================================ tie-break */

/* Byte strings: memcmp over the common length, then the longer is greater. */
static int token_bytes_cmp(const bpe_vocab *v, bpe_token x, bpe_token y)
{
    if (x == y)
        return 0;
    uint32_t lx = v->len[x], ly = v->len[y];
    int c = memcmp(bpe_vocab_bytes(v, x), bpe_vocab_bytes(v, y), lx < ly ? lx : ly);
    if (c != 0)
        return c;
    return (lx > ly) - (lx < ly);
}

int bpe_pair_bytes_cmp(const bpe_vocab *v, bpe_token a1, bpe_token b1,
                       bpe_token a2, bpe_token b2)
{
    int c = token_bytes_cmp(v, a1, a2);
    if (c == 0)
        c = token_bytes_cmp(v, b1, b2);
    if (c != 0)
        return c;
    /* Equal bytes, different tokens: two merges built the same string. The
     * older tokens (smaller ids) rank above, so the order stays total. */
    if (a1 != a2)
        return a1 < a2 ? 1 : -1;
    return (b1 < b2) - (b1 > b2);
}

/* ============================================================= registry */

const bpe_trainer *bpe_trainer_find(const char *name)
{
    for (const bpe_trainer *const *t = bpe_trainers; *t; t++)
        if (strcmp((*t)->name, name) == 0)
            return *t;
    return NULL;
}

int bpe_trainer_counter_count(const bpe_trainer *t)
{
    int n = 0;
    while (t->counter_names[n])
        n++;
    return n;
}

/* =============================================================== driver */

static void notify(const bpe_observer *obs, bpe_event event, const bpe_merge *merge,
                   const void *state)
{
    if (obs && obs->on_event)
        obs->on_event(obs->ctx, event, merge, state);
}

/* Appends one merge to the result. False on OOM. Amortized O(1). */
static bool result_push(bpe_result *r, const bpe_merge *m)
{
    bpe_merge *merges = bpe_array_reserve(r->merges, &r->cap_merges, r->n_merges + 1,
                                          sizeof *merges);
    if (!merges)
        return false;
    r->merges = merges;
    r->merges[r->n_merges++] = *m;
    return true;
}

bool bpe_pair_count_bound(const bpe_words *words, uint64_t *bound)
{
    uint64_t total = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        uint64_t positions = words->words[w].len ? words->words[w].len - 1u : 0;
        uint64_t count = words->words[w].count;
        if (positions != 0 && count > UINT64_MAX / positions)
            return false; /* positions · count would pass 2^64 − 1 */
        uint64_t weighted = positions * count;
        if (weighted > UINT64_MAX - total)
            return false; /* total + weighted would */
        total += weighted;
    }
    *bound = total;
    return true;
}

/* The result a run from `start` begins with: its merges and tokens, or
 * (start NULL) the 256 bytes. False on OOM. */
static bool result_begin(bpe_result *result, const bpe_result *start)
{
    if (!start)
        return bpe_vocab_init(&result->vocab);
    if (!bpe_vocab_copy(&result->vocab, &start->vocab))
        return false;
    for (size_t i = 0; i < start->n_merges; i++)
        if (!result_push(result, &start->merges[i]))
            return false;
    return true;
}

bpe_status bpe_train(const bpe_trainer *trainer, const bpe_words *words,
                     const bpe_config *config, const bpe_observer *observer,
                     bpe_result *result)
{
    return bpe_train_from(trainer, words, config, NULL, observer, result);
}

bpe_status bpe_train_from(const bpe_trainer *trainer, const bpe_words *words,
                          const bpe_config *config, const bpe_result *start,
                          const bpe_observer *observer, bpe_result *result)
{
    memset(result, 0, sizeof *result);
    uint64_t bound;
    if (!bpe_pair_count_bound(words, &bound))
        return BPE_ERR_OVERFLOW;
    if (!result_begin(result, start)) {
        bpe_result_free(result);
        return BPE_ERR_NOMEM;
    }
    bpe_config left = *config; /* the trainer is asked for the merges still to make */
    left.max_merges = config->max_merges > result->n_merges ? config->max_merges - result->n_merges
                                                            : 0;
    void *state = trainer->create(words, &left, &result->vocab, &result->counters);
    if (!state) {
        bpe_result_free(result);
        return BPE_ERR_NOMEM;
    }
    notify(observer, BPE_EVENT_SETUP_DONE, NULL, state);

    bpe_status status = BPE_OK;
    while (result->n_merges < config->max_merges) {
        bpe_merge merge;
        bpe_step_result step = trainer->step(state, &merge);
        if (step == BPE_STEP_EXHAUSTED) {
            result->exhausted = true;
            break;
        }
        if (step == BPE_STEP_MERGED && merge.count < config->min_frequency) {
            vocab_drop_last(&result->vocab);
            result->below_min_frequency = true;
            result->next_count = merge.count;
            break;
        }
        if (step == BPE_STEP_NOMEM || !result_push(result, &merge)) {
            status = BPE_ERR_NOMEM;
            break;
        }
        notify(observer, BPE_EVENT_MERGE_DONE, &merge, state);
    }
    trainer->destroy(state);
    if (status != BPE_OK)
        bpe_result_free(result);
    return status;
}

void bpe_result_free(bpe_result *result)
{
    free(result->merges);
    bpe_vocab_free(&result->vocab);
    memset(result, 0, sizeof *result);
}

/* ================================================================ digest */

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Hashes a token as its length (4 bytes, little-endian) then its bytes. */
static uint64_t digest_token(uint64_t h, const bpe_vocab *v, bpe_token t)
{
    uint32_t len = v->len[t];
    uint8_t le[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
    h = fnv1a(h, le, sizeof le);
    return fnv1a(h, bpe_vocab_bytes(v, t), len);
}

uint64_t bpe_merges_digest(const bpe_result *result)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < result->n_merges; i++) {
        h = digest_token(h, &result->vocab, result->merges[i].left);
        h = digest_token(h, &result->vocab, result->merges[i].right);
    }
    return h;
}
