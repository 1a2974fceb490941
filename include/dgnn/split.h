/* split.h: chronological train / validation / test splits of an event table, with
 * the inductive ("new node") masks of TGN's evaluation protocol.
 *
 * Periods. By time (TGN, default): val_time, test_time = the 0.70 and 0.85 quantiles
 * of all event times, computed exactly as numpy.quantile's default ('linear')
 * method; train = t <= val_time, val = val_time < t <= test_time, test = t > test_time.
 * By ext_roll (TGL's edges.csv column): 0 = train, 1 = val, 2 = test. The new-node
 * hold-out below applies to either mode (dgnn train --split, src/cli/split_mode.c).
 *
 * New nodes (TGN's get_data, utils/data_processing.py), with dgnn's own rng in place
 * of Python's random.seed(2020) / random.sample, so the chosen nodes differ from
 * TGN's but the protocol is the same:
 *  1. node_set = nodes that appear in any event; n = |node_set|;
 *  2. later_nodes = nodes of the val and test periods' events (ascending id);
 *  3. held_out = floor(new_node_frac * n) nodes sampled without replacement from
 *     later_nodes (TGN: 10%); when later_nodes has fewer, all of them (Python would
 *     raise instead);
 *  4. train events = train-period events with neither endpoint held out (the held-out
 *     nodes are never seen in training);
 *  5. new_node = node_set minus the endpoints of train events (held-out nodes, plus
 *     nodes that only appear later or only next to held-out nodes);
 *  6. new_val / new_test = val / test events with src or dst in new_node.
 * val and test keep every event of their period. new_node_frac = 0 gives a
 * transductive split (train = whole train period) whose new_val/new_test masks still
 * select events touching nodes absent from training.
 *
 * Ownership: dgnn_split_make mallocs mask, held_out and new_node; dgnn_split_free
 * releases them. */
#ifndef DGNN_SPLIT_H
#define DGNN_SPLIT_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of dgnn_split.mask. */
enum {
    DGNN_SPLIT_TRAIN = 1,
    DGNN_SPLIT_VAL = 2,
    DGNN_SPLIT_TEST = 4,
    DGNN_SPLIT_NEW_VAL = 8,
    DGNN_SPLIT_NEW_TEST = 16
};

typedef enum { DGNN_SPLIT_BY_TIME = 0, DGNN_SPLIT_BY_EXT_ROLL = 1 } dgnn_split_mode;

typedef struct {
    dgnn_split_mode mode;
    double val_q, test_q; /* BY_TIME: quantiles of the event times (0.70, 0.85) */
    double new_node_frac; /* fraction of all nodes held out as unseen (TGN: 0.1; 0: none) */
    uint64_t seed;        /* seeds the held-out sample (default 2020, as TGN) */
} dgnn_split_opts;

/* BY_TIME, 0.70 / 0.85, new_node_frac 0.1, seed 2020: TGN's protocol. */
dgnn_split_opts dgnn_split_opts_default(void);

typedef struct {
    int64_t num_events, num_nodes;
    double val_time, test_time; /* BY_TIME thresholds; NAN for BY_EXT_ROLL */
    uint8_t *mask;              /* (E) DGNN_SPLIT_* bits of each event */
    uint8_t *held_out;          /* (N) 1 = sampled as a new test node (step 3) */
    uint8_t *new_node;          /* (N) 1 = in node_set but in no train event (step 5) */
    int64_t n_train, n_val, n_test, n_new_val, n_new_test; /* events per mask bit */
    int64_t n_held_out, n_new_nodes, n_nodes_seen;          /* nodes: step 3, step 5, |node_set| */
    /* 1 + index of the last train-period (val-period) event, 0 if none: with a
     * time-sorted table, [0, train_end) is the training period, e.g. the prefix a
     * temporal CSR for training is built from. */
    int64_t train_end, val_end;
} dgnn_split;

/* Computes the split of ev. opts NULL = defaults. Errors (DGNN_EINVAL): no events;
 * quantiles outside 0 <= val_q <= test_q <= 1; new_node_frac outside [0, 1]; times
 * not sorted (BY_TIME); no ext_roll column or a value other than 0/1/2 (BY_EXT_ROLL,
 * naming the event). DGNN_ENOMEM when out of memory. s is zeroed on failure. */
int dgnn_split_make(dgnn_split *s, const dgnn_events *ev, const dgnn_split_opts *opts, dgnn_err *err);
void dgnn_split_free(dgnn_split *s);
/* DGNN_OK when s (the split of ev) leaves training events, and validation and test
 * events too when need_eval; else DGNN_EINVAL saying which part is empty and why (all
 * events at one timestamp, every training event touching a held-out node, too few
 * events), with the counts: what a trainer checks before it trains on the split, rather
 * than report metrics of nothing. */
int dgnn_split_check(const dgnn_split *s, const dgnn_events *ev, int need_eval, dgnn_err *err);

/* The ascending indices of the events whose mask has any bit of `bits`; *idx is
 * malloc'd (caller frees; non-NULL even when *n == 0). */
int dgnn_split_indices(int64_t **idx, int64_t *n, const dgnn_split *s, int bits, dgnn_err *err);

/* numpy.quantile(a, q) with the default 'linear' method, for a sorted ascending
 * (n >= 1): index (n-1)*q, interpolated as numpy's _lerp does (from the upper value
 * when the fraction is >= 0.5), so that results agree bit for bit. */
double dgnn_quantile_sorted(const double *a, int64_t n, double q);

/* ---- the snapshot trainer's split (EvolveGCN's splitter.py) ----
 * Sample ranges for T snapshots and a window of W (link prediction's; edge classification
 * then sets *test_end = T): train [W, floor(max_time * train_frac)), validation [that,
 * floor(max_time * (train_frac + val_frac))), test [that, T - 1), max_time = T - 1 in
 * float32 arithmetic as the reference's (snap_train.h). */
void dgnn_snap_split(int64_t T, int64_t W, double train_frac, double val_frac, int64_t *train_begin,
                     int64_t *train_end, int64_t *val_end, int64_t *test_end);
/* The smallest snapshot count T >= W + 2 whose dgnn_snap_split leaves a training sample
 * (searched up to W + 2 + 10^6), or W + 2 when none does or train_frac is outside (0, 1):
 * what a generated sequence must at least hold. */
int64_t dgnn_snap_split_min_snapshots(int64_t W, double train_frac, double val_frac);

#ifdef __cplusplus
}
#endif
#endif
