/* wordcount.c — see wordcount.h. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "input/wordcount.h"

#include "input/pretok.h"
#include "input/specials.h"
#include "base/bufsink.h"
#include "base/byteunicode.h"
#include "base/errors.h"
#include "base/jsonstrict.h"
#include "base/utf8.h"
#include "input/wordsort.h"
#include "array.h"
#include "prefetch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The header's fixed start; the JSON object follows it. */
static const char HEADER_PREFIX[] = "#bpebench word counts v1 ";
/* The start of every header, whatever its version: to name the version. */
static const char HEADER_FAMILY[] = "#bpebench word counts v";
/* The start of the last line. */
static const char END_PREFIX[] = "#end ";

void wordcount_meta_free(wordcount_meta *m)
{
    free(m->pattern);
    for (size_t i = 0; i < m->n_specials; i++)
        free(m->specials[i]);
    free(m->specials);
    memset(m, 0, sizeof *m);
}

bool wordcount_header_text_ok(const char *text, char *why, size_t why_len)
{
    for (size_t i = 0; text[i]; i++)
        if ((uint8_t)text[i] < 0x20 || text[i] == 0x7F)
            return set_error(why, why_len, "holds control byte 0x%02X at byte offset %zu",
                             (uint8_t)text[i], i);
    return true;
}

/* ------------------------------------------------------------- writing */

/* The header line, malloc'd: prefix, the JSON object, newline. */
static char *header_line(const char *pattern_source, const char *const *specials,
                         size_t n_specials)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *list = cJSON_CreateArray();
    bool ok = root && list && cJSON_AddItemToObject(root, "pattern",
                                                   cJSON_CreateString(pattern_source));
    ok = ok && cJSON_AddItemToObject(root, "special_tokens", list);
    if (!ok)
        cJSON_Delete(list);
    list = ok ? list : NULL;
    for (size_t i = 0; ok && i < n_specials; i++)
        ok = cJSON_AddItemToArray(list, cJSON_CreateString(specials[i]));
    char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    char *line = json ? malloc(sizeof HEADER_PREFIX + strlen(json) + 1) : NULL;
    if (line)
        sprintf(line, "%s%s\n", HEADER_PREFIX, json);
    free(json);
    return line;
}

enum {
    RECORD_ROOM = 24, /* a count (≤ 20 digits), the tab, a stand-in (≤ 2 bytes) */
    WORD_AHEAD = 32,  /* records ahead whose word is prefetched */
};

/* One record: COUNT, tab, the word in stand-ins, newline. A word of up to 8
 * bytes is spelled from its sort record, a longer one from its bytes. */
static bool put_record(bufsink *b, const word_sort_record *r)
{
    char *at = bufsink_room(b, RECORD_ROOM + 2 * 8 + 1);
    if (!at)
        return false;
    size_t n = bufsink_decimal(at, r->count);
    at[n++] = '\t';
    for (uint32_t k = 0; k < r->len; k++) {
        if (r->len > 8 && n + 3 > RECORD_ROOM) { /* a long word: room again and again */
            bufsink_advance(b, n);
            if (!(at = bufsink_room(b, RECORD_ROOM)))
                return false;
            n = 0;
        }
        n += byte_to_unicode_utf8(r->len <= 8 ? word_sort_prefix_byte(r, k) : r->bytes[k],
                                  at + n);
    }
    at[n++] = '\n';
    bufsink_advance(b, n);
    return true;
}

/*
 * The file: header, the records in the order word_sort_by_count gives, the
 * end line. The words longer than their record's 8 bytes are read in that
 * order, far apart in memory: the bytes of the one WORD_AHEAD records ahead
 * are prefetched, so that they are in the cache when its line is written.
 */
