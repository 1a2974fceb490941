/* svg.h: the figures of the reports (src/report/svg.c): a schedule's Gantt chart, the
 * simulators' scaling plot and a training run's learning curve (`dgnn train --plot`).
 * Plain SVG 1.1 text, written through dgnn/outfile.h (a temporary file renamed), so a
 * reader never sees half a figure. */
#ifndef DGNN_SVG_H
#define DGNN_SVG_H

#include "dgnn/base.h"
#include "dgnn/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Gantt chart of s: time across, ranks down (the first max_ranks ranks, 64 when <= 0),
 * one box per window, rounds separated by the all-reduce barrier. Errors: DGNN_EIO. */
int dgnn_sched_svg(const dgnn_sched *s, const char *path, const char *title, int64_t max_ranks, dgnn_err *err);

/* The scaling plot: efficiency against workers (log2 axis), one line per series.
 * eff[s * npts + i] = efficiency of series s at workers[i]. Errors: DGNN_EIO. */
int dgnn_sim_svg(const char *path, const char *title, const int64_t *workers, int64_t npts, const double *eff,
                 const char *const *series, int64_t nseries, dgnn_err *err);

/* A learning curve: the training loss (top) and a validation metric (bottom) against the
 * epochs 1..n, each panel scaled to its finite values (NaN: an epoch not measured; a panel
 * with none says so). Errors: DGNN_EIO. */
int dgnn_curve_svg(const char *path, const char *title, const double *loss, const double *metric, int64_t n,
                   const char *metric_name, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
