/*
 * treefile.c — finding the files shipped beside the binary (treefile.h):
 * /proc/self/exe, then its directory and up to three above it.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/treefile.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool tree_locate(const char *rel, char *out, size_t out_len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    struct stat st;
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return false;
        *slash = '\0';
        int len = snprintf(out, out_len, "%s/%s", exe, rel);
        if (len < 0 || (size_t)len >= out_len)
            return false;
        if (stat(out, &st) == 0)
            return true;
    }
    return false;
}
