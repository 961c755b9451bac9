# time_vs_vocab.gp — the merge loop's median time against the vocabulary
# size V, log-log, one panel per corpus slice: each algorithm's own time,
# without the reading and pretokenizing that every trainer shares (the
# tables have the totals). Error bars span the fastest and the slowest
# repetition. A line that stops early: the trainer's next run timed out
# (the tables say so); an external trainer has no merge loop to show.
#
# Inputs: see style.gp. Data rows: V median min max (see harness/report/plot.c).
load plotdir.'/style.gp'
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'vocabulary size V (tokens)'
        set ylabel 'merge loop, median time (s)'
        set logscale xy
        eval fit_x_log
        eval fit_y_log
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) \
                 using 1:2:3:4 with yerrorlines ls series_style(s) title series_title(s)
    }
    eval end_figure
}
