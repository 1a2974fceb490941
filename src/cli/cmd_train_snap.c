/* cmd_train_snap.c: `dgnn train --model evolvegcn-o|evolvegcn-h ...`: trains a snapshot-
 * based model on link prediction with EvolveGCN's protocol (train_snapshot.h), prints the
 * per-epoch validation and the test MAP / MRR, and writes them as JSON with --out.
 *
 * Entry point: int cmd_train_snapshot(int argc, char **argv), declared in cli.h;
 * cmd_train.c hands `dgnn train --model evolvegcn-*` over to it with the same argv. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn/train_snapshot.h"

static cJSON *num_or_null(double x) { return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull(); }

/* The same top-level keys as the memory-based trainer's JSON where they apply (model,
 * dataset, config, data, num_params, epochs, best_epoch, early_stopped, test,
 * train_events_per_second, peak_rss_mb), the task's metrics in `test` (map, mrr), and the
 * snapshot throughputs beside them. train_events_per_second counts the events of every
 * training sample's input snapshots (a snapshot read by 11 samples counts 11 times). */
static int write_json(const char *path, const char *model, const char *dataset, const char *preset,
                      const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *r, const dgnn_events *ev) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", model);
    cJSON_AddStringToObject(o, "dataset", dataset);
    cJSON_AddStringToObject(o, "task", "link");
    cJSON *cfg = cJSON_AddObjectToObject(o, "config");
    cJSON_AddStringToObject(cfg, "preset", preset);
    if (c->snapshot_seconds > 0) cJSON_AddNumberToObject(cfg, "snapshot_seconds", c->snapshot_seconds);
    if (c->snapshot_count > 0) cJSON_AddNumberToObject(cfg, "snapshot_count", (double)c->snapshot_count);
    cJSON_AddNumberToObject(cfg, "window", (double)c->window);
    cJSON_AddNumberToObject(cfg, "windows_per_step", (double)c->windows_per_step);
    cJSON_AddNumberToObject(cfg, "epochs", (double)c->epochs);
    cJSON_AddNumberToObject(cfg, "lr", c->lr);
    cJSON_AddNumberToObject(cfg, "hidden", (double)c->model.hidden);
    cJSON_AddNumberToObject(cfg, "cls_hidden", (double)c->model.cls_hidden);
    cJSON *cw = cJSON_AddArrayToObject(cfg, "class_weights");
    for (int k = 0; k < 2; k++) { /* the float as typed (0.05, not 0.0500000007) */
        char num[32];
        snprintf(num, sizeof num, "%.7g", (double)c->class_w[k]);
        cJSON_AddItemToArray(cw, cJSON_CreateNumber(strtod(num, NULL)));
    }
    cJSON_AddNumberToObject(cfg, "negatives_per_edge", (double)c->neg_mult);
    cJSON_AddNumberToObject(cfg, "train_frac", c->train_frac);
    cJSON_AddNumberToObject(cfg, "val_frac", c->val_frac);
    cJSON_AddNumberToObject(cfg, "patience", (double)c->patience);
    cJSON_AddNumberToObject(cfg, "skip_val_epochs", (double)c->skip_val_epochs);
    cJSON_AddNumberToObject(cfg, "seed", (double)c->seed);
    cJSON_AddNumberToObject(cfg, "threads", (double)c->threads);
    cJSON_AddNumberToObject(cfg, "max_windows", (double)c->max_train_windows);
    cJSON *data = cJSON_AddObjectToObject(o, "data");
    cJSON_AddNumberToObject(data, "events", (double)ev->num_events);
    cJSON_AddNumberToObject(data, "nodes", (double)ev->num_nodes);
    cJSON_AddNumberToObject(data, "snapshots", (double)r->num_snapshots);
    cJSON_AddNumberToObject(data, "onehot_width", (double)r->in_dim);
    cJSON_AddNumberToObject(data, "train_samples", (double)(r->train_end - r->train_begin));
    cJSON_AddNumberToObject(data, "val_samples", (double)(r->val_end > r->train_end ? r->val_end - r->train_end : 0));
    cJSON_AddNumberToObject(data, "test_samples", (double)(r->test_end > r->val_end ? r->test_end - r->val_end : 0));
    cJSON_AddNumberToObject(data, "first_train_sample", (double)r->train_begin);
    cJSON_AddNumberToObject(o, "num_params", (double)r->num_params);
    cJSON *eps = cJSON_AddArrayToObject(o, "epochs");
    for (int64_t i = 0; i < r->num_epochs; i++) {
        const dgnn_snap_epoch_result *e = &r->epochs[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "epoch", (double)e->epoch);
        cJSON_AddItemToObject(x, "train_loss", num_or_null(e->train_loss));
        cJSON_AddItemToObject(x, "val_map", num_or_null(e->val_map));
        cJSON_AddItemToObject(x, "val_mrr", num_or_null(e->val_mrr));
        cJSON_AddNumberToObject(x, "seconds", e->seconds);
        cJSON_AddNumberToObject(x, "train_seconds", e->train_seconds);
        cJSON_AddNumberToObject(x, "val_seconds", e->val_seconds);
        cJSON_AddNumberToObject(x, "train_samples", (double)e->train_windows);
        cJSON_AddNumberToObject(x, "train_pairs", (double)e->train_pairs);
        cJSON_AddItemToArray(eps, x);
    }
    cJSON_AddNumberToObject(o, "best_epoch", (double)r->best_epoch);
    cJSON_AddBoolToObject(o, "early_stopped", r->early_stopped);
    cJSON *t = cJSON_AddObjectToObject(o, "test");
    cJSON_AddItemToObject(t, "map", num_or_null(r->test_map));
    cJSON_AddItemToObject(t, "mrr", num_or_null(r->test_mrr));
    if (c->baseline_last) {
        cJSON *b = cJSON_AddObjectToObject(o, "baseline_last_snapshot");
        cJSON_AddItemToObject(b, "map", num_or_null(r->last_map));
        cJSON_AddItemToObject(b, "mrr", num_or_null(r->last_mrr));
    }
    cJSON_AddNumberToObject(t, "seconds", r->test_seconds);
    cJSON_AddNumberToObject(o, "train_events_per_second", r->train_events_per_second);
    cJSON_AddNumberToObject(o, "train_windows_per_second", r->train_windows_per_second);
    cJSON_AddNumberToObject(o, "train_snapshots_per_second", r->train_snapshots_per_second);
    cJSON_AddNumberToObject(o, "eval_pairs_per_second", r->eval_pairs_per_second);
    cJSON_AddNumberToObject(o, "peak_rss_mb", r->peak_rss_mb);
    return cli_write_json("train", path, o);
}

