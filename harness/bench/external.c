/*
 * external.c — see external.h. The command runs under a reaper in
 * runner_in_child's process (its own process group; asked to stop at the
 * time limit, when it kills everything the command started), so it is
 * timed and measured (wait4's peak RSS) exactly like a built-in run; the
 * end of its standard error comes back over the pipe.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/external.h"
#include "bench/runner.h"

#include "base/byteunicode.h"
#include "base/clock.h"
#include "base/errors.h"
#include "base/fdio.h"
#include "base/reaper.h"
#include "base/tempdir.h"
#include "base/utf8.h"
#include "input/wordcount.h"
#include "input/wordtable.h"
#include "run/run.h"
#include "tools/datatools.h"
#include "array.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------- names */

/* s[0, len) without the spaces at either end. */
static void trim(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s))
        ++*s, --*len;
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        --*len;
}

bool external_parse(const char *spec, external_trainer *t, char *err, size_t err_len)
{
    memset(t, 0, sizeof *t);
    const char *eq = strchr(spec, '=');
    if (!eq)
        return set_error(err, err_len, "bad external trainer '%s': give NAME=COMMAND", spec);
    const char *name = spec, *command = eq + 1;
    size_t name_len = (size_t)(eq - spec), command_len = strlen(command);
    trim(&name, &name_len);
    trim(&command, &command_len);
    if (name_len >= sizeof t->name)
        return set_error(err, err_len, "bad external trainer name '%.*s...': longer than %d "
                         "bytes; give a shorter name", 40, name, EXTERNAL_NAME_MAX);
    if (name_len == 0)
        return set_error(err, err_len, "bad external trainer name '': " UNTRUSTED_NAME_RULE);
    memcpy(t->name, name, name_len);
    t->name[name_len] = '\0';
    if (!untrusted_name_ok(t->name))
        return set_error(err, err_len, "bad external trainer name '%s': " UNTRUSTED_NAME_RULE,
                         t->name);
    if (bpe_trainer_find(t->name))
        return set_error(err, err_len, "external trainer name '%s' is a built-in trainer's; "
                         "choose another name", t->name);
    if (command_len == 0)
        return set_error(err, err_len, "external trainer '%s' has no command; give NAME=COMMAND",
                         t->name);
    if (!(t->command = strndup(command, command_len)))
        return set_error(err, err_len, "out of memory");
    return true;
}

void external_free(external_trainer *t)
{
    free(t->command);
    t->command = NULL;
}

/* ------------------------------------------------------------- merges.txt */

/* Decodes token text s[0, len) (GPT-2 alphabet) into bytes; 0 when a
 * character is not in the alphabet or the text is empty. */
static size_t decode_token(const char *s, size_t len, uint8_t *bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int step = utf8_decode((const uint8_t *)s + i, len - i, &cp);
        int b = step > 0 ? codepoint_to_byte(cp) : -1;
        if (b < 0)
            return 0;
        bytes[n++] = (uint8_t)b;
        i += (size_t)step;
    }
    return n;
}

/* The token whose bytes are bytes[0, len): its id, or BPE_NO_TOKEN. `tokens`
 * maps each distinct token string to its entry; ids[entry] is its oldest id. */
static bpe_token token_of(const word_table *tokens, const bpe_token *ids, const uint8_t *bytes,
                          size_t len)
{
    size_t entry = word_table_find(tokens, bytes, len);
    return entry == SIZE_MAX ? BPE_NO_TOKEN : ids[entry];
}

/* Parses one "LEFT RIGHT" line into the result (the two tokens looked up,
 * the merge appended, the new token remembered). */
