# time_vs_size.gp — the merge loop's median time against the corpus size n,
# log-log, one panel per vocabulary size V. Error bars span the fastest and
# the slowest repetition; a line that stops early: the trainer's next run
# timed out (the tables say so).
#
# Inputs: see style.gp. Data rows: n_MB median min max (see harness/report/plot.c).
load plotdir.'/style.gp'
xfmt = '%.3g'  # slices of 999,935 bytes read as "1" (MB)
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'corpus size n (MB, 10^6 bytes)'
        set ylabel 'merge loop, median time (s)'
        set logscale xy
        eval fit_x_log
        eval fit_y_log
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) \
                 using 1:2:3:4 with yerrorlines ls series_style(s) title series_title(s)
    }
    eval end_figure
}
