/* event_train.h: training and evaluating memory-based TGNNs on an event stream, with
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
#ifndef DGNN_EVENT_TRAIN_H
#define DGNN_EVENT_TRAIN_H

#include <signal.h>

#include "dgnn/eval_neg.h"
#include "dgnn/events.h"
#include "dgnn/prof.h"
#include "dgnn/split.h"
#include "dgnn/tgnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuda_device: the rank's local rank (one GPU per rank on a cluster, the ranks sharing a lone GPU) */
#define DGNN_CUDA_LOCAL_RANK (-1)

struct dgnn_epoch_result; /* one epoch's figures (below) */

typedef enum {
    DGNN_NEG_DST = 0, /* uniform over the destination nodes (the TGN code) */
    DGNN_NEG_ALL = 1  /* uniform over all nodes (TGL) */
} dgnn_neg_mode;

/* Multi-process training (one MPI rank = one worker; see docs/depbloom.md).
 *  - none: every rank would train alone; with one rank, the plain trainer.
 *  - strict: the dependency-preserving baseline of the published multi-GPU systems (TGL's
 *    multi-GPU training, DistTGL's memory handling): a global batch of P x batch
 *    consecutive events split into P consecutive slices, one per rank; every rank keeps a
 *    full replica of the node state, and after every step the rows each rank wrote are
 *    all-gathered and applied in rank order, so every replica equals the state that
 *    single-process training with batch P x batch would hold; gradients all-reduced
 *    (weighted by slice size), overlapping the state exchange.
 *  - depbloom: DepBloom; which techniques run is chosen by the fields below. */
typedef enum { DGNN_DIST_NONE = 0, DGNN_DIST_STRICT = 1, DGNN_DIST_DEPBLOOM = 2 } dgnn_dist_mode;

typedef struct {
    dgnn_dist_mode mode;
    int partition;          /* depbloom: temporally bounded spatial partitioning (METIS per window) */
    int64_t window_events;  /* its windows: this many training events each (default 10,000) ... */
    double window_seconds;  /* ... or this many time units (> 0 wins) */
    int64_t refine;         /* depbloom: K micro-batches per enlarged batch (0/1 = off) */
    int critical_path;      /* depbloom: critical-path optimization */
    int no_prefetch;        /* critical path without sampling ahead (to measure what it hides) */
    int cold_allgather;     /* critical path with the window boundary's all-gather of every
                               written row instead of fetching cold rows when read */
    const char *window_report; /* depbloom: rank 0 writes the per-window partition figures
                                  here as CSV (NULL: none); see docs/depbloom.md */
} dgnn_dist_cfg;

/* Per-rank time split and traffic of a distributed run, summed over its epochs (rank 0
 * holds every rank's figures; single-process runs leave ranks = 1 and zeros). */
#define DGNN_DIST_MAX_RANKS 64
typedef struct {
    int ranks;
    double compute_seconds[DGNN_DIST_MAX_RANKS]; /* forward, backward, commit, optimizer */
    double sample_seconds[DGNN_DIST_MAX_RANKS];  /* neighbour sampling on the critical path
                                                    (inside compute; with sampling ahead: the
                                                    waits for the worker) */
    double prefetch_seconds[DGNN_DIST_MAX_RANKS];/* sampling done ahead, beside compute */
    double comm_seconds[DGNN_DIST_MAX_RANKS];    /* blocked in comm calls */
    int64_t train_events[DGNN_DIST_MAX_RANKS];   /* training events each rank processed */
    int64_t bytes_sent[DGNN_DIST_MAX_RANKS];     /* payload each rank contributed */
    uint64_t state_checksum[DGNN_DIST_MAX_RANKS];/* each replica's node state after training
                                                    (strict, depbloom: all equal) */
    int64_t steps;                               /* optimizer steps (all epochs) */
    int64_t windows;                             /* depbloom partition windows per epoch */
    double cut_fraction;                         /* mean over windows of cut events / events */
    double setup_seconds;                        /* depbloom: partitioning all windows (once) */
    int64_t hot_rows;                            /* rank 0: rows it sent eagerly (--critical-path) */
    int cold_fetch;                              /* 1: cold rows were fetched when read */
    double state_bytes_per_epoch;                /* all ranks' state-row traffic per epoch */
    double grad_bytes_per_epoch;                 /* all ranks' gradient traffic per epoch */
} dgnn_dist_result;

