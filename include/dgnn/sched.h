/* sched.h: DyGNeX's snapshot scheduling (issue 6): the per-window cost model and the
 * schedulers that place training windows on (round, rank) slots. docs/dygnex.md is the
 * long form; this header is the precise reference.
 *
 * Windows, rounds and groups:
 *  - a window is one training sample of the snapshot trainer (train_snapshot.h): sample
 *    idx reads snapshots idx-W..idx and predicts idx+1; windows are independent (each
 *    starts from the learned initial state), so any window can run on any rank at any time;
 *  - a schedule has R rounds and P ranks; a round is one optimizer step. In round r rank p
 *    trains group (r, p): zero or more windows, gradients summed; then the gradients are
 *    all-reduced and one step is taken;
 *  - cost of a group = sum of its windows' (predicted) costs;
 *    makespan = sum over rounds of max over ranks of the group cost;
 *    imbalance = makespan / (sum over rounds of the mean group cost) - 1
 *              = makespan * P / (total cost) - 1.
 *
 * Cost model (per model, fitted from the trainer's profile CSV or a documented default):
 *   seconds = a_w * edges_window*hidden + a_e * edges*hidden + b * nodes*hidden
 *             + c * label_pairs + d
 * fitted by non-negative least squares (every coefficient >= 0, so predictions are never
 * negative and a column that the data cannot tell apart from another is dropped).
 *
 * Ownership: dgnn_sched and dgnn_profile own their arrays (malloc'd); the _free functions
 * release them and are safe on zeroed structs. */
#ifndef DGNN_SCHED_H
#define DGNN_SCHED_H

#include "dgnn/base.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- windows and their sizes ---- */

/* The sizes of one training window, as the profile CSV holds them (header
 * model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds). */
typedef struct {
    int64_t sample;       /* sample index idx: reads snapshots idx-W..idx */
    int64_t nodes;        /* node count of the last input snapshot (the model computes every row) */
    int64_t edges;        /* nnz of A of the last input snapshot idx */
    int64_t edges_window; /* nnz summed over the W+1 input snapshots */
    int64_t label_pairs;  /* training pairs: edges of idx+1 and their sampled non-edges */
    int64_t in_dim;       /* node input width (one-hot degree categories) */
    int64_t hidden;       /* GCN width L */
    double seconds;       /* the profile's measured training seconds (NaN when not measured) */
} dgnn_window;

/* The windows of samples [begin, end) of snapshots s (built symmetric, as the trainer
 * does), with window W, neg_mult sampled non-edges per edge (label_pairs = E(1 +
 * neg_mult): the sampler's target, it may draw fewer), width hidden and the trainer's
 * one-hot width (1 + the largest degree over snapshots 0..T-2). out has end - begin
 * entries; seconds = NaN. Errors: DGNN_EINVAL when the range needs snapshots that do not
 * exist (begin < W or end > T - 1). */
int dgnn_windows_of_snapshots(dgnn_window *out, const dgnn_snapshots *s, int64_t begin, int64_t end, int64_t W,
                              int64_t neg_mult, int64_t hidden, dgnn_err *err);

/* A profile CSV: rows of one or more models. */
typedef struct {
    int64_t n;
    dgnn_window *rows;  /* (n) */
    char (*model)[32];  /* (n) the model column */
} dgnn_profile;

/* Reads path (header exactly as above). Errors: DGNN_EIO, DGNN_EFORMAT naming file, line
 * and field. p is overwritten. */
int dgnn_profile_read(dgnn_profile *p, const char *path, dgnn_err *err);
void dgnn_profile_free(dgnn_profile *p);

/* ---- cost model ---- */

enum { DGNN_COST_NFEAT = 5 };
/* The features, in coef order. */
void dgnn_cost_features(double f[DGNN_COST_NFEAT], const dgnn_window *w);

typedef struct {
    double coef[DGNN_COST_NFEAT]; /* seconds per unit of edges_window*hidden, edges*hidden,
                                     nodes*hidden, label_pairs, 1 */
    int fitted;                   /* 0: the default law (an unmeasured FLOP estimate); 1: fitted */
    int64_t rows;                 /* rows fitted */
    double fit_mape;              /* mean |pred - meas| / meas over the fitted rows */
    int64_t holdout_rows;         /* rows held out by dgnn_costmodel_fit_holdout (0: none) */
    double holdout_mape;          /* MAPE of the model fitted without them, on them */
    double flops_per_second;      /* default law: the nominal rate it assumes */
} dgnn_costmodel;

