/* event_run.h: the event trainer's run state and the helpers every epoch calls.
 *
 * The trainer's files, lowest first (each calls only files below it):
 *   event_run.c      the run: set-up from the data and settings, batch buffers, negatives
 *   event_step.c     the pieces of a distributed step: the gradient all-reduce overlapped
 *                    with the backward, a micro-batch's forward and backward, the
 *                    all-gather of state rows, the step's bookkeeping
 *   the epochs       event_single.c (one process), event_strict.c (the strict baseline),
 *                    depbloom.c (DepBloom, composing depbloom_partition.c,
 *                    depbloom_refine.c and depbloom_critical_path.c); event_epoch.h
 *   event_device.c   the GPU: its set-up, its epoch (event_single.c's, the step on the
 *                    device) and the moves of state and parameters (event_epoch.h)
 *   event_ckpt.c     the trainer's checkpoint (checkpoint.h's dgnn_ckpt_trainer_*)
 *   event_eval.c     the evaluation passes: every protocol's negatives scored by the
 *                    model or EdgeBank, the batch then let into the state
 *   event_train.c    the driver: the epochs loop, evaluation, early stopping, report */
#ifndef DGNN_EVENT_RUN_H
#define DGNN_EVENT_RUN_H

#include "dgnn/negative.h"
#include "dgnn/adam.h"
#include "dgnn/edgebank.h"
#include "dgnn/eval_neg.h"
#include "dgnn/event_train.h"

/* Everything one run holds. */
typedef struct event_run {
    const dgnn_events *ev;
    const dgnn_event_train_cfg *cfg;
    dgnn_split split;
    dgnn_events train, val, test, new_val, new_test; /* subsets of ev (its edge features, shared) */
    dgnn_tcsr g_train, g_full; /* over ev's event ids both: neighbours' features are ev->efeat's rows */
    int32_t *train_dst, *full_dst; /* negative pools (DGNN_NEG_DST) */
    int64_t n_train_dst, n_full_dst;
    dgnn_tgnn *model;
    struct dgnn_tgnn_cuda *dev; /* --device cuda (event_device.c): the model's device half; NULL on the CPU */
    struct dgnn_comm_dev *cdev; /* with dev and several ranks: the collectives over its buffers (comm_dev.h) */
    dgnn_params *p;
    dgnn_adam opt;
    dgnn_rng rng;
    dgnn_state st, st_backup, st_best;
    float *best_params;
    int have_best;
    /* batch buffers */
    int32_t *neg, *neg_t; /* (K B) sampler layout (B, K) and the model's (K, B) */
    float *logits, *dlogits, *labels;
    int64_t cap;
    /* distributed runs */
    int rank, nranks;
    double t_compute, t_sample, t_comm; /* this rank's split, summed over epochs (t_sample:
                                           sampling on the critical path, inside compute) */
    double t_prefetch;                  /* depbloom --critical-path: sampling done ahead */
    int64_t my_events, steps;
    int64_t state_bytes, grad_bytes;    /* this rank's traffic, summed over epochs */
    uint64_t state_sum;                 /* checksum of the state after the last training epoch */
    void *pack, *recv;                  /* state-row exchange buffers */
    int64_t pack_cap, recv_cap;
    int32_t *recv_nodes;                /* with a GPU: the nodes of the rows event_allgather_rows received */
    int64_t recv_nodes_cap;
    int64_t hot_recv_bytes;             /* depbloom --critical-path: the step's incoming hot rows */
    int64_t hot_rows_sent;              /* depbloom --critical-path: rows sent eagerly (all epochs) */
    struct depbloom_plan *plan;         /* depbloom: windows, partitions, exchange plans */
    /* evaluation (event_eval.c) */
    dgnn_edgebank *eb, *eb_backup;      /* cfg->edgebank: the scorer's memory and a saved copy */
    dgnn_tgb_negs tgb_val, tgb_test;    /* protocol.tgb: the lists of validation and test */
    dgnn_edge_history *hist;            /* protocol.dyglib: the stream's distinct edges */
} event_run;

/* The seed of the negatives of batch b of epoch a (a = -1: evaluation), from the run's
 * seed: a stream per batch, so negatives are reproduced without any generator state. */
