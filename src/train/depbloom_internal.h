/* depbloom_internal.h: what DepBloom's files share (event_dist.c: the plan and the
 * epoch; event_dist_cold.c: the critical path's cold rows, fetched when read). */
#ifndef DGNN_DEPBLOOM_INTERNAL_H
#define DGNN_DEPBLOOM_INTERNAL_H

#include "dgnn/partition.h"
#include "event_train_internal.h"

struct depbloom_plan {
    int64_t W;              /* windows */
    int64_t *steps;         /* (W) S_w */
    int64_t *step_total;    /* (sum S_w) events of each step over all ranks */
    dgnn_events mine;       /* this rank's training events, time order */
    int64_t *mine_off;      /* (W + 1) window w is mine[mine_off[w] .. mine_off[w+1]) */
    int32_t *send;          /* nodes this rank holds the authoritative row of, per window */
    int64_t *send_off;      /* (W + 1) */
    int64_t *hot;           /* critical path: (dest rank, node) pairs, per window sorted */
    int64_t *hot_off;       /* (W + 1) */
    int64_t *stamp;         /* (N) step at which this rank last wrote a node */
    int64_t hot_rows_sent;  /* rows sent eagerly (all epochs) */
    /* merge = 1 (APAN: mails go to sampled neighbours, so two ranks may write one node in
     * a window): each rank sends every row it wrote in the window and the versions are
     * merged (dgnn_state_merge_rows); wlist holds those nodes (wmark: the sync count
     * wgen at the node's last entry), also across the critical path's per-step takes */
    int merge;
    int64_t wgen;
    int64_t *wmark;
    int32_t *wlist;
    int64_t nwl, wl_cap;
    /* critical path, cold rows fetched when read (event_dist_cold.c; cold = 1 when on):
     * per window every node it wrote and the rank of the last event touching it (lw_*),
     * and per node the latest authoritative version (window), its rank, and the version of
     * this rank's own row; rs*: the read-set sampling of the next window */
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
    double cut_fraction;    /* mean over windows */
    double setup_seconds;
    int64_t max_part_events, sum_part_events; /* over windows: largest part, all parts */
};


/* A micro-batch's place in the epoch: window w, its step s, micro-batch j of K; step
 * counts the steps from the epoch start. */
typedef struct {
    int64_t w, s, j, step;
} mb_pos;

/* Events [*ml, *ml + *mb) of this rank's sub-stream for the micro-batch at p (mb may be
 * 0: an empty share). Step s of window w trains [s n / S, (s+1) n / S) of the window's n
 * events, micro-batch j the j-th K-th of that. */
void mb_range(const struct depbloom_plan *pl, int64_t K, const mb_pos *p, int64_t *ml, int64_t *mb);

/* event_dist.c: packs the rows of nodes (n), all-gathers every rank's rows and applies them
 * in rank order, overwriting (merge = 0) or merging (dgnn_state_merge_rows). */
int allgather_rows(run_t *r, const int32_t *nodes, int64_t n, int merge, dgnn_err *err);

/* ---- event_dist_cold.c ----
 * With --critical-path (TGN, DyRep with the most-recent sampler; not with
 * --cold-allgather), the window boundary does not all-gather the window's rows: every
 * rank works out which rows the next window's micro-batches will read (their roots,
 * negatives and sampled neighbours, exactly as the forward will) and fetches from their
 * owners those it holds an older version of; the epoch ends with one sync of every
 * node's latest row, so replicas are equal for evaluation. */
int cold_supported(const run_t *r);
/* plan_make, per window w in order: the nodes wp touched and their last writer (last[v] =
 * the window's last event touching v, events from b) */
void cold_plan_window(struct depbloom_plan *pl, int64_t w, const dgnn_window_part *wp, const int64_t *last, int64_t b);
void cold_epoch_begin(run_t *r);
/* the boundary after window w (steps before it: first_step of w+1); fetches what the
 * next window reads */
int cold_window_end(run_t *r, int64_t w, int64_t next_step, int64_t epoch, int64_t total_steps, dgnn_err *err);
int cold_epoch_end(run_t *r, dgnn_err *err);
void cold_free(struct depbloom_plan *pl);

#endif
