/*
 * testutil.h — what the cmocka test programs share, one header per kind of
 * helper (tests/README.md says which to reach for):
 *   testutil_trainers.h  word tables made in code; merge lists checked against
 *                        a test's expectations (golden) or naive (differential)
 *   testutil_text.h      text made in code: a slow corpus, random text, the
 *                        pretokenizer fuzzers' settings, splits as spans, text
 *                        counted a byte at a time
 *   testutil_files.h     files and directories: whole reads and writes, trees
 *                        removed, temporary files left behind, vocab.json whole
 *   testutil_proc.h      the binary under test run as a child: limits, what it
 *                        printed, one-line errors
 *   testutil_results.h   results files and grids compared field by field
 * and cmocka, after the headers it needs, and N(a), an array's length.
 */
#ifndef BPE_TESTUTIL_H
#define BPE_TESTUTIL_H

#include "testutil_files.h"
#include "testutil_proc.h"
#include "testutil_results.h"
#include "testutil_text.h"
#include "testutil_trainers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* How many elements array a holds (an array, not a pointer). */
#define N(a) (sizeof(a) / sizeof((a)[0]))

#endif
