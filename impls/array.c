/* array.c — see array.h. */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>

void *bpe_array_grow(void *data, size_t *cap, size_t need, size_t size)
{
    if (size == 0 || need > SIZE_MAX / size)
        return NULL;
    size_t grown = *cap ? *cap : BPE_ARRAY_FIRST;
    while (grown < need)
        grown = grown <= SIZE_MAX / 2 ? grown * 2 : need;
    if (grown > SIZE_MAX / size) /* doubling passed what fits: take just what is needed */
        grown = need;
    void *bigger = realloc(data, grown * size);
    if (!bigger)
        return NULL;
    *cap = grown;
    return bigger;
}