static bool add_merge_line(const char *line, size_t len, bpe_result *r, word_table *tokens,
                           bpe_token **ids, size_t *cap_ids, uint8_t *bytes, const char **why)
{
    const char *space = memchr(line, ' ', len);
    if (!space || memchr(space + 1, ' ', len - (size_t)(space + 1 - line))) {
        *why = "a merge line is LEFT RIGHT, one space between";
        return false;
    }
    size_t llen = decode_token(line, (size_t)(space - line), bytes);
    bpe_token left = llen ? token_of(tokens, *ids, bytes, llen) : BPE_NO_TOKEN;
    size_t rlen = decode_token(space + 1, len - (size_t)(space + 1 - line), bytes);
    bpe_token right = rlen ? token_of(tokens, *ids, bytes, rlen) : BPE_NO_TOKEN;
    if (!llen || !rlen) {
        *why = "a token with a character outside the GPT-2 byte alphabet (or empty)";
        return false;
    }
    if (left == BPE_NO_TOKEN || right == BPE_NO_TOKEN) {
        *why = "a part that is not a token yet (neither a byte nor an earlier merge)";
        return false;
    }
    bpe_token id = bpe_vocab_add_merge(&r->vocab, left, right);
    bpe_merge *merges = bpe_array_reserve(r->merges, &r->cap_merges, r->n_merges + 1,
                                          sizeof *merges);
    *why = "out of memory";
    if (id == BPE_NO_TOKEN || !merges)
        return false;
    r->merges = merges;
    r->merges[r->n_merges++] = (bpe_merge){.left = left, .right = right, .id = id};
    size_t before = tokens->n_entries;
    const uint8_t *made = bpe_vocab_bytes(&r->vocab, id);
    if (!word_table_add(tokens, made, r->vocab.len[id], 1))
        return false;
    if (tokens->n_entries > before) { /* a new string; a twin keeps the older id */
        bpe_token *grown = bpe_array_reserve(*ids, cap_ids, tokens->n_entries, sizeof *grown);
        if (!grown)
            return false;
        *ids = grown;
        (*ids)[before] = id;
    }
    *why = NULL;
    return true;
}

/* A "#version" first line is read up to this many bytes. */
enum { HEADER_LINE_MAX = 64 };

/* Reads the next line of f into *line (its '\n' dropped, a NUL added),
 * reading at most `max` bytes of it: 1 a line, 0 end of file, -1 a read
 * error, 2 a line longer than max (the rest unread). O(max). */
static int read_line(FILE *f, char **line, size_t *cap, size_t *len, size_t max)
{
    *len = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (*len == max)
            return 2;
        char *grown = bpe_array_reserve(*line, cap, *len + 2, 1);
        if (!grown)
            return -1;
        *line = grown;
        (*line)[(*len)++] = (char)c;
    }
    if (c == EOF && (ferror(f) || *len == 0))
        return ferror(f) ? -1 : 0;
    char *grown = bpe_array_reserve(*line, cap, *len + 1, 1);
    if (!grown)
        return -1;
    *line = grown;
    (*line)[*len] = '\0';
    return 1;
}

bool external_read_merges(const char *path, uint64_t max_merges, bpe_result *r, char *err,
                          size_t err_len)
{
    memset(r, 0, sizeof *r);
    /* O_NONBLOCK: a FIFO put there must not block us waiting for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return set_error(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return set_error(err, err_len, "%s: not a regular file; write merges.txt as a file",
                         path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return set_error(err, err_len, "out of memory");
    }
    word_table tokens;
    bpe_token *ids = NULL;
    size_t cap_ids = 0;
    bool ok = bpe_vocab_init(&r->vocab) && word_table_init(&tokens);
    ids = ok ? bpe_array_reserve(NULL, &cap_ids, BPE_BYTE_TOKENS, sizeof *ids) : NULL;
    for (unsigned b = 0; ids && b < BPE_BYTE_TOKENS; b++) {
        uint8_t byte = (uint8_t)b;
        ids[b] = b;
        ok = ok && word_table_add(&tokens, &byte, 1, 1);
    }
    if (!ok || !ids) {
        fclose(f);
        free(ids);
        bpe_result_free(r);
        return set_error(err, err_len, "out of memory");
    }
    char *line = NULL;
    uint8_t *bytes = NULL;
    size_t cap = 0, bytes_cap = 0, len, longest = 1;
    const char *why = NULL; /* what is wrong with line `number` */
    bool too_many = false;
    unsigned long long number = 0;
    int got = 0;
    while (!why && !too_many) {
        /* A merge line is "LEFT RIGHT", each a token so far, which the GPT-2
         * alphabet spells in at most 2 bytes per byte: so no longer than
         * 4 · longest + 1, and nothing past that is read. */
        size_t max = 4 * longest + 1;
        got = read_line(f, &line, &cap, &len,
                        number == 0 && max < HEADER_LINE_MAX ? HEADER_LINE_MAX : max);
        if (got <= 0)
            break;
        number++;
        uint8_t *grown = bpe_array_reserve(bytes, &bytes_cap, len + 1, 1);
        bytes = grown ? grown : bytes;
        if (got == 2)
            why = "a line longer than any merge of the tokens before it; is this a merges.txt?";
        else if (number == 1 && len >= 9 && memcmp(line, "#version:", 9) == 0)
            continue;
        else if ((len > 0 && r->n_merges == max_merges) || number > max_merges + 2)
            too_many = true; /* the one line read past the limit (blank ones count too) */
        else if (len == 0)
            continue;
        else if (!grown)
            why = "out of memory";
        else if (add_merge_line(line, len, r, &tokens, &ids, &cap_ids, bytes, &why)) {
            size_t made = r->vocab.len[r->merges[r->n_merges - 1].id];
            longest = made > longest ? made : longest;
        }
    }
    if (got < 0)
        ok = set_error(err, err_len, "%s: cannot read: %s", path,
                       ferror(f) ? strerror(errno) : "out of memory");
    else if (too_many)
        ok = set_error(err, err_len, "%s:%llu: more lines than V allows (at most %llu merges "
                       "and a #version line); stop at V - 256 - the number of special tokens",
                       path, number, (unsigned long long)max_merges);
    else if (why)
        ok = set_error(err, err_len, "%s:%llu: %s", path, number, why);
    fclose(f);
    free(line);
    free(bytes);
    free(ids);
    word_table_free(&tokens);
    if (!ok)
        bpe_result_free(r);
    return ok;
}

