# profile.gp — the per-merge profile of one grid cell. Top: the mean time of
# a merge over ranges of merges (1, 2–3, 4–7, 8–15, …: equal widths on the
# log axis) against the merge index i, log-log, one line per trainer; the
# raw per-merge times are in the data file, too noisy to read one by one.
# Bottom: A_i, the number of distinct words that contained the pair chosen
# at merge i (grey points) and its mean over the same ranges (black line).
# Early merges touch many words; trainers that pay for every word (naive,
# incremental) or every pair (inverted-index) at every merge stay flat or
# rise, the others fall with A_i.
#
# Inputs: see style.gp (one panel title, "SLICE,V=…"), and aseries (a series
# that has data, for A_i). Data: blocks 0 … nseries − 1 the raw rows
# "i seconds A_i 0" of each trainer, blocks nseries … 2·nseries − 1 the
# ranges' rows "i_middle mean_seconds mean_A_i 0" (see harness/report/plot.c).
npanels = 2
load plotdir.'/style.gp'
cols = 1
rows = 2
do for [fmt = 1:2] {
    eval begin_figure(fmt, 1000, 900)
    cell = panel_title(1)
    comma = strstrt(cell, ',')
    set title 'mean time per merge, '.(comma ? cell[1:comma].' '.cell[comma + 1:] : cell)
    set xlabel 'merge index i'
    set ylabel 'seconds per merge (mean over the range)'
    set logscale xy
    set xrange [0.7:*]  # merge 1 sits at x = 1: keep it off the border
    set yrange [*:*]
    set format y '%.0e'
    plot for [s = 1:nseries] datafile index (nseries + s - 1) using 1:2 \
             with linespoints ls series_style(s) title series_title(s)
    set title 'A_i: distinct words containing the pair chosen at merge i'
    set key inside top right
    set ylabel 'A_i (words)'
    set yrange [0.7:*]  # A_i = 1 too
    set format y '%g'
    plot datafile index (aseries - 1) using 1:3 with points pt 7 ps 0.3 lc rgb 'gray60' \
             title 'A_i of each merge', \
         datafile index (nseries + aseries - 1) using 1:3 with linespoints lw 2 pt 7 \
             lc rgb 'black' title 'mean over the range'
    eval end_figure
}