/* "0.05,0.95" -> w[0], w[1] */
static int parse_weights(const char *s, float *w) {
    char *end;
    errno = 0;
    double a = strtod(s, &end);
    if (errno || end == s || *end != ',') return -1;
    const char *s2 = end + 1;
    double b = strtod(s2, &end);
    if (errno || end == s2 || *end != '\0' || !(a >= 0) || !(b >= 0) || !isfinite(a) || !isfinite(b)) return -1;
    w[0] = (float)a, w[1] = (float)b;
    return 0;
}

int cmd_train_snapshot(int argc, char **argv) {
    cli_load_flags lf = {0};
    const char *model = NULL, *data = NULL, *task = "link", *preset = "bitcoin-alpha", *out = NULL, *ckpt = NULL;
    const char *weights = NULL;
    int64_t window = -1, per_step = -1, epochs = -1, seed = -1, threads = 0, hidden = -1, cls = -1, negs = -1,
            patience = -1, skipval = -1, max_windows = 0, count = -1;
    double seconds = -1, lr = -1, train_frac = -1, val_frac = -1;
    int resume = 0, quiet = 0, no_eval = 0, baseline_last = 0;
    arg_opt opts[] = {
        {"model", ARG_STRING, &model, "M", "evolvegcn-o or evolvegcn-h"},
        {"data", ARG_STRING, &data, "FILE", "event stream (any format), cut into snapshots"},
        CLI_LOAD_OPTS(lf),
        {"task", ARG_STRING, &task, "T", "link (link prediction; edge and node: not yet)"},
        {"preset", ARG_STRING, &preset, "P", "the reference's config: bitcoin-alpha (default) or uci"},
        {"snapshot-seconds", ARG_DOUBLE, &seconds, "S", "snapshot length in time units (bitcoin-alpha 1200000, uci 190080)"},
        {"snapshots", ARG_INT, &count, "C", "instead: C snapshots of equal time span"},
        {"window", ARG_INT, &window, "W", "num_hist_steps: a sample reads snapshots t-W..t (10)"},
        {"windows-per-step", ARG_INT, &per_step, "K", "samples whose gradients are summed per Adam step (1)"},
        {"epochs", ARG_INT, &epochs, "N", "training epochs at most (bitcoin-alpha 500, uci 1000)"},
        {"lr", ARG_DOUBLE, &lr, "X", "Adam learning rate (bitcoin-alpha 0.005, uci 0.001)"},
        {"hidden", ARG_INT, &hidden, "L", "width of both GCN layers (-o 100, -h 50 on bitcoin-alpha; 100 on uci)"},
        {"cls-hidden", ARG_INT, &cls, "C", "classifier hidden width (-o 400, -h 100 on bitcoin-alpha; 100 on uci)"},
        {"class-weights", ARG_STRING, &weights, "W0,W1", "loss weights of non-edges and edges (e.g. 0.05,0.95)"},
        {"negatives", ARG_INT, &negs, "K", "sampled non-edges per edge in training (bitcoin-alpha 100, uci 50)"},
        {"train-frac", ARG_DOUBLE, &train_frac, "F", "fraction of the time steps for training (0.7, uci 0.71)"},
        {"val-frac", ARG_DOUBLE, &val_frac, "F", "fraction of the time steps for validation (0.1)"},
        {"patience", ARG_INT, &patience, "N", "early stopping: stop after more than N validations without a better MAP (50)"},
        {"skip-val-epochs", ARG_INT, &skipval, "N", "first epochs without validation (6: the reference's eval_after_epochs 5)"},
        {"seed", ARG_INT, &seed, "S", "seed of initialisation, negatives and RReLU (1234)"},
        {"threads", ARG_INT, &threads, "T", "OpenMP threads (default: all cores)"},
        {"max-windows", ARG_INT, &max_windows, "N", "stop each training epoch after N samples (quick runs)"},
        {"no-eval", ARG_FLAG, &no_eval, NULL, "skip validation and test (timing the training loop)"},
        {"baseline-last", ARG_FLAG, &baseline_last, NULL, "also score the test samples by repeating the last snapshot"},
        {"checkpoint", ARG_STRING, &ckpt, "DIR", "write a checkpoint after every epoch into DIR"},
        {"resume", ARG_FLAG, &resume, NULL, "continue from the checkpoint in --checkpoint DIR"},
        {"out", ARG_STRING, &out, "FILE", "write the results as JSON"},
        {"quiet", ARG_FLAG, &quiet, NULL, "no progress bar"},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "train", .usage = "dgnn train --model evolvegcn-o|evolvegcn-h --data FILE [options]",
                     .summary = "Trains EvolveGCN-O or -H on link prediction with the reference code's protocol:\n"
                                "snapshots of fixed length, one-hot degree input, samples of W+1 snapshots predicting\n"
                                "the next one, 100 sampled non-edges per edge (weighted cross-entropy), validation\n"
                                "and test on every node pair of each predicted snapshot (MAP and MRR as the\n"
                                "reference logger), early stopping on validation MAP.",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;

    dgnn_snapmodel_kind kind;
    if (!model) {
        fprintf(stderr, "dgnn train: --model evolvegcn-o or evolvegcn-h is required here\n");
        return 2;
    }
    if (strcmp(model, "evolvegcn-o") == 0 || strcmp(model, "egcn-o") == 0) kind = DGNN_SNAPMODEL_EGCN_O;
    else if (strcmp(model, "evolvegcn-h") == 0 || strcmp(model, "egcn-h") == 0) kind = DGNN_SNAPMODEL_EGCN_H;
    else {
        fprintf(stderr, "dgnn train: --model: '%s' is not a snapshot model here (evolvegcn-o, evolvegcn-h)\n", model);
        return 2;
    }
    if (strcmp(task, "link") != 0) {
        fprintf(stderr, "dgnn train: --task %s is not implemented yet for %s (available: link)\n", task, model);
        return 2;
    }
    if (!data) {
        fprintf(stderr, "dgnn train: --data FILE is required for %s (an event stream to cut into snapshots)\n", model);
        return 2;
    }
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_train_preset(&c, preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn train: --preset: %s\n", err.msg);
        return 2;
    }
    if (seconds >= 0 && count >= 0) {
        fprintf(stderr, "dgnn train: give --snapshot-seconds or --snapshots, not both\n");
        return 2;
    }
    if (seconds >= 0) {
        if (!(seconds > 0)) {
            fprintf(stderr, "dgnn train: --snapshot-seconds must be > 0\n");
            return 2;
        }
        c.snapshot_seconds = seconds, c.snapshot_count = 0;
    }
    if (count >= 0) {
        if (count < 1) {
            fprintf(stderr, "dgnn train: --snapshots must be >= 1\n");
            return 2;
        }
        c.snapshot_count = count, c.snapshot_seconds = 0;
    }
    if (window >= 0) c.window = window;
    if (per_step >= 0) c.windows_per_step = per_step;
    if (epochs >= 0) c.epochs = epochs;
    if (lr >= 0) c.lr = lr;
    if (hidden >= 0) c.model.hidden = hidden;
    if (cls >= 0) c.model.cls_hidden = cls;
    if (negs >= 0) c.neg_mult = negs;
    if (train_frac >= 0) c.train_frac = train_frac;
    if (val_frac >= 0) c.val_frac = val_frac;
    if (patience >= 0) c.patience = patience;
    if (skipval >= 0) c.skip_val_epochs = skipval;
    if (seed >= 0) c.seed = (uint64_t)seed, c.model.seed = (uint64_t)seed;
    else c.model.seed = c.seed;
    if (weights && parse_weights(weights, c.class_w) != 0) {
        fprintf(stderr, "dgnn train: --class-weights: '%s' is not two non-negative numbers W0,W1\n", weights);
        return 2;
    }
    c.threads = threads;
    c.max_train_windows = max_windows;
    c.skip_eval = no_eval;
    c.baseline_last = baseline_last;
    c.checkpoint = ckpt;
    c.resume = resume;
    c.progress = !quiet;
    if (resume && !ckpt) {
        fprintf(stderr, "dgnn train: --resume needs --checkpoint DIR\n");
        return 2;
    }
    cli_set_threads(threads);

    dgnn_events ev;
    if ((rc = cli_load("train", data, &lf, &ev)) != 0) return rc;
    char a[32], b[32];
    dgnn_log("%s on %s: %s events, %s nodes, preset %s, snapshots of %g s, window %lld, L %lld, C %lld, lr %g, "
             "%lld epochs at most\n",
             dgnn_snapmodel_name(kind), data, dgnn_fmt_count(a, sizeof a, ev.num_events),
             dgnn_fmt_count(b, sizeof b, ev.num_nodes), preset, c.snapshot_seconds, (long long)c.window,
             (long long)c.model.hidden, (long long)c.model.cls_hidden, c.lr, (long long)c.epochs);
    dgnn_snap_train_result *res = dgnn_xcalloc(1, sizeof *res);
    rc = dgnn_snap_train(&ev, &c, res, &err);
    if (rc != DGNN_OK) {
        fprintf(stderr, "dgnn train: %s\n", err.msg);
        free(res);
        dgnn_events_free(&ev);
        return 1;
    }
    dgnn_log("%lld snapshots, one-hot width %lld, samples: train %lld..%lld, validation ..%lld, test ..%lld\n",
             (long long)res->num_snapshots, (long long)res->in_dim, (long long)res->train_begin,
             (long long)res->train_end - 1, (long long)res->val_end - 1, (long long)res->test_end - 1);
    if (!c.skip_eval)
        printf("test MAP %.4f  MRR %.4f  (best validation epoch %lld of %lld)\n", res->test_map, res->test_mrr,
               (long long)res->best_epoch, (long long)res->num_epochs);
    if (c.baseline_last)
        printf("baseline \"repeat the last snapshot\", same test samples: MAP %.4f  MRR %.4f\n", res->last_map,
               res->last_mrr);
    double tsec = 0;
    for (int64_t i = 0; i < res->num_epochs; i++) tsec += res->epochs[i].train_seconds;
    printf("training: %.2f s per epoch, %.1f samples/s, %.0f snapshots/s; peak RSS %.0f MB\n",
           res->num_epochs ? tsec / (double)res->num_epochs : 0.0, res->train_windows_per_second,
           res->train_snapshots_per_second, res->peak_rss_mb);
    if (out) rc = write_json(out, dgnn_snapmodel_name(kind), data, preset, &c, res, &ev);
    free(res);
    dgnn_events_free(&ev);
    return rc;
}