/* The default law when nothing was measured: a FLOP count of one window's training step
 * (kind: a dgnn_snapmodel_kind) divided by a nominal rate; 2 FLOPs per multiply-add, the
 * backward twice the forward (x3 in all), T = W + 1 snapshots, one-hot input (a gather):
 *   EvolveGCN -O: edges*hidden x 12 (two sparse propagations over the last snapshot),
 *             -H: edges_window*hidden x 6 + edges*hidden x 6 (layer 1 on every snapshot),
 *             nodes*hidden x 6 L (layer 2's dense product), 1 x 36 T (V^2 L + L^3) (the
 *             matrix GRUs evolving both layers' weights);
 *   tgcn:     edges_window*hidden x 18 (three gate GCNs), nodes*hidden x 36 T L (three
 *             linear layers 2L -> L per snapshot);
 *   gcrn-gru: edges_window*hidden x 36 (six propagations), nodes*hidden x 18 T L (A H Wh);
 *   wdgcn:    edges_window*hidden x 12 (two layers), nodes*hidden x 54 T L (layer 2's
 *             product and the LSTM's two (N, L) x (L, 4L) products);
 *   gcn:      edges_window*hidden x 12 (two layers over the union, at most the window's
 *             entries), nodes*hidden x 6 L;
 *   every kind: nodes*hidden x 12 C (the classifier's per-node layer), label_pairs x 12 C
 *             (its per-pair add, ReLU and output layer).
 * A group's cost is the sum of its windows' (wdgcn shares snapshots inside a group, so
 * the sum bounds it from above). rate <= 0 uses DGNN_COST_DEFAULT_RATE, 5e10: one calibration on this project's machine
 * (bitcoin-alpha, -O, one epoch of 85 samples on 1 thread took 3.9 s of CPU; the law
 * predicts 4.7 s at 5e10). Only the ratios matter for imbalance; the simulator's
 * compute/communication ratio depends on the rate. */
#define DGNN_COST_DEFAULT_RATE 5e10
dgnn_costmodel dgnn_costmodel_default(int kind, int64_t W, int64_t hidden, int64_t cls_hidden, int64_t in_dim,
                                      double rate);

/* Fits m on rows[0..n-1] (seconds must be finite and > 0): non-negative least squares by
 * enumerating the 2^5 column subsets (exact for 5 columns), each column scaled to unit
 * norm. Errors: DGNN_EINVAL when n < 2 or a row's seconds is not a positive number. */
int dgnn_costmodel_fit(dgnn_costmodel *m, const dgnn_window *rows, int64_t n, dgnn_err *err);
/* Held-out error: a seeded shuffle puts round(holdout_frac n) rows aside (at least 1), fits
 * on the rest, sets m->holdout_mape on the aside rows, then refits m on all rows (the model
 * the schedulers use). holdout_frac 0.2 is the report's. */
int dgnn_costmodel_fit_holdout(dgnn_costmodel *m, const dgnn_window *rows, int64_t n, double holdout_frac,
                               uint64_t seed, dgnn_err *err);
/* Predicted seconds of one window (>= 0). */
double dgnn_costmodel_predict(const dgnn_costmodel *m, const dgnn_window *w);

/* ---- schedules ---- */

/* R rounds x P ranks; group (r, p) holds the windows pos[group_ptr[g] .. group_ptr[g+1])
 * with g = r * P + p; a window position i in 0..n-1 names sample[i] with cost cost[i].
 * A trainer reads, for its rank p and each round r, the sample indices
 * sample[pos[group_ptr[g] ..]]; dgnn_sched_group returns that list. */
typedef struct {
    int64_t num_windows; /* n */
    int64_t num_ranks;   /* P */
    int64_t num_rounds;  /* R */
    int64_t *group_ptr;  /* (R P + 1) */
    int64_t *pos;        /* (n) window positions, grouped */
    int64_t *sample;     /* (n) sample index of each position */
    double *cost;        /* (n) cost of each position (the one the scheduler used) */
} dgnn_sched;

