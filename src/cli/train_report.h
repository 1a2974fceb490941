/* train_report.h: what `dgnn train`, `dgnn bench train` and `dgnn eval` print and write of
 * an event model's run (train_report.c), once cmd_train.c has run it. */
#ifndef DGNN_CLI_TRAIN_REPORT_H
#define DGNN_CLI_TRAIN_REPORT_H

#include "dgnn/event_node.h"
#include "dgnn/event_train.h"

struct cJSON;

/* One epoch's figures as a JSON object (the results' "epochs" entries, --curve's lines). */
struct cJSON *cli_epoch_json(const dgnn_epoch_result *e);
/* The results as JSON: written to path (cmd names the command in the messages), or with
 * sink as a string into *sink (malloc'd; the in-process caller's). nc and nres: --task
 * node's stage (nres NULL: none); caller_stopped: the in-process caller's on_epoch stopped
 * the run; step_curve: bench train's (owned by the JSON from here); on: 0 for a training
 * run, else dgnn eval's split (DGNN_SPLIT_*). 0, or 1 with a message. */
int cli_event_json(const char *cmd, const char *path, const char *model, const char *dataset, const char *preset,
                   const char *config, const dgnn_event_train_cfg *c, const dgnn_event_train_result *r,
                   const dgnn_events *ev, const dgnn_event_node_cfg *nc, const dgnn_event_node_result *nres,
                   int caller_stopped, struct cJSON *step_curve, char **sink, int on);
/* --plot: the learning curve as SVG; 0, or 1 with a message. */
int cli_event_plot(const char *path, const char *model, const char *dataset, const dgnn_event_train_result *r);
/* --emb-out: the embeddings as (n, dim) float32 .npy; 0, or 1 with a message. */
int cli_event_embeddings(const char *path, const dgnn_emb_request *e);

/* The evaluation's figures on stdout (eval: dgnn eval, of split eval_split; else the test
 * of a training run unless it skipped evaluation), then the throughput and peak RSS. */
void cli_event_print_eval(const dgnn_event_train_cfg *c, const dgnn_event_train_result *res, int eval, int eval_split);
/* dgnn bench train's table: each epoch's events/s and GFLOP/s against the sgemm peak
 * measured in the run (peak1 on 1 thread, peakT on the run's nthreads; 0: not measured),
 * then on the CPU the training time by op family (op_seconds, DGNN_PROF_N of them). */
void cli_event_print_bench(const dgnn_event_train_cfg *c, const dgnn_event_train_result *res, const double *op_seconds,
                           double peak1, double peakT, int nthreads);
/* The per-rank split of a distributed run. */
void cli_event_print_dist(const dgnn_event_train_result *res);

#endif
