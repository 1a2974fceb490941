/* partition.h: DepBloom technique 1, temporally bounded spatial partitioning.
 *
 * The training stream is cut into time windows; inside a window, the graph of that
 * window's interactions is split into P parts with METIS so that each part (one rank)
 * gets about the same number of events and as few events as possible join two parts.
 * Each rank then trains on the events of its part in time order. Ranks exchange node
 * memory only at window boundaries: the owner of a node (the part it was in during
 * the last window that touched it) sends its row to every other part that will read
 * it in the next window. This module computes all of that from the event table; it
 * does no communication itself (the trainer hands the plan to the comm module).
 *
 * Typical use, for events [b, e) and P parts:
 *
 *     int64_t W = dgnn_windows_make(NULL, ev, b, e, 10000, 0, &err);   // count
 *     int64_t *bounds = malloc((W + 1) * sizeof *bounds);
 *     dgnn_windows_make(bounds, ev, b, e, 10000, 0, &err);             // fill
 *     dgnn_owner_init(owner, ev->num_nodes, P, 1);
 *     for (w = 0; w < W; w++) {
 *         dgnn_window_partition(&wp, ev, bounds[w], bounds[w + 1], owner, &opts, &err);
 *         dgnn_exchange_plan_make(&plan, ev, &wp, owner, row_bytes, &err); // before training w
 *         ... exchange, train the events wp.part_events[part_event_offset[r] ..] ...
 *         dgnn_owner_update(owner, &wp);                                  // after window w
 *     }
 *
 * Everything is deterministic: the same events, options and seed give the same parts. */
#ifndef DGNN_PARTITION_H
#define DGNN_PARTITION_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- windows ---------------------------------------------------------------- */
/* Cuts events [begin, end) into windows: window_seconds > 0 (it wins when both are
 * set, as in dgnn_dist_cfg): window k holds the events with t in [t0 + k*S,
 * t0 + (k+1)*S), t0 = t[begin], and windows with no event are skipped, so none is
 * empty; otherwise window_events > 0: windows of that many events, the last shorter. Returns the number of windows W >= 0
 * (0 when begin == end) and, when bounds is not NULL, fills bounds (W + 1) with
 * bounds[0] = begin < bounds[1] < ... < bounds[W] = end: window w is events
 * [bounds[w], bounds[w+1]). Call with bounds = NULL first to size the array. Returns
 * DGNN_EINVAL (negative, with a message) on bad arguments. */
int64_t dgnn_windows_make(int64_t *bounds, const dgnn_events *ev, int64_t begin, int64_t end,
                          int64_t window_events, double window_seconds, dgnn_err *err);

/* ---- partitioning one window ------------------------------------------------ */
typedef struct {
    int parts;             /* P >= 1 */
    double ufactor;        /* allowed imbalance of the per-part vertex weight (METIS
                              ufactor): 1.03 = the heaviest part may be 3% above the mean */
    uint64_t seed;         /* METIS seed */
    int64_t min_metis_nodes; /* windows touching fewer nodes than this (or fewer than
                              4 * P) use the greedy partitioner: METIS buys nothing there */
} dgnn_part_opts;

/* parts 1, ufactor 1.03, seed 1, min_metis_nodes 64. */
dgnn_part_opts dgnn_part_opts_default(void);

typedef enum {
    DGNN_PART_SINGLE = 0,  /* P == 1 or an empty window: everything in part 0 */
    DGNN_PART_METIS = 1,   /* METIS_PartGraphKway */
    DGNN_PART_GREEDY = 2,  /* deterministic greedy (small window, no edges, or METIS failed) */
} dgnn_part_method;

/* The partition of one window [begin, end). All arrays are owned by the struct
 * (dgnn_window_part_free releases them); n = num_nodes, E = end - begin. */
typedef struct {
    int64_t begin, end;         /* the window's events */
    int parts;                  /* P */
    dgnn_part_method method;    /* which partitioner produced node_part */
    int64_t num_nodes;          /* n: distinct nodes touched by the window */
    int32_t *nodes;             /* (n) their global ids, ascending (local id = index) */
    int32_t *node_part;         /* (n) part of nodes[i] */
    int64_t *node_events;       /* (n) events of the window touching nodes[i] (the METIS
                                   vertex weight; a self loop counts once) */
    int32_t *event_part;        /* (E) part of event begin + i */
    uint8_t *event_cut;         /* (E) 1 if the event's src and dst are in different parts */
    int64_t *part_events;       /* (P) events assigned to each part */
    int64_t num_cut;            /* events whose endpoints are in different parts */
    double cut_fraction;        /* num_cut / E (0 for an empty window) */
    int64_t num_edges;          /* distinct undirected node pairs of the window graph */
    /* the same assignment grouped by part, for the rank that trains part r:
     *   its events  part_event_list[part_event_offset[r] .. part_event_offset[r+1]) (global
     *   event ids, increasing = time order), and the nodes it owns after this window
     *   part_node_list[part_node_offset[r] .. part_node_offset[r+1]) (global ids, ascending) */
    int64_t *part_event_offset; /* (P + 1) */
    int64_t *part_event_list;   /* (E) */
    int64_t *part_node_offset;  /* (P + 1) */
    int32_t *part_node_list;    /* (n) */
    double seconds;             /* wall time of dgnn_window_partition */
} dgnn_window_part;

