/* capi.h: the flat C API of libdgnn.so, for ctypes (the Python package, python/dgnn) and
 * other foreign-function callers: opaque handles, plain C types, no structs to mirror.
 * Compiled into libdgnn.so only (src/capi/), not into the static library.
 *
 * Errors: functions that can fail return 0 or a negative DGNN_E... code (base.h) and
 * copy the message (what was wrong and where: file, line, field) into the caller's
 * buffer msg of cap bytes (NUL-terminated, cut to fit; msg may be NULL when cap is 0).
 * Arguments are checked before they are read: a NULL handle, output pointer (out, json,
 * text) or array that a count says holds entries, a negative argc or count, or a NULL
 * string among argv's argc fails with DGNN_EINVAL and a message naming it.
 *
 * Threads: the events functions may run on any thread; one dgnn_capi_train at a time
 * per process (a second one fails with DGNN_EINVAL), since the command it runs keeps
 * process-wide state (stderr, the SIGINT handler, OpenMP's thread count). */
#ifndef DGNN_CAPI_H
#define DGNN_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_capi_events dgnn_capi_events; /* a dgnn_events table (events.h) */

/* Events from arrays of n_* rows each (the counts must agree: a mismatch is refused naming
 * the arrays): src, dst original node ids (any int64; remapped densely in increasing order,
 * events.h), t timestamps (finite; sorted stably by the call), efeat (efeat_rows, edge_dim)
 * row-major, finite (NaN and infinities refused naming the row, as the file readers refuse
 * them), or NULL with edge_dim 0, label (0 or 1) or NULL. The arrays are copied.
 * *out: the caller's, freed with dgnn_capi_events_free. */
int dgnn_capi_events_from_arrays(dgnn_capi_events **out, const int64_t *src, int64_t n_src, const int64_t *dst,
                                 int64_t n_dst, const double *t, int64_t n_t, const float *efeat,
                                 int64_t efeat_rows, int64_t edge_dim, const int32_t *label, int64_t n_label,
                                 char *msg, size_t cap);
/* Events read from path (dgnn_load, readers.h); format: "auto" (or NULL), jodie, tgl,
 * edgelist, pgt, dgnn, dyglib, tgb. */
int dgnn_capi_events_load(dgnn_capi_events **out, const char *path, const char *format, char *msg, size_t cap);
void dgnn_capi_events_free(dgnn_capi_events *ev); /* NULL: nothing */

/* Sizes and the table's arrays, valid until dgnn_capi_events_free (read-only: a table
 * loaded from .dgnn points into a read-only mapping). NULL where the table has none:
 * efeat without edge features, label without labels, node_ids when the dense ids are the
 * original ones (0..N-1). A NULL handle (a caller's bug) gives -1 for the sizes and the
 * bipartite flag, NULL for the arrays, instead of a crash. */
int64_t dgnn_capi_events_num_events(const dgnn_capi_events *ev);
int64_t dgnn_capi_events_num_nodes(const dgnn_capi_events *ev);
int64_t dgnn_capi_events_edge_dim(const dgnn_capi_events *ev);
int dgnn_capi_events_bipartite(const dgnn_capi_events *ev);
const int32_t *dgnn_capi_events_src(const dgnn_capi_events *ev);      /* (E) dense ids */
const int32_t *dgnn_capi_events_dst(const dgnn_capi_events *ev);      /* (E) dense ids */
const double *dgnn_capi_events_t(const dgnn_capi_events *ev);         /* (E) non-decreasing */
const float *dgnn_capi_events_efeat(const dgnn_capi_events *ev);      /* (E, edge_dim) */
const int32_t *dgnn_capi_events_label(const dgnn_capi_events *ev);    /* (E) */
const int64_t *dgnn_capi_events_node_ids(const dgnn_capi_events *ev); /* (N) original ids */

/* After each epoch: that epoch's figures as one JSON line (dgnn train --curve's). The
 * return: 0 goes on; a positive value stops training as early stopping does (then the
 * test; the JSON says "stopped_by_caller": true); a negative value aborts the run (the
 * caller failed): the trainer ends at its next step (the first of the next epoch, or
 * the next training sample of a snapshot model) and the call fails with DGNN_EINTR,
 * "aborted by the on_epoch callback", no --out JSON written and none returned. The
 * event trainer reads the flag in its training steps only: an abort after the last
 * epoch still lets the test run and the command write its outputs (the call fails the
 * same way, *json NULL). */
typedef int (*dgnn_capi_epoch_fn)(void *ctx, const char *epoch_json);

