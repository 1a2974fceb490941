/* train_snapshot.h: training and evaluating the snapshot-based models (snapmodel.h) on
 * link prediction with EvolveGCN's protocol (IBM/EvolveGCN link_pred_tasker.py,
 * splitter.py, trainer.py, Cross_Entropy.py, logger.py):
 *
 *  - snapshots: the event table cut into fixed time windows (bitcoin-alpha 1,200,000 s,
 *    UCI 190,080 s), made undirected (A + A^T, weight = events in the window), GCN-
 *    normalized (snapshot.h);
 *  - node input: one-hot degree, the number of distinct neighbours of the node in the
 *    snapshot, categories 0 .. V-1 with V = 1 + the largest degree over the snapshots that
 *    can be inputs (all but the last: taskers_utils.get_max_degs);
 *  - a sample idx reads the W + 1 snapshots idx-W .. idx (W = num_hist_steps, 10) and
 *    predicts the edges of snapshot idx+1;
 *  - split by sample index (splitter.py), with T snapshots (max_time = T - 1):
 *      train [W, floor(max_time * train_frac)), validation [that, floor(max_time *
 *      (train_frac + val_frac))), test [that, T - 1);
 *  - training pairs: the edges of idx+1 (label 1) and neg_mult times as many non-edges
 *    (label 0) drawn as the reference's smart sampling: source uniform over the label
 *    edges' sources (so by degree), destination uniform over the nodes with an edge in
 *    each window snapshot (with repeats across snapshots); self loops, true edges and
 *    repeats rejected, at most 4x as many draws as wanted; drawn afresh every epoch;
 *  - loss: Cross_Entropy.py (class weights, mean over pairs); Adam; one step every
 *    windows_per_step windows (steps_accum_gradients; the step counter runs across
 *    epochs, as the reference's);
 *  - validation and test score ALL N^2 ordered pairs (u, v) of snapshot idx+1, self pairs
 *    included, label 1 for its edges (get_all_non_existing_edges); MAP = average
 *    precision per snapshot and MRR as logger.get_MRR, each averaged over snapshots
 *    weighted by their pair count (calc_epoch_metric);
 *  - early stopping (trainer.py): epochs 1 .. skip_val_epochs are not validated (the
 *    reference's eval_after_epochs = 5 skips its epochs 0..5); a validation MAP above the
 *    best so far (which starts at 0) resets the count, otherwise the count grows and the
 *    run stops once it exceeds `patience`. The reference evaluates the test split at every
 *    new best; evaluation has no randomness, so testing the best epoch's parameters once at
 *    the end gives the same numbers, and that is what is done here. Without any validation
 *    (few epochs) the final parameters are tested.
 * Randomness: negatives and RReLU slopes come from streams keyed by (seed, epoch, sample),
 * so a run is reproduced exactly (any thread count) and resumes exactly from a checkpoint.
 * Empty label snapshots (none in bitcoin-alpha or UCI) are skipped in training and left
 * out of the metric averages (the reference would produce NaN). */
#ifndef DGNN_TRAIN_SNAPSHOT_H
#define DGNN_TRAIN_SNAPSHOT_H

#include "dgnn/events.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    dgnn_snapmodel_cfg model;  /* kind, hidden, cls_hidden, seed (num_nodes and in_dim come from the data) */
    double snapshot_seconds;   /* > 0: fixed windows of this many time units (aggr_time) */
    int64_t snapshot_count;    /* > 0 instead: this many snapshots of equal time span */
    int64_t window;            /* W = num_hist_steps: a sample reads W + 1 snapshots */
    int64_t windows_per_step;  /* samples whose gradients are summed per Adam step (1) */
    int64_t epochs;
    double lr;
    float class_w[2];          /* class_weights [non-edge, edge] */
    int64_t neg_mult;          /* negative_mult_training */
    double train_frac, val_frac; /* train_proportion, dev_proportion */
    int64_t patience;          /* early_stop_patience */
    int64_t skip_val_epochs;   /* eval_after_epochs + 1 */
    uint64_t seed;
    int64_t threads;           /* 0: OpenMP's default */
    int64_t max_train_windows; /* > 0: stop each training epoch after this many samples */
    int skip_eval;             /* 1: no validation or test (timing the training loop) */
    int baseline_last;         /* 1: also score the test samples with the "repeat the last
                                  snapshot" baseline (pair score = its weight in snapshot t) */
    const char *checkpoint;    /* folder: a checkpoint after every epoch (NULL: none) */
    int resume;                /* 1: continue from the checkpoint in `checkpoint` */
    int progress;              /* progress bar on stderr */
} dgnn_snap_train_cfg;

