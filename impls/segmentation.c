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
