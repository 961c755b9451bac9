/*
 * verify.c — see verify.h. Compares 64-bit merge digests first (cheap, and
 * all that results.json keeps); only when two digests differ are the two
 * merge lists read to find and print the first differing merge.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/verify.h"

#include <stdlib.h>
#include <string.h>

/* Reads line `index` (0-based) of a merge list into `line` (newline
 * removed), from the start of the file; false when it has fewer lines. */
static bool merge_line(FILE *list, size_t index, char *line, size_t line_len)
{
    char *buf = NULL;
    size_t cap = 0;
    bool found = false;
    rewind(list);
    for (size_t i = 0; getline(&buf, &cap, list) > 0; i++)
        if (i == index) {
            buf[strcspn(buf, "\n")] = '\0';
            snprintf(line, line_len, "%s", buf);
            found = true;
            break;
        }
    free(buf);
    return found;
}

/* The length of a merge line's pair, "LEFT RIGHT" (the count, which an
 * external trainer's list has not, left out: on the same text the same
 * merges have the same counts). */
static size_t pair_length(const char *line, size_t len)
{
    const char *space = memchr(line, ' ', len);
    const char *second = space ? memchr(space + 1, ' ', len - (size_t)(space + 1 - line)) : NULL;
    if (second)
        return (size_t)(second - line);
    return len && line[len - 1] == '\n' ? len - 1 : len;
}

long verify_first_difference(FILE *a, FILE *b)
{
    char *la = NULL, *lb = NULL;
    size_t ca = 0, cb = 0;
    long index = -1;
    rewind(a);
    rewind(b);
    for (long i = 0;; i++) {
        ssize_t na = getline(&la, &ca, a), nb = getline(&lb, &cb, b);
        if (na <= 0 && nb <= 0)
            break;
        size_t pa = na > 0 ? pair_length(la, (size_t)na) : 0;
        size_t pb = nb > 0 ? pair_length(lb, (size_t)nb) : 0;
        if (na <= 0 || nb <= 0 || pa != pb || memcmp(la, lb, pa) != 0) {
            index = i;
            break;
        }
    }
    free(la);
    free(lb);
    return index;
}

/* Prints one side of a differing merge: "(LEFT, RIGHT) count N". */
static void print_merge_line(FILE *out, const char *trainer, FILE *list, long index)
{
    char line[1024];
    char left[480], right[480];
    unsigned long long count;
    if (!list || !merge_line(list, (size_t)index, line, sizeof line)) {
        fprintf(out, "    %-16s (no merge %ld: its list is shorter)\n", trainer, index);
        return;
    }
    int fields = sscanf(line, "%479s %479s %llu", left, right, &count);
    if (fields == 3)
        fprintf(out, "    %-16s (%s, %s) count %llu\n", trainer, left, right, count);
    else if (fields == 2) /* an external trainer's: no count */
        fprintf(out, "    %-16s (%s, %s)\n", trainer, left, right);
    else
        fprintf(out, "    %-16s %s\n", trainer, line);
}

/* Reports that `bad` disagrees with `good`, with the first differing merge. */
static void report_mismatch(FILE *out, const bench_record *good, FILE *good_list,
                            const bench_record *bad, FILE *bad_list)
{
    fprintf(out, "MISMATCH %s V=%llu: %s (digest %016llx) differs from %s (digest %016llx)\n",
            bad->corpus, (unsigned long long)bad->vocab_size, bad->trainer,
            (unsigned long long)bad->digest, good->trainer, (unsigned long long)good->digest);
    long index = good_list && bad_list ? verify_first_difference(good_list, bad_list) : -1;
    if (index < 0) {
        fprintf(out, "    (merge lists unavailable to locate the first difference)\n");
        return;
    }
    fprintf(out, "    first differing merge: index %ld (0-based)\n", index);
    print_merge_line(out, good->trainer, good_list, index);
    print_merge_line(out, bad->trainer, bad_list, index);
}

static void mark(bench_record *r, bool verified, const char *against)
{
    r->verified = verified;
    snprintf(r->verified_against, sizeof r->verified_against, "%s", against);
}

/* Whether a run has a merge list to compare: it finished with a digest. */
static bool has_merge_list(const bench_record *r)
{
    return r->status == STATUS_OK && r->has_digest;
}

size_t verify_cell(bench_record *recs, size_t n, const char *reference,
                   FILE *const *merge_lists, FILE *out)
{
    size_t ref = n, n_finished = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        mark(&recs[i], false, "none");
        if (!has_merge_list(&recs[i]))
            continue;
        n_finished++;
        first = first < n ? first : i;
        if (strcmp(recs[i].trainer, reference) == 0)
            ref = i;
    }
    char against[48];
    if (ref < n)
        snprintf(against, sizeof against, "%s", reference);
    else if (n_finished >= 2)
        snprintf(against, sizeof against, "agreement of %zu trainers", n_finished);
    else
        return 0; /* nothing to compare with: every record stays "none" */
    size_t base = ref < n ? ref : first, mismatches = 0;
    for (size_t i = 0; i < n; i++) {
        if (!has_merge_list(&recs[i]))
            continue;
        bool same = recs[i].digest == recs[base].digest;
        mark(&recs[i], same, against);
        if (!same) {
            mismatches++;
            report_mismatch(out, &recs[base], merge_lists ? merge_lists[base] : NULL, &recs[i],
                            merge_lists ? merge_lists[i] : NULL);
        }
    }
    if (ref == n && mismatches > 0) /* without a reference nobody can be trusted */
        for (size_t i = 0; i < n; i++)
            recs[i].verified = false;
    return mismatches;
}
