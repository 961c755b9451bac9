/*
 * svgclean.c — see svgclean.h.
 *
 * The parser knows the XML gnuplot writes: tags <name attr='v' attr="v">,
 * </name> and <name .../>, text between them, and the three kinds of
 * markup it skips (<?...?>, <!--...-->, <!DOCTYPE ...>). Anything it does
 * not recognise is an error, never passed through.
 */
#define _POSIX_C_SOURCE 200809L
#include "report/svgclean.h"
#include "base/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The elements of gnuplot's plain plots. */
static const char *const allowed_elements[] = {
    "svg", "g", "defs", "title", "desc", "rect", "circle", "ellipse", "line", "polyline",
    "polygon", "path", "text", "tspan", "use", "filter", "feFlood", "feComposite", "clipPath",
    NULL,
};

/* Attributes whose values are plain data (numbers, colours, names). */
static const char *const allowed_attributes[] = {
    "width", "height", "viewBox", "x", "y", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2",
    "d", "points", "fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap",
    "stroke-linejoin", "stroke-opacity", "fill-opacity", "opacity", "transform", "class",
    "font-family", "font-size", "font-weight", "font-style", "text-anchor", "color",
    "filterUnits", "flood-color", "flood-opacity", "in", "in2", "operator", "result",
    "clipPathUnits", "dx", "dy", NULL,
};

/* Attributes holding a reference: url(#id) (clip-path, filter) or #id (href). */
static const char *const url_attributes[] = {"clip-path", "filter", NULL};
static const char *const href_attributes[] = {"xlink:href", "href", NULL};

static bool listed(const char *const *list, const char *name, size_t len)
{
    for (; *list; list++)
        if (strlen(*list) == len && memcmp(*list, name, len) == 0)
            return true;
    return false;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == ':' || c == '.';
}

/* The output and where the input is. */
typedef struct {
    const char *in;     /* the SVG */
    size_t len;         /* its length */
    size_t at;          /* next byte to read */
    FILE *out;          /* the rewritten SVG (a memstream) */
    const char *prefix; /* put before every id */
    char *err;          /* where a refusal goes */
    size_t err_len;     /* its size */
} cleaner;

static bool refuse(cleaner *c, size_t at, const char *what, const char *name, size_t len)
{
    return set_error(c->err, c->err_len, "a figure's SVG holds %s '%.*s' (byte %zu), which a "
                     "report page does not take; is this gnuplot's plain svg terminal?", what,
                     (int)(len > 60 ? 60 : len), name, at);
}

/* Writes text[0, len) escaped for XML: a well-formed &lt; &gt; &amp; &quot;
 * &apos; or &#N; / &#xH; stays, every other & < > " ' is escaped. */
static void put_escaped(cleaner *c, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '&') {
            size_t j = i + 1;
            bool numeric = j < len && text[j] == '#';
            j += numeric;
            bool hex = numeric && j < len && (text[j] == 'x' || text[j] == 'X');
            j += hex;
            size_t start = j;
            while (j < len && j - start < 8 &&
                   (numeric ? (hex ? strchr("0123456789abcdefABCDEF", text[j]) != NULL
                                   : text[j] >= '0' && text[j] <= '9')
                            : text[j] >= 'a' && text[j] <= 'z') && text[j])
                j++;
            bool named = !numeric && ((j - start == 2 && (memcmp(text + start, "lt", 2) == 0 ||
                                                          memcmp(text + start, "gt", 2) == 0)) ||
                                      (j - start == 3 && memcmp(text + start, "amp", 3) == 0) ||
                                      (j - start == 4 && (memcmp(text + start, "quot", 4) == 0 ||
                                                          memcmp(text + start, "apos", 4) == 0)));
            if (j < len && text[j] == ';' && j > start && (numeric || named)) {
                fwrite(text + i, 1, j + 1 - i, c->out);
                i = j;
            } else {
                fputs("&amp;", c->out);
            }
        } else if (ch == '<') {
            fputs("&lt;", c->out);
        } else if (ch == '>') {
            fputs("&gt;", c->out);
        } else if (ch == '"') {
            fputs("&quot;", c->out);
        } else if (ch == '\'') {
            fputs("&#39;", c->out);
        } else {
            fputc(ch, c->out);
        }
    }
}

/* An id or a reference's target: the same characters as a name, nothing else. */
static bool plain_id(const char *v, size_t len)
{
    if (len == 0 || len > 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_char(v[i]) || v[i] == ':')
            return false;
    return true;
}

/* One attribute name="value" of an allowed element, rewritten or refused. */
static bool put_attribute(cleaner *c, size_t at, const char *name, size_t name_len,
                          const char *value, size_t value_len)
{
    if (name_len >= 5 && memcmp(name, "xmlns", 5) == 0)
        return true; /* namespaces: implied inline in HTML */
    if (memchr(value, '<', value_len) || memchr(value, '&', value_len))
        return refuse(c, at, "an attribute value with markup in", value, value_len);
    fprintf(c->out, " %.*s=\"", (int)name_len, name);
    if (name_len == 2 && memcmp(name, "id", 2) == 0) {
        if (!plain_id(value, value_len))
            return refuse(c, at, "an id", value, value_len);
        fprintf(c->out, "%s%.*s", c->prefix, (int)value_len, value);
    } else if (listed(href_attributes, name, name_len)) {
        if (value_len < 2 || value[0] != '#' || !plain_id(value + 1, value_len - 1))
            return refuse(c, at, "a link outside the figure", value, value_len);
        fprintf(c->out, "#%s%.*s", c->prefix, (int)value_len - 1, value + 1);
    } else if (listed(url_attributes, name, name_len)) {
        if (value_len < 7 || memcmp(value, "url(#", 5) != 0 || value[value_len - 1] != ')' ||
            !plain_id(value + 5, value_len - 6))
            return refuse(c, at, "a reference outside the figure", value, value_len);
        fprintf(c->out, "url(#%s%.*s)", c->prefix, (int)value_len - 6, value + 5);
    } else if (listed(allowed_attributes, name, name_len)) {
        for (size_t i = 0; i + 3 < value_len; i++) /* url( anywhere else could fetch */
            if ((value[i] | 0x20) == 'u' && (value[i + 1] | 0x20) == 'r' &&
                (value[i + 2] | 0x20) == 'l' && value[i + 3] == '(')
                return refuse(c, at, "a url() in", value, value_len);
        put_escaped(c, value, value_len);
    } else {
        return refuse(c, at, "the attribute", name, name_len);
    }
    fputc('"', c->out);
    return true;
}