typedef enum { DGNN_SCHED_EVEN = 0, DGNN_SCHED_GREEDY = 1, DGNN_SCHED_ILP = 2 } dgnn_sched_kind;
/* "even", "greedy", "ilp" -> kind; returns -1 for an unknown name. */
int dgnn_sched_kind_parse(const char *name);
const char *dgnn_sched_kind_name(dgnn_sched_kind k);

typedef struct {
    dgnn_sched_kind kind;
    int64_t ranks;          /* P >= 1 */
    int64_t rounds;         /* R; even ignores it (always ceil(n / P)). 0 = automatic:
                               the R in [max(0.9 ceil(n / P), ceil(n / P) - 7), ceil(n / P)]
                               with the lowest greedy makespan (ties: the larger R) */
    double time_limit;      /* ILP: seconds for the whole solve (default 10) */
    int64_t ilp_exact_max;  /* ILP: the exact slot model when it has at most this many
                               binaries (default 200,000), else the decomposition */
    int ilp_disable;        /* test hook: act as if no solver were available */
} dgnn_sched_opts;

dgnn_sched_opts dgnn_sched_opts_default(void);

/* What a solver reports. */
typedef struct {
    const char *method;    /* "even", "greedy", "ilp-exact", "ilp-rounds", "greedy (ilp fallback)" */
    double solve_seconds;  /* scheduler wall time */
    double bound;          /* a proven lower bound on the makespan of any R-round schedule */
    double gap;            /* (makespan - bound) / makespan; 0 = proven optimal */
    int optimal;           /* 1: proven optimal (exact model) or optimal for the fixed
                              round partition (decomposition: see docs/dygnex.md) */
    int fallback;          /* 1: the ILP gave nothing better; the greedy schedule is returned */
    double round_bound;    /* decomposition: a lower bound for the fixed round partition
                              (sum of per-round bounds); NaN otherwise */
    int64_t ilp_vars;      /* binaries of the (largest) model solved */
    int rounds_below_ceil; /* automatic rounds: how many rounds below ceil(n / P) they chose (0: ceil) */
    char msg[256];         /* one line for the user (fallback reason, time limit hit) */
} dgnn_sched_info;

/* Schedules n windows with costs cost[0..n-1] (>= 0) and sample indices sample[0..n-1]
 * (NULL: 0..n-1). out is overwritten; info may be NULL. Errors: DGNN_EINVAL (n < 1, P < 1,
 * R < 1 after defaults, a negative or non-finite cost). The ILP never fails for solver
 * reasons: it falls back to greedy with info->fallback = 1 and a message. */
int dgnn_schedule(dgnn_sched *out, const double *cost, const int64_t *sample, int64_t n, const dgnn_sched_opts *o,
                  dgnn_sched_info *info, dgnn_err *err);
void dgnn_sched_free(dgnn_sched *s);

/* Window positions of group (r, p); *count = its length. */
const int64_t *dgnn_sched_group(const dgnn_sched *s, int64_t r, int64_t p, int64_t *count);
double dgnn_sched_group_cost(const dgnn_sched *s, int64_t r, int64_t p);

typedef struct {
    double makespan;     /* sum over rounds of the slowest group */
    double mean_sum;     /* sum over rounds of the mean group cost = total / P */
    double imbalance;    /* makespan / mean_sum - 1 (0 when mean_sum = 0) */
    double total;        /* sum of all costs */
    int64_t empty_groups;
} dgnn_sched_metrics;
void dgnn_sched_eval(const dgnn_sched *s, dgnn_sched_metrics *m);

/* Every window exactly once, group_ptr monotone. Returns 0 or DGNN_EINVAL with the fault. */
int dgnn_sched_validate(const dgnn_sched *s, dgnn_err *err);

/* A lower bound on the makespan of any schedule of these costs on P ranks in R rounds
 * with every round non-empty: max(total / P, the largest cost, ...). */
double dgnn_sched_lower_bound(const double *cost, int64_t n, int64_t P, int64_t R);

/* ---- SVG (svg.c) ---- */

/* A Gantt chart of s: time across, ranks down (the first max_ranks ranks, 64 when <= 0),
 * one box per window, rounds separated by the all-reduce barrier. Errors: DGNN_EIO. */
int dgnn_sched_svg(const dgnn_sched *s, const char *path, const char *title, int64_t max_ranks, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