bool wordcount_format(const bpe_words *words, const char *pattern_source,
                      const char *const *specials, size_t n_specials, byte_sink sink, char *err,
                      size_t err_len)
{
    uint64_t total = 0;
    for (size_t i = 0; i < words->n_words; i++)
        if (__builtin_add_overflow(total, words->words[i].count, &total))
            return set_error(err, err_len, "the word counts add up to more than 2^64 - 1; "
                             "count less text");
    char *header = header_line(pattern_source, specials, n_specials);
    word_sort_record *order = header ? word_sort_by_count(words) : NULL;
    bufsink b;
    bool ok = bufsink_init(&b, sink, err, err_len);
    if (ok && !order)
        ok = bufsink_fail(&b, "out of memory formatting the word counts");
    ok = ok && bufsink_put(&b, header, strlen(header));
    size_t n = words->n_words;
    for (size_t i = 0; ok && i < n; i++) {
        if (i + WORD_AHEAD < n && order[i + WORD_AHEAD].len > 8)
            bpe_prefetch(order[i + WORD_AHEAD].bytes + 8);
        ok = put_record(&b, &order[i]);
    }
    char end[64];
    int len = snprintf(end, sizeof end, "%s%zu %llu\n", END_PREFIX, n, (unsigned long long)total);
    ok = ok && bufsink_put(&b, end, (size_t)len);
    ok = bufsink_finish(&b) && ok;
    free(order);
    free(header);
    return ok;
}

bool wordcount_write_file(const char *path, const bpe_words *words, const char *pattern_source,
                          const char *const *specials, size_t n_specials, char *err,
                          size_t err_len)
{
    atomic_file f;
    if (!atomic_file_open(&f, path, err, err_len))
        return false;
    if (!wordcount_format(words, pattern_source, specials, n_specials, atomic_file_sink(&f), err,
                          err_len)) {
        atomic_file_abort(&f);
        return false;
    }
    return atomic_file_commit(&f, err, err_len);
}

/* ------------------------------------------------------------- reading */

/* Where the parser is, for messages. */
typedef struct {
    const char *name;   /* the file, as given */
    uint64_t line;      /* 1-based line number */
    char *err;          /* the caller's buffer */
    size_t err_len;     /* its size */
} parse_place;

/* "NAME:LINE: reason", and false. */
static bool parse_error(const parse_place *at, const char *fmt, ...) BPE_PRINTF_LIKE(2, 3);
static bool parse_error(const parse_place *at, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return set_error(at->err, at->err_len, "%s:%llu: %s", at->name,
                     (unsigned long long)at->line, reason);
}

/* A whole decimal number from 1 to 2^64 − 1 without leading zeros, s[0, len). */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20 || s[0] == '0')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || __builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
            return false;
    }
    *out = v;
    return true;
}

/* Decodes a word in the GPT-2 alphabet, s[0, len), into bytes (at most len
 * of them). Returns the number of bytes, or 0 with the reason. O(len). */
static size_t decode_word(const parse_place *at, const uint8_t *s, size_t len, uint8_t *bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int step = utf8_decode(s + i, len - i, &cp);
        int b = step > 0 ? codepoint_to_byte(cp) : -1;
        if (b < 0) {
            parse_error(at, "byte offset %zu of the word: %s; a word is written in the GPT-2 "
                        "byte alphabet of merges.txt (bpebench count writes it so)", i,
                        step > 0 ? "a character outside the alphabet" : "not valid UTF-8");
            return 0;
        }
        bytes[n++] = (uint8_t)b;
        i += (size_t)step;
    }
    if (n == 0)
        parse_error(at, "empty word; each line is COUNT<TAB>WORD");
    return n;
}

/* Whether two metas name the same pattern and special tokens. */
static bool same_meta(const wordcount_meta *a, const wordcount_meta *b)
{
    if (strcmp(a->pattern, b->pattern) != 0 || a->n_specials != b->n_specials)
        return false;
    for (size_t i = 0; i < a->n_specials; i++)
        if (strcmp(a->specials[i], b->specials[i]) != 0)
            return false;
    return true;
}

/* A string of the header, checked as wordcount_header_text_ok says. */
static bool header_text(const parse_place *at, const char *what, const char *text)
{
    char why[128];
    if (wordcount_header_text_ok(text, why, sizeof why))
        return true;
    return parse_error(at, "the header's %s %s; bpebench count writes no control characters "
                       "there, so the file was changed: count the corpus again", what, why);
}