static void skip_space(cleaner *c)
{
    while (c->at < c->len && strchr(" \t\r\n", c->in[c->at]) && c->in[c->at])
        c->at++;
}

/* A name at c->at: its start and length (0 when none). */
static size_t read_name(cleaner *c, const char **name)
{
    *name = c->in + c->at;
    size_t n = 0;
    while (c->at < c->len && name_char(c->in[c->at])) {
        c->at++;
        n++;
    }
    return n;
}

/* One tag starting at c->at (just after '<'). */
static bool put_tag(cleaner *c)
{
    size_t at = c->at - 1;
    bool closing = c->at < c->len && c->in[c->at] == '/';
    c->at += closing;
    const char *name;
    size_t name_len = read_name(c, &name);
    if (name_len == 0)
        return refuse(c, at, "markup", c->in + at, c->len - at < 20 ? c->len - at : 20);
    if (!listed(allowed_elements, name, name_len))
        return refuse(c, at, "the element", name, name_len);
    fprintf(c->out, "<%s%.*s", closing ? "/" : "", (int)name_len, name);
    for (;;) {
        skip_space(c);
        if (c->at >= c->len)
            return refuse(c, at, "an unfinished tag", name, name_len);
        char ch = c->in[c->at];
        if (ch == '>' || (ch == '/' && !closing && c->at + 1 < c->len && c->in[c->at + 1] == '>')) {
            fputs(ch == '/' ? "/>" : ">", c->out);
            c->at += ch == '/' ? 2 : 1;
            return true;
        }
        if (closing)
            return refuse(c, at, "a closing tag with attributes", name, name_len);
        const char *attr;
        size_t attr_at = c->at, attr_len = read_name(c, &attr);
        skip_space(c);
        if (attr_len == 0 || c->at + 1 >= c->len || c->in[c->at] != '=')
            return refuse(c, attr_at, "a malformed attribute", c->in + attr_at,
                          c->len - attr_at < 20 ? c->len - attr_at : 20);
        c->at++;
        skip_space(c);
        char quote = c->at < c->len ? c->in[c->at] : 0;
        const char *end = quote == '"' || quote == '\''
                              ? memchr(c->in + c->at + 1, quote, c->len - c->at - 1)
                              : NULL;
        if (!end)
            return refuse(c, attr_at, "an unquoted attribute", attr, attr_len);
        const char *value = c->in + c->at + 1;
        if (!put_attribute(c, attr_at, attr, attr_len, value, (size_t)(end - value)))
            return false;
        c->at = (size_t)(end - c->in) + 1;
    }
}

/* Skips <?...?>, <!--...--> or <!DOCTYPE ...> at c->at (on '<'); false when
 * it is none of them. */
static bool skip_markup(cleaner *c)
{
    static const struct {
        const char *open, *close;
    } kinds[] = {{"<?", "?>"}, {"<!--", "-->"}, {"<!DOCTYPE", ">"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].open);
        if (c->len - c->at < n || memcmp(c->in + c->at, kinds[k].open, n) != 0)
            continue;
        for (size_t i = c->at + n; i + strlen(kinds[k].close) <= c->len; i++)
            if (memcmp(c->in + i, kinds[k].close, strlen(kinds[k].close)) == 0) {
                c->at = i + strlen(kinds[k].close);
                return true;
            }
        return false;
    }
    return false;
}

bool svg_clean(const char *svg, size_t len, const char *prefix, char **out, size_t *out_len,
               char *err, size_t err_len)
{
    *out = NULL;
    *out_len = 0;
    cleaner c = {.in = svg, .len = len, .prefix = prefix, .err = err, .err_len = err_len};
    if (memchr(svg, '\0', len))
        return set_error(err, err_len, "a figure's SVG holds a NUL byte; it is not gnuplot's");
    c.out = open_memstream(out, out_len);
    if (!c.out)
        return set_error(err, err_len, "out of memory");
    bool ok = true;
    while (ok && c.at < len) {
        const char *lt = memchr(svg + c.at, '<', len - c.at);
        size_t text_end = lt ? (size_t)(lt - svg) : len;
        put_escaped(&c, svg + c.at, text_end - c.at);
        c.at = text_end;
        if (!lt)
            break;
        if (c.at + 1 < len && (svg[c.at + 1] == '?' || svg[c.at + 1] == '!')) {
            if (!skip_markup(&c))
                ok = refuse(&c, c.at, "markup", svg + c.at, len - c.at < 20 ? len - c.at : 20);
            continue;
        }
        c.at++;
        ok = put_tag(&c);
    }
    if (fclose(c.out) != 0)
        ok = ok && set_error(err, err_len, "out of memory");
    if (!ok) {
        free(*out);
        *out = NULL;
        *out_len = 0;
    }
    return ok;
}