/* The evaluation protocols beside the TGN code's (README, "Evaluation"; event_eval.c).
 * The TGN protocol always runs: AP and AUC of each positive against one random
 * destination (DyGLib's `random` strategy), transductive and new-node, and an MRR
 * against eval_negatives random destinations. */
typedef struct {
    /* DyGLib's historical and inductive negative edges (eval_neg.h) at test, transductive
     * and inductive (new-node), in the same passes as the TGN protocol's */
    int dyglib;
    /* TGB's one-vs-many ranking: every validation and test positive against the
     * candidates of its row (MRR, Hits@1/3/10, TGB's tie rule); validation ranks every
     * epoch and early stopping follows its MRR (TGB's examples do the same) */
    int tgb;
    const char *tgb_val, *tgb_test; /* .npy lists (eval_neg.h): read when the file exists,
                                       else generated TGB-style and written there */
    int64_t tgb_k;                  /* candidates per positive of a generated list (100) */
    uint64_t tgb_seed;              /* the generated lists' seed (fixed: 2023 unless set) */
} dgnn_eval_protocol;

typedef struct {
    dgnn_tgnn_cfg model;
    int edgebank; /* 1: no model: EdgeBank (edgebank.h) evaluated under the same protocols,
                     its memory the training events (no training; epochs ignored) */
    dgnn_eval_protocol protocol;
    dgnn_dist_cfg dist;
    int64_t batch;          /* events per batch (TGN 200, TGL 600) */
    int64_t epochs;
    double lr;
    int64_t patience;       /* early stopping: epochs without a better val AP (TGN: 5) */
    int64_t eval_negatives; /* K negatives per test event for MRR (AP/AUC use the first) */
    dgnn_neg_mode neg;
    dgnn_split_opts split;
    uint64_t seed;          /* negatives and dropout (the model's own seed initialises it) */
    int64_t threads;        /* 0: leave OpenMP's default */
    int use_cuda;           /* 1: train on CUDA device cuda_device (--device cuda:N; tgnn_cuda.h: TGN, JODIE, DyRep,
                             * APAN; one process, or strict's ranks with the collectives staged through the host;
                             * NOT YET VERIFIED ON HARDWARE); 0: on the CPU */
    int cuda_device;        /* or DGNN_CUDA_LOCAL_RANK: device local_rank % devices (dgnn_comm_local_rank) */
    int64_t max_train_batches; /* > 0: stop each epoch after this many (quick runs, benches) */
    int64_t max_eval_events;   /* > 0: evaluate each split (validation, test, and their new-node
                                * parts) on its first this many events only (quick runs) */
    int skip_eval;          /* 1: no validation or test (benchmarks of the training loop) */
    /* non-NULL: (DGNN_PROF_N) the training steps' seconds per op family (prof.h), all epochs
     * of this call, added to what it holds (outside the result, whose layout checkpoints keep) */
    double *op_seconds;
    /* non-NULL: called after each epoch's validation with its result (rank 0 only in a
     * distributed run): a caller's progress record, e.g. the CLI's --curve */
    void (*on_epoch)(void *ctx, const struct dgnn_epoch_result *e);
    void *on_epoch_ctx;
    /* non-NULL: read after each epoch (after on_epoch; rank 0's is broadcast): nonzero stops
     * training as early stopping does (back to the best epoch, then the test), logged as
     * "stopped by the caller" (the Python package's on_epoch returning True) */
    const int *stop;
    /* non-NULL: read after every training step; nonzero ends the run with DGNN_EINTR
     * ("interrupted"): a caller's SIGINT handler sets it (libdgnn.so's capi_train.c) */
    const volatile sig_atomic_t *interrupt;
    const char *checkpoint; /* folder: a checkpoint after every epoch (NULL: none). The trainer
                               neither locks it nor refuses one that holds a checkpoint: the
                               command does (checkpoint.h: dgnn_ckpt_dir_lock, _fresh) */
    /* the command's settings as NUL-separated tokens, saved with every checkpoint (section
     * "run.flags") so that `dgnn eval --checkpoint DIR` can rebuild them (NULL: none) */
    const char *run_flags;
    int64_t run_flags_bytes;
    int resume;             /* 1: continue from the checkpoint in `checkpoint` */
    int progress;           /* progress bar / periodic lines on stderr */
    /* called after every training step with the step's loss (distributed: the global
     * batch's loss, on every rank); NULL: none. For tests and step-level logs. */
    void (*on_step)(void *ctx, int64_t epoch, int64_t step, double loss);
    void *on_step_ctx;
    /* non-NULL: on success *keep_model receives the trained model, with the parameters the
     * test ran with (the best epoch's after an early stop), the caller's to free with
     * dgnn_tgnn_free (rank 0's in a distributed run; NULL elsewhere). For a second stage
     * on the frozen model: dynamic node classification, event_node.h. */
    dgnn_tgnn **keep_model;
} dgnn_event_train_cfg;