/* ------------------------------------------------------------- running */

/* The environment of one run, built in the parent (the child only sets it). */
typedef struct {
    const char *command;      /* sh -c COMMAND */
    const char *names[6];     /* BPE_INPUT, ... */
    char *values[6];          /* their values; owned */
} external_env;

/* The JSON array of the special tokens, malloc'd. */
static char *specials_json(const pretok_config *p)
{
    cJSON *list = cJSON_CreateArray();
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < p->n_specials; i++)
        ok = cJSON_AddItemToArray(list, cJSON_CreateString(p->specials[i]));
    char *text = ok ? cJSON_PrintUnformatted(list) : NULL;
    cJSON_Delete(list);
    return text;
}

/* The BPE_* values of a job; false on OOM or a path holding a newline. */
static bool build_env(const external_job *job, external_env *env, char *err, size_t err_len)
{
    size_t total = 1;
    for (size_t i = 0; i < job->n_files; i++) {
        if (strchr(job->files[i], '\n'))
            return set_error(err, err_len, "%s: a path with a newline cannot go in BPE_INPUT "
                             "(one path per line); rename it", job->files[i]);
        total += strlen(job->files[i]) + 1;
    }
    char *input = malloc(total), *vocab = malloc(24);
    if (input) {
        input[0] = '\0';
        for (size_t i = 0; i < job->n_files; i++) {
            strcat(input, job->files[i]);
            strcat(input, i + 1 < job->n_files ? "\n" : "");
        }
    }
    if (vocab)
        snprintf(vocab, 24, "%llu", (unsigned long long)job->vocab_size);
    const char *names[6] = {"BPE_INPUT", "BPE_COUNTS", "BPE_VOCAB_SIZE", "BPE_SPECIAL_TOKENS",
                            "BPE_PATTERN", "BPE_OUT"};
    char *values[6] = {input, strdup(job->counts_path), vocab, specials_json(job->pretok),
                       strdup(pretok_pattern_source(job->pretok->pattern)),
                       strdup(job->out_dir)};
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        env->names[i] = names[i];
        env->values[i] = values[i];
        ok = ok && values[i];
    }
    return ok ? true : set_error(err, err_len, "out of memory");
}

static void free_env(external_env *env)
{
    for (int i = 0; i < 6; i++)
        free(env->values[i]);
}

/* The command, in the reaper's child: sh -c COMMAND. Never returns. */
static void exec_shell(const void *arg)
{
    const external_env *env = arg;
    execl("/bin/sh", "sh", "-c", env->command, (char *)NULL);
    _exit(127);
}

