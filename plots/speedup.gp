# speedup.gp — how many times faster than the reference trainer (naive) each
# trainer is, against the vocabulary size V, one panel per corpus slice.
# Solid: total time; dashed: the merge loop alone. Log scales; only cells
# where both the reference and the trainer finished have a point.
#
# Inputs: see style.gp. Data rows: V speedup_total speedup_merge 0 (see
# harness/report/plot.c).
# The reference is the first trainer, so series s uses trainer style s + 1.
load plotdir.'/style.gp'
do for [fmt = 1:2] {
    eval begin_figure(fmt, panel_w * cols, panel_h * rows)
    do for [p = 1:npanels] {
        set title panel_title(p)
        set xlabel 'vocabulary size V (tokens)'
        set ylabel 'speedup over naive (times)'
        set logscale xy
        plot for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) using 1:2 \
                 with linespoints ls (s + 1) title series_title(s).' total', \
             for [s = 1:nseries] datafile index ((p - 1) * nseries + s - 1) using 1:3 \
                 with linespoints ls (s + 1) dt 2 pt 6 title series_title(s).' merge', \
             1 with lines dt 3 lc rgb 'gray40' notitle
    }
    eval end_figure
}
