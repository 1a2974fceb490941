/* events.h: the in-memory event table every reader produces and every trainer reads.
 *
 * An event is (src, dst, t, edge features, label). Rows are sorted by time (stable:
 * equal timestamps keep file order) and node ids are dense 0..N-1; the original id of
 * each dense id is kept in node_ids. Dense ids are assigned in increasing order of
 * original id, so files whose ids are already 0..N-1 (JODIE, TGL) keep them.
 *
 * Snapshot datasets (PyG-Temporal json) are events too: each snapshot p contributes
 * its edges with t = p and the edge weight as a 1-dim edge feature; per-snapshot node
 * features and targets live in period_x / period_y.
 *
 * Ownership: a table owns its arrays (malloc'd), unless it was loaded from a .dgnn
 * file, in which case the arrays point into a read-only mapping (map != NULL) and must
 * not be written. dgnn_events_free releases either kind. A subset shares its table's
 * edge features (efeat_row): the table must outlive it. */
#ifndef DGNN_EVENTS_H
#define DGNN_EVENTS_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits every reader and the .dgnn loader enforce: a file that claims more is refused
 * with a message (a claim with no data behind it would otherwise make every consumer
 * allocate for it). */
#define DGNN_MAX_DIM ((int64_t)1 << 20)          /* features per event, per node, per period */
#define DGNN_MAX_PERIODS ((int64_t)1 << 20)      /* snapshots of a PyG-T table, or cut from any table */
/* A .dgnn with no node section (node_ids, nfeat, period_x/y) declares at most
 * max(2E, this) nodes: the events touch at most 2E, `dgnn gen` may add unseen ones. */
#define DGNN_MAX_UNSEEN_NODES ((int64_t)1 << 24)

typedef struct {
    int64_t num_events;  /* E */
    int64_t num_nodes;   /* N */
    int32_t *src;        /* (E) dense node ids */
    int32_t *dst;        /* (E) */
    double *t;           /* (E) timestamps, non-decreasing */
    int64_t edge_dim;    /* d_e; 0 if no edge features */
    float *efeat;        /* (E, d_e) or NULL; a subset's: its table's (see efeat_row) */
    /* A subset's (dgnn_events_subset) edge features are its table's, not a copy: efeat is
     * that table's array and event e's features are its row efeat_row[e]. NULL: row e.
     * Read them with dgnn_events_efeat (one event) or dgnn_events_efeat_block (a range). */
    int64_t *efeat_row;  /* (E) or NULL */
    int32_t *label;      /* (E) event labels, 0 or 1 (JODIE state label) or NULL */
    int8_t *ext_roll;    /* (E) TGL split column (0 train, 1 val, 2 test) or NULL */
    int64_t *node_ids;   /* (N) original id of each dense id, or NULL for the identity */
    int64_t node_dim;    /* d_n; 0 if no static node features */
    float *nfeat;        /* (N, d_n) or NULL */
    int bipartite;       /* 1 if no node is both a source and a destination */

    /* snapshot datasets only (num_periods == 0 otherwise) */
    int64_t num_periods; /* P: number of snapshots; events of snapshot p have t == p */
    int64_t period_x_dim;/* features per node per snapshot, 0 if none */
    float *period_x;     /* (P, N, period_x_dim) or NULL */
    int64_t period_y_dim;/* targets per node per snapshot, 0 if none */
    float *period_y;     /* (P, N, period_y_dim) or NULL */

    /* backing storage */
    void *map;           /* mmap'd .dgnn file, or NULL when arrays are malloc'd */
    size_t map_len;
} dgnn_events;

/* Zeroes the struct. */
void dgnn_events_init(dgnn_events *ev);
/* Releases every array (or the mapping) and zeroes the struct. Safe on a zeroed struct. */
void dgnn_events_free(dgnn_events *ev);

/* Allocates src/dst/t (and efeat when edge_dim > 0, label when with_label) for E
 * events, uninitialised. Returns DGNN_ENOMEM (with a message) on failure, and without
 * asking when the columns together exceed this machine's memory (dgnn_mem_check). */
int dgnn_events_alloc(dgnn_events *ev, int64_t num_events, int64_t edge_dim, int with_label,
                      dgnn_err *err);

/* The dense id of original node id orig: its position in node_ids (ascending), or orig
 * itself when node_ids is NULL (the identity); -1 when no node has that id, or ev is
 * NULL (no status: -1 is the answer "not a node"). O(log N). */
