/* simulate.h: DyGNeX's cluster simulator (issue 6): what an epoch of data-parallel
 * training would take on P workers, from per-window costs, a schedule and an alpha-beta
 * model of the gradient all-reduce. docs/dygnex.md has the model and its limits.
 *
 * Model of one epoch on P workers (family "snapshot"):
 *   T_P = makespan of the schedule (sum over rounds of the slowest group)
 *       + rounds x allreduce(P, gradient bytes),
 *   T_1 = sum of all window costs (one worker: no all-reduce),
 *   efficiency = T_1 / (P T_P).
 * All-reduce: ring, 2 (P-1) alpha + 2 (P-1)/P bytes beta (the bandwidth-optimal algorithm
 * NCCL and MPI use for large messages); or tree, 2 ceil(log2 P) alpha + 2 bytes beta (a
 * pipelined double binary tree, NCCL's choice at scale for small messages).
 * The optimizer step and the per-round launch overheads are left out (they scale as the
 * rounds do on every P and are small next to a window).
 *
 * Families: the simulator takes any list of independent work items with costs, so the
 * event family (another issue) plugs in by producing its batches' costs and dependency
 * structure; only "snapshot" is built here. */
#ifndef DGNN_SIMULATE_H
#define DGNN_SIMULATE_H

#include "dgnn/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DGNN_SIM_SNAPSHOT = 0, DGNN_SIM_EVENT = 1 } dgnn_sim_family;

typedef struct {
    const char *name;   /* "nvlink", "ib" or "custom" */
    double alpha;       /* seconds per message (latency) */
    double beta;        /* seconds per byte (1 / bandwidth) */
    int tree;           /* 1: tree all-reduce; 0: ring */
} dgnn_net;

/* Presets: "nvlink" (alpha 3 us, 150 GB/s per direction: NVLink 4 within a node) and "ib"
 * (alpha 5 us, 25 GB/s: one 200 Gb/s HDR InfiniBand port per GPU). Returns 0, or
 * DGNN_EINVAL for another name. */
int dgnn_net_preset(dgnn_net *net, const char *name, dgnn_err *err);
/* Seconds of one all-reduce of `bytes` over P workers (0 when P = 1). */
double dgnn_allreduce_seconds(const dgnn_net *net, int64_t P, double bytes);

typedef struct {
    int64_t workers;      /* P */
    int64_t rounds;       /* R */
    double t1;            /* one worker's epoch */
    double makespan;      /* the schedule's compute makespan */
    double comm;          /* rounds x all-reduce */
    double tp;            /* makespan + comm */
    double efficiency;    /* t1 / (P tp) */
    double imbalance;     /* of the schedule (sched.h) */
    double solve_seconds; /* scheduler time */
    double gap;           /* the scheduler's gap to its lower bound (sched.h) */
} dgnn_sim_point;

/* One point: schedules cost[0..n-1] on P workers with o (o->ranks is replaced by P) and
 * applies the model. Errors: as dgnn_schedule. */
int dgnn_sim_snapshot(dgnn_sim_point *out, const double *cost, int64_t n, int64_t P, const dgnn_sched_opts *o,
                      const dgnn_net *net, double grad_bytes, dgnn_err *err);

/* Synthetic snapshot sequences: T snapshot edge counts (out, T), from a seeded generator:
 *  "growing": 50 + 20,000 (t / T)^2 edges, times lognormal noise (sigma 0.25): a graph
 *             that grows over its history (bitcoin-alpha's and UCI's later snapshots are
 *             the big ones);
 *  "bursty":  2,000 edges times lognormal noise (sigma 0.3), with bursts of 1-3 snapshots
 *             5-20x larger starting at 5% of the snapshots.
 * Errors: DGNN_EINVAL for another pattern or T < 1. */
int dgnn_sim_synthetic_edges(int64_t *out, int64_t T, const char *pattern, uint64_t seed, dgnn_err *err);
/* The windows of samples W .. T-2 of such a sequence (T - W - 1 of them), as
 * dgnn_windows_of_snapshots computes them from real snapshots. */
void dgnn_sim_windows(dgnn_window *out, const int64_t *edges, int64_t T, int64_t W, int64_t nodes, int64_t neg_mult,
                      int64_t hidden, int64_t in_dim);

/* The scaling plot: efficiency against workers (log2 axis), one line per series.
 * eff[s * npts + i] = efficiency of series s at workers[i]. Errors: DGNN_EIO. */
int dgnn_sim_svg(const char *path, const char *title, const int64_t *workers, int64_t npts, const double *eff,
                 const char *const *series, int64_t nseries, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
