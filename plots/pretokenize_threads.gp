# pretokenize_threads.gp — how counting scales with threads: the median
# pretokenize+count time (read excluded) of each corpus slice against the
# number of counting threads, log-log, one panel per counting strategy.
# Error bars span the fastest and the slowest repetition. The dashed line of
# each slice, in its colour, is ideal scaling from its fewest threads (time
# ∝ 1/threads): the gap between it and the solid line is the part that did
# not parallelize (Amdahl's serial part, the merge of the threads' tables,
# and a shared machine's other work).
#
# Inputs: see style.gp (series are slices, panels are counting strategies),
# and xmin, xmax (the thread counts drawn). Data rows: threads median min
# max ideal (see harness/report/plot.c).
load plotdir.'/style.gp'
panel_w = npanels == 1 ? 720 : panel_w
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'counting threads'
        set ylabel 'pretokenize+count, median time (s)'
        set logscale xy 2
        set logscale y 10
        set xrange [xmin / 1.25:xmax * 1.25]
        set xtics 2
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) \
                 using 1:2:3:4 with yerrorlines ls s title series_title(s), \
             for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) \
                 using 1:5 with lines ls s dt 2 lw 1 notitle, \
             NaN with lines dt 2 lw 1 lc rgb 'gray40' title 'ideal: time ∝ 1/threads'
    }
    eval end_figure
}
