/*
 * gnuplot.h — drawing one figure with gnuplot so that nothing we hand it is
 * ever read as gnuplot code or reaches a shell.
 *
 * Values. A script (plots/KIND.gp) gets its inputs as gnuplot variables
 * that gnuplot loads from a file before the script: numbers written with
 * printf, strings only as expressions made by gnuplot_quote(). Inside a
 * single-quoted gnuplot string no character has a meaning but the quote:
 * no backslash escape, no `command` substitution (gnuplot does that in
 * double-quoted strings and outside strings), no @macro expansion, and ';'
 * or '#' do not end it. The quote itself cannot always be doubled (gnuplot
 * ends a string early at a doubled quote that starts it or follows
 * another), so a value is written as single-quoted runs without quotes,
 * joined by gnuplot's '.' to the double-quoted string "'" for each quote:
 * it's;x → 'it'."'".'s;x'. Control characters (a newline would end the
 * line) are refused. The scripts use those variables as values only:
 * never inside an `eval`'d string, never as a file name.
 *
 * Files. gnuplot reads the data and writes the PNG and the SVG through
 * /dev/fd/N: unnamed temporary files (tmpfile()) of this process that the
 * child inherits. No path of the output directory reaches gnuplot, so no
 * name can be read as '<command' or '|command' (gnuplot's pipes), and
 * nothing has a name while gnuplot runs: a signal at any moment leaves no
 * temporary file behind. The caller writes the returned bytes where they
 * belong (atomic_file_write_whole, base/atomicfile.h). The child runs in "/" with stdin from
 * /dev/null and asks to die with its parent (PR_SET_PDEATHSIG), as the
 * benchmark's runs do (runner.c).
 */
#ifndef BPE_GNUPLOT_H
#define BPE_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A gnuplot expression whose value is the string `value` (see above):
 * 'run'."'".'run'...; malloc'd. NULL, with the reason in err, when value
 * holds a control character (bytes 0x01–0x1F and 0x7F), or on OOM.
 * O(length).
 */
char *gnuplot_quote(const char *value, char *err, size_t err_len);

/* Writes the line name=EXPRESSION to `vars` (a script's variables), the
 * expression made by gnuplot_quote. False with the reason when it refuses. */
bool gnuplot_set_string(FILE *vars, const char *name, const char *value, char *err,
                        size_t err_len);

/* The two images of one figure. Buffers malloc'd, owned by the caller. */
typedef struct {
    char *png;      /* PNG bytes (pngcairo) */
    size_t png_len; /* their length */
    char *svg;      /* SVG bytes */
    size_t svg_len; /* their length */
} gnuplot_images;

void gnuplot_images_free(gnuplot_images *img);

/*
 * Runs `gnuplot VARS SCRIPT` and returns the images it drew. `script` is an
 * absolute path; vars[0, vars_len) holds the script's own variables, to
 * which this adds plotdir (the script's directory, for `load`), datafile
 * (data[0, data_len)), pngfile and svgfile. False with a one-line reason
 * (gnuplot's last message when it failed). Time: gnuplot's, tens of ms.
 */
bool gnuplot_draw(const char *script, const char *vars, size_t vars_len, const char *data,
                  size_t data_len, gnuplot_images *out, char *err, size_t err_len);

#endif
