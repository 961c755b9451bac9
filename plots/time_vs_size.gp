# time_vs_size.gp — median total training time against the corpus size n,
# log-log, one panel per vocabulary size V. Error bars span the fastest and
# the slowest repetition; timed-out runs have no point (the dashed line
# is the time limit, drawn when a run of the corpus timed out).
#
# Inputs: see style.gp, and limit (seconds; 0 when nothing timed out).
# Data rows: n_MB median min max (see harness/report/plot.c).
load plotdir.'/style.gp'
# The time limit, dashed, only when a run of this corpus timed out (limit > 0).
limit_curve = limit > 0 ? sprintf(", %g with lines dt 2 lc rgb 'gray40' lw 1 title 'time limit %g s'", limit, limit) : ''
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'corpus size n (MB, 10^6 bytes)'
        set ylabel 'median total time (s)'
        set logscale xy
        eval 'plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) ' . \
             'using 1:2:3:4 with yerrorlines ls s title series_title(s)' . limit_curve
    }
    eval end_figure
}
