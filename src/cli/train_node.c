/* train_node.c: the node-classification stage of `dgnn train --task node`
 * (train_node.h): the flags' checks, the run on the frozen link model, its printout and
 * its JSON. The library does the work (event_node.h). */
#include "train_node.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_node_task(const char *cmd, const cli_node_flags *f, int bench, int dist) {
    const int node = f->task && strcmp(f->task, "node") == 0;
    if (f->task && !node && strcmp(f->task, "link") != 0) {
        fprintf(stderr, "dgnn %s: --task: '%s' (link, node)\n", cmd, f->task);
        return -1;
    }
    if (!node && (f->epochs != CLI_UNSET || f->patience != CLI_UNSET || f->batch != CLI_UNSET || CLI_GIVEN_F(f->lr))) {
        fprintf(stderr, "dgnn %s: --node-epochs, --node-patience, --node-lr and --node-batch go with --task node\n", cmd);
        return -1;
    }
    if (node && (bench || dist)) {
        fprintf(stderr, "dgnn %s: --task node trains in one process: not under dgnn bench, dgnn eval or --dist\n", cmd);
        return -1;
    }
    return node;
}

int cli_train_node(const char *dataset, const dgnn_events *ev, dgnn_tgnn *m, const dgnn_event_train_cfg *c,
                   const cli_node_flags *f, dgnn_event_node_cfg *nc, dgnn_event_node_result *res) {
    *nc = dgnn_event_node_cfg_default();
    if (f->epochs != CLI_UNSET) nc->epochs = f->epochs;
    if (f->patience != CLI_UNSET) nc->patience = f->patience;
    if (f->batch != CLI_UNSET) nc->batch = f->batch;
    if (CLI_GIVEN_F(f->lr)) nc->lr = f->lr;
    nc->split = c->split;
    nc->seed = c->seed;
    nc->threads = c->threads;
    nc->progress = c->progress;
    /* the quick-run flags cut the decoder's periods as they cut the link stage's */
    nc->max_train_batches = c->max_train_batches;
    nc->max_eval_events = c->max_eval_events;
    char cut[96] = "";
    if (nc->max_train_batches > 0 || nc->max_eval_events > 0)
        snprintf(cut, sizeof cut, " (quick run: %s%lld batches per epoch, %s%lld events per split)",
                 nc->max_train_batches > 0 ? "at most " : "all, ", (long long)nc->max_train_batches,
                 nc->max_eval_events > 0 ? "the first " : "all, ", (long long)nc->max_eval_events);
    dgnn_log("node classification on %s: decoder %lld -> %lld -> %lld -> 1, batch %lld, %lld epochs, lr %g%s\n",
             dataset, (long long)dgnn_tgnn_embed_dim(m), (long long)nc->hidden1, (long long)nc->hidden2,
             (long long)nc->batch, (long long)nc->epochs, nc->lr, cut);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_event_node_train(ev, m, nc, res, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn train: --task node: %s\n", err.msg);
        return 1;
    }
    char a[16];
    /* n/a: a test period of one class (AUC undefined) */
    printf("node classification: test AUC %s over %lld test events (%lld positive); decoder epoch %lld of %lld%s, "
           "%.1f s\n",
           dgnn_fmt_metric(a, sizeof a, res->test_auc), (long long)res->n_test, (long long)res->pos_test,
           (long long)(res->best_epoch > 0 ? res->best_epoch : res->num_epochs), (long long)res->num_epochs,
           res->early_stopped ? " (early-stopped)" : "", res->seconds);
    return 0;
}

cJSON *cli_node_json(const dgnn_event_node_cfg *nc, const dgnn_event_node_result *res) {
    cJSON *o = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(o, "decoder");
    cJSON *w = cJSON_AddArrayToObject(d, "hidden");
    cJSON_AddItemToArray(w, cJSON_CreateNumber((double)nc->hidden1));
    cJSON_AddItemToArray(w, cJSON_CreateNumber((double)nc->hidden2));
    cJSON_AddNumberToObject(d, "dropout", args_float_json(nc->dropout));
    cJSON_AddNumberToObject(d, "lr", nc->lr);
    cJSON_AddNumberToObject(d, "batch", (double)nc->batch);
    cJSON_AddNumberToObject(d, "epochs", (double)nc->epochs);
    cJSON_AddNumberToObject(d, "patience", (double)nc->patience);
    cJSON_AddNumberToObject(d, "max_batches", (double)nc->max_train_batches);   /* 0: all */
    cJSON_AddNumberToObject(d, "eval_max_events", (double)nc->max_eval_events); /* 0: all */
    cJSON_AddNumberToObject(d, "num_params", (double)res->num_params);
    cJSON_AddBoolToObject(d, "embeddings_cached", res->cached); /* computed once: the same every epoch */
    cJSON *data = cJSON_AddObjectToObject(o, "data");
    cJSON_AddNumberToObject(data, "train_events", (double)res->n_train);
    cJSON_AddNumberToObject(data, "val_events", (double)res->n_val);
    cJSON_AddNumberToObject(data, "test_events", (double)res->n_test);
    cJSON_AddNumberToObject(data, "train_positives", (double)res->pos_train);
    cJSON_AddNumberToObject(data, "val_positives", (double)res->pos_val);
    cJSON_AddNumberToObject(data, "test_positives", (double)res->pos_test);
    cJSON *eps = cJSON_AddArrayToObject(o, "epochs");
    for (int64_t i = 0; i < res->num_epochs; i++) {
        const dgnn_node_epoch_result *e = &res->epochs[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "epoch", (double)e->epoch);
        cJSON_AddItemToObject(x, "train_loss", cli_json_number(e->train_loss));
        cJSON_AddItemToObject(x, "val_auc", cli_json_number(e->val_auc));
        cJSON_AddNumberToObject(x, "seconds", e->seconds);
        cJSON_AddItemToArray(eps, x);
    }
    cJSON_AddNumberToObject(o, "best_epoch", (double)res->best_epoch);
    cJSON_AddBoolToObject(o, "early_stopped", res->early_stopped);
    cJSON_AddItemToObject(o, "test_auc", cli_json_number(res->test_auc));
    cJSON_AddNumberToObject(o, "seconds", res->seconds);
    return o;
}