/* The header's JSON object, text[0, len) starting at byte `offset` of the
 * line, into m: read strictly (base/jsonstrict.h: no "\u0000", nothing
 * after the object, no key twice), strings without control bytes, the
 * special tokens non-empty and distinct, the pattern one that compiles. */
static bool parse_header_json(const parse_place *at, const char *text, size_t len,
                              size_t offset, wordcount_meta *m)
{
    char why[400];
    cJSON *root = json_strict_parse(text, len, offset, why, sizeof why);
    if (!root || !json_strict_keys_unique(root, why, sizeof why)) {
        cJSON_Delete(root);
        return parse_error(at, "the header's JSON: %s, or count the corpus again with bpebench "
                           "count", why);
    }
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(root, "pattern");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "special_tokens");
    bool ok = cJSON_IsObject(root) && cJSON_IsString(pattern) && cJSON_IsArray(list);
    if (!ok) {
        cJSON_Delete(root);
        return parse_error(at, "the header's JSON is not an object with a \"pattern\" string "
                           "and a \"special_tokens\" array; was this file written by bpebench "
                           "count?");
    }
    if (!header_text(at, "pattern", pattern->valuestring)) {
        cJSON_Delete(root);
        return false;
    }
    if (!pretok_pattern_compiles(pattern->valuestring, why, sizeof why)) {
        cJSON_Delete(root);
        return parse_error(at, "the header's pattern does not compile (%s); bpebench count "
                           "writes only patterns that do, so the file was changed: count the "
                           "corpus again", why);
    }
    int n = cJSON_GetArraySize(list);
    m->pattern = strdup(pattern->valuestring);
    m->specials = calloc((size_t)n + 1, sizeof *m->specials);
    ok = m->pattern && m->specials;
    const cJSON *item;
    cJSON_ArrayForEach(item, list) {
        if (!ok)
            break;
        if (!cJSON_IsString(item) || !*item->valuestring) {
            ok = parse_error(at, "special token %zu of the header is not a non-empty string",
                             m->n_specials + 1);
            break;
        }
        snprintf(why, sizeof why, "special token %zu", m->n_specials + 1);
        ok = header_text(at, why, item->valuestring);
        for (size_t k = 0; ok && k < m->n_specials; k++)
            if (strcmp(m->specials[k], item->valuestring) == 0)
                ok = parse_error(at, "special token %zu of the header repeats token %zu",
                                 m->n_specials + 1, k + 1);
        if (!ok)
            break;
        if (!(m->specials[m->n_specials] = strdup(item->valuestring)))
            ok = false;
        else
            m->n_specials++;
    }
    if (!ok && !*at->err)
        parse_error(at, "out of memory reading the header");
    cJSON_Delete(root);
    if (!ok)
        wordcount_meta_free(m);
    return ok;
}

/* Line 1: the header; fills meta or checks it against the first file's. */
static bool parse_header(const parse_place *at, const char *line, size_t len,
                         wordcount_meta *meta)
{
    size_t prefix = sizeof HEADER_PREFIX - 1;
    if (len < prefix || memcmp(line, HEADER_PREFIX, prefix) != 0) {
        if (len >= sizeof HEADER_FAMILY - 1 &&
            memcmp(line, HEADER_FAMILY, sizeof HEADER_FAMILY - 1) == 0)
            return parse_error(at, "a word-count file of a version this bpebench does not read "
                               "(it reads v1); count the corpus again with this bpebench");
        return parse_error(at, "not a word-count file: the first line must start with \"%s\"; "
                           "write one with bpebench count", HEADER_PREFIX);
    }
    wordcount_meta found = {0};
    at->err[0] = '\0';
    if (!parse_header_json(at, line + prefix, len - prefix, prefix, &found))
        return false;
    if (!meta->pattern) {
        *meta = found;
        return true;
    }
    bool same = same_meta(meta, &found);
    wordcount_meta_free(&found);
    if (!same)
        return parse_error(at, "counted with another pattern or other special tokens than the "
                           "first file; count every shard with the same --pattern and "
                           "--special-token options");
    return true;
}

