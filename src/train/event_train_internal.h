/* event_train_internal.h: what the event trainer's files share (event_train.c: the
 * loop, evaluation, checkpoints; event_dist.c: the distributed training epochs). */
#ifndef DGNN_EVENT_TRAIN_INTERNAL_H
#define DGNN_EVENT_TRAIN_INTERNAL_H

#include "dgnn/negative.h"
#include "dgnn/optim.h"
#include "dgnn/train_event.h"

/* Everything one run holds. */
typedef struct {
    const dgnn_events *ev;
    const dgnn_event_train_cfg *cfg;
    dgnn_split split;
    dgnn_events train, val, test, new_val, new_test; /* subsets of ev */
    dgnn_tcsr g_train, g_full;
    int32_t *train_dst, *full_dst; /* negative pools (DGNN_NEG_DST) */
    int64_t n_train_dst, n_full_dst;
    dgnn_tgnn *model;
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
    int64_t hot_recv_bytes;             /* depbloom --critical-path: the step's incoming hot rows */
    struct depbloom_plan *plan;         /* depbloom: windows, partitions, exchange plans */
} run_t;

static inline uint64_t event_stream_seed(uint64_t seed, int64_t a, int64_t b) {
    return dgnn_hash64(dgnn_hash64(seed ^ 0x6e656761ULL) + (uint64_t)a * 0x9e3779b97f4a7c15ULL + (uint64_t)b);
}

/* Grows the batch buffers to B events with K negatives each (DGNN_ENOMEM naming them). */
int event_ensure_batch(run_t *r, int64_t B, int64_t K, dgnn_err *err);
/* K negatives for each of B events into r->neg_t in the model's (K, B) layout, from the
 * pool of cfg->neg (training or full destination set), seeded. */
int event_draw_negatives(run_t *r, int64_t B, int64_t K, int full, uint64_t seed, dgnn_err *err);
/* The same into caller buffers: tmp (B K, the sampler's layout) and out (K, B). Reads r
 * only: safe on another thread. */
int event_negatives_into(const run_t *r, int32_t *tmp, int32_t *out, int64_t B, int64_t K, int full, uint64_t seed,
                         dgnn_err *err);

/* One background worker running one job at a time (prefetch.c). submit waits for the
 * previous job first; wait returns the job's status (its error copied into err). */
typedef struct prefetch prefetch;
typedef int (*prefetch_fn)(void *ctx, dgnn_err *err);
prefetch *prefetch_start(dgnn_err *err); /* NULL (err set) when no thread can start */
void prefetch_submit(prefetch *pf, prefetch_fn fn, void *ctx);
int prefetch_wait(prefetch *pf, dgnn_err *err);
void prefetch_stop(prefetch *pf); /* waits for a running job; NULL is a no-op */

/* One distributed training epoch (event_dist.c): the strict baseline or DepBloom, by
 * r->cfg->dist.mode. Fills er like the single-process epoch (loss averaged over all
 * ranks' events; train_events = all ranks' events). */
int event_dist_train_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err);
/* After a distributed epoch: makes rank 0's state the state single-process evaluation
 * expects (depbloom: every node's row from its owner; strict: nothing to do). */
int event_dist_sync_for_eval(run_t *r, dgnn_err *err);
/* Sets up (and frees) what the distributed epochs need: tracking, plans. */
int event_dist_setup(run_t *r, dgnn_err *err);
void event_dist_free(run_t *r);
/* The plan's figures (windows, cut fraction, set-up time) into d. */
void event_dist_report(const run_t *r, dgnn_dist_result *d);
/* depbloom --critical-path: the rows this rank sent eagerly, all epochs so far; set >= 0
 * replaces the count (a resumed run continues the checkpoint's). 0 without a plan. */
int64_t event_dist_hot_rows(run_t *r, int64_t set);

#endif
