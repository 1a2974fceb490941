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
 * NCCL and MPI use for large messages); tree, 2 ceil(log2 P) alpha + 2 bytes beta (a
 * pipelined double binary tree, NCCL's choice at scale, where the ring's 2 (P-1) latencies
 * dominate); or auto (the CLI's default), the cheaper of the two for each P and size, as
 * NCCL's tuner picks per call.
 * The optimizer step and the per-round launch overheads are left out (they scale as the
 * rounds do on every P and are small next to a window).
 *
 * Families: the simulator takes any list of independent work items with costs, so the
 * event family (another issue) plugs in by producing its batches' costs and dependency
 * structure; only "snapshot" is built here. */
#ifndef DGNN_SIMULATE_H
#define DGNN_SIMULATE_H

#include "dgnn/costmodel.h"
#include "dgnn/events.h"
#include "dgnn/sched.h"
#include "dgnn/snapmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DGNN_SIM_SNAPSHOT = 0, DGNN_SIM_EVENT = 1 } dgnn_sim_family;

typedef struct {
    const char *name;   /* "nvlink", "ib" or "custom" */
    double alpha;       /* seconds per message (latency) */
    double beta;        /* seconds per byte (1 / bandwidth) */
    int allreduce;      /* DGNN_ALLREDUCE_RING (0), _TREE or _AUTO */
} dgnn_net;

enum { DGNN_ALLREDUCE_RING = 0, DGNN_ALLREDUCE_TREE = 1, DGNN_ALLREDUCE_AUTO = 2 };
/* "ring", "tree", "auto" -> net->allreduce. Errors: DGNN_EINVAL naming the value. */
int dgnn_allreduce_parse(dgnn_net *net, const char *name, dgnn_err *err);
/* The algorithm's name; for auto, the one chosen at P and bytes. */
const char *dgnn_allreduce_name(const dgnn_net *net, int64_t P, double bytes);

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

/* The gradient the snapshot family all-reduces: the parameter count of a snapshot model of
 * kind (dgnn_snapmodel_kind) with model's widths on N nodes and V one-hot input
 * categories, classifying 2 classes, as the trainer builds it. Returns the count, or a
 * negative DGNN_E* (message in err) when the model cannot be built. */
int64_t dgnn_sim_snapshot_params(const dgnn_snapmodel_cfg *model, int kind, int64_t N, int64_t V, dgnn_err *err);

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

/* ---- family "event": DepBloom against its strict baseline (issue 5) --------------------
 * src/cluster/simulate_event.c (the model) and simulate_event_runs.c (the measured runs the
 * costs come from, and the checks against them); docs/depbloom.md "Simulator (event family)" has the model,
 * its validation against real runs and its limits. In short, for P workers, batch B,
 * n training events, a = seconds per optimizer step, b = seconds per event, r = row bytes:
 *  strict:   ceil(n / (P B)) steps, each
 *              sigma (a + b B) + max(A, X, A_bw + X_bw)
 *            A = all-reduce of the gradient, X = all-gather of the step's written rows
 *            ((P-1) slices of R_B rows, R_B = distinct endpoints of B consecutive events,
 *            two collectives: counts, then rows) + applying them (gamma per byte); the
 *            comm module overlaps A with X, but both share the link (the _bw terms:
 *            bandwidth only);
 *  depbloom: per window w, S_w = ceil(largest part / (K B)) steps, all ranks in step:
 *              sigma (S_w a + (1 + rho) b largest_part_w) + S_w A + Y_w
 *            Y_w = all-gather of the window's authoritative rows (the busiest receiver's
 *            rows) + applying them;
 *  sigma = share(1) / share(P), share(P) = min(1, cores / (P + background)), when the P
 *  workers share `cores` cores with `background` other threads (the checks on a small
 *  machine; the one-worker costs were measured at share(1)), else 1; T1 = one worker's
 *  epoch = strict at P = 1. */

/* DepBloom's partition of one window at one worker count, as the trainer computes it. */
typedef struct {
    int64_t events;        /* training events of the window */
    int64_t max_part;      /* events of its largest part: the busiest rank's work */
    int64_t rows;          /* nodes the window touches = rows all-gathered at its end */
    int64_t max_recv_rows; /* rows the busiest receiver gets: rows - the fewest any rank sends */
    int64_t cut;           /* events whose endpoints are in different parts */
} dgnn_sim_window_part;

/* Cuts train (the training events, time order) into windows and partitions each into P
 * parts exactly as `dgnn train --dist depbloom --partition` does (dgnn_windows_make,
 * dgnn_window_partition with ownership steering, METIS seed = seed + 1; the authoritative
 * row of a node is the part of the last event touching it). *out (malloc'd, caller
 * frees) gets one entry per window; returns the window count, or a negative DGNN_E*
 * (message in err) on bad arguments. */
int64_t dgnn_sim_event_windows(dgnn_sim_window_part **out, const dgnn_events *train, int64_t P,
                               int64_t window_events, double window_seconds, uint64_t seed, dgnn_err *err);

/* Mean number of distinct endpoints of the slices [k B, (k+1) B) of ev (the last one
 * shorter): the rows one strict rank writes, and all-gathers, per step. 0 when empty. */
double dgnn_sim_rows_per_slice(const dgnn_events *ev, int64_t B);

/* A measured step-time curve (`dgnn bench train --step-curve LIST --out F`, on the CPU or
 * a GPU): the seconds of one training step at each batch size, batches ascending. With
 * n > 0 it replaces a + b x as the seconds of a step of x events: between two points the
 * line through them, beyond the ends the line through the nearest two (one point: t_1 x
 * / B_1), never below 0, and below the smallest batch never below the line from (0, the
 * optimizer's seconds) to the first point. */
#define DGNN_SIM_CURVE_MAX 32
typedef struct {
    int64_t n;
    double batch[DGNN_SIM_CURVE_MAX], seconds[DGNN_SIM_CURVE_MAX];
    char device[32];               /* "cpu", "cuda:0": where it was measured */
    double apply_bytes_per_second; /* applying received state rows there (0: not measured) */
    double optimizer_seconds;      /* of each step, the optimizer's (Adam's) part (0: not
                                      measured): what refinement's K micro-batches share */
} dgnn_sim_curve;
/* t(x) as above (0 when c->n == 0). */
double dgnn_sim_curve_seconds(const dgnn_sim_curve *c, double x);

typedef struct {
    /* one worker's costs (dgnn_sim_event_fit fills them from measured runs) */
    double step_seconds;    /* a: per optimizer step (Adam, per-step overheads) */
    double event_seconds;   /* b: per training event (forward, backward, commit, sampling) */
    double sample_seconds;  /* per event, the sampling part of b */
    double row_bytes;       /* one node's state row (dgnn_state_row_bytes) */
    double grad_bytes;      /* 4 x parameters */
    double apply_seconds_per_byte; /* gamma: unpacking received rows into the replica */
    int64_t batch;          /* B: events per micro-batch (per rank) */
    int64_t refine;         /* K: depbloom micro-batches per step (<= 1: one) */
    double refine_overhead; /* rho: extra compute of refinement, fraction of b (0) */
    int critical_path;      /* 1: sampling runs beside compute (b -> max(b - s, s));
                               refused with a curve, whose steps already hold the trainer's
                               own overlap */
    dgnn_sim_curve curve;   /* n > 0: a step of x events in K micro-batches (refinement)
                               takes K u(x / K) - (K - 1) t_opt, u(y) = t(y) + rho (t(y) -
                               t(0)), t_opt its optimizer_seconds, instead of a + (1 + rho)
                               b x (the line's a counts once a step: all optimizer) */
    double cores;           /* > 0: all P workers share this many cores; 0: one worker each */
    double background;      /* with cores: other runnable threads on them (each thread gets
                               min(1, cores / (P + background)) of a core) */
    /* the stream */
    int64_t events;         /* n: training events per epoch */
    double rows_per_slice;  /* R_B (dgnn_sim_rows_per_slice at B) */
    int64_t max_steps;      /* > 0: the epoch stops after this many steps (--max-batches) */
} dgnn_sim_event_in;

typedef struct {
    int64_t workers;                 /* P */
    double t1;                       /* one worker's epoch (strict at P = 1, K = 1) */
    int64_t strict_steps, strict_events;
    double strict_compute;           /* sigma (a + b B) summed over steps */
    double strict_allreduce;         /* steps x A (before overlap) */
    double strict_gather;            /* steps x X (before overlap) */
    double strict_comm;              /* the exposed communication after overlap */
    double strict_tp, strict_eff;    /* epoch seconds, T1 / (P tp) */
    double strict_state_bytes;       /* all ranks' row bytes sent (as the trainer counts) */
    int64_t db_steps, db_events, db_windows;
    double db_compute, db_allreduce, db_sync, db_tp, db_eff;
    double db_state_bytes;
    double db_imbalance;             /* sum of largest parts x P / events (1 = balanced) */
    double db_cut_fraction;          /* cut events / events */
    double speedup;                  /* strict_tp / db_tp */
} dgnn_sim_event_point;

/* One worker count: both strict and depbloom (win/nwin: the partition at this P; with
 * nwin = 0, depbloom's fields are NAN). DGNN_EINVAL on P < 1 or bad costs. */
int dgnn_sim_event(dgnn_sim_event_point *out, const dgnn_sim_event_in *in, int64_t P, const dgnn_sim_window_part *win,
                   int64_t nwin, const dgnn_net *net, dgnn_err *err);

/* The trainer's default DepBloom window, in events (`dgnn train --window-events`). */
#define DGNN_SIM_WINDOW_EVENTS 10000

/* One worker count on the stream train itself: its windows and their partition at P
 * (dgnn_sim_event_windows), then dgnn_sim_event. Errors: as those two. */
int dgnn_sim_event_on_stream(dgnn_sim_event_point *out, const dgnn_sim_event_in *in, int64_t P, const dgnn_events *train,
                             int64_t window_events, double window_seconds, uint64_t seed, const dgnn_net *net,
                             dgnn_err *err);

/* What the simulator reads from a `dgnn train --out` JSON (one run). */
typedef struct {
    char path[512];
    char dataset[512];
    char model[32];
    char mode[16];            /* "none" (no dist object), "strict", "depbloom" */
    int64_t ranks, batch, threads, max_batches, epochs;
    int64_t train_events;     /* data.train_events: the whole epoch */
    int64_t epoch_events;     /* events trained per epoch (mean of epochs[]) */
    int64_t steps;            /* optimizer steps per epoch */
    double train_seconds;     /* per epoch (mean of epochs[].train_seconds) */
    double sample_seconds;    /* per epoch, rank 0 (NAN without a dist object) */
    double compute_seconds, comm_seconds; /* per epoch, the largest over ranks (NAN likewise) */
    int64_t num_params, mem_dim, time_dim, mail_slots, edge_dim;
    double new_node_frac, val_quantile, test_quantile;
    uint64_t seed;
    int partition;
    int64_t window_events, refine;
    double window_seconds;
    double state_bytes_per_epoch, grad_bytes_per_epoch;
    char device[32];          /* config.device ("cpu" when absent: runs before issue 14) */
    dgnn_sim_curve curve;     /* the run's step_curve (a bench run's), n = 0 without one */
} dgnn_sim_measured;

/* Reads one run, and its step_curve when it has one ({"device", "points": [{"batch",
 * "step_seconds"}, ...] batches ascending, "apply_bytes_per_second"}). The file holds one
 * JSON value (text or a NUL byte after it is refused, and so is an object that gives a key
 * twice, as the PyG-Temporal reader refuses it); measured seconds are in [0, 1e9],
 * bytes >= 0, config.seed an integer of a uint64_t, dist.steps at least the epochs.
 * Errors: DGNN_EIO (cannot read), DGNN_EFORMAT (not JSON: "r.json:LINE:COL: ...", or a
 * field missing, of the wrong type or out of range: "r.json: field
 * 'epochs[0].train_seconds': ..."). */
int dgnn_sim_measured_read(dgnn_sim_measured *m, const char *path, dgnn_err *err);
/* Row bytes of the run's model: 16 + 8 + 8 S + 4 M + 4 S D, D = 2 M + edge_dim + time_dim
 * (apan: 2 M + edge_dim, S = mail_slots; others S = 1). */
double dgnn_sim_measured_row_bytes(const dgnn_sim_measured *m);
/* One worker's costs from single-rank runs (ranks == 1, any mode): with runs of two or
 * more batch sizes, a least-squares line per step, seconds = a + b x events (when a < 0
 * or b < 0, a = 0 and b is refitted through the origin); with one batch size a = 0, b =
 * seconds / events. Sets step_seconds, event_seconds, sample_seconds, row_bytes,
 * grad_bytes, batch (the first run's), and the curve of the one run that has a step
 * curve, and returns 0; DGNN_EINVAL (naming the file) when a run has several ranks or no
 * events, the runs' models differ, or two runs have a curve. */
int dgnn_sim_event_fit(dgnn_sim_event_in *in, const dgnn_sim_measured *runs, int64_t nruns, dgnn_err *err);

/* The dataset a run without --data names: `dgnn train`'s built-in synthetic stream. */
#define DGNN_SIM_BUILTIN_DATASET "builtin-synthetic"
/* That stream, regenerated with the options of `dgnn train`'s built-in one (cmd_train.c):
 * 60,000 bipartite events on 2,000 nodes, seed 7. ev is overwritten. Errors: as
 * dgnn_gen_events. */
int dgnn_sim_event_builtin_stream(dgnn_events *ev, dgnn_err *err);
/* train (overwritten) = the training events of ev under m's split, as the trainer cut them
 * (dgnn_split_make with the run's new-node fraction and quantiles). Errors: as
 * dgnn_split_make and dgnn_events_subset. */
int dgnn_sim_measured_train_events(dgnn_events *train, const dgnn_events *ev, const dgnn_sim_measured *m,
                                   dgnn_err *err);

/* The model's prediction of one measured run, in the run's mode (strict or depbloom). */
typedef struct {
    double seconds;     /* epoch seconds */
    double compute;     /* of which compute */
    double comm;        /* seconds - compute */
    double state_bytes; /* all ranks' row bytes sent */
    int64_t steps, events;
    double error;       /* (seconds - measured) / measured */
} dgnn_sim_run_prediction;
/* Predicts run m on this machine: base's one-worker costs at the run's batch, ranks,
 * refinement (depbloom), step limit, window (its own, else DGNN_SIM_WINDOW_EVENTS) and
 * seed, with the ranks sharing `cores` cores beside `background` other threads, on the
 * network local; no critical path (the runs measured none). Errors: as
 * dgnn_sim_event_on_stream. */
int dgnn_sim_event_predict_run(dgnn_sim_run_prediction *out, const dgnn_sim_measured *m, const dgnn_sim_event_in *base,
                               const dgnn_events *train, double cores, double background, const dgnn_net *local,
                               dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
