/* snapshot.h: a sequence of graph snapshots G_1..G_T cut from an event table, for the
 * snapshot-based models (EvolveGCN, T-GCN, GCRN, WD-GCN).
 *
 * How events are cut into snapshots (dgnn_snapshot_opts):
 *  - seconds = S > 0: fixed time windows, as EvolveGCN does: event i goes to snapshot
 *    floor((t_i - t0) / S), t0 = the first event time; T = that index for the last event + 1.
 *    Windows with no events are kept (EvolveGCN keeps them): they hold only self loops.
 *  - count = C > 0: C snapshots of equal time span (t_last - t0) / C, the last one closed
 *    on the right so that it holds the last event; with equal_events = 1 instead, C
 *    snapshots of (nearly) equal event counts, cut by position in the table (events with
 *    the same timestamp may then fall in two snapshots).
 *  - neither, on a PyG-Temporal table (num_periods > 0): one snapshot per period, holding
 *    the events with t == p.
 *
 * What a snapshot holds: the table's global node count N (every snapshot shares the node
 * id space), the aggregated adjacency A as a CSR over all N rows (duplicate (u, v) events
 * merged; weight = number of events, or the sum of one edge-feature column), optionally
 * symmetrized (A + A^T), and the GCN-normalized A_hat = D^-1/2 (A + I) D^-1/2 as a second
 * CSR with a self loop on every node 0..N-1.
 *
 * Ownership: dgnn_snapshots owns every array (malloc'd); dgnn_snapshots_free releases them.
 * The event table is only read and may be freed once the snapshots are built. */
#ifndef DGNN_SNAPSHOT_H
#define DGNN_SNAPSHOT_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t num_nodes;   /* N: the table's node count, the same for every snapshot */
    int64_t num_edges;   /* nnz of A: distinct (u, v) entries after merging */
    int64_t *rowptr;     /* (N+1) CSR of A: row u = source, columns sorted ascending */
    int32_t *col;        /* (num_edges) */
    float *w;            /* (num_edges) merged weights */
    int64_t hat_nnz;     /* nnz of A_hat = num_edges + nodes with no self loop in A */
    int64_t *hat_rowptr; /* (N+1) CSR of A_hat = D^-1/2 (A + I) D^-1/2 */
    int32_t *hat_col;    /* (hat_nnz) sorted ascending within a row */
    float *hat_val;      /* (hat_nnz) */
    int64_t ev_begin;    /* events [ev_begin, ev_end) of the table */
    int64_t ev_end;
    /* time windows: [t_begin, t_end) (the last one of count mode includes t_end); in
     * period mode [p, p + 1); in equal-events mode the times of its first and last event,
     * both inclusive (empty snapshot: both are the time of the next event). */
    double t_begin, t_end;
} dgnn_snapshot;

typedef enum {
    DGNN_SNAP_PERIODS = 0, /* one per PyG-Temporal period */
    DGNN_SNAP_SECONDS,     /* fixed time windows */
    DGNN_SNAP_COUNT,       /* a fixed number of equal time spans */
    DGNN_SNAP_EVENTS       /* a fixed number of equal event counts */
} dgnn_snap_mode;

typedef struct {
    double seconds;          /* S > 0: fixed windows of S time units */
    int64_t count;           /* C > 0: this many snapshots (give seconds or count, not both) */
    int equal_events;        /* with count: equal event counts instead of equal time spans */
    int symmetric;           /* 1: A + A^T (EvolveGCN); 0: directed as given */
    int weight_from_feature; /* 1: weight = sum of edge feature column weight_col (PGT
                                weights); 0: weight = number of events */
    int64_t weight_col;      /* which edge feature column holds the weight (default 0) */
} dgnn_snapshot_opts;

typedef struct {
    int64_t count;          /* T */
    dgnn_snapshot *snaps;   /* (T) */
    int64_t num_nodes;      /* N */
    dgnn_snap_mode mode;
    dgnn_snapshot_opts opts; /* as given */
} dgnn_snapshots;

/* All zero: directed, counted weights, and no size (period mode, PGT tables only). */
dgnn_snapshot_opts dgnn_snapshot_opts_default(void);

/* Cuts ev into snapshots and builds both CSRs of each (OpenMP across snapshots).
 * s is overwritten. Errors: DGNN_EINVAL for options that make no sense (seconds and count
 * both given, neither given on a table without periods, negative values, a weight column
 * the table lacks, a time-unsorted table, a period table whose t are not 0..P-1, more than
 * 2^20 snapshots (DGNN_MAX_PERIODS), or snapshots x (N + 33) above 2^28 rows) or for a snapshot whose weighted
 * degree is not positive (negative weights); DGNN_ENOMEM. */
int dgnn_snapshots_build(dgnn_snapshots *s, const dgnn_events *ev, const dgnn_snapshot_opts *o, dgnn_err *err);
/* Releases every snapshot's arrays and zeroes s. Safe on a zeroed struct. */
void dgnn_snapshots_free(dgnn_snapshots *s);

/* The position of entry (u, v) in g's CSR of A (binary search in row u), or -1. */
int64_t dgnn_snapshot_entry(const dgnn_snapshot *g, int32_t u, int32_t v);

/* The cut the snapshot trainer makes (snap_train.h), for it and for every command that
 * must see the same snapshots (schedule, simulate, bench, info): symmetric (A + A^T: the
 * reference appends every edge reversed), fixed windows of `seconds` (> 0), or `count`
 * (> 0) snapshots of equal time span, or neither: one snapshot per period of a PyG-Temporal
 * table; weight_from_feature = 1: weights from edge-feature column 0 (PGT's edge weights),
 * else event counts. Errors as dgnn_snapshots_build. */
int dgnn_snapshots_cut(dgnn_snapshots *s, const dgnn_events *ev, double seconds, int64_t count,
                       int weight_from_feature, dgnn_err *err);

/* The snapshot trainer's one-hot degree input: idx (N) = the number of distinct
 * neighbours of each node in g (the row length of A); returns the largest. */
int64_t dgnn_snap_degree_onehot(int32_t *idx, const dgnn_snapshot *g);

/* Summary for `dgnn info`: events and distinct edges (nnz of A) per snapshot. */
typedef struct {
    int64_t count;              /* snapshots */
    int64_t empty;              /* snapshots with no events */
    int64_t min_events, max_events;
    double mean_events;
    int64_t min_edges, max_edges;
    double mean_edges;
} dgnn_snap_stats;

void dgnn_snapshot_stats(const dgnn_snapshots *s, dgnn_snap_stats *st);

#ifdef __cplusplus
}
#endif
#endif