static inline uint64_t event_stream_seed(uint64_t seed, int64_t a, int64_t b) {
    return dgnn_hash64(dgnn_hash64(seed ^ 0x6e656761ULL) + (uint64_t)a * 0x9e3779b97f4a7c15ULL + (uint64_t)b);
}

/* ---- event_run.c ---- */
/* Checks c (dgnn_event_train_cfg_check and the checks that need ev), splits ev, builds the
 * neighbour indexes, the negative pools, the model and three node states (training, backup,
 * best). r is zeroed first, so event_run_free is safe after a failure. */
int event_run_init(event_run *r, const dgnn_events *ev, const dgnn_event_train_cfg *c, dgnn_err *err);
/* Frees what event_run_init and the helpers below allocated (not r->plan: depbloom_free). */
void event_run_free(event_run *r);
/* The training batches of an epoch (cfg->batch events each, the last one shorter; at most
 * cfg->max_train_batches), and the epoch's progress bar started on pg when cfg->progress. */
int64_t event_epoch_begin(event_run *r, int64_t epoch, dgnn_progress *pg);
/* Grows the batch buffers to B events with K negatives each (DGNN_ENOMEM naming them). */
int event_ensure_batch(event_run *r, int64_t B, int64_t K, dgnn_err *err);
/* K negatives for each of B events into r->neg_t in the model's (K, B) layout, from the
 * pool of cfg->neg (training or full destination set), seeded. */
int event_draw_negatives(event_run *r, int64_t B, int64_t K, int full, uint64_t seed, dgnn_err *err);
/* The same into caller buffers: tmp (B K, the sampler's layout) and out (K, B). Reads r
 * only: safe on another thread. */
int event_negatives_into(const event_run *r, int32_t *tmp, int32_t *out, int64_t B, int64_t K, int full,
                         uint64_t seed, dgnn_err *err);

/* One rank's running totals (dgnn_dist_result's per-rank figures, summed over epochs):
 * checkpointed, so the figures of a resumed run cover all its epochs. */
typedef struct {
    double compute, sample, comm, prefetch;
    int64_t events, state_bytes, grad_bytes, steps, hot_rows;
} event_rank_totals;
/* Every rank's totals into all (P), in rank order: a collective. */
void event_totals_gather(const event_run *r, event_rank_totals *all);
/* A resumed rank continues the totals the checkpoint holds for it. */
void event_totals_restore(event_run *r, const event_rank_totals *t);

/* ---- event_eval.c: evaluation passes ---- */
/* What one pass over a split scores, and what it measured. */
typedef struct {
    int64_t K;                     /* random destinations per positive (>= 1; the TGN protocol) */
    int want_mrr;                  /* 1: MRR against all K (else AP/AUC against the first only) */
    uint64_t seed;                 /* their streams: event_stream_seed(seed, -1, batch) */
    const dgnn_tgb_negs *tgb;      /* non-NULL: TGB's ranking against its rows (one per event) */
    int dyglib;                    /* 1: DyGLib's historical and inductive edges too (r->hist) */
    double ap, auc, mrr;           /* random: AP/AUC averaged over batches, MRR over events */
    double s_ap[DGNN_NEGS_N], s_auc[DGNN_NEGS_N]; /* per strategy ([RANDOM] = ap, auc) */
    double t_mrr, t_hits1, t_hits3, t_hits10;     /* TGB */
} event_eval_pass;
/* The protocols' set-up (EdgeBank's memory of the training events, TGB's lists read or
 * generated and written, DyGLib's edge history) and its release. */
int event_eval_setup(event_run *r, dgnn_err *err);
void event_eval_free(event_run *r);
/* Evaluates events of part (its first cfg->max_eval_events when set) in batches: scores
 * as p asks, then the batch enters the state; p's results filled. */
int event_eval_run(event_run *r, const dgnn_events *part, event_eval_pass *p, const char *what, dgnn_err *err);
/* The scorer's state (the model's node state, or EdgeBank's memory) saved to / restored
 * from its backup: passes that must start from the same state. */
int event_eval_save(event_run *r, dgnn_err *err);
int event_eval_restore(event_run *r, dgnn_err *err);

