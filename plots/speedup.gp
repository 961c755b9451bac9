# speedup.gp — how many times faster than the reference trainer (naive) each
# trainer is, against the vocabulary size V, one panel per corpus slice,
# log-log. Solid: the merge loop (the algorithm); dashed, in the same
# colour: the whole run, pretokenizing included. Only cells where both the
# reference and the trainer finished have a point; an external trainer has
# only the dashed line (its merge loop is not known).
#
# Inputs: see style.gp. Data rows: V speedup_merge speedup_total
# speedup_total (see harness/report/plot.c).
load plotdir.'/style.gp'
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'vocabulary size V (tokens)'
        set ylabel 'speedup over naive (times)'
        set logscale xy
        eval fit_x_log
        eval fit_y_log
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) using 1:2 \
                 with linespoints ls series_style(s) title series_title(s), \
             for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) using 1:3 \
                 with linespoints ls series_style(s) dt 2 pt 6 notitle, \
             NaN with lines dt 2 lw 2 lc rgb 'gray40' title 'dashed: whole run', \
             1 with lines dt 3 lc rgb 'gray40' notitle
    }
    eval end_figure
}
