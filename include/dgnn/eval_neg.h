/* eval_neg.h: the negatives of the field's evaluation protocols (src/data/eval_neg.c).
 *
 * DyGLib's negative strategies (Poursafaei et al., NeurIPS 2022, "Towards better
 * evaluation for dynamic link prediction"; DyGLib's utils/utils.py NegativeEdgeSampler):
 * for a batch of positives (src, dst, t) in time order, one negative EDGE (u', v') per
 * positive, both endpoints replaced:
 *  - historical: drawn without replacement from the distinct edges of the stream seen at
 *    a time <= the batch's first time, minus the distinct edges of the batch itself
 *    (times in [first, last] of the batch); when there are fewer than B such edges, all
 *    of them plus random edges for the rest;
 *  - inductive: the same from the distinct edges seen at a time <= the batch's first
 *    time that are not training edges (never seen at a time <= the end of the training
 *    period), minus the batch's edges;
 *  - random edges (the fill): source uniform over the distinct sources of the stream,
 *    destination uniform over its distinct destinations, redrawn while the pair is an
 *    edge of the batch (DyGLib's random_sample_with_collision_check).
 * DyGLib's `random` strategy keeps the positive's source and draws the destination
 * uniformly over the stream's distinct destinations: the TGN protocol's evaluation
 * negatives, which the event trainer draws itself (no function here).
 *
 * TGB's one-vs-many lists (TGB's NegativeEdgeGenerator, strategy hist_rnd): for each
 * positive (s, d, t) of a split, K destination candidates, all distinct, none equal to
 * d: up to K/2 (rounded down) drawn without replacement from the distinct destinations
 * s reached in the history (every event before the split: training for validation,
 * training + validation for test), the rest uniform without replacement over the
 * stream's distinct destinations not already chosen and other than d. Rows with fewer
 * possible candidates than K are padded with -1 (the row's candidates first).
 *
 * Everything is seeded: row i of a batch or a list draws from dgnn_rng_seed2(seed, i)
 * (or a stream keyed the same way), so results do not depend on the thread count. */
#ifndef DGNN_EVAL_NEG_H
#define DGNN_EVAL_NEG_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DGNN_NEGS_RANDOM = 0,     /* the TGN protocol's negatives (drawn by the trainer) */
    DGNN_NEGS_HISTORICAL = 1,
    DGNN_NEGS_INDUCTIVE = 2
} dgnn_neg_strategy;
#define DGNN_NEGS_N 3
const char *dgnn_neg_strategy_name(dgnn_neg_strategy s); /* "random", "historical", "inductive" */

/* The distinct edges of a stream indexed by first time, for DyGLib's samplers. */
typedef struct dgnn_edge_history dgnn_edge_history;
/* ev: the whole stream (time-sorted); train_end_time: the last time of the training
 * period (dgnn_split's val_time, or the last training event's time). */
int dgnn_edge_history_build(dgnn_edge_history **out, const dgnn_events *ev, double train_end_time,
                            dgnn_err *err);
void dgnn_edge_history_free(dgnn_edge_history *h);
/* B negative edges (nsrc[i], ndst[i]) for the positives src/dst/t (B, time-sorted) under
 * s (HISTORICAL or INDUCTIVE; DGNN_EINVAL for RANDOM). */
int dgnn_neg_edges(const dgnn_edge_history *h, dgnn_neg_strategy s, const int32_t *src, const int32_t *dst,
                   const double *t, int64_t B, uint64_t seed, int32_t *nsrc, int32_t *ndst, dgnn_err *err);

/* TGB's negatives of one split: cand (rows, k) row-major, dense node ids, -1 = padding. */
typedef struct {
    int64_t rows, k;
    int32_t *cand;
} dgnn_tgb_negs;
/* Generates the list for the events [first, first + n) of ev (a split, time-sorted; the
 * history is events [0, first)), k candidates per positive, seeded. */
int dgnn_tgb_negs_generate(dgnn_tgb_negs *out, const dgnn_events *ev, int64_t first, int64_t n, int64_t k,
                           uint64_t seed, dgnn_err *err);
/* Reads a list written by dgnn_tgb_negs_write or scripts/tgb_export.py: a 2-d .npy of
 * integers (int64 or int32, C order) holding ORIGINAL node ids (ev->node_ids; -1 =
 * padding), mapped to dense ids. Errors name the file, the row and the column: a row
 * count other than `rows` (the split's events), an id that is not a node of ev, a
 * candidate equal to the row's positive destination (pos_dst (rows), NULL: not checked). */
int dgnn_tgb_negs_read(dgnn_tgb_negs *out, const char *path, const dgnn_events *ev, int64_t rows,
                       const int32_t *pos_dst, dgnn_err *err);
/* Writes it as int64 .npy of original node ids, atomically (outfile.h). */
int dgnn_tgb_negs_write(const dgnn_tgb_negs *n, const char *path, const dgnn_events *ev, dgnn_err *err);
void dgnn_tgb_negs_free(dgnn_tgb_negs *n);

#ifdef __cplusplus
}
#endif
#endif
