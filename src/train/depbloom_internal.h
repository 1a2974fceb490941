/* depbloom_internal.h: what DepBloom's files share. DepBloom loosens the dependency of
 * batch i+1 on what batch i wrote with three techniques (docs/depbloom.md), one file each,
 * composed by the epoch in depbloom.c:
 *   depbloom_partition.c      temporally bounded spatial partitioning: the plan (windows,
 *                             their parts, each rank's sub-stream and steps, the rows each
 *                             rank sends at a window's end) and the window boundary's sync
 *   depbloom_refine.c         intra-batch memory refinement: a step as K micro-batches,
 *                             each reading the memory the earlier ones committed
 *   depbloom_critical_path.c  critical-path optimization: hot rows sent after every step,
 *                             the next micro-batch sampled ahead on a worker thread, cold
 *                             rows fetched only when read
 * The calls go one way: depbloom_partition.c calls only event_run.h's helpers; refinement
 * and the critical path call those and the plan's geometry (and merge list) in
 * depbloom_partition.c, not each other: the critical path's per-window planning and its
 * sampling ahead reach the partition's and the refinement's loops as hooks
 * (depbloom_window_fn, depbloom_mb_hook) that depbloom.c passes in. */
#ifndef DGNN_DEPBLOOM_INTERNAL_H
#define DGNN_DEPBLOOM_INTERNAL_H

#include "dgnn/partition.h"
#include "event_run.h"
#include "prefetch.h"

struct depbloom_plan {
    int64_t W;              /* windows */
    int64_t *steps;         /* (W) S_w */
    int64_t *step_total;    /* (sum S_w) events of each step over all ranks */
    dgnn_events mine;       /* this rank's training events, time order */
    int64_t *mine_off;      /* (W + 1) window w is mine[mine_off[w] .. mine_off[w+1]) */
    int32_t *send;          /* nodes this rank holds the authoritative row of, per window */
    int64_t *send_off;      /* (W + 1) */
    /* merge = 1 (APAN: mails go to sampled neighbours, so two ranks may write one node in
     * a window): each rank sends every row it wrote in the window and the versions are
     * merged (dgnn_state_merge_rows); wlist holds those nodes (wmark: the sync count
     * wgen at the node's last entry), also across the critical path's per-step takes */
    int merge;
    int64_t wgen;
    int64_t *wmark;
    int32_t *wlist;
    int64_t nwl, wl_cap;
    double cut_fraction;    /* mean over windows */
    double setup_seconds;
    int64_t max_part_events, sum_part_events; /* over windows: largest part, all parts */
    /* ---- the critical path's (depbloom_critical_path.c) ---- */
    int64_t *hot;           /* critical path: (dest rank, node) pairs, per window sorted */
    int64_t *hot_off;       /* (W + 1) */
    int64_t nhot, hot_cap;
    int64_t *stamp;         /* (N) step at which this rank last wrote a node */
    /* cold rows fetched when read (cold = 1 when on): per window every node it wrote and
     * the rank of the last event touching it (lw_*), and per node the latest authoritative
     * version (window), its rank, and the version of this rank's own row; rs*: the
     * read-set sampling of the next window */
    int cold;
    int32_t *lw_node, *lw_rank;
    int64_t *lw_off;        /* (W + 1) */
    int64_t nlw, lw_cap;
    int64_t *ver_latest, *ver_mine, *rmark;
    int32_t *owner;
    int64_t rgen;
    dgnn_tgnn_sample rs;
    int32_t *rs_tmp, *rs_neg;
    int64_t rs_cap;
    int64_t cold_rows;      /* rows this rank fetched (all epochs) */
};

/* ---- depbloom_partition.c: the plan ---- */

/* Called by depbloom_plan_make for every window w = [b, e) of training events, in order,
 * once its partition wp is known: last[v] = the window's last event touching v. The
 * critical path plans its per-window lists here (depbloom_cp_plan_window). */
typedef void (*depbloom_window_fn)(event_run *r, int64_t w, const dgnn_window_part *wp, const int64_t *last,
                                   int64_t b, int64_t e);
/* Makes r->plan from r->train (cold: the plan's cold flag, on_window may be NULL), writes
 * --window-report (rank 0) and logs the partition's figures. */
int depbloom_plan_make(event_run *r, int cold, depbloom_window_fn on_window, dgnn_err *err);
/* Frees the partition's part of the plan and the plan itself (NULL: a no-op). */
void depbloom_plan_free(struct depbloom_plan *pl);

/* A micro-batch's place in the epoch: window w, its step s, micro-batch j of K; step
 * counts the steps from the epoch start. */
typedef struct {
    int64_t w, s, j, step;
} depbloom_mb_pos;

/* Events [*ml, *ml + *mb) of this rank's sub-stream for the micro-batch at p (mb may be
 * 0: an empty share). Step s of window w trains [s n / S, (s+1) n / S) of the window's n
 * events, micro-batch j the j-th K-th of that. */
void depbloom_mb_range(const struct depbloom_plan *pl, int64_t K, const depbloom_mb_pos *p, int64_t *ml,
                       int64_t *mb);
