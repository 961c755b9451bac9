/*
 * treefile.c — finding the files of the source tree the binary was built
 * from (treefile.h): BPE_SOURCE_DIR and BPE_DATA_DIR, fixed at build time
 * by the Makefile.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/treefile.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(BPE_SOURCE_DIR) || !defined(BPE_DATA_DIR)
#error "BPE_SOURCE_DIR and BPE_DATA_DIR (absolute paths) are set by the Makefile for treefile.o"
#endif

bool tree_locate(const char *rel, char *out, size_t out_len)
{
    struct stat st;
    int len = snprintf(out, out_len, "%s/%s", BPE_SOURCE_DIR, rel);
    return len > 0 && (size_t)len < out_len && stat(out, &st) == 0;
}

const char *tree_root(void)
{
    return BPE_SOURCE_DIR;
}

const char *tree_data_dir(void)
{
    return BPE_DATA_DIR;
}
