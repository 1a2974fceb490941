/* binfmt.h: the binary dataset format .dgnn (src/data/binfmt.c): save, load (mapped), a
 * streaming writer, and the format's checksum. */
#ifndef DGNN_BINFMT_H
#define DGNN_BINFMT_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A .dgnn file: a fixed header (magic "DGNNDATA", version, counts), a table of
 * sections (id, offset, length, checksum), then the sections, each 64-byte aligned.
 * Loading maps the file read-only and points the table's arrays into the mapping. */
#define DGNN_BIN_MAGIC "DGNNDATA"
#define DGNN_BIN_VERSION 1

int dgnn_save_binary(const dgnn_events *ev, const char *path, dgnn_err *err);
/* verify: 1 = check every section's checksum (default for commands), 0 = header only. */
int dgnn_load_binary(dgnn_events *ev, const char *path, int verify, dgnn_err *err);

/* The checksum of the format: XXH64 with seed 0 (so `xxhsum -H1` or python's
 * xxhash.xxh64 can check a section from outside). */
uint64_t dgnn_bin_checksum(const void *data, size_t len);

/* Streaming writer: writes a .dgnn file whose sizes are known in advance without
 * holding the table (the generator writes 100M events through it). Every section's
 * offset follows from the layout, so each append goes with pwrite straight to its
 * section's running offset while the section checksum is updated incrementally;
 * finish writes the header and the section table, fsyncs and renames the temporary
 * file (in the same folder) over path, by the rules of dgnn/outfile.h (a symlink is
 * followed, a device or FIFO written through). Appends are validated (ids in [0, N),
 * timestamps finite and non-decreasing), so the writer never produces a file that
 * dgnn_load_binary would reject. Pass chunks of thousands of events: each append is
 * one pwrite per column. */
typedef struct {
    int64_t num_events, num_nodes;
    int64_t edge_dim;     /* 0: no efeat section */
    int has_label, has_ext_roll, has_node_ids;
    int64_t node_dim;     /* 0: no nfeat section */
    int64_t num_periods, period_x_dim, period_y_dim; /* dims must be 0 when num_periods == 0 */
    int bipartite;        /* 0/1: stored as given; -1: computed from the events appended */
} dgnn_bin_layout;

typedef struct dgnn_bin_writer dgnn_bin_writer; /* opaque */

/* The layout of an existing table (bipartite as stored in it). */
dgnn_bin_layout dgnn_bin_layout_of(const dgnn_events *ev);
/* Creates the temporary file and *out. On failure *out is NULL and nothing is left on disk. */
int dgnn_bin_writer_open(dgnn_bin_writer **out, const char *path, const dgnn_bin_layout *lay, dgnn_err *err);
/* Appends n events (columns of n rows; efeat (n, edge_dim)); label / ext_roll must be
 * given when the layout has them, and are ignored otherwise. */
int dgnn_bin_writer_events(dgnn_bin_writer *w, int64_t n, const int32_t *src, const int32_t *dst,
                           const double *t, const float *efeat, const int32_t *label,
                           const int8_t *ext_roll, dgnn_err *err);
/* Writes the node sections at once: node_ids (N) when has_node_ids, nfeat (N, node_dim) when node_dim > 0. */
int dgnn_bin_writer_nodes(dgnn_bin_writer *w, const int64_t *node_ids, const float *nfeat, dgnn_err *err);
/* Writes the snapshot sections at once: period_x (P, N, dx), period_y (P, N, dy) when their dims are > 0. */
int dgnn_bin_writer_periods(dgnn_bin_writer *w, const float *period_x, const float *period_y, dgnn_err *err);
/* Checks every section is complete, writes the header, fsyncs and renames. Frees w
 * whatever the outcome (on failure the temporary file is removed). bytes (may be NULL)
 * receives the file size. */
int dgnn_bin_writer_finish(dgnn_bin_writer *w, int64_t *bytes, dgnn_err *err);
/* Gives up: removes the temporary file and frees w. Safe on NULL. */
void dgnn_bin_writer_abort(dgnn_bin_writer *w);

#ifdef __cplusplus
}
#endif
#endif
