/* state.h: the node state of memory-based TGNNs: memory, its last-update time and a
 * mailbox, indexed by node id. State, not parameters (DESIGN.md, convention 2): it is
 * not trained by Adam, it is reset at every epoch start, and it is what the next batch
 * reads from what this batch wrote (the dependency DepBloom loosens).
 *
 * Mailbox: `slots` mails per node in a ring (TGN: 1, APAN: 10), each of mail_dim floats
 * with its time. Writes from a batch are grouped by node first (a stable sort by node
 * id, so "last" means last in the order given), then each node's group is reduced by
 * the aggregator ("last" keeps the last mail, "mean" their mean and the latest time) and
 * pushed into that node's ring: one writer per node, no races (DESIGN.md, convention 9). */
#ifndef DGNN_STATE_H
#define DGNN_STATE_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DGNN_AGG_LAST = 0, DGNN_AGG_MEAN = 1 } dgnn_aggregator;

typedef struct {
    int64_t num_nodes; /* N */
    int64_t mem_dim;   /* M */
    int64_t mail_dim;  /* D */
    int64_t slots;     /* S */
    float *mem;        /* (N, M) */
    double *mem_t;     /* (N) time of the last memory update, 0 after reset */
    float *mail;       /* (N, S, D) ring of mails */
    double *mail_t;    /* (N, S) */
    int32_t *mail_n;   /* (N) valid mails, 0..S */
    int32_t *mail_head;/* (N) ring slot the next mail goes to */
    /* scratch for grouping writes by node, grown on demand */
    int64_t scratch_cap;
    int64_t *scratch;
    /* write tracking (dgnn_state_track_writes): the nodes written since the last
     * dgnn_state_take_written, in first-write order, and a flag per node */
    uint8_t *written_flag; /* (N) or NULL when not tracking */
    int32_t *written;      /* (N) */
    int64_t n_written;
} dgnn_state;

int dgnn_state_init(dgnn_state *s, int64_t num_nodes, int64_t mem_dim, int64_t mail_dim, int64_t slots,
                    dgnn_err *err);
void dgnn_state_free(dgnn_state *s);
/* Zero memory, times and mailboxes (epoch start). */
void dgnn_state_reset(dgnn_state *s);
/* dst = src (same sizes, asserted): for backing up memory around an evaluation. */
void dgnn_state_copy(dgnn_state *dst, const dgnn_state *src);

/* out (n, M) = memory rows of nodes (n); nodes < 0 give zero rows. */
void dgnn_state_gather_mem(float *out, const dgnn_state *s, const int32_t *nodes, int64_t n);
/* Memory rows of n DISTINCT nodes (asserted in debug builds) = rows (n, M), times t (n). */
void dgnn_state_set_mem(dgnn_state *s, const int32_t *nodes, const float *rows, const double *t, int64_t n);
/* Pushes n mails (n, D) with times t (n) for nodes (n, repeats allowed), grouped per
 * node by the aggregator (see above). mails NULL: only the times, counts and ring
 * positions change, as they would with mails (the mails' rows are kept elsewhere: the
 * GPU trainer keeps them on the device and this store's times and counts on the host). */
void dgnn_state_push_mails(dgnn_state *s, const int32_t *nodes, const float *mails, const double *t, int64_t n,
                           dgnn_aggregator agg);
/* The most recent mail of a node (NULL if it has none) and its time. */
const float *dgnn_state_last_mail(const dgnn_state *s, int32_t node, double *t);
/* Drops every mail of the n nodes. */
void dgnn_state_clear_mails(dgnn_state *s, const int32_t *nodes, int64_t n);

/* Bytes of the state (memory + mailboxes), for reports and checkpoints. */
int64_t dgnn_state_bytes(const dgnn_state *s);

/* ---- rows across processes (the distributed trainers) ----
 * Write tracking: once on, every node whose memory, time or mailbox a call above
 * changes (set_mem, push_mails, clear_mails; a model's commit that writes memory rows
 * directly also clears or pushes that node's mail, so it is seen) is recorded; reset
 * forgets them. Writes that bypass this API are not seen. */
int dgnn_state_track_writes(dgnn_state *s, dgnn_err *err);
/* The nodes written since the last call, ascending (*nodes points into the store,
 * valid until the next write); forgets them. */
int64_t dgnn_state_take_written(dgnn_state *s, const int32_t **nodes);
/* A node's whole row (id, memory, time, mailbox ring with its times and position) as
 * bytes: pack writes n rows, unpack overwrites the rows of the nodes it finds (in
 * buffer order: a node present twice ends with its last row; the unpacked rows are
 * not recorded as written). */
int64_t dgnn_state_row_bytes(const dgnn_state *s);
/* A checksum of the whole state (memory, times, mailboxes): replicas that should be
 * equal are compared with it. */
uint64_t dgnn_state_checksum(const dgnn_state *s);
void dgnn_state_pack_rows(void *buf, const dgnn_state *s, const int32_t *nodes, int64_t n);
/* Returns the number of rows applied; DGNN_EINVAL when bytes is not a whole number of
 * rows or a node id is out of range (a peer running another configuration). */
int64_t dgnn_state_unpack_rows(dgnn_state *s, const void *buf, int64_t bytes, dgnn_err *err);
/* A row's first part alone (id, mail count and position, memory time, mail times: the
 * row without its floats), for an exchange whose floats travel elsewhere (a GPU's rows by
 * NCCL, event_step.c): meta_bytes per node; unpack_meta applies them as unpack_rows does
 * (buffer order, not recorded as written, the same checks) and writes the rows' nodes into
 * nodes (n, or NULL). Returns the rows applied, or DGNN_EINVAL. */
int64_t dgnn_state_meta_bytes(const dgnn_state *s);
void dgnn_state_pack_meta(void *buf, const dgnn_state *s, const int32_t *nodes, int64_t n);
int64_t dgnn_state_unpack_meta(dgnn_state *s, const void *buf, int64_t bytes, int32_t *nodes, dgnn_err *err);
/* Merges rows instead of overwriting (state_merge.c), for a node written by several
 * processes: memory and its time from the version with the later memory time (ties: the
 * earlier version in buffer order, or the local row); mailbox = the union of the valid
 * mails (a mail in both, same time and values, once), the latest `slots` of them laid out
 * oldest first from slot 0, empty slots zero. first_overwrites = 1: a node's first row in
 * buf overwrites the local row and later ones merge into it, so every process merging
 * the same buffer ends with the same rows whatever its own rows were; 0: every row merges
 * into the local row. Returns the rows applied, or DGNN_EINVAL / DGNN_ENOMEM as unpack. */
int64_t dgnn_state_merge_rows(dgnn_state *s, const void *buf, int64_t bytes, int first_overwrites, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
