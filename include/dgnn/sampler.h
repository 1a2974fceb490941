/* sampler.h: temporal neighbour sampling over a temporal CSR (one hop).
 *
 * For each root (node v, time t) the candidates are v's entries with time STRICTLY
 * before t (t_nbr < t), so an event never sees itself or anything simultaneous with
 * it (TGL's rule: the cut is a lower bound on the node's timestamps).
 *
 * Two samplers, both writing (B, k) row-major arrays:
 *  - most recent: the k latest candidates, MOST RECENT FIRST (column 0 is the latest,
 *    ties in time broken by the larger event id first); when fewer than k exist, the
 *    valid ones come first and the row is padded at the END.
 *  - uniform: k draws uniformly WITH replacement among the candidates, in draw order
 *    (TGL's uniform policy: std::uniform_int_distribution over the candidate range,
 *    k times). A root with at least one candidate gets k valid entries (repeats
 *    possible); a root with none gets an all-padding row.
 * Padding: nbr = -1, eid = -1, ts = 0.0. count[i] = number of valid entries of row i.
 *
 * Determinism: the uniform sampler draws root i's indices from
 * dgnn_rng_seed2(&r, seed, i), i.e. one stream per (call seed, root index). The result
 * depends only on (g, roots, seed), never on the thread count. Callers derive a fresh
 * seed per call, e.g. seed = dgnn_hash64(run_seed ^ batch_index), so that batches do
 * not repeat each other's draws.
 *
 * A root with node id < 0 is a padding root: its row is all padding (count 0).
 * Roots with id >= N are an error (DGNN_EINVAL, nothing useful written). Roots are
 * processed in parallel (OpenMP); each writes only its own row. */
#ifndef DGNN_SAMPLER_H
#define DGNN_SAMPLER_H

#include "dgnn/tcsr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Owned output buffers for up to cap_B roots of k neighbours each. */
typedef struct {
    int64_t cap_B; /* rows allocated */
    int k;
    int32_t *nbr;   /* (cap_B, k) neighbour node, -1 = missing */
    int64_t *eid;   /* (cap_B, k) event id, -1 = missing */
    double *ts;     /* (cap_B, k) event time, 0.0 = missing */
    int32_t *count; /* (cap_B) valid entries per row */
} dgnn_sample_buf;

int dgnn_sample_buf_init(dgnn_sample_buf *s, int64_t cap_B, int k, dgnn_err *err);
void dgnn_sample_buf_free(dgnn_sample_buf *s);

/* k most recent neighbours strictly before root_t[i] of each root[i], i < B.
 * Outputs (eid, ts, count may be NULL when not needed):
 *   nbr (B, k), eid (B, k), ts (B, k), count (B).
 * Returns DGNN_OK, or DGNN_EINVAL (k < 1, or a root id >= N). */
int dgnn_sample_recent(int32_t *nbr, int64_t *eid, double *ts, int32_t *count, const dgnn_tcsr *g,
                       const int32_t *root, const double *root_t, int64_t B, int k, dgnn_err *err);

/* k uniform draws (with replacement) among the neighbours strictly before root_t[i];
 * root i draws from dgnn_rng_seed2(seed, i). Same outputs and errors as above. */
int dgnn_sample_uniform(int32_t *nbr, int64_t *eid, double *ts, int32_t *count, const dgnn_tcsr *g,
                        const int32_t *root, const double *root_t, int64_t B, int k, uint64_t seed,
                        dgnn_err *err);

/* ---- benchmark (sampler_bench.c; wired to `dgnn bench sampler`) ---- */
typedef struct {
    double build_s;        /* temporal CSR build time over all events, seconds */
    double recent_qps;     /* root queries per second, most-recent sampler */
    double uniform_qps;    /* root queries per second, uniform sampler */
    int64_t recent_roots;  /* roots processed during the timed recent loop */
    int64_t uniform_roots; /* roots processed during the timed uniform loop */
    int threads;           /* OpenMP threads used */
} dgnn_bench_sampler_result;

/* Builds the temporal CSR of ev, then times each sampler for about `seconds`
 * seconds (each) the way training queries it: consecutive batches of batch_size
 * events (600 if batch_size <= 0) over the stream, roots = the batch's (src, t) then
 * (dst, t), k neighbours each, wrapping around at the end of the stream. Runs with
 * omp_set_num_threads(threads) (threads <= 0: leave the current setting) and restores
 * the previous setting before returning. */
int dgnn_bench_sampler(dgnn_bench_sampler_result *res, const dgnn_events *ev, int k, int threads,
                       double seconds, int batch_size, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