/* The child of runner_in_child: standard input and output from and to
 * /dev/null, standard error to the pipe, the BPE_* variables set; then the
 * reaper (base/reaper.h) around sh -c COMMAND, so that whatever the command
 * leaves running is killed when it ends. Never returns. */
static void external_child(const void *arg, int fd)
{
    const external_env *env = arg;
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
        dup2(fd, STDERR_FILENO) < 0)
        _exit(126);
    if (null > STDERR_FILENO)
        close(null);
    if (fd > STDERR_FILENO)
        close(fd); /* only standard error holds the pipe now */
    for (int i = 0; i < 6; i++)
        if (setenv(env->names[i], env->values[i], 1) != 0)
            _exit(126);
    reaper_run(exec_shell, env);
}

/* The last non-empty line of text, cut to fit `out`. */
static void last_line(const char *text, size_t len, char *out, size_t out_len)
{
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    size_t start = len;
    while (start && text[start - 1] != '\n')
        start--;
    snprintf(out, out_len, "%.*s", (int)(len - start), text + start);
}

bool external_run(const external_trainer *t, const external_job *job, external_outcome *out,
                  char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    external_env env = {.command = t->command};
    if (!build_env(job, &env, err, err_len)) {
        free_env(&env);
        return false;
    }
    runner_child_report rep;
    double start = clock_now();
    bool ran = runner_in_child(external_child, &env, job->time_limit_s, true, &rep, err, err_len);
    out->seconds = clock_now() - start;
    free_env(&env);
    if (!ran)
        return false;
    out->peak_rss_bytes = rep.maxrss;
    char said[400];
    last_line(rep.text ? rep.text : "", rep.len, said, sizeof said);
    int st = rep.wait_status;
    char merges_path[4096];
    snprintf(merges_path, sizeof merges_path, "%s/merges.txt", job->out_dir);
    uint64_t reserved = BPE_BYTE_TOKENS + job->pretok->n_specials;
    uint64_t max_merges = job->vocab_size > reserved ? job->vocab_size - reserved : 0;
    out->status = EXTERNAL_ERROR;
    if (rep.timed_out) {
        out->status = EXTERNAL_TIMEOUT;
        snprintf(out->message, sizeof out->message, "killed at the time limit of %g s%s%s",
                 job->time_limit_s, *said ? "; stderr: " : "", said);
    } else if (WIFSIGNALED(st)) {
        snprintf(out->message, sizeof out->message, "killed by signal %d (%s)%s%s", WTERMSIG(st),
                 strsignal(WTERMSIG(st)), *said ? "; stderr: " : "", said);
    } else if (WEXITSTATUS(st) != 0) {
        snprintf(out->message, sizeof out->message, "exit status %d%s%s", WEXITSTATUS(st),
                 *said ? "; stderr: " : "", said);
    } else if (access(merges_path, F_OK) != 0) {
        snprintf(out->message, sizeof out->message, "exited 0 but wrote no merges.txt in "
                 "$BPE_OUT%s%s", *said ? "; stderr: " : "", said);
    } else if (!external_read_merges(merges_path, max_merges, &out->merges, out->message,
                                     sizeof out->message)) {
        /* out->message says which line of merges.txt is wrong */
    } else {
        out->status = EXTERNAL_OK;
    }
    free(rep.text);
    return true;
}

/* ------------------------------------------------------------- in the benchmark */

/* What external_input_make's child does. */
typedef struct {
    char *const *files;          /* the corpus files */
    size_t n_files;              /* how many */
    uint64_t max_bytes;          /* the slice; 0: all */
    const pretok_config *pretok; /* pattern and special tokens */
    const external_input *in;    /* where the files go */
} input_job;

/* The child: cuts the slice, counts it, writes the word-count file; a
 * failure's reason goes to the pipe. Never returns. */
static void input_child(const void *arg, int fd)
{
    const input_job *job = arg;
    char err[1024];
    uint64_t len;
    size_t joined;
    bool ok = !job->in->cut ||
              slice_files_to_path(job->files, job->n_files, job->max_bytes,
                                  job->pretok->specials, job->pretok->n_specials, job->in->cut,
                                  &len, &joined, err, sizeof err);
    run_config cfg = {.files = (char **)job->files, .n_files = job->n_files,
                      .max_bytes = job->max_bytes, .pretok = *job->pretok};
    run_input counted;
    if (ok && (ok = run_count_input(&cfg, &counted, err, sizeof err))) {
        ok = wordcount_write_file(job->in->counts, &counted.view,
                                  pretok_pattern_source(job->pretok->pattern),
                                  job->pretok->specials, job->pretok->n_specials, err,
                                  sizeof err);
        run_input_free(&counted);
    }
    if (!ok)
        write_full(fd, err, strlen(err));
    _exit(ok ? 0 : 1);
}

