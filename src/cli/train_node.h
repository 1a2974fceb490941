/* train_node.h: `dgnn train --task node` (dynamic node classification, event_node.h):
 * its flags, embedded in cmd_train.c's option table with CLI_NODE_OPTS, and the second
 * stage cmd_train.c runs on the model the link stage trained (train_node.c). */
#ifndef DGNN_CLI_TRAIN_NODE_H
#define DGNN_CLI_TRAIN_NODE_H

#include <float.h>

#include "dgnn/event_node.h"
#include "dgnn/event_train.h"

typedef struct {
    const char *task;  /* "link" (NULL) or "node" */
    int64_t epochs, patience, batch; /* CLI_UNSET: the TGN code's defaults */
    double lr;         /* CLI_UNSET_F: 3e-4 */
} cli_node_flags;

#define CLI_NODE_FLAGS_INIT {NULL, CLI_UNSET, CLI_UNSET, CLI_UNSET, CLI_UNSET_F}

#define CLI_NODE_OPTS(f)                                                                                       \
    {"task", ARG_STRING, &(f).task, "T", "link (default) or node: dynamic node classification of each event's "  \
                                         "label from its source's embedding, a decoder trained on the frozen "  \
                                         "link model (the TGN code's train_supervised.py)"},                   \
    {"node-epochs", ARG_INT, &(f).epochs, "N", "--task node: decoder epochs (10)", ARG_IN(1, 1024)},           \
    {"node-patience", ARG_INT, &(f).patience, "N", "--task node: epochs without better val AUC (5)", ARG_IN(1, 1024)}, \
    {"node-lr", ARG_DOUBLE, &(f).lr, "X", "--task node: the decoder's Adam learning rate (3e-4)",              \
     ARG_IN(FLT_MIN, DGNN_EVENT_NODE_MAX_LR)},                                                                 \
    {"node-batch", ARG_INT, &(f).batch, "B", "--task node: events per batch (100)", ARG_IN(1, 1000000)}

/* 1 for --task node, 0 for link; -1 after printing why the flags do not go together
 * (an unknown task, node flags without --task node, node with bench or --dist). */
int cli_node_task(const char *cmd, const cli_node_flags *f, int bench, int dist);
/* The node stage on ev with the link stage's model m and settings c; prints its result.
 * Returns 0, or 1 after printing the error. *nc and *res hold what cli_event_json reports. */
int cli_train_node(const char *dataset, const dgnn_events *ev, dgnn_tgnn *m, const dgnn_event_train_cfg *c,
                   const cli_node_flags *f, dgnn_event_node_cfg *nc, dgnn_event_node_result *res);
/* The "node" object of the results' JSON (a cJSON *). */
struct cJSON *cli_node_json(const dgnn_event_node_cfg *nc, const dgnn_event_node_result *res);

#endif