/* ---- event_step.c: the pieces of a distributed step (strict and DepBloom) ---- */
/* A step runs on the CPU, or on the rank's GPU (r->dev; event_device.c): the same calls.
 * The step's gradient all-reduce overlaps the end of the last backward: the model hands
 * over the suffix of the slab it has finished (dgnn_tgnn_set_grad_hook; on a GPU
 * dgnn_tgnn_cuda_set_grad_hook, which hands over the prefix too, before the commit) and
 * its all-reduce starts while the memory updater's backward runs; what is left starts after
 * the backward. Every rank issues the same two calls in the same order, backward or not.
 * Start a step with `event_grad_sync gs = {.r = r}`. */
typedef struct {
    event_run *r;
    int suffix_started, prefix_started;
    int slab_started;        /* a GPU rank: a micro-batch of the step wrote the device's slab */
    double *loss_to, loss_w; /* a GPU rank: the micro-batch whose loss is still on the device,
                              * and where its share (w x loss) goes once it is read */
} event_grad_sync;
/* Starts what of the all-reduce the backward has not started (a GPU rank without work in
 * the step sends a zero slab); event_grad_wait completes it (its sum is in the gradients
 * then, on the host or on the device). */
int event_grad_start(event_run *r, event_grad_sync *g, dgnn_err *err);
int event_grad_wait(event_run *r, dgnn_err *err);
/* Adam over the summed gradients (r->opt's step count advanced), on the host or the GPU;
 * on the host a step that left parameters not finite is an error (dgnn_adam_failure). */
int event_adam_step(event_run *r, int64_t epoch, int64_t step, dgnn_err *err);
/* Forward and backward of events [lo, lo + B) of ev against negatives neg (B), the
 * gradients accumulated with weight B / G (G: the step's events over all ranks) into the
 * step's gradients (gs; the CPU's are zeroed by the caller at the step's start, a GPU's
 * slab is started by the step's first micro-batch). last: the step's last backward, whose
 * finished parts start the all-reduce early (earlier micro-batches still add to every
 * gradient). *loss_acc += w x the micro-batch's loss: on the CPU at once; on a GPU once the
 * device has it, which the step's next micro-batch (after planning its own batch, so that
 * the host plans while the device computes) or event_grad_start waits for. On the CPU the
 * caller commits the micro-batch (the last one after event_grad_start); on a GPU it is
 * committed on the device. */
int event_micro_batch(event_run *r, const dgnn_events *ev, int64_t lo, int64_t B, int64_t G, const int32_t *neg,
                      event_grad_sync *gs, int last, double w, double *loss_acc, double *flops, dgnn_err *err);
/* event_device.c: event_micro_batch and event_grad_start on the rank's GPU */
int event_device_micro_batch(event_run *r, const dgnn_events *ev, int64_t lo, int64_t B, int64_t G,
                             const int32_t *neg, event_grad_sync *gs, int last, double w, double *loss_acc,
                             double *flops, dgnn_err *err);
int event_device_grad_start(event_run *r, event_grad_sync *g, dgnn_err *err);
/* The nodes of the `bytes` of packed state rows at rows (each row starts with its node's
 * id) into r->recv_nodes (grown as needed); returns how many: with a GPU, the rows the
 * host applied, to send up (dgnn_tgnn_cuda_rows_from_host). */
int64_t event_packed_nodes(event_run *r, const void *rows, int64_t bytes);
/* Packs the rows of nodes (n), all-gathers every rank's rows and applies them in rank
 * order, overwriting (merge = 0) or merging (dgnn_state_merge_rows). */
int event_allgather_rows(event_run *r, const int32_t *nodes, int64_t n, int merge, dgnn_err *err);
/* The bookkeeping that closes every step of both modes: the non-finite-loss check, this
 * rank's share of the global loss (loss x B / G into *loss_share), the step callback,
 * counters and the progress bar (rank 0; shown: its position). */
int event_step_done(event_run *r, int64_t epoch, int64_t step, double loss, int64_t B, int64_t G,
                    double *loss_share, dgnn_progress *pg, int64_t shown, dgnn_err *err);
/* The close of a distributed epoch of `steps` steps: their gradient traffic, the global
 * loss (the ranks' loss shares summed: a collective, divided by steps) and er's figures
 * (seconds since t_start, all ranks' events, this rank's flops). */
void event_epoch_done(event_run *r, int64_t steps, double loss_share, double t_start, int64_t events, double flops,
                      dgnn_epoch_result *er);

#endif
