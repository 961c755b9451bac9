# ladder.gp — the course's steps: the merge loop's speedup of each trainer
# over the trainer its lesson builds on (harness/report/ladder.c), against
# the vocabulary size V, one panel per corpus slice, log-log. One line per
# step, in the colour of the step's trainer; above the dotted line at 1 the
# step pays, below it the trainer before was faster. Steps that do the same
# work in another layout (cache-aware, threaded-walk) sit near 1 unless
# their layout or cores gain.
#
# Inputs: see style.gp (series titles are "BEFORE → TRAINER"). Data rows:
# V speedup speedup speedup (see harness/report/plot.c).
load plotdir.'/style.gp'
# The step titles are long: two columns of them under each panel.
panel_w = 600
set key vertical maxrows 4 font ',9' samplen 1.5 width -3
# The line at 1 is always on the axis.
ymin = ymin < 1 ? ymin : 1
ymax = ymax > 1 ? ymax : 1
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'vocabulary size V (tokens)'
        set ylabel 'merge loop: step before ÷ this step'
        set logscale xy
        eval fit_x_log
        eval fit_y_log
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) using 1:2 \
                 with linespoints ls series_style(s) title series_title(s), \
             1 with lines dt 3 lw 2 lc rgb 'gray40' notitle
    }
    eval end_figure
}
