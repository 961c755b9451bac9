# memory.gp — peak resident memory of each run (its own process) against the
# vocabulary size V, one panel per corpus slice, log-log. The dashed black
# line is the part every trainer shares: the process with only the input
# counted (word table and its view); the rest of each peak is the trainer's.
#
# Inputs: see style.gp. The last series is the input. Data rows: V peak_MB
# trainer_MB input_MB (see harness/report/plot.c).
load plotdir.'/style.gp'
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'vocabulary size V (tokens)'
        set ylabel 'peak resident memory (MB)'
        set logscale xy
        eval fit_x_log
        eval fit_y_log
        plot for [s = 1:nseries - 1] datafile index ((p - 1) * nseries + s - 1) using 1:2 \
                 with linespoints ls series_style(s) title series_title(s), \
             datafile index ((p - 1) * nseries + nseries - 1) using 1:2 \
                 with lines dt 2 lw 2 lc rgb 'black' title 'input only (shared)'
    }
    eval end_figure
}
