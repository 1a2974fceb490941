/* event_node.h: dynamic node classification on an event stream, the TGN code's supervised
 * protocol (twitter-research/tgn, train_supervised.py; `dgnn train --task node`):
 *  - the event model, trained self-supervised for link prediction beforehand
 *    (event_train.h, its cfg.keep_model), is frozen: inference only, its parameters read;
 *  - the label of each event (dgnn_events.label: wikipedia's and reddit's state change,
 *    e.g. a user banned after the edit) is predicted from the SOURCE node's embedding at
 *    the event time, by a decoder MLP (node_mlp.h: L -> 80 -> 10 -> 1, ReLU, dropout),
 *    trained with binary cross-entropy and its own Adam;
 *  - periods by time (split.h's val_q / test_q, TGN: 0.70 / 0.85; or ext_roll), every
 *    event of a period in it: the TGN code's get_data_node_classification holds no new
 *    nodes out;
 *  - every decoder epoch: node memory reset, then the training-period events batch by
 *    batch (the frozen model's forward, the sources' embeddings of that forward, one
 *    decoder step, the model's commit), then the validation events from the memory
 *    training left, the same way with no decoder step; validation AUC = roc_auc_score
 *    over ALL the validation predictions (not averaged per batch);
 *  - early stopping on validation AUC with patience (the TGN code's EarlyStopMonitor);
 *    the best epoch's decoder is tested on the test events, the memory carried on from
 *    the last validation (the frozen model makes that memory the same every epoch);
 *    test AUC over all test predictions.
 * Neighbours come from the training-period events for the training pass and from all
 * events (strictly before each time) for validation and test, as dgnn's link
 * evaluation; the TGN code samples from the training events throughout
 * (docs/tgnn.md, "Dynamic node classification").
 * A split whose events are all of one class has AUC NaN (printed n/a): undefined, not
 * 0.5. Single process (the frozen model's passes are inference). */
#ifndef DGNN_EVENT_NODE_H
#define DGNN_EVENT_NODE_H

#include "dgnn/events.h"
#include "dgnn/split.h"
#include "dgnn/tgnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The decoder's learning rate is in (0, DGNN_EVENT_NODE_MAX_LR] (--node-lr's range too). */
#define DGNN_EVENT_NODE_MAX_LR 1.0

typedef struct {
    int64_t epochs;   /* decoder epochs (the TGN code's --n_epoch: 10) */
    int64_t patience; /* epochs without a better validation AUC (--patience: 5) */
    double lr;        /* the decoder's Adam (--lr: 3e-4) */
    float dropout;    /* the decoder's (--drop_out: 0.1) */
    int64_t batch;    /* events per batch (train_supervised.py's --bs: 100) */
    int64_t hidden1, hidden2; /* the decoder's widths (80, 10: utils.py's MLP) */
    dgnn_split_opts split; /* the periods (new_node_frac unused) */
    uint64_t seed;    /* the decoder's initialisation and dropout */
    int64_t threads;  /* 0: leave OpenMP's default */
    int progress;     /* progress bars on stderr */
    /* The frozen model's embeddings are the same every decoder epoch (the memory is reset,
     * the model is fixed): computed once and kept when they take at most this many bytes
     * (default 1 GiB; 0: recomputed every epoch, as the TGN code does). Same results. */
    int64_t cache_bytes;
    /* Quick runs (0: all, as the link stage's max_train_batches / max_eval_events): the
     * training period cut to its first max_train_batches batches (of `batch` events), the
     * validation and test periods each to its first max_eval_events events. The result's
     * n_* and pos_* count the events used. */
    int64_t max_train_batches, max_eval_events;
} dgnn_event_node_cfg;

/* The TGN code's defaults above, split.h's default periods, seed 0. */
dgnn_event_node_cfg dgnn_event_node_cfg_default(void);
/* DGNN_EINVAL naming the flag (--node-epochs, --node-patience, --node-lr, --node-batch,
 * --max-batches, --eval-max-events). */
int dgnn_event_node_cfg_check(const dgnn_event_node_cfg *c, dgnn_err *err);

typedef struct {
    int64_t epoch;
    double train_loss; /* mean of the batches' mean BCE */
    double val_auc;    /* over all validation events; NaN with one class */
    double seconds;
} dgnn_node_epoch_result;

typedef struct {
    int64_t num_epochs;
    dgnn_node_epoch_result epochs[1024];
    int64_t best_epoch; /* 1-based; 0 when no epoch had a finite validation AUC (the last is tested) */
    int early_stopped;
    double test_auc;    /* over all test events; NaN with one class */
    int64_t n_train, n_val, n_test;       /* events per period used (after the quick-run cuts) */
    int64_t pos_train, pos_val, pos_test; /* of which labelled 1 */
    int64_t num_params; /* the decoder's */
    double seconds;
    int cached;         /* 1: the embeddings were computed once (cfg.cache_bytes) */
} dgnn_event_node_result;

/* Trains and tests the decoder on ev with the frozen model (initialised for ev's nodes and
 * edge features; its parameters are not changed). Errors: DGNN_EINVAL (no labels: "the
 * events have no labels"; a bad cfg; an empty period), DGNN_ENOMEM. */
int dgnn_event_node_train(const dgnn_events *ev, dgnn_tgnn *model, const dgnn_event_node_cfg *c,
                          dgnn_event_node_result *res, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
