# style.gp — what every bpebench figure shares; loaded by the other scripts.
#
# Each figure is drawn twice, as PNG (pngcairo) and SVG, from one data file
# written by harness/report/plot.c. The figure is a grid of panels (at most three
# per row); each panel has one line per trainer, and a trainer keeps its
# colour and marker in every panel and every figure (pretokenize_threads.gp
# draws one line per corpus slice instead, with the same styles).
#
# Inputs (variables harness/report/plot.c and harness/report/gnuplot.c set before this
# script runs): pngfile and svgfile (where the images go), datafile, plotdir,
# npanels and panel1 … panelN (panel titles), nseries and series1 … seriesN
# (series titles) with style1 … styleN (each series' line style below: a
# trainer's place in the registry, 0 for a series the script draws its own
# way); and, for the figures fitted to their data, xmin, xmax, ymin, ymax
# (the extent of the points) and xvalues (their distinct x values, a list of
# numbers, or "" when there are too many to label).
#
# Safety: titles are names from a results file and are only ever used as
# string values (panel_title, series_title below); no script puts a
# variable's text into an `eval`, and none builds a file name from one. The
# only strings `eval` runs (begin_figure, end_figure, and the plot commands
# of the time scripts) are made of constants, numbers and expressions.

cols = npanels < 3 ? npanels : 3
rows = int((npanels + cols - 1) / cols)
panel_w = 520
panel_h = 470

# Titles by number: the value of variable panelP / seriesS, and the style of
# series S.
panel_title(p) = value(sprintf('panel%d', p))
series_title(s) = value(sprintf('series%d', s))
series_style(s) = value(sprintf('style%d', s))

# "set terminal ...; set output ...; set multiplot ..." for format 1 (PNG) or
# 2 (SVG), w × h pixels. The string holds the expression figure_output(N),
# not the file name: eval never sees a value that came from outside.
figure_output(fmt) = fmt == 1 ? pngfile : svgfile
begin_figure(fmt, w, h) = sprintf("set terminal %s size %d,%d font 'DejaVu Sans,11' noenhanced %s; set output figure_output(%d); set multiplot layout %d,%d", \
    fmt == 1 ? "pngcairo" : "svg", w, h, fmt == 1 ? "" : "background rgb 'white'", fmt, rows, cols)
end_figure = "unset multiplot; unset output"

# One style per trainer, in registry order (naive, incremental,
# inverted-index, heap, bucket, linked-list, cache-aware, threaded-walk), then
# external trainers'.
set style line 1  lc rgb '#d62728' lw 2 pt 7  ps 0.9
set style line 2  lc rgb '#ff7f0e' lw 2 pt 5  ps 0.9
set style line 3  lc rgb '#2ca02c' lw 2 pt 9  ps 1.0
set style line 4  lc rgb '#1f77b4' lw 2 pt 11 ps 1.0
set style line 5  lc rgb '#9467bd' lw 2 pt 13 ps 1.0
set style line 6  lc rgb '#8c564b' lw 2 pt 3  ps 1.0
set style line 7  lc rgb '#e377c2' lw 2 pt 1  ps 1.0
set style line 8  lc rgb '#17becf' lw 2 pt 2  ps 1.0
set style line 9  lc rgb '#7f7f7f' lw 2 pt 4  ps 1.0
set style line 10 lc rgb '#bcbd22' lw 2 pt 6  ps 1.0
set style line 11 lc rgb '#393b79' lw 2 pt 8  ps 1.0
set style line 12 lc rgb '#637939' lw 2 pt 10 ps 1.0

set grid xtics ytics mxtics mytics lc rgb '#dddddd'
# The key sits under each panel so that it never hides a point.
set key below center horizontal maxrows 2 samplen 2 spacing 1.1 height 1 font ',10'
set datafile missing 'NaN'
set format x '%g'
set format y '%g'

# Axes fitted to the data (eval each after `set logscale`): x over
# [xmin, xmax] with a little room, its tics at the data's own x values
# (printed with the format xfmt, which a script may change), or gnuplot's
# when there are too many; y over [ymin, ymax] with room, tics at 1, 2 and 5
# times a power of ten (only the powers of ten past three decades).
xfmt = '%g'
fit_x_log = "set xrange [xmin / 1.2 : xmax * 1.2]; if (strlen(xvalues) > 0) { set xtics (); do for [i = 1 : words(xvalues)] { xv = word(xvalues, i) + 0; set xtics add (sprintf(xfmt, xv) xv) }; set mxtics 1 }"
fit_y_log = "ylo = ymin / 1.6; yhi = ymax * 1.6; set yrange [ylo : yhi]; set ytics (); do for [k = floor(log10(ylo)) : ceil(log10(yhi))] { do for [d = 1 : 3] { yv = (d == 1 ? 1 : d == 2 ? 2 : 5) * 10.0 ** k; if (yv >= ylo && yv <= yhi && (d == 1 || yhi / ylo < 1000)) { set ytics add (sprintf('%g', yv) yv) } } }; set mytics 1"
