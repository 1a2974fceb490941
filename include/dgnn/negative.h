/* negative.h: negative destinations for link prediction, k per positive event.
 *
 * Every sampler fills out (B, k) row-major: row i holds the k negatives of positive i
 * (k = 1 for the training loss, k > 1 for ranking metrics such as MRR). Row i draws
 * from its own stream dgnn_rng_seed2(seed, i), so the result depends only on the
 * inputs and the seed, never on the OpenMP thread count; callers pass a fresh seed per
 * batch (e.g. dgnn_hash64(run_seed ^ batch_index)).
 *
 *  - uniform over all nodes [0, N) (TGL);
 *  - uniform over a node set, typically the destination set of the (training) events
 *    (TGN's RandEdgeSampler over the dst list, right for bipartite graphs);
 *  - historical (Poursafaei et al. 2022, "Towards better evaluation for dynamic link
 *    prediction"): for a positive (u, v, t), a node u interacted with strictly before
 *    t_cut (normally the batch start time) other than v, drawn uniformly among the
 *    DISTINCT such nodes, read from a temporal CSR; when u has none, a draw from the
 *    fallback set (all nodes if NULL). The paper samples whole past edges (u', w); this
 *    keeps the positive's source and replaces only the destination.
 * Random negatives are not checked against the positive (as in TGL and TGN): on a
 * graph with many nodes a collision is rare and harmless.
 *
 * The snapshot trainer's link negatives (EvolveGCN's smart sampling, snap_train.h) are
 * the exception: drawn per label snapshot, they reject true edges and repeats (below). */
#ifndef DGNN_NEGATIVE_H
#define DGNN_NEGATIVE_H

#include "dgnn/snapshot.h"
#include "dgnn/tcsr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The distinct destinations of events [0, max_event) (max_event < 0: all), ascending.
 * *set is malloc'd (caller frees; non-NULL even when *n == 0). */
int dgnn_neg_dst_set(int32_t **set, int64_t *n, const dgnn_events *ev, int64_t max_event, dgnn_err *err);

/* out (B, k): uniform over [0, num_nodes). DGNN_EINVAL if num_nodes < 1 or k < 1. */
int dgnn_neg_uniform(int32_t *out, int64_t B, int k, int64_t num_nodes, uint64_t seed, dgnn_err *err);

/* out (B, k): uniform over set[0 .. n_set). DGNN_EINVAL if n_set < 1 or k < 1. */
int dgnn_neg_from_set(int32_t *out, int64_t B, int k, const int32_t *set, int64_t n_set, uint64_t seed,
                      dgnn_err *err);

/* out (B, k): historical negatives for positives (src[i], dst[i]); t_cut (B) is the
 * time before which u's interactions count (usually the batch start for every i).
 * fallback_set/n_fallback: where to draw when src[i] has no past neighbour other than
 * dst[i]; NULL = uniform over all nodes of g. Uses a per-thread scratch buffer as
 * large as the biggest neighbour list (DGNN_ENOMEM if that fails). Cost per positive:
 * O(c log c) for the c past entries of src[i]. */
int dgnn_neg_historical(int32_t *out, const dgnn_tcsr *g, const int32_t *src, const int32_t *dst,
                        const double *t_cut, int64_t B, int k, const int32_t *fallback_set, int64_t n_fallback,
                        uint64_t seed, dgnn_err *err);

/* ---- the snapshot trainer's negatives (EvolveGCN's link_pred_tasker.py) ---- */

/* The destinations negatives are drawn from, into pool: the nodes active (mask (T, N) != 0)
 * in each snapshot first..last, concatenated (so by activity, the reference), or, with
 * all_nodes, every node once. pool holds (last - first + 1) N. Returns its length. */
int64_t dgnn_snap_neg_pool(int32_t *pool, const uint8_t *mask, int64_t N, int64_t first, int64_t last,
                           int all_nodes);
/* The reference's smart negative sampling for label snapshot g: up to `want` pairs
 * (min(want, E (E - 1) - E) with E = g's entries) written to src/dst (capacity want), each
 * drawn as source = the row of a uniform entry of g, destination = a uniform element of
 * pool (npool node ids, repeats allowed), rejecting self loops, entries of g and pairs
 * already drawn, stopping after 4x as many draws as wanted. Returns the number written. */
int64_t dgnn_snap_link_negatives(int32_t *src, int32_t *dst, int64_t want, const dgnn_snapshot *g,
                                 const int32_t *pool, int64_t npool, dgnn_rng *rng);

#ifdef __cplusplus
}
#endif
#endif