/* `dgnn train FLAGS` in-process on ev (instead of --data): argv holds exactly the
 * command's flags (argc of them, without "dgnn train"); dataset names the data in the
 * JSON (NULL: "arrays"). The command's messages and progress go to stderr as usual.
 * While it runs, SIGINT (Ctrl-C) sets a flag the trainer reads after every step: the run
 * then fails with DGNN_EINTR, "interrupted" (also when the signal came during the last
 * evaluation and the run got through); the previous handler is restored before the call
 * returns (a SIGINT the process ignores stays ignored). On success *json receives the
 * command's --out JSON (malloc'd: free it with dgnn_capi_free_string), NULL for --help.
 * On failure the message is the command's error line ("dgnn train: --epochs must be
 * ..."), the code DGNN_EINVAL for a usage error (the command's exit status 2), DGNN_EINTR
 * when interrupted, DGNN_EIO for any other; *json is NULL, but for DGNN_EIO after the run
 * got through (an output file such as --out or --emb-out that could not be written): it
 * then holds the results, to be freed as on success.
 * A snapshot model's --model runs the snapshot trainer (cli_train_snapshot_embedded): its
 * flags and --out JSON; on_epoch and SIGINT as for the event models (the stop after the
 * epoch, the interruption after the current sample). */
int dgnn_capi_train(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv,
                    dgnn_capi_epoch_fn on_epoch, void *ctx, char **json, char *msg, size_t cap);
void dgnn_capi_free_string(char *s);

/* `dgnn schedule FLAGS` in-process on ev (instead of --data): DyGNeX's schedule of ev's
 * training windows (--model, --workers, --scheduler, ... as the command's); *json receives
 * the command's --json output (whether --json is given or not; nothing is printed on
 * stdout), NULL for --help. Messages, codes and one-at-a-time as dgnn_capi_train. */
int dgnn_capi_schedule(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv, char **json,
                       char *msg, size_t cap);

/* `dgnn eval FLAGS` in-process on ev, as dgnn_capi_train (flags: the command's, with
 * --checkpoint DIR; the checkpoint's saved settings go first, without their --data; the
 * same JSON, messages and codes; one run at a time with dgnn_capi_train's). A snapshot
 * model's checkpoint is refused (DGNN_EINVAL) saying so. Besides the
 * command's outputs, with the memory the evaluation ended with:
 *  - n_emb > 0: the embeddings of emb_nodes[i] at emb_t[i]: *emb_out receives the (n_emb,
 *    *emb_dim) float32 rows (malloc'd: free with dgnn_capi_free_floats);
 *  - n_score > 0: the link predictor's probability for each (score_src[i], score_dst[i],
 *    score_t[i]) into the caller's score_out (n_score floats).
 * original_ids: 1: node ids as in the data (mapped with dgnn_events_dense_id), 0: dense
 * ids 0..N-1; an id that is not a node is refused naming the array and entry. */
int dgnn_capi_eval(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv,
                   int original_ids, const int64_t *emb_nodes, const double *emb_t, int64_t n_emb, float **emb_out,
                   int64_t *emb_dim, const int64_t *score_src, const int64_t *score_dst, const double *score_t,
                   int64_t n_score, float *score_out, char **json, char *msg, size_t cap);
void dgnn_capi_free_floats(float *p);

/* The command's own lines during the calls above that this thread makes next: 0 (the
 * default) prints them as the command does (messages and the progress bar on stderr, the
 * results on stdout); 1 prints nothing but warnings ("dgnn ...: warning: ..." lines, on
 * stderr): the results come back as the JSON, a failure's message in msg. Per thread. */
void dgnn_capi_set_quiet(int quiet);

/* `dgnn CMD ARGV --help` in-process (cmd: "train", "eval" or "schedule"; argv: flags that
 * choose the help, as --model M): *text receives what the command prints (malloc'd: free
 * with dgnn_capi_free_string). ev as the commands', read by none of them for --help. */
int dgnn_capi_help(const dgnn_capi_events *ev, const char *cmd, int argc, const char *const *argv, char **text,
                   char *msg, size_t cap);

/* The value of key in the settings a checkpoint folder's trainer saved (its "settings"
 * record: "model", "mem_dim", "emb_dim", ..., checkpoint.h's dgnn_ckpt_keep) into value
 * (vcap bytes). 0; DGNN_EINVAL when the checkpoint has no such setting; the checkpoint's
 * own errors (DGNN_EIO: no checkpoint file in dir) with the message. */
int dgnn_capi_checkpoint_setting(const char *dir, const char *key, char *value, size_t vcap, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