int32_t dgnn_events_dense_id(const dgnn_events *ev, int64_t orig);

/* ---- building a table from raw rows (used by every text reader) ---------- */
/* Readers append raw rows with original int64 ids into a builder, then call
 * dgnn_builder_finish, which stably sorts by time, remaps ids densely (in increasing
 * original id), detects bipartiteness and fills the table. */
typedef struct {
    int64_t n, cap;
    int64_t *src, *dst;  /* (n) original ids */
    double *t;           /* (n) */
    int64_t edge_dim;
    float *efeat;        /* (n, edge_dim) */
    int has_label;
    int32_t *label;      /* (n) */
    int has_ext_roll;
    int8_t *ext_roll;    /* (n) */
} dgnn_builder;

/* edge_dim: 0 to DGNN_MAX_DIM (another value is refused by push and finish, which have a
 * status to return it in). */
void dgnn_builder_init(dgnn_builder *b, int64_t edge_dim, int has_label, int has_ext_roll);
/* Appends one row; efeat may be NULL (zeros) or holds edge_dim features. As the readers,
 * refuses (DGNN_EINVAL, naming the row, its index among the pushed ones, and the field) a
 * t or edge feature that is not finite and, with labels, a label other than 0 or 1; and a
 * NULL builder. DGNN_ENOMEM when out of memory. */
int dgnn_builder_push(dgnn_builder *b, int64_t src, int64_t dst, double t, const float *efeat,
                      int32_t label, int8_t ext_roll, dgnn_err *err);
/* Moves the rows into ev (which must be zeroed) and frees the builder (on failure too).
 * The rows are checked again as push checks them (a caller may fill the arrays itself);
 * b or ev NULL: DGNN_EINVAL.
 * num_nodes_hint: if > 0 and every original id is in [0, hint), ids are kept as they
 * are and N = hint (for files that declare their node count, e.g. with node features). */
int dgnn_builder_finish(dgnn_builder *b, dgnn_events *ev, int64_t num_nodes_hint, dgnn_err *err);
void dgnn_builder_free(dgnn_builder *b);

/* out (zeroed by the call) = the events e with (mask[e] & bits) != 0, in order, with
 * their labels, the table's node count and bipartite flag (a subset shares the id space
 * of its table). Their edge features are not copied: out->efeat is the table's array and
 * out->efeat_row the row of each event in it (a subset of a subset points at the first
 * table's), so that a stream's splits cost no second copy of its features. The table's
 * original node ids, node features and ext_roll column are not copied either (NULL in
 * out): read them from the table. out owns src, dst, t, label and efeat_row; ev must
 * outlive it. */
int dgnn_events_subset(dgnn_events *out, const dgnn_events *ev, const uint8_t *mask, uint8_t bits,
                       dgnn_err *err);
/* The d_e edge features of event e of ev (a table or a subset); ev->efeat must not be
 * NULL. */
static inline const float *dgnn_events_efeat(const dgnn_events *ev, int64_t e) {
    return ev->efeat + (ev->efeat_row ? ev->efeat_row[e] : e) * ev->edge_dim;
}
/* The features of events [e0, e0 + n) of ev as one (n, d_e) block: a pointer into ev's
 * array when they lie there in order, else gathered into *buf (grown as needed; *cap is
 * its size in floats, both 0 / NULL at first; the caller frees *buf). *out is NULL when
 * ev has no edge features. DGNN_ENOMEM when the gather's buffer cannot be had. */
int dgnn_events_efeat_block(const float **out, const dgnn_events *ev, int64_t e0, int64_t n, float **buf,
                            int64_t *cap, dgnn_err *err);
/* A view of events [e0, e0 + n) of ev (src, dst, t, edge features, label, ext_roll from
 * e0), with ev's node count, dimensions and flags; it owns nothing and is never freed,
 * and ev must outlive it. */
dgnn_events dgnn_events_slice(const dgnn_events *ev, int64_t e0, int64_t n);

/* Recomputes ev->bipartite from src/dst. */
int dgnn_events_detect_bipartite(const dgnn_events *ev);

/* A 64-bit hash of the table's content: sizes, src, dst, t, edge features, labels, split
 * column, node ids and features, period tables (XXH64 of each array, combined; a subset
 * hashes as a table holding a copy of its edge features would). Two
 * tables with the same counts but other events hash differently; what checkpoints use to
 * tell that --resume is given the data it was written with. */
uint64_t dgnn_events_hash(const dgnn_events *ev);

#ifdef __cplusplus
}
#endif
#endif
