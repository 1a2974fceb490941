/* costmodel.h: DyGNeX's per-window cost model (issue 6, src/cluster/costmodel.c): the sizes
 * of a training window, the trainer's profile CSV of measured windows, the default
 * FLOP-count law and the fit. The schedulers (sched.h) take the costs it predicts;
 * docs/dygnex.md is the long form.
 *
 * Cost model (per model, fitted from the trainer's profile CSV or a documented default):
 *   seconds = a_w * edges_window*hidden + a_e * edges*hidden + b * nodes*hidden
 *             + c * label_pairs + d
 * fitted by non-negative least squares (every coefficient >= 0, so predictions are never
 * negative and a column that the data cannot tell apart from another is dropped).
 *
 * Ownership: dgnn_profile owns its arrays (malloc'd); dgnn_profile_free releases them and
 * is safe on a zeroed struct. */
#ifndef DGNN_COSTMODEL_H
#define DGNN_COSTMODEL_H

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

/* Reads path (header exactly as above; counts >= 0, seconds in [0, 1e9]; a line of any
 * length; a NUL byte refused). Errors: DGNN_EIO, DGNN_EFORMAT naming file, line and field.
 * p is overwritten. */
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

#ifdef __cplusplus
}
#endif
#endif