/* Partitions events [begin, end) of ev (see the file comment for the rules):
 *  - window graph: the nodes touched, undirected edge weight = events between the pair,
 *    no self loops; vertex weight = the node's event count, so parts balance events;
 *  - nodes: METIS k-way (edge cut objective), or the greedy fallback;
 *  - owner (num_nodes, the ownership after the previous window) or NULL: when given,
 *    the partition is steered, without changing its cut, to keep rows where they are:
 *    the parts are renamed (METIS numbers them arbitrarily) to match the current owners
 *    best, and every connected component of the window graph that lies whole in one
 *    part is placed again, heaviest first, in the part owning most of its nodes that
 *    still has room (ufactor * mean load), else in the lightest part. On real streams
 *    most of a window is such small components, so this cuts the rows that migrate at
 *    a boundary several-fold (docs/depbloom.md has the figures);
 *  - events: an event whose endpoints share a part goes to that part; a cut event goes to
 *    the part of its two that has fewer events so far (non-cut events are counted first,
 *    then cut events in time order; ties go to the part of src), and is marked cut.
 * wp is (re)initialised by the call: pass a zeroed struct the first time, then the same
 * struct again to reuse it (its old arrays are freed). Never aborts on a hard graph:
 * when METIS fails, the greedy partitioner is used. DGNN_EINVAL on bad arguments. */
int dgnn_window_partition(dgnn_window_part *wp, const dgnn_events *ev, int64_t begin, int64_t end,
                          const int32_t *owner, const dgnn_part_opts *opts, dgnn_err *err);
void dgnn_window_part_free(dgnn_window_part *wp);

/* Part of global node v in the window (binary search in nodes), or -1 if the window
 * does not touch v. */
int dgnn_window_part_of(const dgnn_window_part *wp, int32_t v);

/* ---- ownership and the exchange at a window boundary -------------------------- */
/* owner (num_nodes): the part holding each node's latest memory, or -1 for a node no
 * window has touched yet. fresh = 1 (training from a reset memory, the epoch start):
 * every node starts at -1, since a node never written has the initial (zero) row that
 * any rank creates itself, and nothing is sent for it. fresh = 0 (the memory already
 * holds values, e.g. evaluation after training): node v starts on hash(v) % parts
 * (dgnn_hash64), a spread every rank computes alike without communication. */
void dgnn_owner_init(int32_t *owner, int64_t num_nodes, int parts, int fresh);
/* After window wp: owner[v] = the part of v in wp for every node wp touches; nodes the
 * window does not touch keep their owner. */
void dgnn_owner_update(int32_t *owner, const dgnn_window_part *wp);

/* The all-to-all-v plan for one window boundary: which memory rows each part sends to
 * each other part before the next window starts. Pair (s, r) = sender s, receiver r. */
typedef struct {
    int parts;            /* P */
    int64_t *count;       /* (P * P) count[s * P + r]: rows s sends to r (0 when s == r) */
    int64_t *offset;      /* (P * P + 1) pair (s, r)'s rows are nodes[offset[s*P+r] ..] */
    int32_t *nodes;       /* (total_rows) global node ids, ascending within each pair */
    int64_t total_rows;
    int64_t row_bytes;    /* bytes of one node's row, as given */
    int64_t total_bytes;  /* total_rows * row_bytes */
    int64_t max_send_bytes; /* the busiest sender's bytes (the boundary's critical path) */
    int64_t max_recv_bytes; /* the busiest receiver's bytes */
} dgnn_exchange_plan;

/* The rows to send before window `next` runs, given owner = the ownership after the
 * previous window (dgnn_owner_init before the first). Part r reads the memory of both
 * endpoints of every event assigned to it in `next`; each such node v with
 * owner[v] != r is a row owner[v] sends to r (once per (v, r), however many events read
 * it; nodes with owner -1 are never sent). That covers both halo rows (the other endpoint of a cut event, read as of the
 * window start) and migrations (a node whose part changed). Rows the trainer reads
 * beyond event endpoints (sampled neighbours, negatives) are not included. plan is
 * (re)initialised like dgnn_window_part. DGNN_EINVAL on bad arguments. */
int dgnn_exchange_plan_make(dgnn_exchange_plan *plan, const dgnn_events *ev, const dgnn_window_part *next,
                            const int32_t *owner, int64_t row_bytes, dgnn_err *err);
void dgnn_exchange_plan_free(dgnn_exchange_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