/* The last line: "#end W TOTAL", checked against what the file held. */
static bool parse_end(const parse_place *at, const char *line, size_t len, uint64_t words,
                      uint64_t total)
{
    const char *rest = line + sizeof END_PREFIX - 1;
    const char *space = memchr(rest, ' ', len - (size_t)(rest - line));
    uint64_t said_words, said_total;
    if (!space || !parse_count(rest, (size_t)(space - rest), &said_words) ||
        !parse_count(space + 1, len - (size_t)(space + 1 - line), &said_total))
        return parse_error(at, "malformed end line; it must be \"#end W TOTAL\"");
    if (said_words != words || said_total != total)
        return parse_error(at, "the end line says %llu words and %llu occurrences, the file "
                           "holds %llu and %llu; the file is damaged, count the corpus again",
                           (unsigned long long)said_words, (unsigned long long)said_total,
                           (unsigned long long)words, (unsigned long long)total);
    return true;
}

/*
 * The words of a file on their way into the sum. Adding a word to a table of
 * millions waits for its slot to come from memory; so a record's word is
 * decoded, hashed and its slot prefetched when its line is read, and added
 * only PENDING_WORDS lines later, by which time the slot is in the cache.
 * Errors still come in line order: a line that fails to parse first adds
 * the words before it, whose own errors (lower lines) win.
 */
enum { PENDING_WORDS = 32 };

/* One decoded word waiting to be added. */
typedef struct {
    uint64_t line;  /* its line, for messages */
    uint64_t count; /* its count */
    uint64_t hash;  /* word_table_hash of its bytes */
    size_t at;      /* where its bytes start in the file reader's `bytes` */
    size_t len;     /* how many */
} pending_word;

/* One file being read into the sum. */
typedef struct {
    parse_place at;          /* the file and the line being read */
    word_table *sum;         /* where its words go (the caller's) */
    size_t words_before;     /* words the sum held before this file: a word found among them
                              * is new to this file the first time only (`seen`) */
    uint64_t *seen;          /* bit i: word i < words_before was given in this file; owned */
    uint64_t sum_before;     /* the sum's occurrences before this file */
    uint64_t words;          /* records read, for the end line */
    uint64_t total;          /* their counts' sum, for the end line */
    bool sum_overflows;      /* the sum passed 2^64 − 1: words go on being added (a word given
                              * twice is still found) with no count, and the file is refused
                              * at its end */
    special_trie *specials;  /* the header's special tokens, which no word may hold; owned,
                              * made once the header is read (NULL before, and when it has none) */
    pending_word pending[PENDING_WORDS]; /* decoded, not yet added */
    size_t n_pending;        /* how many */
    uint8_t *bytes;          /* their bytes, back to back; owned */
    size_t bytes_used;       /* in use */
    size_t bytes_cap;        /* capacity */
} file_reader;

/*
 * Whether word w[0, len) holds a special token of the header: counting cuts
 * every occurrence out of the text before pretokenization (SPEC §2.1), so
 * no word of a file bpebench count wrote holds one, and a word that does
 * would be trained on and learned as a token spelled like the special
 * token (two keys of one string in vocab.json). True with where the first
 * one starts and its length. O(len · longest token) at worst, one trie step
 * per byte that still matches (specials.h).
 */
static bool special_in_word(const special_trie *specials, const uint8_t *w, size_t len,
                            size_t *at, size_t *token_len)
{
    for (size_t i = 0; specials && i < len; i++) {
        if (!special_trie_starts_with(specials, w[i]))
            continue;
        special_hit hit = special_trie_match(specials, w + i, len - i);
        if (hit.len) {
            *at = i;
            *token_len = hit.len;
            return true;
        }
    }
    return false;
}

/* The trie of the header's special tokens, for special_in_word. */
static bool make_specials(file_reader *r, const wordcount_meta *meta)
{
    if (meta->n_specials == 0 || r->specials)
        return true;
    size_t twice;
    r->specials = special_trie_new((const char *const *)meta->specials, meta->n_specials, &twice);
    return r->specials || parse_error(&r->at, "out of memory");
}

/* Adds the pending words to the sum, in line order; false at the first
 * that cannot be (memory, or a word given twice), with its line. */
