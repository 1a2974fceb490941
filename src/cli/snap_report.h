/* snap_report.h: what `dgnn train` and `dgnn bench train` print and write of a snapshot
 * model's run (snap_report.c), once cmd_train_snap.c has run it. */
#ifndef DGNN_CLI_SNAP_REPORT_H
#define DGNN_CLI_SNAP_REPORT_H

#include <stdint.h>

#include "dgnn/snap_train.h"

struct cJSON;

/* One epoch's figures as a JSON object (the results' "epochs" entries, --curve's lines):
 * the task's validation metrics. */
struct cJSON *cli_snap_epoch_json(const dgnn_snap_epoch_result *e, dgnn_snap_task task);
/* The results as JSON: written to path, or with sink as a string into *sink (malloc'd;
 * the in-process caller's); cmd names the command in the messages ("train", "bench train"). fitted: the DyGNeX cost model was fitted on --cost-profile;
 * caller_stopped: the in-process caller's on_epoch stopped the run. 0, or 1 with a message. */
int cli_snap_json(const char *cmd, const char *path, const char *model, const char *dataset, const char *preset,
                  const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *r, const dgnn_events *ev, int fitted,
                  int caller_stopped, char **sink);
/* --plot: the learning curve (loss, the task's validation metric per epoch) as SVG; cmd
 * names the command in the message. 0, or 1 with a message. */
int cli_snap_plot(const char *cmd, const char *path, const char *model, const char *dataset,
                  const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *res);

/* Rank 0's report of a trained run: the split, the test and baseline figures, the
 * training throughput. */
void cli_snap_print_results(const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *res);
/* `dgnn bench train`'s tables: seconds per epoch, the per-sample time distribution, the
 * bandwidth figures (each measured for bench_secs). */
void cli_snap_print_bench(const dgnn_snap_train_result *res, const dgnn_snap_profile *prof, const dgnn_events *ev,
                          const dgnn_snap_train_cfg *c, double bench_secs);
/* Rank 0's summary of a DyGNeX run (fitted: as cli_snap_json). */
void cli_snap_print_dist(const dgnn_snap_dist_result *d, int fitted);
/* One line saying which --synthetic sequence was used (T snapshots of seconds each, from
 * dgnn gen with nodes and events): its cut and the sizes of its first and last snapshot. */
void cli_snap_synthetic_report(const dgnn_events *ev, int64_t T, double seconds, int64_t nodes, int64_t events);

#endif
