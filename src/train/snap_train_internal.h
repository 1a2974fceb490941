/* snap_train_internal.h: the snapshot trainer's run state and the functions its three
 * files share (private to src/train): snap_train.c (set-up, the single-process epoch, one
 * training sample, checkpoints, dgnn_snap_train), snap_dist.c (DyGNeX's schedule and
 * distributed epoch) and snap_eval.c (validation, test and the baselines). */
#ifndef DGNN_SNAP_TRAIN_INTERNAL_H
#define DGNN_SNAP_TRAIN_INTERNAL_H

#include "dgnn/train_snapshot.h"

#include "dgnn/optim.h"
#include "dgnn/params.h"

/* checked allocation counts (base.h): products that saturate instead of overflowing */
#define MUL dgnn_size_mul

typedef struct {
    const dgnn_events *ev;
    const dgnn_snap_train_cfg *cfg;
    dgnn_snap_task task;
    dgnn_snapshots snaps;
    int64_t T, N, V, W, L, C;
    int32_t *deg;         /* (T, N) one-hot degree input (link, edge) */
    float *nx, *ny;       /* node task: (T, N, V) dense input, (T, N) z-scored targets */
    uint8_t *mask;        /* (T, N) nodes with an edge */
    dgnn_snap_input *in;  /* (T) */
    int32_t *elab;        /* edge task: labels of every snapshot's entries, at eoff[k] */
    int64_t *eoff;        /* (T + 1) */
    int32_t f1_class;     /* edge: the minority class of the training labels */
    int32_t majority;     /* edge: the other one (the baseline's fallback) */
    dgnn_snapmodel *model;
    dgnn_params *p;
    dgnn_adam opt;
    /* node task's head Linear(L -> C) -> ReLU -> Linear(C -> 1), its own slab and Adam
     * (the reference's classifier has its own optimizer too) */
    dgnn_params head;
    int hW1, hb1, hW2, hb2;
    dgnn_adam hopt;
    float *hz, *hdz, *yhat, *dyhat; /* (N, C), (N, C), (N), (N) */
    int64_t tr_step;
    float *H, *dH;        /* (N, L) */
    int32_t *psrc, *pdst, *plab, *pool, *pred;
    float *logits, *dlogits;
    int64_t pcap;
    float *prob;          /* (N, N) evaluation */
    int32_t *label;       /* (N, N) */
    float *best_params, *best_head;
    int64_t tb, te, ve, xe; /* split */
    /* profile: seconds of every training sample of every epoch run, (epochs, n) */
    double *prof_sec;
    int64_t *prof_pairs;  /* (n) training pairs of the last epoch run, 0 = skipped */
    int64_t prof_n, prof_epochs;
    /* DyGNeX */
    int dist;             /* 1: train_epoch_dist */
    int rank, procs;      /* this process, the process count (1 when not distributed) */
    dgnn_sched sched;     /* the schedule (every process holds it) */
    dgnn_sched_info sinfo;/* rank 0's scheduler report */
    double *gwall, *gcpu; /* (R, P) this epoch's group compute seconds (every process, after
                             the epoch's reduction) */
    double *acc_wall, *acc_cpu; /* (R, P) the same summed over the epochs run */
    int64_t dist_epochs;  /* epochs run by this process */
    double comm_s, step_s; /* this process: blocked in all-reduces; Adam steps */
} run_t;

typedef struct {
    double train_seconds, eval_seconds;
    int64_t windows, snapshots, events, eval_pairs;
} run_totals;

typedef struct {
    double map, mrr, f1, precision, recall, mse;
} eval_metrics;

/* snap_train.c */
/* the pair buffers hold at least M pairs (DGNN_ENOMEM naming them) */
int snapt_ensure_pairs(run_t *r, int64_t M, dgnn_err *err);
/* link evaluation's (N, N) scores and labels, r->prob and r->label */
int snapt_alloc_scores(run_t *r, dgnn_err *err);
/* the pairs (psrc, pdst) = snapshot g's entries, in CSR order */
void snapt_entries_as_pairs(run_t *r, const dgnn_snapshot *g);
/* node task: the head's prediction yhat (N) from H (N, L), saving for the backward */
void snapt_head_forward(run_t *r, const float *H);
/* one training sample (forward, loss, backward; gradients accumulate) */
int snapt_train_sample(run_t *r, int64_t epoch, int64_t idx, double *loss, int64_t *pairs, double *secs,
                       dgnn_err *err);
/* ends the model's group of windows; returns its time on the profile's clock */
double snapt_end_group(run_t *r);
/* one Adam step on the summed gradients, then zeroed gradients */
void snapt_optimizer_step(run_t *r);
/* 1 when sample idx has something to learn from (known from the data alone) */
int snapt_sample_trains(const run_t *r, int64_t idx);
/* --profile: this epoch's row of n per-window seconds, NULL when not profiling */
double *snapt_profile_epoch(run_t *r, int64_t n);

/* snap_dist.c */
int snapt_dist_setup(run_t *r, dgnn_err *err);
int snapt_train_epoch_dist(run_t *r, int64_t epoch, dgnn_snap_epoch_result *er, run_totals *tot, dgnn_err *err);
void snapt_dist_report(run_t *r, const dgnn_snap_train_result *res, dgnn_snap_dist_result *d);

/* snap_eval.c */
int snapt_evaluate(run_t *r, int64_t b, int64_t e, eval_metrics *out, run_totals *tot, const char *what,
                   dgnn_err *err, int baseline);
/* the validation figure early stopping compares (higher is better) */
double snapt_val_score(const run_t *r, const eval_metrics *m);

#endif