static bool add_pending(file_reader *r)
{
    bool ok = true;
    for (size_t i = 0; ok && i < r->n_pending; i++) {
        const pending_word *p = &r->pending[i];
        parse_place at = r->at;
        at.line = p->line;
        size_t before = r->sum->n_entries;
        size_t index = word_table_insert(r->sum, r->bytes + p->at, p->len, p->hash,
                                         r->sum_overflows ? 0 : p->count);
        if (index == SIZE_MAX) {
            ok = parse_error(&at, "out of memory (or more than 2^32 - 2 words)");
        } else if (index < r->words_before) {
            uint64_t bit = 1ull << (index % 64);
            ok = !(r->seen[index / 64] & bit) ||
                 parse_error(&at, "a word given twice; each word has one line");
            r->seen[index / 64] |= bit;
        } else if (r->sum->n_entries == before) {
            ok = parse_error(&at, "a word given twice; each word has one line");
        }
    }
    r->n_pending = 0;
    r->bytes_used = 0;
    return ok;
}

/* One "COUNT<TAB>WORD" line (without its newline): checked and decoded, its
 * slot prefetched, and added to the sum with the words pending before it
 * once PENDING_WORDS are. */
static bool parse_record(file_reader *r, const char *line, size_t len)
{
    const parse_place *at = &r->at;
    const char *tab = memchr(line, '\t', len);
    uint64_t count;
    if (!tab)
        return parse_error(at, "no tab; each line is COUNT<TAB>WORD");
    if (!parse_count(line, (size_t)(tab - line), &count))
        return parse_error(at, "bad count \"%.*s\"; a count is a whole number from 1 to "
                           "18446744073709551615 without leading zeros",
                           (int)((tab - line) < 24 ? (tab - line) : 24), line);
    size_t field = len - (size_t)(tab + 1 - line);
    if (r->bytes_cap - r->bytes_used <= field) { /* never none: an empty field decodes too */
        uint8_t *grown = bpe_array_reserve(r->bytes, &r->bytes_cap, r->bytes_used + field + 1, 1);
        if (!grown)
            return parse_error(at, "out of memory");
        r->bytes = grown;
    }
    uint8_t *bytes = r->bytes + r->bytes_used;
    size_t word_len = decode_word(at, (const uint8_t *)tab + 1, field, bytes);
    if (word_len == 0)
        return false;
    size_t offset, token_len;
    if (special_in_word(r->specials, bytes, word_len, &offset, &token_len)) {
        if (offset == 0 && token_len == word_len)
            return parse_error(at, "the word is the special token \"%.*s\" of the header, which "
                               "counting cuts out of the text and never counts; the file was "
                               "changed: count the corpus again", (int)token_len, bytes);
        return parse_error(at, "the word holds the special token \"%.*s\" of the header at "
                           "byte offset %zu, which counting would have cut out; the file was "
                           "changed: count the corpus again", (int)token_len, bytes + offset,
                           offset);
    }
    if (__builtin_add_overflow(r->total, count, &r->total))
        return parse_error(at, "the file's counts add up to more than 2^64 - 1");
    uint64_t sum;
    r->sum_overflows = r->sum_overflows || __builtin_add_overflow(r->sum_before, r->total, &sum);
    r->words++;
    uint64_t hash = word_table_hash(bytes, word_len);
    word_table_prefetch(r->sum, hash);
    r->pending[r->n_pending++] = (pending_word){.line = at->line, .count = count, .hash = hash,
                                                .at = r->bytes_used, .len = word_len};
    r->bytes_used += word_len;
    return r->n_pending < PENDING_WORDS || add_pending(r);
}

/* Reads one file from f into the sum, line by line: the header (checked
 * against meta), the records, the end line (checked against them). */
