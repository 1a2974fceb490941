/* tcsr.h: the temporal CSR, the index every temporal neighbour query reads.
 *
 * For each node v, entries rowptr[v] .. rowptr[v+1]-1 list the events that touch v,
 * sorted by (time, event id): nbr is the other endpoint, eid the event's row in the
 * event table, ts its timestamp. Because the event table is sorted by time (ties in
 * file order, and event id = row), each node's list is simply its events in table
 * order, which is what the build exploits.
 *
 * Directions: by default an event u->v adds v to u's list and u to v's list (TGL's
 * undirected T-CSR). With directed = 1 only u's list gets v (out-neighbours). A
 * self-loop u->u is one entry in u's list, not two: the event touches u once.
 *
 * Ownership: the arrays are malloc'd by dgnn_tcsr_build and released by
 * dgnn_tcsr_free. The structure is read-only after the build and safe to share
 * between threads. */
#ifndef DGNN_TCSR_H
#define DGNN_TCSR_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t num_nodes;   /* N (same as the event table's) */
    int64_t num_entries; /* M = rowptr[N] */
    int64_t num_events;  /* events indexed: rows [0, num_events) of the table */
    int directed;        /* 1: out-neighbours only */
    int64_t *rowptr;     /* (N+1) */
    int32_t *nbr;        /* (M) the other endpoint */
    int64_t *eid;        /* (M) event id (row of the event table) */
    double *ts;          /* (M) event time, non-decreasing within a node */
} dgnn_tcsr;

/* Builds g (which need not be initialised) from events [0, max_event) of ev;
 * max_event < 0 means all events (use E_train to index only the training prefix).
 * Parallel (OpenMP) and deterministic: the arrays are identical for any thread count.
 * Returns DGNN_EINVAL if the table is not time-sorted or has a node id outside
 * [0, N), DGNN_ENOMEM if out of memory; g is then zeroed. */
int dgnn_tcsr_build(dgnn_tcsr *g, const dgnn_events *ev, int64_t max_event, int directed, dgnn_err *err);

/* Releases the arrays and zeroes g. Safe on a zeroed struct. */
/* The same over only the events e < max_event with (mask[e] & bits) != 0 (mask NULL:
 * all), e.g. the training events of a split (DGNN_SPLIT_TRAIN). Event ids stay those of
 * the table. */
int dgnn_tcsr_build_masked(dgnn_tcsr *g, const dgnn_events *ev, int64_t max_event, const uint8_t *mask,
                           uint8_t bits, int directed, dgnn_err *err);
void dgnn_tcsr_free(dgnn_tcsr *g);

/* Number of entries of node v with time strictly before t (binary search): the
 * entries rowptr[v] .. rowptr[v] + result - 1 are v's past. v must be in [0, N). */
int64_t dgnn_tcsr_count_before(const dgnn_tcsr *g, int32_t v, double t);

#ifdef __cplusplus
}
#endif
#endif