/* The reference's parameters_bitcoin_alpha_linkpred_egcn_o.yaml (or _egcn_h.yaml for -H):
 * 1,200,000-second snapshots, W 10, -O: L 100, C 400, class weights [0.05, 0.95]; -H: L 50,
 * C 100, [0.1, 0.9]; lr 0.005, 100 negatives per edge, 70/10/20, 500 epochs, patience 50,
 * skip 6, seed 1234. */
dgnn_snap_train_cfg dgnn_snap_train_cfg_default(dgnn_snapmodel_kind kind);
/* Applies a named reference configuration for c->model.kind: "bitcoin-alpha" (the
 * default above) or "uci" (parameters_uc_irv_mess_egcn_o/_h.yaml: 190,080-second
 * snapshots, L 100, C 100, [0.1, 0.9], lr 0.001, 50 negatives, 71/10/19, 1000 epochs).
 * Returns 0, or DGNN_EINVAL for an unknown name. */
int dgnn_snap_train_preset(dgnn_snap_train_cfg *c, const char *name, dgnn_err *err);

typedef struct {
    int64_t epoch;              /* 1-based */
    double train_loss;          /* mean over the epoch's samples */
    double val_map, val_mrr;    /* NaN when not validated */
    double seconds, train_seconds, val_seconds;
    int64_t train_windows, train_pairs;
} dgnn_snap_epoch_result;

typedef struct {
    int64_t num_epochs;
    dgnn_snap_epoch_result epochs[1024];
    int64_t best_epoch;         /* 0: none validated */
    int early_stopped;
    double test_map, test_mrr;
    double last_map, last_mrr;  /* the baseline_last figures on the same samples (NaN if not run) */
    double test_seconds;
    double train_windows_per_second;   /* over all training epochs */
    double train_snapshots_per_second; /* windows x (W + 1) */
    double train_events_per_second;    /* events of the windows' input snapshots */
    double eval_pairs_per_second;      /* all-pairs scoring + metrics, validation and test */
    double peak_rss_mb;
    int64_t num_snapshots, num_nodes, in_dim, num_params;
    int64_t train_begin, train_end, val_end, test_end; /* sample indices of the split */
} dgnn_snap_train_result;

/* Builds the snapshots of ev, trains and evaluates. res is overwritten.
 * Errors: DGNN_EINVAL (bad configuration, too few snapshots for the window and split, a
 * non-finite loss), DGNN_EIO (checkpoints), DGNN_ENOMEM. */
int dgnn_snap_train(const dgnn_events *ev, const dgnn_snap_train_cfg *cfg, dgnn_snap_train_result *res,
                    dgnn_err *err);

/* ---- the pieces, for tests and other trainers ---- */

/* idx (N) = the number of distinct neighbours of each node in g (the row length of A);
 * returns the largest. */
int64_t dgnn_snap_degree_onehot(int32_t *idx, const dgnn_snapshot *g);

/* splitter.py's sample ranges for T snapshots: see above. */
void dgnn_snap_split(int64_t T, int64_t W, double train_frac, double val_frac, int64_t *train_begin,
                     int64_t *train_end, int64_t *val_end, int64_t *test_end);

/* The reference's smart negative sampling for label snapshot g: up to `want` pairs
 * (min(want, E (E - 1) - E) with E = g's entries) written to src/dst (capacity want), each
 * drawn as source = the row of a uniform entry of g, destination = a uniform element of
 * pool (npool node ids, repeats allowed), rejecting self loops, entries of g and pairs
 * already drawn, stopping after 4x as many draws as wanted. Returns the number written. */
int64_t dgnn_snap_link_negatives(int32_t *src, int32_t *dst, int64_t want, const dgnn_snapshot *g,
                                 const int32_t *pool, int64_t npool, dgnn_rng *rng);

/* The reference logger's MAP and MRR of one snapshot scored on all pairs: prob (N, N)
 * row-major (prob[u N + v] for the pair (u, v)), labels from g's entries. label (N * N) is
 * scratch. *ap = average precision over the N^2 pairs; *mrr = get_MRR (rows with an edge,
 * ties as metrics.h). Either is NaN when g has no edge. */
void dgnn_snap_link_metrics(double *ap, double *mrr, const float *prob, const dgnn_snapshot *g, int32_t *label);

#ifdef __cplusplus
}
#endif
#endif
