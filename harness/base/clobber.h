/*
 * clobber.h — the one rule that no output of a command replaces one of its
 * inputs (SPEC §4), checked by every command that reads files and writes
 * files, once, before it reads or writes anything.
 *
 * Paths are compared as the files they reach, never as strings: a symbolic
 * link, a `..`, a hard link or a bind mount all lead to one device and
 * inode (stat(2)). An output that does not exist yet is judged by the
 * directory it would be created in, resolved as `mkdir -p` and the final
 * open would resolve it: `new/..` is the directory `new` is made in.
 *
 * A command describes what it reads and writes:
 *   - inputs as named: files, directories (every regular file directly in
 *     one is read, corpus.h) and "-" (standard input, when it is a file);
 *   - the files they stand for (a directory's files, listed), if listed;
 *   - the files it writes under names of its own (count's --out, train's
 *     DIR/vocab.json, ...): each must not be an input, and must not go
 *     into an input directory, where it would replace one of the files read
 *     or be read as text by the next run (`count --out DIR/x.counts DIR`);
 *   - the directories it fills with files whose names it chooses as it
 *     goes (report's plots/): besides not being an input directory, none
 *     may hold an input directly, which such a file could replace.
 * Temporary files (NAME.tmp.XXXXXX beside each output, train's probe file)
 * go into the outputs' directories under fresh names, so they are covered
 * by the rule for those directories.
 *
 * A path that cannot be examined (a missing input, an output directory
 * that is not a directory) is left to the command to report: it fails
 * anyway, with its own message.
 */
#ifndef BPE_CLOBBER_H
#define BPE_CLOBBER_H

#include <stdbool.h>
#include <stddef.h>

/* What one command reads and writes; every array is borrowed. */
typedef struct {
    const char *const *inputs;      /* as named: files, directories, "-" */
    size_t n_inputs;                /* entries in inputs */
    const char *const *read;        /* the files the inputs stand for (listed), or NULL */
    size_t n_read;                  /* entries in read */
    const char *const *outputs;     /* files written by these names */
    size_t n_outputs;               /* entries in outputs */
    const char *const *output_dirs; /* directories filled with files of names chosen later */
    size_t n_output_dirs;           /* entries in output_dirs */
} clobber_paths;

/*
 * Whether no output reaches an input. False with a one-line reason naming
 * the output and the input (the command exits 2: the command line asks for
 * something it must not do). Stats every path and, for an output that does
 * not exist, each component of its directory: O((inputs + read + outputs)
 * · (inputs + read) + path lengths).
 */
bool clobber_check(const clobber_paths *p, char *err, size_t err_len);

#endif