/* Moves p to the next non-empty micro-batch of the epoch (at most total_steps steps);
 * returns 0 when there is none. */
int depbloom_mb_next(const struct depbloom_plan *pl, int64_t K, int64_t total_steps, depbloom_mb_pos *p,
                     int64_t *ml, int64_t *mb);
/* merge mode: adds the nodes just taken from the write tracker to the current window's
 * list (emptied by every window sync, which also advances wgen) */
void depbloom_note_written(struct depbloom_plan *pl, const int32_t *nodes, int64_t n);
/* The boundary after window w: the authoritative rows of the window from every rank,
 * applied everywhere; merge mode: every row each rank wrote, merged. */
int depbloom_window_sync(event_run *r, int64_t w, dgnn_err *err);

/* ---- depbloom_refine.c ---- */

/* Called before the forward of each non-empty micro-batch (NULL: nothing to do). */
typedef struct {
    int (*fn)(void *ctx, const depbloom_mb_pos *at, dgnn_err *err);
    void *ctx;
} depbloom_mb_hook;
/* Step at->s of window at->w (at->step: its count from the epoch start): zeroes the
 * gradients, trains this rank's share of the step as K = --refine micro-batches (negatives
 * of each from the stream of (epoch, micro-batch id x P + rank)), committing each but the
 * last before the next reads the memory, starts the gradient all-reduce (gs, completed by
 * event_grad_wait), then commits the last; on a GPU (r->dev) each is committed on the
 * device. *loss: the share's loss (micro-batches weighted by their events), *B: its events. */
int depbloom_refine_step(event_run *r, int64_t epoch, const depbloom_mb_pos *at, const depbloom_mb_hook *before,
                         event_grad_sync *gs, double *loss, int64_t *B, double *flops, dgnn_err *err);

/* ---- depbloom_critical_path.c ---- */

/* 1 when cold rows are fetched when read (--critical-path with TGN or DyRep and the
 * most-recent sampler, without --cold-allgather; not APAN). */
int depbloom_cold_supported(const event_run *r);
/* depbloom_window_fn: the hot (rank, node) pairs of window w (--critical-path) and, with
 * cold rows, the nodes it wrote with their last writers. */
void depbloom_cp_plan_window(event_run *r, int64_t w, const dgnn_window_part *wp, const int64_t *last, int64_t b,
                             int64_t e);
/* Frees the critical path's part of the plan. */
void depbloom_cp_free(struct depbloom_plan *pl);

/* After a step's commit: the hot rows of window w this rank wrote in the step go to the
 * ranks that read them, in a non-blocking all-to-all-v; finish applies what came in. On a
 * GPU (r->dev) the rows sent come down from the device first, and those received are
 * merged on the host and go back up. */
int depbloom_hot_start(event_run *r, int64_t w, int64_t step, dgnn_err *err);
int depbloom_hot_finish(event_run *r, dgnn_err *err);

/* Sampling ahead: while micro-batch i computes, the worker thread draws micro-batch
 * i+1's negatives (the same stream the trainer draws them from) and samples its
 * neighbours (dgnn_tgnn_presample). Two jobs alternate: the forward of i reads job A's
 * sample while the worker fills job B. */
typedef struct {
    event_run *r;
    int64_t e0, B, cap;
    uint64_t seed;
    int32_t *tmp, *neg; /* (B) negatives: the sampler's and the model's layout (K = 1) */
    dgnn_tgnn_sample s;
} depbloom_presample_job;
typedef struct {
    prefetch *pf;          /* NULL: no sampling ahead */
    depbloom_presample_job job[2];
    int cur, pending;      /* job[cur] holds (or is sampling) the next micro-batch */
    int64_t epoch, total_steps;
} depbloom_ahead;
/* Zeroes a; starts the worker when the run samples ahead (--critical-path without
 * --no-prefetch, a model that can presample). */
int depbloom_ahead_start(depbloom_ahead *a, event_run *r, int64_t epoch, int64_t total_steps, dgnn_err *err);
/* A depbloom_mb_hook function (ctx: the depbloom_ahead): takes the micro-batch's sample
 * when the worker took one and starts sampling the one after it. */
int depbloom_ahead_step(void *ctx, const depbloom_mb_pos *at, dgnn_err *err);
/* Stops the worker, detaches a sample a failed step may have left, frees the jobs. */
void depbloom_ahead_stop(depbloom_ahead *a);

/* Cold rows: the window boundary does not all-gather the window's rows: every rank works
 * out which rows the next window's micro-batches will read (their roots, negatives and
 * sampled neighbours, exactly as the forward will) and fetches from their owners those it
 * holds an older version of; the epoch ends with one sync of every node's latest row, so
 * replicas are equal for evaluation. */
void depbloom_cold_epoch_begin(event_run *r);
/* the boundary after window w (steps before it: next_step, the first of w+1); fetches
 * what the next window reads */
int depbloom_cold_window_end(event_run *r, int64_t w, int64_t next_step, int64_t epoch, int64_t total_steps,
                             dgnn_err *err);
int depbloom_cold_epoch_end(event_run *r, dgnn_err *err);

#endif
