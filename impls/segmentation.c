/* segmentation.c — see segmentation.h. */
#include "segmentation.h"

#include <stdlib.h>

bool bpe_segmentation_init(bpe_segmentation *s, const bpe_words *words)
{
    *s = (bpe_segmentation){.n_words = words->n_words};
    if (words->n_symbols > UINT32_MAX)
        return false;
    s->symbols = malloc((words->n_symbols + 1) * sizeof *s->symbols);
    s->word = malloc((words->n_words + 1) * sizeof *s->word);
    if (!s->symbols || !s->word) {
        bpe_segmentation_free(s);
        return false;
    }
    uint32_t at = 0;
    for (size_t w = 0; w < words->n_words; w++) {
        const bpe_word *word = &words->words[w];
        s->word[w] = (bpe_word_span){.start = at, .len = word->len, .count = word->count};
        for (uint32_t i = 0; i < word->len; i++)
            s->symbols[at++] = bpe_word_symbol(words, word, i);
    }
    return true;
}

void bpe_segmentation_free(bpe_segmentation *s)
{
    free(s->symbols);
    free(s->word);
    *s = (bpe_segmentation){0};
}

void bpe_segmentation_describe(const bpe_segmentation *s, bpe_description *d)
{
    bpe_describe_section(d, BPE_SHOW_WORDS, BPE_SHOWS_NEXT, "the words", "word", "count", NULL);
    for (size_t w = 0; w < s->n_words; w++) {
        bpe_describe_row(d, NULL, w, s->word[w].count);
        const bpe_token *t = bpe_segmentation_tokens(s, w);
        for (uint32_t i = 0; i < s->word[w].len; i++)
            bpe_describe_item(d, i, t[i], BPE_MARK_NONE);
    }
}

void bpe_segmentation_describe_list(const bpe_segmentation *s, const bpe_postings *postings,
                                    uint32_t list, bpe_token a, bpe_token b,
                                    bpe_description *d)
{
    bpe_describe_pair(d, a, b, list, 0, 0, BPE_MARK_NONE);
    const uint32_t *ids = bpe_postings_ids(postings, list);
    for (uint32_t k = 0; k < bpe_postings_len(postings, list); k++) {
        uint32_t w = ids[k], len = s->word[w].len;
        bool holds = bpe_find_pair(bpe_segmentation_tokens(s, w), len, a, b) != len;
        bpe_describe_item(d, w, BPE_NO_TOKEN, holds ? BPE_MARK_NONE : BPE_MARK_STALE);
    }
}