/* The TGN code's defaults (--preset tgn-paper). */
dgnn_event_train_cfg dgnn_event_train_cfg_default(void);
/* The preset a model trains with when none is named: "tgl" for APAN, "tgn-paper" for
 * the others. */
const char *dgnn_event_train_preset_default(dgnn_tgnn_kind kind);
/* Applies a named configuration for c->model.kind (set the kind first; it is kept):
 * "tgn-paper" (the TGN code's defaults: c is left as it is) or "tgl" (TGL's
 * config/TGN.yml: batch 600, widths 100, 10 neighbours, 2 heads, dropout 0.2, TGL's
 * attention layer, negatives from all nodes; for APAN TGL's APAN.yml: APAN's model
 * defaults, batch 600, negatives from all nodes). DGNN_EINVAL for another name. */
int dgnn_event_train_preset(dgnn_event_train_cfg *c, const char *name, dgnn_err *err);
/* The stream `dgnn train` trains on without --data: a bipartite synthetic stream with
 * community structure and repeated sessions (60,000 events, 2,000 nodes, seed 7; gen.h),
 * small enough to train on in about a minute on 2 cores. ev is the caller's to free. */
int dgnn_event_builtin_dataset(dgnn_events *ev, dgnn_err *err);
/* The checks of cfg that need no data (sizes, rates, the model's, dgnn_tgnn_cfg_check):
 * DGNN_EINVAL naming the flag, before anything is loaded. dgnn_event_train runs them
 * too, then the ones that need the data: the split must leave training events, and
 * validation and test events unless skip_eval; eval_negatives at most the nodes
 * negatives are drawn from. */
int dgnn_event_train_cfg_check(const dgnn_event_train_cfg *cfg, dgnn_err *err);
/* A setting the model of c (c->model.kind, c->edgebank) never reads, named by its `dgnn
 * train` flag without "--": DGNN_EINVAL naming the flag, the model and the models that do
 * read it (EdgeBank trains nothing: no epochs, lr, patience, widths, ...; JODIE samples no
 * neighbours and has no attention or dropout; a mailbox of several mails is APAN's;
 * --attention picks TGN's and DyRep's embedding layer), so that a caller can refuse a flag
 * that would be ignored. DGNN_OK for a setting it reads, or a flag not tabled here. */
int dgnn_event_train_flag_check(const dgnn_event_train_cfg *c, const char *flag, dgnn_err *err);

typedef struct dgnn_epoch_result {
    int64_t epoch;
    double train_loss, val_ap, val_auc, val_new_ap, val_new_auc;
    double val_mrr_tgb, val_hits10_tgb; /* protocol.tgb: the validation ranking, else NaN */
    double seconds, train_seconds;
    int64_t train_events;
    double flops; /* training products of the epoch (see dgnn_tgnn_last_flops) */
} dgnn_epoch_result;

