/* eval_neg.h: the negatives of the field's evaluation protocols (src/data/eval_neg.c:
 * DyGLib's samplers; src/data/eval_neg_tgb.c: TGB's lists).
 *
 * DyGLib's negative strategies (Poursafaei et al., NeurIPS 2022, "Towards better
 * evaluation for dynamic link prediction"; DyGLib's utils/utils.py NegativeEdgeSampler):
 * for a batch of positives (src, dst, t) in time order, B negative EDGES (u', v'), both
 * endpoints replaced (the i-th is not tied to the i-th positive):
 *  - historical: drawn without replacement from the distinct edges of the stream seen at
 *    a time <= the batch's first time t0, minus the current batch's edges, which DyGLib
 *    takes as the distinct edges of every event OF THE STREAM with a time in [t0, t1]
 *    (t1 the batch's last time; both ends inclusive, so events of the stream outside the
 *    batch at those times are excluded too); when there are fewer than B such edges:
 *    random edges (below) for the first B - n slots, then all n of them (the reference's
 *    concatenate([random, historical]); we list them in first-occurrence order, it in
 *    Python set order);
 *  - inductive: the same from the distinct edges seen at a time <= t0 that are not
 *    observed edges (seen at a time <= train_end_time), minus the current batch's edges;
 *  - random edges (the fill, DyGLib's random_sample_with_collision_check): uniform over
 *    (distinct sources of the stream) x (distinct destinations of the stream) minus the
 *    pairs (src[i], dst[i]) of the batch itself, WITHOUT replacement (so the fill's edges
 *    are distinct) unless fewer such pairs exist than are needed; the fill may repeat a
 *    historical edge. No pair possible at all: DGNN_EINVAL (the reference asserts).
 * DyGLib's `random` strategy keeps the positive's source and draws the destination
 * uniformly over the stream's distinct destinations: the TGN protocol's evaluation
 * negatives, which the event trainer draws itself (no function here).
 *
 * TGB's one-vs-many lists (TGB's NegativeEdgeGenerator, strategy hist_rnd,
 * generate_negative_samples_hist_rnd): for each positive (s, d, t) of a split, let X be
 * the destinations of every event of the split with source s and time t (d among them)
 * and H the distinct destinations s reached in the history. Then: up to int(K * 0.5)
 * candidates drawn without replacement from H minus X, then the rest (K minus those)
 * without replacement from the node ids [min dst, max dst] of ev (TGB: arange(min, max + 1)
 * of the whole dataset's destinations, every id in the range) minus H and minus X (all of
 * H, not just the ones drawn); when fewer remain than wanted, all of them, ascending. So
 * candidates are distinct and none is d or another destination of s at t. Rows shorter
 * than K are padded with -1 (the row's candidates first). TGB's history is the TRAINING
 * split for both validation and test (its dataset scripts pass data_splits['train']);
 * here it is events [0, first) of ev, so for TGB's test lists pass ev = the training
 * events followed by the test events (dgnn_events_subset), first = the training count.
 * TGB keys its lists by (s, d, t), so repeated positives share one list; here each row
 * draws its own.
 *
 * Everything is seeded. TGB rows: row i draws from dgnn_rng_seed2(seed, i), rows run in
 * parallel. DyGLib batches: one stream dgnn_rng_seed(seed) per batch (a draw without
 * replacement is sequential; B is small); pass a fresh seed per batch. Neither depends on
 * the thread count. */
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
/* ev: the whole stream (time-sorted; not kept: h holds copies); train_end_time: the last
 * time of the observed period (dgnn_split's val_time, or the last training event's time;
 * DyGLib's test samplers use the last VALIDATION event's time, so build one history per
 * split for the inductive strategy). *out is freed with dgnn_edge_history_free. */
int dgnn_edge_history_build(dgnn_edge_history **out, const dgnn_events *ev, double train_end_time,
                            dgnn_err *err);
void dgnn_edge_history_free(dgnn_edge_history *h);
/* B negative edges (nsrc[i], ndst[i]) for the positives src/dst/t (B, time-sorted) under
 * s (HISTORICAL or INDUCTIVE; DGNN_EINVAL for RANDOM). Cost O(B + events of the stream in
 * [t0, t1]), independent of the stream's length. */
int dgnn_neg_edges(const dgnn_edge_history *h, dgnn_neg_strategy s, const int32_t *src, const int32_t *dst,
                   const double *t, int64_t B, uint64_t seed, int32_t *nsrc, int32_t *ndst, dgnn_err *err);

/* TGB's negatives of one split: cand (rows, k) row-major, dense node ids, -1 = padding. */
typedef struct {
    int64_t rows, k;
    int32_t *cand;
} dgnn_tgb_negs;
/* Generates the list for the events [first, first + n) of ev (a split, time-sorted; the
 * history is events [0, first)), k candidates per positive, seeded. out->cand is
 * malloc'd; free with dgnn_tgb_negs_free. */
int dgnn_tgb_negs_generate(dgnn_tgb_negs *out, const dgnn_events *ev, int64_t first, int64_t n, int64_t k,
                           uint64_t seed, dgnn_err *err);
/* Reads a list written by dgnn_tgb_negs_write or scripts/tgb_export.py: a 2-d .npy of
 * integers (int64 or int32, C order) holding ORIGINAL node ids (ev->node_ids; -1 =
 * padding), mapped to dense ids. Errors name the file, the row and the column: a row
 * count other than `rows` (the split's events), an id that is not a node of ev, a
 * candidate equal to the row's positive destination (pos_dst (rows), NULL: not checked),
 * an id after a -1 (padding ends a row). */
int dgnn_tgb_negs_read(dgnn_tgb_negs *out, const char *path, const dgnn_events *ev, int64_t rows,
                       const int32_t *pos_dst, dgnn_err *err);
/* Writes it as int64 .npy of original node ids, atomically (outfile.h). */
int dgnn_tgb_negs_write(const dgnn_tgb_negs *n, const char *path, const dgnn_events *ev, dgnn_err *err);
void dgnn_tgb_negs_free(dgnn_tgb_negs *n);

#ifdef __cplusplus
}
#endif
#endif
