/*
 * plot.h — the report's figures (plot.c), made in memory from the index.
 */
#ifndef BPE_PLOT_H
#define BPE_PLOT_H

#include "report/index.h"

/* Makes every figure: plots/NAME.dat, and through gnuplot with the scripts
 * plots/KIND.gp (gnuplot.h), plots/NAME.png and .svg, appended to files.
 * Writes nothing to disk. False with a reason. */
bool plots_make(const report_index *ix, report_files *files, char *err, size_t err_len);

/* The plot files (relative to DIR, without extension) of a kind
 * ("time_vs_vocab", "speedup", ...) and family or profiled cell, as
 * plots_make names them: plots/KIND_FAMILY, plots/profile_SLICE_VV. */
void plot_name(char *buf, size_t len, const char *kind, const char *family);

#endif
