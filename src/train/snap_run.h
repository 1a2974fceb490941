/* snap_run.h: the snapshot trainer's run state and the functions its files share
 * (private to src/train). The files, lowest first, so that each calls only those below:
 *   snap_profile.c    the profile's clock and rows
 *   snap_step.c       one training sample, the end of a group, one optimizer step
 *   snap_run.c        data preparation: the run's snapshots, inputs, labels, model, head
 *   snap_epoch.c      the single-process epoch
 *   dygnex_epoch.c    DyGNeX: the schedule, the distributed epoch, its report
 *   snap_eval.c       validation, test and the baselines
 *   snap_checkpoint.c the checkpoint (save, load, resume)
 *   snap_train.c      the driver, dgnn_snap_train
 * (snap_presets.c: the configurations; snap_tasks.c: the tasks' labels and inputs.) */
#ifndef DGNN_SNAP_RUN_H
#define DGNN_SNAP_RUN_H

#include "dgnn/snap_train.h"

#include "dgnn/node_head.h"
#include "dgnn/adam.h"
#include "dgnn/checkpoint.h"
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
    /* cfg.use_cuda: the model on the GPU (snapmodel_cuda.h), with the node task's head. It
     * holds the parameters and Adam moments (the head's too); the host copies r->p and
     * head.p are refreshed after every training epoch (snap_run_pull) and sent back when
     * the host changes them (snap_run_push). */
    struct dgnn_snapmodel_cuda *dev;
    struct dgnn_comm_dev *cdev; /* with dev and several ranks (DyGNeX): collectives over its buffers */
    int cuda_device;      /* the GPU it runs on */
    dgnn_adam opt;
    /* node task's head (node_head.h; head.p.total = 0 for the other tasks) and its own
     * Adam (the reference's classifier has its own optimizer too) */
    dgnn_node_head head;
    dgnn_adam hopt;
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
    int dist;             /* 1: snap_dygnex_epoch */
    int rank, procs;      /* this process, the process count (1 when not distributed) */
    dgnn_sched sched;     /* the schedule (every process holds it) */
    dgnn_sched_info sinfo;/* rank 0's scheduler report */
    double *gwall, *gcpu; /* (R, P) this epoch's group compute seconds (every process, after
                             the epoch's reduction) */
    double *acc_wall, *acc_cpu; /* (R, P) the same summed over the epochs run */
    int64_t dist_epochs;  /* epochs run by this process */
    double comm_s, step_s; /* this process: blocked in all-reduces; Adam steps */
} snap_run;

/* what the run has done, over all its epochs (checkpointed) */
typedef struct {
    double train_seconds, eval_seconds;
    int64_t windows, snapshots, events, eval_pairs;
} snap_totals;

typedef struct {
    double map, mrr, f1, precision, recall, mse;
} snap_eval_metrics;

/* snap_profile.c */
/* the profile's clock: process CPU seconds with one thread, else (or on a GPU) wall seconds */
double snap_sample_clock(const snap_run *r);
/* --profile: this epoch's row of n per-window seconds (zeroed), NULL when not profiling */
double *snap_profile_epoch(snap_run *r, int64_t n);
/* the profile's rows from the epochs run: samples that ran, median seconds */
void snap_profile_fill(snap_run *r, dgnn_snap_profile *p);

/* snap_step.c */
/* the pair buffers hold at least M pairs (DGNN_ENOMEM naming them) */
int snap_ensure_pairs(snap_run *r, int64_t M, dgnn_err *err);
/* the pairs (psrc, pdst) = snapshot g's entries, in CSR order */
void snap_entries_as_pairs(snap_run *r, const dgnn_snapshot *g);
/* one training sample (forward, loss, backward; gradients accumulate) */
int snap_train_sample(snap_run *r, int64_t epoch, int64_t idx, double *loss, int64_t *pairs, double *secs,
                      dgnn_err *err);
/* begins the model's group of windows (the host model's and, on the GPU, the device's) */
int snap_begin_group(snap_run *r, dgnn_err *err);
/* ends the model's group of windows (both, as above); *secs = its time on the profile's clock */
int snap_end_group(snap_run *r, double *secs, dgnn_err *err);
/* one Adam step on the summed gradients, then zeroed gradients (DGNN_EDEVICE from the GPU;
 * DGNN_EINVAL on the host when the step left parameters not finite: dgnn_adam_failure) */
int snap_optimizer_step(snap_run *r, dgnn_err *err);
/* 1 when sample idx has something to learn from (known from the data alone) */
int snap_sample_trains(const snap_run *r, int64_t idx);

/* snap_run.c */
/* the run's data, model and buffers (r is overwritten; release with snap_run_free) */
int snap_run_setup(snap_run *r, const dgnn_events *ev, const dgnn_snap_train_cfg *c, dgnn_err *err);
void snap_run_free(snap_run *r);
/* link evaluation's (N, N) scores and labels, r->prob and r->label */
int snap_run_alloc_scores(snap_run *r, dgnn_err *err);
/* with a GPU (r->dev): the host copy of the parameters and Adam moments (the model's and
 * the node head's) from the device, and back; no-ops on the CPU path */
int snap_run_pull(snap_run *r, dgnn_err *err);
int snap_run_push(snap_run *r, dgnn_err *err);

/* snap_epoch.c */
int snap_train_epoch(snap_run *r, int64_t epoch, dgnn_snap_epoch_result *er, snap_totals *tot, dgnn_err *err);

/* dygnex_epoch.c */
int snap_dygnex_setup(snap_run *r, dgnn_err *err);
int snap_dygnex_epoch(snap_run *r, int64_t epoch, dgnn_snap_epoch_result *er, snap_totals *tot, dgnn_err *err);
/* --profile: each window ran on one process: every process's rows summed (a collective) */
void snap_dygnex_profile_reduce(snap_run *r);
void snap_dygnex_report(snap_run *r, const dgnn_snap_train_result *res, dgnn_snap_dist_result *d);

/* snap_eval.c */
int snap_evaluate(snap_run *r, int64_t b, int64_t e, snap_eval_metrics *out, snap_totals *tot, const char *what,
                  dgnn_err *err, int baseline);
/* the validation figure early stopping compares (higher is better) */
double snap_val_score(const snap_run *r, const snap_eval_metrics *m);

/* snap_checkpoint.c: <dir>/checkpoint.dgnnckpt (see there) */
typedef struct {
    uint64_t fingerprint;
    int64_t epochs_done, best_epoch, bad_rounds, early_stopped, have_best, tr_step;
    double best_val;
    dgnn_adam opt, hopt;
    snap_totals tot;
} snap_ckpt_meta;
/* a hash of the settings that must not change on --resume */
uint64_t snap_fingerprint(const snap_run *r);
/* --dist dygnex across processes: the collective check that every process trains the same
 * events with the same settings and loop options (dgnn_ckpt_ranks_agree); DGNN_EINVAL on
 * every process when one differs */
int snap_ranks_agree(const snap_run *r, dgnn_err *err);
/* The same fingerprint, and the settings it covers by name into keep (dgnn_ckpt_keep) */
uint64_t snap_settings(const snap_run *r, dgnn_ckpt_run *keep);
int snap_ckpt_save(snap_run *r, const snap_ckpt_meta *meta, const dgnn_snap_train_result *res, dgnn_err *err);
/* --resume: rank 0 reads the checkpoint, the other processes take parameters, Adam and
 * progress from it (a collective when distributed) */
int snap_ckpt_resume(snap_run *r, snap_ckpt_meta *meta, dgnn_snap_train_result *res, dgnn_err *err);

#endif
