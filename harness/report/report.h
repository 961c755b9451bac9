/*
 * report.h — report.md and plots/ from results.json alone (SPEC §5: plotting
 * reads the exported data and never re-measures). `bpebench bench` calls it
 * on the file it has just written; `bpebench report` calls it on any file.
 */
#ifndef BPE_REPORT_H
#define BPE_REPORT_H

#include "bench/results.h"

/* What report_write writes into DIR, by these names, and the directory of
 * figures it fills with files named from the results; a command checks
 * them against its inputs before it writes (base/clobber.h). */
#define REPORT_MD "report.md"
#define REPORT_HTML "report.html"
#define REPORT_PLOTS "plots"

/*
 * Writes DIR/report.md, DIR/report.html (the same report as one
 * self-contained page, html.h) and DIR/plots/ (NAME.dat, .png, .svg for
 * every figure). DIR must exist; DIR/plots is created if missing. Everything is
 * made in memory first, so a failure (a gnuplot error, say) writes nothing;
 * then each file is written atomically (atomic_file_write_whole, base/atomicfile.h). If a write
 * fails, the files that were new are removed again, and DIR/plots too when
 * this call created it; files it replaced stay replaced. False with a
 * one-line reason. Call signals_install_cleanup() first (signals.h) so that
 * a signal leaves no temporary file.
 */
bool report_write(const bench_results *r, const char *dir, char *err, size_t err_len);

#endif