typedef struct {
    int64_t num_epochs;
    dgnn_epoch_result epochs[1024];
    int64_t best_epoch;      /* 1-based */
    int early_stopped;
    double test_ap, test_auc, test_new_ap, test_new_auc;
    double test_mrr;         /* against eval_negatives RANDOM destinations: not TGB's MRR */
    /* protocol.dyglib: test AP and AUC per strategy (dgnn_neg_strategy; [RANDOM] repeats
     * test_ap/auc) x setting (0 transductive, 1 inductive = the new-node events) */
    double test_neg_ap[DGNN_NEGS_N][2], test_neg_auc[DGNN_NEGS_N][2];
    /* protocol.tgb: the test ranking (MRR, Hits@1/3/10), the validation figures of the
     * epoch tested, and the candidates per positive of each list */
    double test_mrr_tgb, test_hits1_tgb, test_hits3_tgb, test_hits10_tgb, val_mrr_tgb;
    int64_t tgb_val_k, tgb_test_k;
    double train_events_per_second;
    double peak_rss_mb;
    int64_t n_train, n_val, n_test, n_new_val, n_new_test;
    int64_t num_params;
    dgnn_dist_result dist;
} dgnn_event_train_result;

/* Trains and evaluates. Under mpirun with cfg->dist.mode != none, every rank calls it
 * with the same arguments; rank 0 evaluates (the others wait), and rank 0's res holds
 * the results (train_events_per_second counts every rank's events). A rank that fails
 * returns its error; the caller must then end the job (dgnn_comm_abort), since the
 * other ranks may be waiting for it. */
int dgnn_event_train(const dgnn_events *ev, const dgnn_event_train_cfg *cfg, dgnn_event_train_result *res,
                     dgnn_err *err);

/* ---- evaluating a checkpoint (`dgnn eval`) ----
 * cfg: the training run's settings (the checkpoint in cfg->checkpoint must have been
 * written with the same model, sizes, batch, seed, split and data: its fingerprint is
 * checked), with the protocols and --eval-max-events wanted now. The model evaluated is
 * the one the training run tested: the best epoch's after an early stop, else the last.
 *  - DGNN_SPLIT_TEST: from the state the checkpoint holds (after that epoch's
 *    validation), as the training run tested: the same figures for the same protocols;
 *  - DGNN_SPLIT_VAL: the memory rebuilt from zero over the training events with the
 *    final parameters (no gradient), then validation as an epoch's; not the training
 *    run's per-epoch figure, whose memory was built while the parameters moved;
 *  - DGNN_SPLIT_TRAIN: the training events scored from a zero memory.
 * res->epochs: the training run's epochs as the checkpoint recorded them; the split's
 * figures in res (test_* for the test; epochs[num_epochs] for val and train, with
 * epoch = 0). emb (NULL: none): embeddings at given (node, time) pairs from the
 * memory the evaluation ended with (asking for times before the evaluated split's end
 * reads a memory that already holds later events); emb->out is malloc'd (n, dim). */
/* The settings the run that wrote DIR's checkpoint saved (cfg.run_flags): *flags is
 * malloc'd, NULL with *bytes = 0 when it saved none. Errors: the checkpoint cannot be
 * read (DGNN_EIO, DGNN_EFORMAT, ...). */
int dgnn_event_ckpt_flags(const char *dir, char **flags, int64_t *bytes, dgnn_err *err);

typedef struct {
    const int32_t *nodes; /* (n) dense ids */
    const double *t;      /* (n) */
    int64_t n;
    float *out;           /* out: (n, dim), the caller frees */
    int64_t dim;
} dgnn_emb_request;
/* Scores of given (src, dst, t) pairs from the memory the evaluation ended with (the
 * same memory as the embeddings'): the link predictor's probability, sigmoid of the
 * model's logit (the TGN code's predictions), each pair scored as a positive edge at t
 * (neighbours strictly before t), in batches of cfg->batch; nothing is committed. */
typedef struct {
    const int32_t *src, *dst; /* (n) dense ids */
    const double *t;          /* (n) */
    int64_t n;
    float *out;               /* (n), the caller's buffer */
} dgnn_score_request;
/* score (NULL: none): as emb, after the embeddings. */
int dgnn_event_eval(const dgnn_events *ev, const dgnn_event_train_cfg *cfg, int split, dgnn_emb_request *emb,
                    const dgnn_score_request *score, dgnn_event_train_result *res, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