bool external_input_make(char *const *files, size_t n_files, uint64_t max_bytes,
                         const pretok_config *pretok, const char *dir, external_input *in,
                         char *err, size_t err_len)
{
    memset(in, 0, sizeof *in);
    size_t size = strlen(dir) + sizeof "/words.counts";
    in->counts = malloc(size);
    in->out_dir = malloc(size);
    in->cut = max_bytes > 0 ? malloc(size) : NULL;
    if (!in->counts || !in->out_dir || (max_bytes > 0 && !in->cut)) {
        external_input_free(in);
        return set_error(err, err_len, "out of memory");
    }
    snprintf(in->counts, size, "%s/words.counts", dir);
    snprintf(in->out_dir, size, "%s/out", dir);
    in->files = files;
    in->n_files = n_files;
    if (in->cut) {
        snprintf(in->cut, size, "%s/slice.txt", dir);
        in->files = &in->cut;
        in->n_files = 1;
    }
    input_job job = {files, n_files, max_bytes, pretok, in};
    runner_child_report rep;
    bool ran = runner_in_child(input_child, &job, 0, false, &rep, err, err_len);
    bool ok = ran && WIFEXITED(rep.wait_status) && WEXITSTATUS(rep.wait_status) == 0;
    if (ran && !ok)
        set_error(err, err_len, "preparing the input of the external trainers: %s",
                  rep.len ? rep.text : "the process failed");
    free(rep.text);
    if (!ok)
        external_input_free(in);
    return ok;
}

void external_input_free(external_input *in)
{
    free(in->cut);
    free(in->counts);
    free(in->out_dir);
    memset(in, 0, sizeof *in);
}

bool external_bench_run(const external_trainer *t, const external_input *in,
                        const pretok_config *pretok, uint64_t vocab_size, uint64_t max_merges,
                        double time_limit_s, FILE *merges_out, bench_record *rec, char *err,
                        size_t err_len)
{
    memset(rec, 0, sizeof *rec);
    snprintf(rec->trainer, sizeof rec->trainer, "%s", t->name);
    rec->external = true;
    rec->vocab_size = vocab_size;
    rec->time_limit_s = time_limit_s;
    temp_dir_empty(in->out_dir); /* a fresh BPE_OUT for every run */
    rmdir(in->out_dir);
    if (mkdir(in->out_dir, 0700) != 0)
        return set_error(err, err_len, "%s: cannot create: %s", in->out_dir, strerror(errno));
    external_job job = {.files = in->files, .n_files = in->n_files, .counts_path = in->counts,
                        .vocab_size = vocab_size, .pretok = pretok, .out_dir = in->out_dir,
                        .time_limit_s = time_limit_s};
    external_outcome out;
    if (!external_run(t, &job, &out, err, err_len))
        return false;
    rec->peak_rss_bytes = out.peak_rss_bytes;
    rec->status = out.status == EXTERNAL_OK        ? STATUS_OK
                  : out.status == EXTERNAL_TIMEOUT ? STATUS_TIMEOUT
                                                   : STATUS_ERROR;
    snprintf(rec->error, sizeof rec->error, "%s", out.message);
    bool ok = true;
    if (out.status == EXTERNAL_OK) {
        run_times times = {.total = out.seconds};
        rec->max_merges = max_merges;
        rec->merges = out.merges.n_merges;
        rec->exhausted = out.merges.n_merges < max_merges;
        rec->digest = bpe_merges_digest(&out.merges);
        rec->has_digest = true;
        ok = record_add_rep(rec, &times) ||
             set_error(err, err_len, "out of memory");
        if (ok && merges_out)
            ok = runner_write_merge_list(merges_out, &out.merges, false, err, err_len);
    }
    bpe_result_free(&out.merges);
    return ok;
}
