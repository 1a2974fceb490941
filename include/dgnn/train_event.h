/* train_event.h: training and evaluating memory-based TGNNs on an event stream, with
 * the TGN code's protocol:
 *  - chronological split (split.h), 10% of the later nodes held out of training;
 *  - every epoch: node state reset, training batches over the training events (Adam,
 *    one negative per event), then validation over all validation events with the
 *    memory carried on from training (no reset), and a separate pass over the
 *    new-node validation events from the memory as training left it;
 *  - early stopping on validation AP with patience; when it stops, the best epoch's
 *    parameters and its post-validation state are restored;
 *  - test over all test events, the memory carried on from validation, then the
 *    new-node test events from the same starting memory; AP and AUC are averaged over
 *    batches (as the TGN and TGL codes do), MRR ranks each positive against K
 *    negatives.
 * Neighbours come from the training events while training, from all events (strictly
 * before each query time) while evaluating. */
#ifndef DGNN_TRAIN_EVENT_H
#define DGNN_TRAIN_EVENT_H

#include "dgnn/events.h"
#include "dgnn/split.h"
#include "dgnn/tgnn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DGNN_NEG_DST = 0, /* uniform over the destination nodes (the TGN code) */
    DGNN_NEG_ALL = 1  /* uniform over all nodes (TGL) */
} dgnn_neg_mode;

typedef struct {
    dgnn_tgnn_cfg model;
    int64_t batch;          /* events per batch (TGN 200, TGL 600) */
    int64_t epochs;
    double lr;
    int64_t patience;       /* early stopping: epochs without a better val AP (TGN: 5) */
    int64_t eval_negatives; /* K negatives per test event for MRR (AP/AUC use the first) */
    dgnn_neg_mode neg;
    dgnn_split_opts split;
    uint64_t seed;          /* negatives and dropout (the model's own seed initialises it) */
    int64_t threads;        /* 0: leave OpenMP's default */
    int64_t max_train_batches; /* > 0: stop each epoch after this many (quick runs, benches) */
    int skip_eval;          /* 1: no validation or test (benchmarks of the training loop) */
    const char *checkpoint; /* folder: a checkpoint after every epoch (NULL: none) */
    int resume;             /* 1: continue from the checkpoint in `checkpoint` */
    int progress;           /* progress bar / periodic lines on stderr */
} dgnn_event_train_cfg;

/* The TGN code's defaults (--preset tgn-paper). */
dgnn_event_train_cfg dgnn_event_train_cfg_default(void);

typedef struct {
    int64_t epoch;
    double train_loss, val_ap, val_auc, val_new_ap, val_new_auc;
    double seconds, train_seconds;
    int64_t train_events;
    double flops; /* training products of the epoch (see dgnn_tgnn_last_flops) */
} dgnn_epoch_result;

typedef struct {
    int64_t num_epochs;
    dgnn_epoch_result epochs[1024];
    int64_t best_epoch;      /* 1-based */
    int early_stopped;
    double test_ap, test_auc, test_new_ap, test_new_auc, test_mrr;
    double train_events_per_second;
    double peak_rss_mb;
    int64_t n_train, n_val, n_test, n_new_val, n_new_test;
    int64_t num_params;
} dgnn_event_train_result;

int dgnn_event_train(const dgnn_events *ev, const dgnn_event_train_cfg *cfg, dgnn_event_train_result *res,
                     dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
