/* testutil_files.c — see testutil_files.h. */
#define _DEFAULT_SOURCE /* realpath, DT_DIR */
#include "testutil.h"
#include "array.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t used = 0, cap = 0, got;
    do {
        text = bpe_array_reserve(text, &cap, used + 65536 + 1, 1);
        assert_non_null(text);
        got = fread(text + used, 1, 65536, f);
        used += got;
    } while (got > 0);
    fclose(f);
    text[used] = '\0';
    if (len)
        *len = used;
    return text;
}

void test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

void test_write_text(const char *path, const char *text)
{
    test_write_file(path, text, strlen(text));
}

static bool memory_write(void *ctx, const void *data, size_t len, char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    test_memory_text *m = ctx;
    char *grown = realloc(m->data, m->len + len + 1);
    if (!grown)
        abort();
    m->data = grown;
    memcpy(m->data + m->len, data, len);
    m->len += len;
    m->data[m->len] = '\0';
    return true;
}

byte_sink test_memory_sink(test_memory_text *m)
{
    return (byte_sink){.write = memory_write, .ctx = m};
}

const char *test_data_dir(void)
{
    const char *dir = getenv("BPE_DATA");
    return dir ? dir : "build/data";
}

void test_make_dir(char *dir, size_t len, const char *name)
{
    int n = snprintf(dir, len, "/tmp/bpebench-%s-XXXXXX", name);
    assert_true(n > 0 && (size_t)n < len);
    if (!mkdtemp(dir))
        fail_msg("cannot make %s: %s", dir, strerror(errno));
}

void test_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    DIR *d = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = malloc(strlen(path) + strlen(e->d_name) + 2);
        assert_non_null(child);
        sprintf(child, "%s/%s", path, e->d_name);
        test_remove_tree(child);
        free(child);
    }
    if (d)
        closedir(d);
    if (remove(path) != 0)
        fail_msg("cannot remove %s: %s", path, strerror(errno));
}

int test_setup_dir(void **state)
{
    static char dir[64];
    test_make_dir(dir, sizeof dir, "test");
    *state = dir;
    return 0;
}

int test_teardown_dir(void **state)
{
    test_remove_tree(*state);
    return 0;
}

bool test_find_temporary(const char *root, char *found, size_t found_len)
{
    DIR *d = opendir(root);
    bool hit = false;
    for (struct dirent *e; d && !hit && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = malloc(strlen(root) + strlen(e->d_name) + 2);
        assert_non_null(child);
        sprintf(child, "%s/%s", root, e->d_name);
        if (strstr(e->d_name, ".tmp.") || strncmp(e->d_name, ".bpebench-probe", 15) == 0) {
            snprintf(found, found_len, "%s", child);
            hit = true;
        } else if (e->d_type == DT_DIR) {
            hit = test_find_temporary(child, found, found_len);
        }
        free(child);
    }
    if (d)
        closedir(d);
    return hit;
}

void assert_no_temporary_files(const char *root)
{
    char found[PATH_MAX];
    if (test_find_temporary(root, found, sizeof found))
        fail_msg("temporary file left behind: %s", found);
}

char *test_file_contents(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = test_slurp(path, NULL);
    if (!text)
        text = strdup("-");
    assert_non_null(text);
    return text;
}

size_t test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

void assert_vocab_json_whole(const char *path, size_t n_tokens)
{
    size_t len;
    char *text = test_slurp(path, &len);
    if (!text)
        fail_msg("%s: cannot read it", path);
    int stop;
    if (utf8_valid_prefix((const uint8_t *)text, len, &stop) != len)
        fail_msg("%s: not valid UTF-8", path);
    cJSON *vocab = cJSON_Parse(text);
    if (!vocab || !cJSON_IsObject(vocab))
        fail_msg("%s: not a JSON object", path);
    bool *seen = calloc(n_tokens + 1, sizeof *seen);
    assert_non_null(seen);
    size_t keys = 0;
    for (cJSON *item = vocab->child; item; item = item->next, keys++) {
        double id = cJSON_GetNumberValue(item);
        if (!(id >= 0 && id < (double)n_tokens) || id != (double)(size_t)id || seen[(size_t)id])
            fail_msg("%s: key \"%s\" has id %g: not a fresh id below %zu", path, item->string, id,
                     n_tokens);
        seen[(size_t)id] = true;
    }
    if (keys != n_tokens)
        fail_msg("%s: %zu keys for %zu tokens", path, keys, n_tokens);
    for (cJSON *a = vocab->child; a; a = a->next) /* cJSON keeps a repeated key twice */
        for (cJSON *b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                fail_msg("%s: key \"%s\" appears twice", path, a->string);
    free(seen);
    cJSON_Delete(vocab);
    free(text);
}

void test_write_file_in(const char *dir, const char *name, const void *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    test_write_file(path, data, len);
}