static bool parse_file(file_reader *r, FILE *f, wordcount_meta *meta)
{
    parse_place *at = &r->at;
    char *line = NULL, *cr;
    size_t cap = 0;
    bool ok = true, ended = false;
    ssize_t got;
    errno = 0;
    while (ok && (got = getline(&line, &cap, f)) >= 0) {
        at->line++;
        size_t len = (size_t)got;
        if ((cr = memchr(line, '\r', len)) != NULL) {
            bool crlf = cr + 2 == line + len && line[len - 1] == '\n';
            ok = add_pending(r) &&
                 parse_error(at, "%s; a word-count file's lines end in LF alone (a CR in a "
                             "word is written as č): convert the file back (dos2unix) "
                             "or count the corpus again",
                             crlf ? "the line ends in CR LF, as a file saved on Windows does"
                                  : "a CR (carriage return) byte, as in old Mac line ends");
            break;
        }
        if (len == 0 || line[len - 1] != '\n') {
            ok = add_pending(r) &&
                 parse_error(at, "the last line has no newline; the file is cut short");
            break;
        }
        len--;
        if (memchr(line, '\0', len)) {
            ok = add_pending(r) && parse_error(at, "a NUL byte; a word-count file is text");
        } else if (at->line == 1) {
            ok = parse_header(at, line, len, meta) && make_specials(r, meta);
        } else if (ended) {
            ok = parse_error(at, "text after the end line");
        } else if (len >= sizeof END_PREFIX - 1 && memcmp(line, END_PREFIX,
                                                          sizeof END_PREFIX - 1) == 0) {
            ended = true;
            ok = add_pending(r) && parse_end(at, line, len, r->words, r->total);
        } else {
            uint64_t before = r->words;
            ok = parse_record(r, line, len);
            if (!ok && r->words == before) { /* this line failed: the words before it first */
                char reason[512];
                snprintf(reason, sizeof reason, "%s", at->err);
                ok = add_pending(r) && set_error(at->err, at->err_len, "%s", reason);
            }
        }
        errno = 0;
    }
    if (ok && ferror(f))
        ok = set_error(at->err, at->err_len, "%s: cannot read: %s", at->name, strerror(errno));
    else if (ok && at->line == 0)
        ok = set_error(at->err, at->err_len, "%s: empty; a word-count file starts with its header "
                       "line (write one with bpebench count)", at->name);
    else if (ok && !ended)
        ok = add_pending(r) && set_error(at->err, at->err_len, "%s: no end line (\"#end W "
                                         "TOTAL\") after line %llu; the file is cut short, count "
                                         "the corpus again", at->name,
                                         (unsigned long long)at->line);
    else if (ok && r->sum_overflows)
        ok = set_error(at->err, at->err_len, "%s: the files' counts add up to more than "
                       "2^64 - 1; train on fewer files", at->name);
    free(line);
    return ok;
}

/* Reads one file from f into sum. */
static bool read_one(const char *name, FILE *f, wordcount_meta *meta, word_table *sum, char *err,
                     size_t err_len)
{
    file_reader r = {.at = {.name = name, .err = err, .err_len = err_len}, .sum = sum,
                     .words_before = sum->n_entries, .sum_before = sum->pretokens};
    if (r.words_before && !(r.seen = calloc((r.words_before + 63) / 64, sizeof *r.seen)))
        return set_error(err, err_len, "%s: out of memory", name);
    bool ok = parse_file(&r, f, meta);
    special_trie_free(r.specials);
    free(r.seen);
    free(r.bytes);
    return ok;
}

bool wordcount_parse(const char *name, const uint8_t *text, size_t len, wordcount_meta *meta,
                     word_table *sum, char *err, size_t err_len)
{
    /* fmemopen refuses a buffer of 0 bytes: an empty text reads as /dev/null. */
    FILE *f = len ? fmemopen((void *)text, len, "rb") : fopen("/dev/null", "rb");
    if (!f)
        return set_error(err, err_len, "%s: out of memory", name);
    bool ok = read_one(name, f, meta, sum, err, err_len);
    fclose(f);
    return ok;
}

bool wordcount_read_files(char *const *paths, size_t n, wordcount_meta *meta, word_table *sum,
                          char *err, size_t err_len)
{
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        FILE *f = fopen(paths[i], "rb");
        struct stat st;
        if (!f)
            return set_error(err, err_len, "%s: cannot open: %s", paths[i], strerror(errno));
        if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
            ok = set_error(err, err_len, "%s: is a directory; give word-count files (written "
                           "by bpebench count)", paths[i]);
        else
            ok = read_one(paths[i], f, meta, sum, err, err_len);
        fclose(f);
    }
    return ok;
}
