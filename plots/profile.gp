# profile.gp — the per-merge profile of one grid cell: on top, the time of
# each merge against the merge index i (log-log), one colour per trainer;
# below, A_i, the number of distinct words that contained the pair chosen at
# merge i. Early merges touch many words and cost the most; trainers that
# scan every word (naive) pay the same at every merge.
#
# Inputs: see style.gp (one panel title, "SLICE,V=…"), and aseries (a series
# that has data, for A_i). Data rows: i seconds A_i 0 (see harness/report/plot.c).
npanels = 2
load plotdir.'/style.gp'
cols = 1
rows = 2
do for [fmt = 1:2] {
    eval begin_figure(fmt, 1000, 900)
    cell = panel_title(1)
    comma = strstrt(cell, ',')
    set title 'time per merge, '.(comma ? cell[1:comma].' '.cell[comma + 1:] : cell)
    set xlabel 'merge index i'
    set ylabel 'seconds for merge i'
    set logscale xy
    set xrange [0.7:*]  # merge 1 sits at x = 1: keep it off the border
    set yrange [*:*]
    set format y '%.0e'
    plot for [s = 1:nseries] datafile index (s - 1) using 1:2 with points ls s pt 7 ps 0.25 \
             title series_title(s)
    set title 'A_i: distinct words containing the pair chosen at merge i'
    set key inside top right
    set ylabel 'A_i (words)'
    set yrange [0.7:*]  # A_i = 1 too
    set format y '%g'
    plot datafile index (aseries - 1) using 1:3 with points pt 7 ps 0.3 lc rgb 'black' \
             title sprintf('A_i (the same for every trainer; from %s)', series_title(aseries))
    eval end_figure
}
