/* cmd_train.c: `dgnn train`: trains a memory-based TGNN (TGN, JODIE) on an event
 * stream with the TGN code's protocol (event_train.h), prints per-epoch validation and
 * the test figures, and writes them as JSON with --out. Without --data it trains on the
 * built-in synthetic stream (no download). The presets, the built-in stream and the
 * training are the library's (event_train.h); this file parses, calls and prints. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_config.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/svg.h"
#include "dgnn/event_train.h"
#include "dgnn/npy.h"
#include "train_node.h"

static const char *dist_mode_name(dgnn_dist_mode m) {
    return m == DGNN_DIST_STRICT ? "strict" : m == DGNN_DIST_DEPBLOOM ? "depbloom" : "none";
}

void cli_comm_timeout(double seconds) { /* its range is the option table's (CLI_COMM_TIMEOUT_OPT) */
    if (CLI_GIVEN_F(seconds)) dgnn_comm_set_timeout(seconds);
}

/* Whether DepBloom's critical path samples the next micro-batch ahead: TGN and DyRep with
 * the most-recent sampler (their ops' can_presample, dgnn_tgnn_can_presample), not JODIE
 * (it samples nothing), APAN (its sample also places the mails) or --sampler uniform
 * (docs/depbloom.md, "Sampling ahead"), and not with --no-prefetch. */
static int dist_prefetches(const dgnn_event_train_cfg *c) {
    const dgnn_tgnn_kind k = c->model.kind;
    return c->dist.mode == DGNN_DIST_DEPBLOOM && c->dist.critical_path && !c->dist.no_prefetch &&
           !c->model.uniform_sampler && (k == DGNN_TGNN_TGN || k == DGNN_TGNN_DYREP);
}

/* One epoch's figures as a JSON object (the results' "epochs" entries, --curve's lines). */
static cJSON *epoch_json(const dgnn_epoch_result *e) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "epoch", (double)e->epoch);
    cJSON_AddItemToObject(x, "train_loss", cli_json_number(e->train_loss));
    cJSON_AddItemToObject(x, "val_ap", cli_json_number(e->val_ap));
    cJSON_AddItemToObject(x, "val_auc", cli_json_number(e->val_auc));
    cJSON_AddItemToObject(x, "val_new_node_ap", cli_json_number(e->val_new_ap));
    cJSON_AddNumberToObject(x, "seconds", e->seconds);
    cJSON_AddNumberToObject(x, "train_seconds", e->train_seconds);
    cJSON_AddNumberToObject(x, "train_events", (double)e->train_events);
    cJSON_AddNumberToObject(x, "train_gflop", e->flops / 1e9);
    return x;
}

static void curve_line(void *ctx, const dgnn_epoch_result *e) { cli_curve_append((const char *)ctx, epoch_json(e)); }

/* cli_train_embedded's epoch hook: --curve's line, then the caller's, whose nonzero asks
 * the trainer to stop (*stop, read after on_epoch) */
typedef struct {
    const char *curve;
    const cli_train_embed *embed;
    int stop;
} embed_epoch_ctx;
static void embed_epoch(void *ctx, const dgnn_epoch_result *e) {
    embed_epoch_ctx *x = ctx;
    if (x->curve) curve_line((void *)x->curve, e);
    if (!x->embed->on_epoch) return;
    cJSON *o = epoch_json(e);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line && x->embed->on_epoch(x->embed->on_epoch_ctx, line)) x->stop = 1;
    free(line);
}

/* --plot: the learning curve as SVG (report/svg.h); 0, or 1 with a message */
static int write_plot(const char *path, const char *model, const char *dataset, const dgnn_event_train_result *r) {
    double loss[1024], ap[1024];
    for (int64_t i = 0; i < r->num_epochs; i++) loss[i] = r->epochs[i].train_loss, ap[i] = r->epochs[i].val_ap;
    char title[256];
    snprintf(title, sizeof title, "%s on %s", model, dataset);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_curve_svg(path, title, loss, ap, r->num_epochs, "AP", &err) != DGNN_OK) {
        fprintf(stderr, "dgnn train: --plot: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* on: 0 for a training run; dgnn eval's split (DGNN_SPLIT_TEST, _VAL, _TRAIN), recorded as
 * "on": a val or train evaluation's figures go under "val" or "train" (from the result's
 * epoch after the checkpoint's, where dgnn_event_eval puts them), without the "test" and
 * "protocols" figures it did not compute */
static int write_json(const char *cmd, const char *path, const char *model, const char *dataset, const char *preset,
                      const char *config, const dgnn_event_train_cfg *c, const dgnn_event_train_result *r, const dgnn_events *ev,
                      const dgnn_event_node_cfg *nc, const dgnn_event_node_result *nres, int caller_stopped,
                      cJSON *step_curve, char **sink, int on) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", model);
    cJSON_AddStringToObject(o, "task", nres ? "node" : "link");
    cJSON_AddStringToObject(o, "dataset", dataset);
    cJSON_AddItemToObject(o, "config_file", config ? cJSON_CreateString(config) : cJSON_CreateNull()); /* --config */
    cJSON *cfg = cJSON_AddObjectToObject(o, "config");
    cJSON_AddStringToObject(cfg, "preset", preset);
    cJSON_AddNumberToObject(cfg, "batch", (double)c->batch);
    cJSON_AddNumberToObject(cfg, "epochs", (double)c->epochs);
    cJSON_AddNumberToObject(cfg, "lr", c->lr);
    cJSON_AddNumberToObject(cfg, "patience", (double)c->patience);
    cJSON_AddNumberToObject(cfg, "eval_negatives", (double)c->eval_negatives);
    cJSON_AddStringToObject(cfg, "negatives", c->neg == DGNN_NEG_DST ? "dst" : "all");
    cJSON_AddNumberToObject(cfg, "seed", (double)c->seed);
    cJSON_AddNumberToObject(cfg, "threads", (double)c->threads);
    char dev[32] = "cpu";
    if (c->use_cuda && c->cuda_device >= 0) snprintf(dev, sizeof dev, "cuda:%d", c->cuda_device);
    else if (c->use_cuda) snprintf(dev, sizeof dev, "cuda:local_rank");
    cJSON_AddStringToObject(cfg, "device", dev);
    cJSON_AddNumberToObject(cfg, "mem_dim", (double)c->model.mem_dim);
    cJSON_AddNumberToObject(cfg, "time_dim", (double)c->model.time_dim);
    cJSON_AddNumberToObject(cfg, "emb_dim", (double)c->model.emb_dim);
    cJSON_AddNumberToObject(cfg, "neighbors", (double)c->model.neighbors);
    cJSON_AddNumberToObject(cfg, "heads", (double)c->model.heads);
    cJSON_AddNumberToObject(cfg, "mail_slots", (double)c->model.mail_slots);
    cJSON_AddStringToObject(cfg, "attention", c->model.attn == DGNN_ATTN_TGN ? "tgn" : "tgl");
    cJSON_AddNumberToObject(cfg, "dropout", args_float_json(c->model.dropout));
    cJSON_AddStringToObject(cfg, "sampler", c->model.uniform_sampler ? "uniform" : "recent");
    cJSON_AddStringToObject(cfg, "split", c->split.mode == DGNN_SPLIT_BY_EXT_ROLL ? "ext_roll" : "time");
    cJSON_AddNumberToObject(cfg, "new_node_frac", c->split.new_node_frac);
    cJSON_AddNumberToObject(cfg, "val_quantile", c->split.val_q);
    cJSON_AddNumberToObject(cfg, "test_quantile", c->split.test_q);
    cJSON_AddNumberToObject(cfg, "max_batches", (double)c->max_train_batches);
    cJSON_AddNumberToObject(cfg, "eval_max_events", (double)c->max_eval_events);
    char plist[32];
    snprintf(plist, sizeof plist, "tgn%s%s", c->protocol.dyglib ? ",dyglib" : "", c->protocol.tgb ? ",tgb" : "");
    cJSON_AddStringToObject(cfg, "protocol", plist);
    if (c->protocol.tgb) cJSON_AddNumberToObject(cfg, "tgb_k", (double)c->protocol.tgb_k);
    cJSON *data = cJSON_AddObjectToObject(o, "data");
    cJSON_AddNumberToObject(data, "events", (double)ev->num_events);
    cJSON_AddNumberToObject(data, "nodes", (double)ev->num_nodes);
    cJSON_AddNumberToObject(data, "edge_dim", (double)ev->edge_dim);
    cJSON_AddNumberToObject(data, "train_events", (double)r->n_train);
    cJSON_AddNumberToObject(data, "val_events", (double)r->n_val);
    cJSON_AddNumberToObject(data, "test_events", (double)r->n_test);
    cJSON_AddNumberToObject(data, "new_node_val_events", (double)r->n_new_val);
    cJSON_AddNumberToObject(data, "new_node_test_events", (double)r->n_new_test);
    cJSON_AddNumberToObject(o, "num_params", (double)r->num_params);
    cJSON *eps = cJSON_AddArrayToObject(o, "epochs");
    for (int64_t i = 0; i < r->num_epochs; i++) cJSON_AddItemToArray(eps, epoch_json(&r->epochs[i]));
    cJSON_AddNumberToObject(o, "best_epoch", (double)r->best_epoch);
    cJSON_AddBoolToObject(o, "early_stopped", r->early_stopped);
    if (caller_stopped) cJSON_AddTrueToObject(o, "stopped_by_caller"); /* cli_train_embedded's on_epoch */
    if (on) cJSON_AddStringToObject(o, "on", on == DGNN_SPLIT_VAL ? "val" : on == DGNN_SPLIT_TRAIN ? "train" : "test");
    if (on == DGNN_SPLIT_VAL || on == DGNN_SPLIT_TRAIN) {
        const dgnn_epoch_result *e = &r->epochs[r->num_epochs];
        cJSON *v = cJSON_AddObjectToObject(o, on == DGNN_SPLIT_VAL ? "val" : "train");
        cJSON_AddItemToObject(v, "ap", cli_json_number(e->val_ap));
        cJSON_AddItemToObject(v, "auc", cli_json_number(e->val_auc));
        if (on == DGNN_SPLIT_VAL) {
            cJSON_AddItemToObject(v, "new_node_ap", cli_json_number(e->val_new_ap));
            cJSON_AddItemToObject(v, "new_node_auc", cli_json_number(e->val_new_auc));
            if (c->protocol.tgb) {
                cJSON_AddItemToObject(v, "mrr_tgb", cli_json_number(e->val_mrr_tgb));
                cJSON_AddItemToObject(v, "hits@10_tgb", cli_json_number(e->val_hits10_tgb));
            }
        }
    } else {
        cJSON *t = cJSON_AddObjectToObject(o, "test");
        cJSON_AddItemToObject(t, "ap", cli_json_number(r->test_ap));
        cJSON_AddItemToObject(t, "auc", cli_json_number(r->test_auc));
        cJSON_AddItemToObject(t, "new_node_ap", cli_json_number(r->test_new_ap));
        cJSON_AddItemToObject(t, "new_node_auc", cli_json_number(r->test_new_auc));
        /* not TGB's MRR (protocols.tgb): the TGN code's random destinations */
        cJSON_AddItemToObject(t, "mrr_random", cli_json_number(r->test_mrr));
        cJSON_AddNumberToObject(t, "mrr_random_negatives", (double)c->eval_negatives);
        cli_protocols_json(o, c, r);
    }
    cJSON_AddNumberToObject(o, "train_events_per_second", r->train_events_per_second);
    cJSON_AddNumberToObject(o, "peak_rss_mb", r->peak_rss_mb);
    if (c->dist.mode != DGNN_DIST_NONE) {
        const dgnn_dist_result *d = &r->dist;
        cJSON *x = cJSON_AddObjectToObject(o, "dist");
        cJSON_AddStringToObject(x, "mode", dist_mode_name(c->dist.mode));
        cJSON_AddNumberToObject(x, "ranks", d->ranks);
        cJSON_AddBoolToObject(x, "partition", c->dist.partition);
        cJSON_AddNumberToObject(x, "window_events", (double)c->dist.window_events);
        cJSON_AddNumberToObject(x, "window_seconds", c->dist.window_seconds);
        cJSON_AddNumberToObject(x, "refine", (double)c->dist.refine);
        cJSON_AddBoolToObject(x, "critical_path", c->dist.critical_path);
        cJSON_AddBoolToObject(x, "prefetch", dist_prefetches(c)); /* what ran, not the flag */
        cJSON_AddBoolToObject(x, "cold_fetch", d->cold_fetch);
        cJSON_AddNumberToObject(x, "steps", (double)d->steps);
        cJSON_AddNumberToObject(x, "windows", (double)d->windows);
        cJSON_AddItemToObject(x, "cut_fraction", cli_json_number(d->windows > 0 ? d->cut_fraction : NAN));
        cJSON_AddNumberToObject(x, "partition_seconds", d->setup_seconds);
        cJSON_AddNumberToObject(x, "hot_rows_rank0", (double)d->hot_rows);
        cJSON_AddNumberToObject(x, "state_bytes_per_epoch", d->state_bytes_per_epoch);
        cJSON_AddNumberToObject(x, "grad_bytes_per_epoch", d->grad_bytes_per_epoch);
        cJSON *rk = cJSON_AddArrayToObject(x, "per_rank");
        for (int q = 0; q < d->ranks; q++) {
            cJSON *y = cJSON_CreateObject();
            cJSON_AddNumberToObject(y, "rank", q);
            cJSON_AddNumberToObject(y, "train_events", (double)d->train_events[q]);
            cJSON_AddNumberToObject(y, "compute_seconds", d->compute_seconds[q]);
            cJSON_AddNumberToObject(y, "sample_seconds", d->sample_seconds[q]);
            cJSON_AddNumberToObject(y, "prefetch_seconds", d->prefetch_seconds[q]);
            cJSON_AddNumberToObject(y, "comm_seconds", d->comm_seconds[q]);
            cJSON_AddNumberToObject(y, "bytes_sent", (double)d->bytes_sent[q]);
            cJSON_AddItemToArray(rk, y);
        }
    }
    if (nres) cJSON_AddItemToObject(o, "node", cli_node_json(nc, nres)); /* --task node */
    if (step_curve) cJSON_AddItemToObject(o, "step_curve", step_curve); /* bench train --step-curve */
    cli_add_run_info(o);
    if (!sink) { /* "dgnn train: --out: cannot write ..." */
        char label[64];
        snprintf(label, sizeof label, "%s: --out", cmd);
        return cli_write_json(label, path, o);
    }
    *sink = cJSON_Print(o); /* cli_train_embedded: the same JSON as a string */
    cJSON_Delete(o);
    if (*sink) return 0;
    fprintf(stderr, "dgnn %s: the results' JSON: out of memory\n", cmd);
    return 1;
}

/* The per-rank split of a distributed run. */
static void print_dist(const dgnn_event_train_result *res) {
    const dgnn_dist_result *d = &res->dist;
    printf("\n%-5s %12s %10s %10s %10s %10s %12s\n", "rank", "events", "compute s", "sample s", "ahead s", "comm s",
           "MB sent");
    for (int q = 0; q < d->ranks; q++)
        printf("%-5d %12lld %10.2f %10.2f %10.2f %10.2f %12.1f\n", q, (long long)d->train_events[q],
               d->compute_seconds[q], d->sample_seconds[q], d->prefetch_seconds[q], d->comm_seconds[q],
               (double)d->bytes_sent[q] / 1e6);
    printf("per epoch, all ranks: state rows %.1f MB, gradients %.1f MB", d->state_bytes_per_epoch / 1e6,
           d->grad_bytes_per_epoch / 1e6);
    if (d->windows > 0) printf("; %lld windows, mean cut fraction %.3f", (long long)d->windows, d->cut_fraction);
    printf("\n%lld steps in all (%lld epoch%s)\n", (long long)d->steps, (long long)res->num_epochs,
           res->num_epochs == 1 ? "" : "s");
}

/* The training time by op family (prof.h), each without the families inside it, and the
 * rest (gathers, the predictor, the loss, ...). */
static void print_op_shares(const double *sec, const dgnn_event_train_result *res, int dist) {
    double train = 0, sum = 0;
    for (int64_t i = 0; i < res->num_epochs; i++) train += res->epochs[i].train_seconds;
    printf("\ntraining time by op family%s (%.2f s):\n", dist ? " on rank 0" : "", train);
    for (int k = 0; k < DGNN_PROF_N; k++) {
        sum += sec[k];
        printf("  %-16s %9.3f s %6.1f%%\n", dgnn_prof_name((dgnn_prof_op)k), sec[k], train > 0 ? 100 * sec[k] / train : 0);
    }
    const double rest = train - sum > 0 ? train - sum : 0;
    printf("  %-16s %9.3f s %6.1f%%\n", "other", rest, train > 0 ? 100 * rest / train : 0);
}

enum { MODE_TRAIN = 0, MODE_BENCH = 1, MODE_EVAL = 2 };

/* A command's own help from train's option table: its options only, in its order, with
 * its text where train's would mislead (NULL: train's, less a "dgnn eval: " prefix). The
 * command line is still parsed with train's whole table (eval's holds the training run's
 * saved settings); what the command does not read is refused by name. */
typedef struct {
    const char *name, *help;
} own_opt;

/* `dgnn eval --help` */
static const own_opt k_eval_opts[] = {
    {"checkpoint", "the folder a dgnn train --checkpoint DIR run wrote (required): the model evaluated and the "
                   "run's settings"},
    {"on", NULL}, {"protocol", NULL}, {"tgb-negatives", NULL}, {"tgb-k", NULL}, {"eval-negatives", NULL},
    {"eval-max-events", "evaluate each split on its first N events only (quick runs; 0: all)"},
    {"emb-out", NULL}, {"emb-at", NULL}, {"emb-time", NULL}, {"score-at", NULL}, {"score-out", NULL},
    {"data", "the training run's data (default: the file the checkpoint names, or the built-in stream it "
             "trained on)"},
    {"format", NULL}, {"columns", NULL}, {"bipartite", NULL}, {"not-bipartite", NULL}, {"edge-feat", NULL},
    {"node-feat", NULL}, {"threads", NULL}, {"out", "write the results as JSON"},
    {"dump-config", "write the run's effective settings as YAML (dgnn: layout)"}, {"quiet", NULL},
    {NULL, NULL},
};

/* The training settings dgnn eval takes typed again (its settings are the training run's,
 * from the checkpoint): each is compared with the checkpoint's fingerprint (event_ckpt.c),
 * so that one that changes the model, the seed or the split is refused there; and
 * --device, which eval says it leaves unused (it runs on the CPU). */
static const char *const k_eval_settings[] = {
    "model", "preset", "batch", "lr", "seed", "mem-dim", "time-dim", "emb-dim", "neighbors", "heads", "attention",
    "sampler", "negatives", "dropout", "max-batches", "mail-slots", "split", "new-node-frac", "device", NULL,
};

/* Whether dgnn eval reads train's option `name`: one of its own or a setting it checks.
 * What it does not read (--epochs, --patience, --device, ...) is refused when typed. */
static int eval_reads(const char *name) {
    for (const own_opt *w = k_eval_opts; w->name; w++)
        if (strcmp(w->name, name) == 0) return 1;
    for (const char *const *q = k_eval_settings; *q; q++)
        if (strcmp(*q, name) == 0) return 1;
    return 0;
}

/* Whether the training run's settings (argv's first saved tokens, args_keep's "--name"
 * "value" pairs) ran TGB's protocol, which holds no nodes out unless --new-node-frac is
 * given: dgnn eval's split is that run's, whatever --protocol it is given. */
static int saved_ran_tgb(int saved, char **argv) {
    const char *list = NULL;
    for (int i = 0; i + 1 < saved; i++)
        if (strcmp(argv[i], "--protocol") == 0) list = argv[i + 1];
    dgnn_eval_protocol p = {0};
    return list && cli_protocol_parse("eval", list, &p) == 0 && p.tgb;
}

/* `dgnn bench train --help`: the training settings, no evaluation, no node task */
static const own_opt k_bench_opts[] = {
    {"config", NULL}, {"dump-config", NULL},
    {"model", "tgn (default), jodie, dyrep, apan (EdgeBank trains nothing: no bench); evolvegcn-o|-h, tgcn, ... "
              "(own flags: dgnn bench train --model evolvegcn-o --help)"},
    {"data", NULL}, {"format", NULL}, {"columns", NULL}, {"bipartite", NULL}, {"not-bipartite", NULL},
    {"edge-feat", NULL}, {"node-feat", NULL}, {"preset", NULL},
    {"epochs", "training epochs (1)"}, {"batch", NULL}, {"lr", NULL}, {"seed", NULL}, {"threads", NULL},
    {"device", "cpu (default) or cuda[:N]: train on GPU N (one process, or --dist strict's and depbloom's ranks, "
               "each on its local rank's GPU with cuda); needs a -DDGNN_CUDA=ON build; NOT YET VERIFIED ON HARDWARE"},
    {"mem-dim", NULL}, {"time-dim", NULL}, {"emb-dim", NULL}, {"neighbors", NULL},
    {"heads", NULL}, {"mail-slots", NULL}, {"dropout", NULL}, {"sampler", NULL}, {"negatives", NULL},
    {"attention", NULL}, {"split", "time (70/15/15 by time quantiles) or ext_roll (TGL's edges.csv column; the "
                                   "default when the data has it): the training events timed"},
    {"new-node-frac", "fraction of nodes held out as new test nodes, their events out of training (0.1)"},
    {"max-batches", "stop each training epoch after N batches (0: all); --step-curve: the steps timed at each "
                    "size (0: 30; at least 5)"},
    {"step-curve", "seconds per step and per event at each batch size of LIST (e.g. 200,600,1200,2400,4800), each "
                   "over its first --max-batches steps (30), the median of the gaps after the first 3"},
    {"checkpoint", NULL}, {"resume", NULL}, {"dist", NULL}, {"comm-timeout", NULL}, {"partition", NULL},
    {"window-events", NULL}, {"window-seconds", NULL}, {"refine", NULL}, {"critical-path", NULL},
    {"window-report", NULL}, {"cold-allgather", NULL}, {"no-prefetch", NULL},
    {"out", "write the results as JSON; with --step-curve the curve as step_curve (dgnn simulate --family event "
            "--measured reads it)"},
    {"curve", NULL},
    {"plot", "draw the training loss per epoch as SVG (no validation: its AP panel stays empty)"},
    {"quiet", NULL},
    {NULL, NULL},
};

/* --help (or -h) before any "--" on the command line: own's help printed, 1; else 0 */
static int own_help(const arg_spec *train_spec, const arg_opt *opts, const own_opt *own_opts, int argc, char **argv) {
    int asked = 0;
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0 && !asked; i++)
        asked = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
    if (!asked) return 0;
    arg_opt own[96];
    size_t k = 0;
    for (const own_opt *w = own_opts; w->name && k + 1 < sizeof own / sizeof own[0]; w++)
        for (const arg_opt *o = opts; o->name; o++) {
            if (strcmp(o->name, w->name) != 0) continue;
            own[k] = *o;
            if (w->help) own[k].help = w->help;
            else if (strncmp(o->help, "dgnn eval: ", 11) == 0) own[k].help = o->help + 11;
            k++;
        }
    own[k] = (arg_opt){NULL, 0, NULL, NULL, NULL};
    arg_spec spec = *train_spec;
    spec.opts = own;
    args_print_help(&spec);
    return 1;
}

/* dgnn eval without --data: the checkpoint's run trained on the built-in stream */
static const char *const k_eval_builtin = "the checkpoint's training run had no --data: dgnn eval evaluates on the "
                                          "built-in synthetic stream it trained on, which would ignore it";

/* --emb-out: the embeddings as (n, dim) float32 .npy; 0, or 1 with a message */
static int write_embeddings(const char *path, const dgnn_emb_request *e) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_write_npy_f32(path, e->out, e->n, e->dim, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn eval: --emb-out: %s\n", err.msg);
        return 1;
    }
    dgnn_log("wrote %lld embeddings of width %lld to %s\n", (long long)e->n, (long long)e->dim, path);
    return 0;
}

/* `dgnn train`, `dgnn bench train` (bench: one epoch of training only by default, then the
 * throughput table against sgemm peak measured in the same run) and `dgnn eval` (the same
 * flags as the training run, a checkpoint evaluated without training: argv's first saved
 * tokens are the training run's settings from the checkpoint, the rest the flags typed). */
static int train_run(int argc, char **argv, int saved, int mode, const cli_train_embed *embed, int *lock) {
    const int bench = mode == MODE_BENCH, eval = mode == MODE_EVAL;
    cli_load_flags lf = {0};
    cli_node_flags nf = CLI_NODE_FLAGS_INIT;
    const char *model = "tgn", *data = NULL, *preset = NULL, *out = NULL, *ckpt = NULL;
    const char *sampler = NULL, *negs = NULL, *attn = NULL, *dist = NULL, *split = NULL, *device = NULL;
    int64_t window_events = CLI_UNSET, refine = CLI_UNSET;
    double window_seconds = 0;
    int partition = 0, critical_path = 0, no_prefetch = 0, cold_allgather = 0;
    const char *window_report = NULL, *curve = NULL, *plot = NULL, *step_curve = NULL;
    double comm_timeout = CLI_UNSET_F;
    int64_t slots = CLI_UNSET, epochs = CLI_UNSET, batch = CLI_UNSET, threads = 0, patience = CLI_UNSET,
            evalneg = CLI_UNSET, seed = 0, mem = CLI_UNSET, tdim = CLI_UNSET, emb = CLI_UNSET, nbrs = CLI_UNSET,
            heads = CLI_UNSET, max_batches = 0, max_eval = 0;
    double lr = CLI_UNSET_F, dropout = CLI_UNSET_F, new_frac = CLI_UNSET_F;
    int resume = 0, quiet = 0, no_eval = 0;
    const char *protocol = NULL, *tgbneg = NULL, *on = NULL, *emb_out = NULL, *emb_at = NULL, *emb_time = NULL;
    const char *score_at = NULL, *score_out = NULL;
    int64_t tgbk = CLI_UNSET;
    const char *config = NULL, *dump_config = NULL;
    arg_opt opts[] = {
        {"config", ARG_STRING, &config, "FILE", "settings from a YAML file: TGL's layout (sampling, memory, gnn, train, as TGL's config/TGN.yml) and/or dgnn: (these flags without --); flags typed here win; see configs/"},
        {"dump-config", ARG_STRING, &dump_config, "FILE", "write the run's effective settings as YAML (dgnn: layout; --config FILE runs it again)"},
        {"model", ARG_STRING, &model, "M", "tgn (default), jodie, dyrep, apan, edgebank (the baseline: no training); evolvegcn-o|-h, tgcn, gcrn-gru, wdgcn, gcn (own flags: --model evolvegcn-o --help)"},
        CLI_NODE_OPTS(nf),
        {"data", ARG_STRING, &data, "FILE", "dataset (any format); default: the built-in synthetic stream"},
        CLI_LOAD_OPTS(lf),
        {"preset", ARG_STRING, &preset, "P", "tgn-paper (the TGN code's defaults; default for tgn, jodie, dyrep) or tgl (TGL's TGN.yml, APAN.yml for apan; default for apan)"},
        {"epochs", ARG_INT, &epochs, "N", "training epochs (tgn-paper: 10)", ARG_IN(1, CLI_MAX_EPOCHS)},
        {"batch", ARG_INT, &batch, "B", "events per batch (tgn-paper: 200, tgl: 600)", ARG_IN(1, CLI_MAX_BATCH)},
        {"lr", ARG_DOUBLE, &lr, "X", "Adam learning rate (1e-4)", ARG_IN_OPEN_LO(0, CLI_MAX_LR)},
        {"seed", ARG_INT, &seed, "S", "seed of initialisation, negatives and dropout (0)", ARG_MIN(0)},
        {"threads", ARG_INT, &threads, "T", "OpenMP threads (default: all cores)", ARG_IN(1, CLI_MAX_THREADS)},
        {"device", ARG_STRING, &device, "D", "cpu (default) or cuda[:N]: train and evaluate on GPU N (tgn, jodie, dyrep, apan; one process, or --dist strict's and depbloom's ranks, each on its local rank's GPU with cuda, the gradients and state rows moved by NCCL where each rank has a GPU of its own, else through the host (--critical-path's hot and cold rows: through the host); needs a -DDGNN_CUDA=ON build; NOT YET VERIFIED ON HARDWARE)"},
        {"patience", ARG_INT, &patience, "N", "early stopping: epochs without better val AP (5)", ARG_IN(1, CLI_MAX_EPOCHS)},
        {"eval-negatives", ARG_INT, &evalneg, "K", "negatives per test event for MRR (9; 0: no MRR; at most the candidate nodes)", ARG_IN(0, 10000)},
        {"mem-dim", ARG_INT, &mem, "N", "memory width (tgn-paper 172, tgl 100)", ARG_IN(1, CLI_MAX_DIM)},
        {"time-dim", ARG_INT, &tdim, "N", "time encoding width (100)", ARG_IN(1, CLI_MAX_DIM)},
        {"emb-dim", ARG_INT, &emb, "N", "embedding width (tgn-paper: = mem-dim, as the TGN code)", ARG_IN(1, CLI_MAX_DIM)},
        {"neighbors", ARG_INT, &nbrs, "K", "sampled neighbours per node (10; tgn, dyrep, apan)", ARG_IN(1, 1000)},
        {"heads", ARG_INT, &heads, "H", "attention heads (2; must divide the attention width; tgn, dyrep, apan)", ARG_IN(1, 64)},
        {"mail-slots", ARG_INT, &slots, "N", "APAN: mails kept per node (10; the other models keep one)", ARG_IN(1, 1024)},
        {"dropout", ARG_DOUBLE, &dropout, "P", "attention dropout (tgn-paper 0.1, tgl 0.2, apan's tgl 0.1; tgn, dyrep, apan)", ARG_IN_OPEN_HI(0, 1)},
        {"sampler", ARG_STRING, &sampler, "S", "recent (default) or uniform neighbour sampling (tgn, dyrep, apan)"},
        {"negatives", ARG_STRING, &negs, "N", "dst (destination set, tgn-paper) or all (all nodes, tgl)"},
        {"attention", ARG_STRING, &attn, "A", "tgn (MultiheadAttention + MergeLayer) or tgl (TGL's layer): the embedding layer of tgn and dyrep"},
        {"split", ARG_STRING, &split, "S", "time (70/15/15 by time quantiles) or ext_roll (TGL's edges.csv column; the default when the data has it); new nodes are held out either way"},
        {"new-node-frac", ARG_DOUBLE, &new_frac, "F", "fraction of nodes held out as new test nodes (0.1)", ARG_IN_OPEN_HI(0, 1)},
        {"max-batches", ARG_INT, &max_batches, "N", "stop each training epoch after N batches (quick runs, --task node's decoder epochs too; 0: all)", ARG_MIN(0)},
        {"eval-max-events", ARG_INT, &max_eval, "N", "evaluate each split on its first N events only (quick runs, --task node's decoder too; 0: all)", ARG_MIN(0)},
        {"no-eval", ARG_FLAG, &no_eval, NULL, "skip validation and test (timing the training loop)"},
        {"protocol", ARG_STRING, &protocol, "LIST", "evaluation beside the TGN code's (tgn, always): dyglib (test AP/AUC under random, historical and inductive negatives), tgb (one-vs-many MRR, Hits@k against fixed lists; early stopping on its val MRR); e.g. tgn,dyglib,tgb"},
        {"tgb-negatives", ARG_STRING, &tgbneg, "PREFIX", "TGB lists PREFIX_val_ns.npy and PREFIX_test_ns.npy: read, or generated and written when absent (default: beside --data)"},
        {"tgb-k", ARG_INT, &tgbk, "K", "candidates per positive of a generated TGB list (100)", ARG_IN(1, 100000)},
        {"on", ARG_STRING, &on, "SPLIT", "dgnn eval: test (default; as the training run tested), val or train (memory rebuilt over the training events)"},
        {"emb-out", ARG_STRING, &emb_out, "NPY", "dgnn eval: write node embeddings (rows in request order, float32) after the evaluation"},
        {"emb-at", ARG_STRING, &emb_at, "CSV", "dgnn eval: the embeddings' 'node,time' pairs, one per line (ids as in the data)"},
        {"emb-time", ARG_STRING, &emb_time, "T", "dgnn eval: every node's embedding at time T (instead of --emb-at)"},
        {"score-at", ARG_STRING, &score_at, "CSV", "dgnn eval: 'src,dst,time' pairs (ids as in the data) to score from the memory the evaluation ended with"},
        {"score-out", ARG_STRING, &score_out, "NPY", "dgnn eval: write the pairs' scores (the link predictor's probability, float32 (n)) after the evaluation"},
        {"checkpoint", ARG_STRING, &ckpt, "DIR", "write a checkpoint after every epoch into DIR (one run at a time: a second one is refused)"},
        {"resume", ARG_FLAG, &resume, NULL, "continue from the checkpoint in --checkpoint DIR (needed when DIR holds one: a run afresh never replaces it)"},
        {"dist", ARG_STRING, &dist, "MODE", "multi-rank training under mpirun: strict (the baseline) or depbloom; none (the default): one process"},
        CLI_COMM_TIMEOUT_OPT(comm_timeout),
        {"partition", ARG_FLAG, &partition, NULL, "depbloom: temporally bounded spatial partitioning (METIS)"},
        {"window-events", ARG_INT, &window_events, "N", "depbloom: training events per partition window (10000; 2500 was more accurate on wikipedia, docs/depbloom.md)", ARG_MIN(1)},
        {"window-seconds", ARG_DOUBLE, &window_seconds, "S", "depbloom: partition windows of S time units instead (not with --window-events)", ARG_ABOVE(0)},
        {"refine", ARG_INT, &refine, "K", "depbloom: K micro-batches per step, each reading the memory the earlier"
                                                      " ones wrote (intra-batch memory refinement; 1: none, the default)", ARG_IN(1, 1024)},
        {"critical-path", ARG_FLAG, &critical_path, NULL, "depbloom: hot rows (far ends of cut events) sent after every step, overlapped; the next micro-batch sampled ahead on a worker thread"},
        {"window-report", ARG_STRING, &window_report, "CSV", "depbloom: rank 0 writes each window's events, cut, events per rank and bytes synchronised (and strict's at most) as CSV"},
        {"cold-allgather", ARG_FLAG, &cold_allgather, NULL, "with --critical-path: all-gather every written row at each window's end instead of fetching cold rows when read"},
        {"no-prefetch", ARG_FLAG, &no_prefetch, NULL, "with --critical-path: sample in the forward, not ahead (to measure what sampling ahead hides)"},
        {"out", ARG_STRING, &out, "FILE", "write the results as JSON"},
        {"curve", ARG_STRING, &curve, "FILE", "one JSON line per epoch as it ends (a killed run keeps its curve; emptied first unless --resume, which drops lines the checkpoint lacks; a line lost fails the run)"},
        {"plot", ARG_STRING, &plot, "FILE", "draw the learning curve (loss, validation AP per epoch) as SVG"},
        {"step-curve", ARG_STRING, &step_curve, "LIST", "bench train: seconds per step and per event at each batch size of LIST (e.g. 200,600,1200,2400,4800), each over its first --max-batches steps (30)"},
        {"quiet", ARG_FLAG, &quiet, NULL, "no progress bar"},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = bench ? "bench train" : eval ? "eval" : "train",
                     .usage = bench ? "dgnn bench train [--model tgn|jodie|dyrep|apan] [--data FILE] [options]"
                              : eval ? "dgnn eval --checkpoint DIR [--protocol LIST] [--on test|val|train] [--emb-out NPY "
                                       "--emb-at CSV|--emb-time T] [--out FILE]"
                                     : "dgnn train [--model tgn|jodie|dyrep|apan|edgebank] [--data FILE] [options]",
                     .summary = "Trains a memory-based temporal GNN with the TGN code's protocol: chronological\n"
                                "70/15/15 split, 10% of later nodes held out as new nodes, Adam, one negative per\n"
                                "event, early stopping on validation AP; prints validation per epoch and test AP,\n"
                                "AUC, new-node AP and MRR against random destinations. --protocol dyglib adds\n"
                                "DyGLib's historical and inductive negatives, --protocol tgb TGB's one-vs-many MRR\n"
                                "and Hits@k against fixed lists; --model edgebank is the \"seen before\" baseline\n"
                                "(README, \"Evaluation\"). Presets: tgn-paper (the TGN code's defaults; default for\n"
                                "tgn, jodie, dyrep) and tgl (TGL's TGN.yml, or APAN.yml for apan; default for apan).\n"
                                "Snapshot models (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn) have their own\n"
                                "flags: `dgnn train --model evolvegcn-o --help`.\n"
                                "Several workers: mpirun -np P dgnn train --dist strict|depbloom ... (one rank per\n"
                                "worker; --dist strict = global batch of P x --batch events, replicated memory).\n"
                                "--task node: then dynamic node classification of the events' labels (wikipedia's,\n"
                                "reddit's state change) by a decoder on the frozen model's source embeddings; test\n"
                                "AUC over all test events (n/a when the test events are of one class).\n"
                                "--config FILE.yml: settings from YAML, TGL's layout (configs/tgn.yml, jodie.yml,\n"
                                "apan.yml, tgn-paper.yml: the presets) or dgnn: (these flags without --); flags typed\n"
                                "here beat the file. --dump-config FILE.yml: the run's settings, to run it again.",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    if (eval)
        spec.summary = "Evaluates the checkpoint a `dgnn train --checkpoint DIR` run wrote, without training. The\n"
                       "training run's settings (model, sizes, data, seed, protocols) come from the checkpoint;\n"
                       "flags given here follow them (a setting that changes the model is refused). --on test\n"
                       "(default) starts from the state the run tested from and gives the run's test figures;\n"
                       "--emb-out writes node embeddings at given times. A checkpoint of one process only (not\n"
                       "of an mpirun --dist run).";
    if (bench)
        spec.summary = "Times the training of a memory-based temporal GNN: one epoch (--epochs N for more), no\n"
                       "validation or test. Prints the training's events/s, GFLOP/s against the sgemm peak\n"
                       "measured in the same run, peak RSS and, on the CPU, the training time by op family\n"
                       "(dense products, attention, GRU, ...). --step-curve LIST then times the steps at each\n"
                       "batch size of LIST; with --out its JSON holds the curve (step_curve), which `dgnn\n"
                       "simulate --family event --measured` reads as one worker's costs. The model's settings\n"
                       "and presets are dgnn train's; what only the evaluation reads (--protocol, --patience,\n"
                       "--eval-negatives, --eval-max-events) is refused. Several workers: mpirun -np P dgnn\n"
                       "bench train --dist strict|depbloom ... Snapshot models have their own flags: `dgnn\n"
                       "bench train --model evolvegcn-o --help`.";
    if ((eval || bench) && own_help(&spec, opts, eval ? k_eval_opts : k_bench_opts, argc, argv)) return 0;
    if (eval && args_given(opts, argc - saved, argv + saved, "config")) {
        fprintf(stderr, "dgnn eval: --config is dgnn train's: dgnn eval takes the training run's settings from the "
                        "checkpoint\n");
        return 2;
    }
    /* the command line as typed (--config's settings go before it) */
    const int typed_argc = argc;
    char **typed_argv = argv;
    if (cli_config_expand(&spec, &argc, &argv)) return 2; /* --config FILE: its settings as flags before argv's */
    const int file_argc = argc - typed_argc; /* argv[0, file_argc): the file's settings */
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    const char *cmdname = spec.cmd;
    /* what a checkpoint keeps of this command for dgnn eval: the settings, not the outputs,
     * the run's control, distribution or node-task flags */
    static const char *const not_kept[] = {"out", "checkpoint", "resume", "curve", "plot", "window-report", "quiet",
                                           "task", "node-epochs", "node-patience", "node-lr", "node-batch", "dist",
                                           "partition", "window-events", "window-seconds", "refine", "critical-path",
                                           "cold-allgather", "no-prefetch", "comm-timeout", "on", "emb-out", "emb-at",
                                           "emb-time", "score-at", "score-out", "no-eval", "config", "dump-config",
                                           NULL};
    static char kept_flags[8192];
    long kept_bytes = mode == MODE_TRAIN ? args_keep(&spec, argc, argv, not_kept, kept_flags, sizeof kept_flags) : -1;
    /* paths as absolute ones, so that dgnn eval finds them from another folder */
    for (long i = 0; kept_bytes > 0 && i < kept_bytes; i += (long)strlen(kept_flags + i) + 1) {
        static const char *const paths[] = {"--data", "--edge-feat", "--node-feat", NULL};
        const char *tok = kept_flags + i;
        int is_path = 0;
        for (const char *const *q = paths; *q; q++) is_path |= strcmp(tok, *q) == 0;
        const long v = i + (long)strlen(tok) + 1;
        char full[PATH_MAX];
        if (!is_path || v >= kept_bytes || !realpath(kept_flags + v, full)) continue;
        const long old = (long)strlen(kept_flags + v) + 1, add = (long)strlen(full) + 1;
        if (kept_bytes - old + add > (long)sizeof kept_flags) break;
        memmove(kept_flags + v + add, kept_flags + v + old, (size_t)(kept_bytes - v - old));
        memcpy(kept_flags + v, full, (size_t)add);
        kept_bytes += add - old;
    }
    if (!eval && (on || emb_out || emb_at || emb_time || score_at || score_out)) {
        fprintf(stderr, "dgnn %s: --on, --emb-out, --emb-at, --emb-time, --score-at and --score-out are dgnn eval's\n",
                cmdname);
        return 2;
    }
    if (eval && !ckpt) {
        fprintf(stderr, "dgnn eval: --checkpoint DIR is required (the folder a dgnn train --checkpoint run wrote)\n");
        return 2;
    }
    if (eval && (resume || curve || plot || dist)) {
        fprintf(stderr, "dgnn eval: --resume, --curve, --plot and --dist are dgnn train's\n");
        return 2;
    }
    if (emb_out && !emb_at == !emb_time) {
        fprintf(stderr, "dgnn eval: --emb-out needs one of --emb-at CSV or --emb-time T\n");
        return 2;
    }
    if (!score_at != !score_out) {
        fprintf(stderr, "dgnn eval: --score-at CSV and --score-out NPY go together\n");
        return 2;
    }
    if (!emb_out && (emb_at || emb_time)) {
        fprintf(stderr, "dgnn eval: --emb-at and --emb-time go with --emb-out NPY\n");
        return 2;
    }
    int eval_split = DGNN_SPLIT_TEST;
    if (on) {
        if (strcmp(on, "test") == 0) eval_split = DGNN_SPLIT_TEST;
        else if (strcmp(on, "val") == 0) eval_split = DGNN_SPLIT_VAL;
        else if (strcmp(on, "train") == 0) eval_split = DGNN_SPLIT_TRAIN;
        else {
            fprintf(stderr, "dgnn eval: --on: '%s' (test, val, train)\n", on);
            return 2;
        }
    }
    if (embed && (data || mode == MODE_BENCH || dist)) {
        fprintf(stderr, "dgnn %s: %s\n", cmdname, data ? "--data: the events are given as arrays (dgnn.train's data)"
                                               : dist ? "--dist: multi-rank training runs under mpirun, with the dgnn command"
                                                      : "only dgnn train runs in-process");
        return 2;
    }
    /* no --data: the built-in stream, or in-process the caller's events (cli_set_events_in_memory) */
    if (!data && (rc = cli_load_flags_unused_why(cmdname, &lf, eval && !embed ? k_eval_builtin : NULL)) != 0)
        return rc;

    dgnn_event_train_cfg c = dgnn_event_train_cfg_default();
    if (strcmp(model, "tgn") == 0 || strcmp(model, "edgebank") == 0) c.model.kind = DGNN_TGNN_TGN;
    else if (strcmp(model, "jodie") == 0) c.model.kind = DGNN_TGNN_JODIE;
    else if (strcmp(model, "dyrep") == 0) c.model.kind = DGNN_TGNN_DYREP;
    else if (strcmp(model, "apan") == 0) c.model.kind = DGNN_TGNN_APAN;
    else {
        fprintf(stderr, "dgnn %s: --model: unknown model '%s' (tgn, jodie, dyrep, apan, edgebank; snapshot models: "
                        "evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n", cmdname, model);
        return 2;
    }
    dgnn_tgnn_kind kind = c.model.kind;
    if (!preset) preset = dgnn_event_train_preset_default(kind);
    {
        dgnn_err perr;
        dgnn_err_clear(&perr);
        if (dgnn_event_train_preset(&c, preset, &perr) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: %s\n", cmdname, perr.msg);
            return 2;
        }
    }
    if (epochs != CLI_UNSET) c.epochs = epochs;
    if (batch != CLI_UNSET) c.batch = batch;
    if (CLI_GIVEN_F(lr)) c.lr = lr;
    if (patience != CLI_UNSET) c.patience = patience;
    if (evalneg != CLI_UNSET) c.eval_negatives = evalneg;
    if (mem != CLI_UNSET) c.model.mem_dim = mem;
    if (tdim != CLI_UNSET) c.model.time_dim = tdim;
    if (emb != CLI_UNSET) c.model.emb_dim = emb;
    else if (mem != CLI_UNSET && strcmp(preset, "tgn-paper") == 0) c.model.emb_dim = mem; /* the TGN code: emb = memory */
    /* the embedding is the (projected) memory: a differing --emb-dim is refused by the check below */
    if (kind != DGNN_TGNN_TGN && emb == CLI_UNSET) c.model.emb_dim = c.model.mem_dim;
    if (slots != CLI_UNSET) c.model.mail_slots = slots;
    if (nbrs != CLI_UNSET) c.model.neighbors = nbrs;
    if (heads != CLI_UNSET) c.model.heads = heads;
    if (CLI_GIVEN_F(dropout)) c.model.dropout = (float)dropout;
    if (CLI_GIVEN_F(new_frac)) c.split.new_node_frac = new_frac;
    if (split && strcmp(split, "time") && strcmp(split, "ext_roll")) {
        fprintf(stderr, "dgnn %s: --split: '%s' (time, ext_roll)\n", cmdname, split);
        return 2;
    }
    if (sampler) {
        if (strcmp(sampler, "recent") && strcmp(sampler, "uniform")) {
            fprintf(stderr, "dgnn %s: --sampler: '%s' (recent, uniform)\n", cmdname, sampler);
            return 2;
        }
        c.model.uniform_sampler = strcmp(sampler, "uniform") == 0;
    }
    if (negs) {
        if (strcmp(negs, "dst") && strcmp(negs, "all")) {
            fprintf(stderr, "dgnn %s: --negatives: '%s' (dst, all)\n", cmdname, negs);
            return 2;
        }
        c.neg = strcmp(negs, "all") == 0 ? DGNN_NEG_ALL : DGNN_NEG_DST;
    }
    if (attn) {
        if (strcmp(attn, "tgn") && strcmp(attn, "tgl")) {
            fprintf(stderr, "dgnn %s: --attention: '%s' (tgn, tgl)\n", cmdname, attn);
            return 2;
        }
        c.model.attn = strcmp(attn, "tgl") == 0 ? DGNN_ATTN_TGL : DGNN_ATTN_TGN;
    }
    c.edgebank = strcmp(model, "edgebank") == 0;
    if ((rc = cli_protocol_parse(cmdname, protocol, &c.protocol))) return rc;
    if (tgbk != CLI_UNSET) c.protocol.tgb_k = tgbk;
    /* dgnn eval: the training run's TGB lists are its own affair when --protocol drops tgb */
    const int tgb_typed = args_given(opts, argc - saved, argv + saved, "tgb-negatives") ||
                          args_given(opts, argc - saved, argv + saved, "tgb-k");
    if (tgb_typed && !c.protocol.tgb) {
        fprintf(stderr, "dgnn %s: --tgb-negatives and --tgb-k go with --protocol tgb\n", cmdname);
        return 2;
    }
    if (!c.protocol.tgb) tgbneg = NULL; /* a saved one, not evaluated (nor written by --dump-config) */
    /* TGB trains on every event of the training period: no nodes held out (dgnn eval: if
     * the training run ran TGB's protocol, whichever protocols are evaluated now) */
    if ((eval && saved > 0 ? saved_ran_tgb(saved, argv) : c.protocol.tgb) && !CLI_GIVEN_F(new_frac))
        c.split.new_node_frac = 0;
    c.seed = (uint64_t)seed;
    c.model.seed = (uint64_t)seed + 1;
    c.threads = threads;
    if ((rc = cli_device_parse(cmdname, device, &c.use_cuda, &c.cuda_device))) return rc;
    if (c.use_cuda && strcmp(device, "cuda") == 0 && dist && strcmp(dist, "none") != 0)
        c.cuda_device = DGNN_CUDA_LOCAL_RANK; /* each rank its local rank's GPU */
    if (eval && c.use_cuda) { /* a checkpoint is the same file from either device */
        dgnn_log("dgnn eval runs on the CPU (--device %s not used)\n", device);
        c.use_cuda = 0;
    }
    c.max_train_batches = max_batches;
    c.max_eval_events = max_eval;
    c.skip_eval = no_eval || bench;
    if (bench && epochs == CLI_UNSET) c.epochs = 1;
    c.checkpoint = ckpt;
    c.resume = resume;
    if (kept_bytes > 0) c.run_flags = kept_flags, c.run_flags_bytes = kept_bytes;
    if (step_curve && !bench) {
        fprintf(stderr, "dgnn %s: --step-curve goes with dgnn bench train\n", cmdname);
        return 2;
    }
    int64_t step_sizes[CLI_STEP_SIZES_MAX];
    const int n_steps = step_curve ? cli_step_sizes(cmdname, step_curve, step_sizes) : 0;
    if (n_steps < 0) return 2;
    if (eval && c.skip_eval) {
        fprintf(stderr, "dgnn eval: --no-eval leaves nothing to do\n");
        return 2;
    }
    c.progress = !quiet;
    if (resume && !ckpt) {
        fprintf(stderr, "dgnn %s: --resume needs --checkpoint DIR\n", cmdname);
        return 2;
    }
    if (dist) {
        if (strcmp(dist, "strict") == 0) c.dist.mode = DGNN_DIST_STRICT;
        else if (strcmp(dist, "depbloom") == 0) c.dist.mode = DGNN_DIST_DEPBLOOM;
        else if (strcmp(dist, "none") != 0) {
            fprintf(stderr, "dgnn %s: --dist: '%s' (strict, depbloom, none)\n", cmdname, dist);
            return 2;
        }
    }
    const int node_task = cli_node_task(spec.cmd, &nf, bench || eval, c.dist.mode != DGNN_DIST_NONE);
    if (node_task < 0) return 2;
    if ((no_prefetch || cold_allgather) && !critical_path) {
        fprintf(stderr, "dgnn %s: --no-prefetch and --cold-allgather go with --critical-path\n", cmdname);
        return 2;
    }
    if ((partition || window_events != CLI_UNSET || window_seconds > 0 || refine != CLI_UNSET || critical_path ||
         window_report) &&
        c.dist.mode != DGNN_DIST_DEPBLOOM) {
        fprintf(stderr, "dgnn %s: --partition, --window-*, --refine and --critical-path need --dist depbloom\n", cmdname);
        return 2;
    }
    /* one window rule: seconds would win silently */
    if (window_seconds > 0 && window_events != CLI_UNSET) {
        fprintf(stderr, "dgnn %s: give --window-events N or --window-seconds S, not both\n", cmdname);
        return 2;
    }
    /* under mpirun every process would train alone on all the data and write the same
     * outputs (dgnn eval reads one process's checkpoints; in-process callers are one) */
    if (!embed && c.dist.mode == DGNN_DIST_NONE &&
        cli_refuse_copies(cmdname, eval ? "dgnn eval runs in one process, and each would evaluate alone and write the "
                                          "same outputs: run it without mpirun"
                                        : "without --dist each would train alone on all the data and write the same "
                                          "outputs: give --dist strict or --dist depbloom, or run one process"))
        return 2;
    c.dist.partition = partition;
    c.dist.window_events = window_events != CLI_UNSET ? window_events : 10000;
    c.dist.window_seconds = window_seconds;
    c.dist.refine = refine != CLI_UNSET ? refine : 1; /* K micro-batches per step: 1, none */
    c.dist.critical_path = critical_path;
    c.dist.no_prefetch = no_prefetch;
    c.dist.cold_allgather = cold_allgather;
    c.dist.window_report = window_report;
    if (bench && c.edgebank) {
        fprintf(stderr, "dgnn bench train: --model edgebank trains nothing: there is no training to time (dgnn "
                        "train --model edgebank evaluates it)\n");
        return 2;
    }
    if (c.edgebank && no_eval) {
        fprintf(stderr, "dgnn %s: --model edgebank trains nothing: with --no-eval it would do nothing\n", cmdname);
        return 2;
    }
    /* A setting the run never reads would be ignored (and recorded in --out as if used):
     * refused when typed, or when --config's dgnn: section sets it to another value than the
     * preset's (a --dump-config file writes every setting, those the run leaves unread at
     * the preset's). TGL's sections are never refused: TGL's own files set keys a model
     * leaves unread (JODIE.yml's dropout). Which model reads what: the library's table
     * (dgnn_event_train_flag_check); what a mode reads: here. dgnn eval's settings are the
     * training run's, checked when it trained; typed, what eval does not read is refused. */
    if (eval) { /* one that repeats the training run's value changes nothing: the train command reused */
        for (const arg_opt *o = opts; o->name; o++) {
            const char *typed = eval_reads(o->name) ? NULL : args_value(opts, argc - saved, argv + saved, o->name);
            const char *was = typed ? args_value(opts, saved, argv, o->name) : NULL;
            if (!typed || (was && strcmp(was, typed) == 0)) continue;
            char had[256] = "";
            if (was) snprintf(had, sizeof had, " (its --%s%s%s)", o->name, *was ? " " : "", was);
            fprintf(stderr, "dgnn eval: --%s%s%s is dgnn train's, which dgnn eval does not read: it evaluates the "
                            "checkpoint without training, with the training run's settings%s; its own flags: dgnn "
                            "eval --help\n", o->name, *typed ? " " : "", typed, had);
            return 2;
        }
    } else {
        dgnn_event_train_cfg p = dgnn_event_train_cfg_default(); /* the preset's values */
        p.model.kind = kind;
        dgnn_event_train_preset(&p, preset, NULL);
        static const char *const no_eval_why = "dgnn bench train never evaluates: it times the training only";
        const char *const no_dist_why = c.dist.mode == DGNN_DIST_NONE ? "a multi-rank setting: it applies with --dist "
                                                                        "strict or depbloom, under mpirun" : NULL;
        const struct {
            const char *flag;
            int differs;     /* from the preset's value */
            const char *why; /* the mode leaves it unread; NULL: the model's table decides */
        } maybe_unread[] = {
            {"epochs", c.epochs != p.epochs, NULL},
            {"lr", c.lr != p.lr, NULL},
            {"patience", c.patience != p.patience, bench ? no_eval_why : NULL},
            {"max-batches", c.max_train_batches != 0, NULL},
            {"mem-dim", c.model.mem_dim != p.model.mem_dim, NULL},
            {"time-dim", c.model.time_dim != p.model.time_dim, NULL},
            {"emb-dim", c.model.emb_dim != p.model.emb_dim, NULL},
            {"neighbors", c.model.neighbors != p.model.neighbors, NULL},
            {"sampler", c.model.uniform_sampler != p.model.uniform_sampler, NULL},
            {"heads", c.model.heads != p.model.heads, NULL},
            {"dropout", c.model.dropout != p.model.dropout, NULL},
            {"attention", c.model.attn != p.model.attn, NULL},
            {"mail-slots", c.model.mail_slots != p.model.mail_slots, NULL},
            {"comm-timeout", 1, no_dist_why},
            {"protocol", c.protocol.dyglib || c.protocol.tgb, bench ? no_eval_why : NULL},
            {"eval-negatives", c.eval_negatives != p.eval_negatives, bench ? no_eval_why : NULL},
            {"eval-max-events", c.max_eval_events != 0, bench ? no_eval_why : NULL},
            {"no-eval", no_eval, bench ? no_eval_why : NULL},
        };
        for (size_t i = 0; i < sizeof maybe_unread / sizeof maybe_unread[0]; i++) {
            const char *flag = maybe_unread[i].flag;
            const int typed = args_given(opts, typed_argc, typed_argv, flag);
            if (!typed && !(maybe_unread[i].differs && args_given(opts, file_argc, argv, flag) &&
                            cli_config_dgnn_sets(flag)))
                continue;
            dgnn_err ferr;
            dgnn_err_clear(&ferr);
            if (maybe_unread[i].why) dgnn_err_set(&ferr, DGNN_EINVAL, "--%s: %s", flag, maybe_unread[i].why);
            else if (dgnn_event_train_flag_check(&c, flag, &ferr) == DGNN_OK) continue;
            fprintf(stderr, "dgnn %s: %s%s%s%s\n", cmdname, ferr.msg, typed ? "" : " (set by the dgnn: section of ",
                    typed ? "" : config, typed ? "" : ")");
            return 2;
        }
    }
    /* what needs no data (heads dividing the width, emb-dim = mem-dim but for tgn, ...) is
     * told before the data is loaded */
    dgnn_err cerr;
    dgnn_err_clear(&cerr);
    if (dgnn_event_train_cfg_check(&c, &cerr) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", spec.cmd, cerr.msg);
        return 2;
    }
    cli_comm_timeout(comm_timeout);
    if (c.dist.mode != DGNN_DIST_NONE) {
        dgnn_comm_init(&argc, &argv);
        if (dgnn_comm_rank() != 0) c.progress = 0;
        /* what decides the collectives below and the refusals before training, compared
         * first: a rank launched with its own options (mpirun's A : B) stops with the rest */
        dgnn_ckpt_run g;
        dgnn_ckpt_run_init(&g);
        dgnn_ckpt_run_set(&g, "command", "%s", cmdname);
        dgnn_ckpt_run_set(&g, "dist", "%s", dist);
        dgnn_ckpt_run_set(&g, "partition", "%d", partition);
        dgnn_ckpt_run_set(&g, "checkpoint", "%s", ckpt ? "given" : "none");
        dgnn_ckpt_run_set(&g, "resume", "%d", resume);
        dgnn_ckpt_run_set(&g, "protocol_tgb", "%d", c.protocol.tgb);
        dgnn_ckpt_run_set(&g, "tgb_negatives", "%s", tgbneg ? "given" : "none");
        dgnn_ckpt_run_set(&g, "data", "%s", data ? "given" : "the built-in stream");
        dgnn_ckpt_run_set(&g, "device", "%s", c.use_cuda ? "cuda" : "cpu");
        dgnn_ckpt_run_set(&g, "window_report", "%s", window_report ? "given" : "none");
        dgnn_ckpt_run_set(&g, "step_curve", "%s", step_curve ? step_curve : "none");
        /* rank 0 writes every output: one given to another rank alone would be dropped */
        char outs[64];
        snprintf(outs, sizeof outs, "%s%s%s%s", out ? " --out" : "", curve ? " --curve" : "", plot ? " --plot" : "",
                 dump_config ? " --dump-config" : "");
        dgnn_ckpt_run_set(&g, "outputs", "%s", outs[0] ? outs + 1 : "none");
        if ((rc = cli_ranks_agree(cmdname, &g))) return rc;
    }
    /* TGB's lists: read where they are, else generated and written there */
    char tgb_val[4200], tgb_test[4200];
    if (c.protocol.tgb) {
        if ((rc = cli_tgb_paths(cmdname, tgbneg, embed ? embed->source : data, tgb_val, tgb_test, sizeof tgb_val))) {
            if (c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
            return rc;
        }
        c.protocol.tgb_val = tgb_val, c.protocol.tgb_test = tgb_test;
    }
    /* ---- outputs: every path this run writes is checked before any work (rank 0
     * writes them all; every rank gets the verdict), and against what it reads: dgnn
     * eval's checkpoint file, TGB's lists where they exist ---- */
    {
        char ckfile[4200] = "";
        if (ckpt) dgnn_ckpt_dir_path(ckfile, sizeof ckfile, ckpt);
        const int tgb = c.protocol.tgb;
        const cli_output outs[] = {{"--out", out, CLI_OUT_FILE},
                                   {"--checkpoint", eval ? NULL : ckpt, CLI_OUT_FOLDER},
                                   {"--window-report", window_report, CLI_OUT_FILE},
                                   {"--curve", curve, CLI_OUT_FILE},
                                   {"--plot", plot, CLI_OUT_FILE},
                                   {"--emb-out", emb_out, CLI_OUT_FILE},
                                   {"--dump-config", dump_config, CLI_OUT_FILE},
                                   {"--score-out", score_out, CLI_OUT_FILE},
                                   {"--data", embed ? embed->source : data, CLI_IN},
                                   {"--config", config, CLI_IN},
                                   {"--emb-at", emb_at, CLI_IN},
                                   {"--score-at", score_at, CLI_IN},
                                   {"--checkpoint", eval ? ckfile : NULL, CLI_IN},
                                   {"--tgb-negatives", tgb ? tgb_val : NULL, tgb && access(tgb_val, F_OK) == 0 ? CLI_IN : CLI_OUT_FILE},
                                   {"--tgb-negatives", tgb ? tgb_test : NULL, tgb && access(tgb_test, F_OK) == 0 ? CLI_IN : CLI_OUT_FILE}};
        if (cli_check_outputs(cmdname, outs, (int)(sizeof outs / sizeof outs[0]))) {
            if (c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
            return 2;
        }
    }
    /* one run at a time in a checkpoint folder, and a run afresh never replaces the
     * checkpoint there: rank 0, which writes it, locks it for the run's lifetime (released
     * by train_main, or by the kernel when the process dies) and every rank gets the verdict */
    if (ckpt && !eval) {
        int32_t bad = dgnn_comm_rank() == 0 ? cli_ckpt_take(cmdname, ckpt, resume, lock) : 0;
        dgnn_comm_bcast(&bad, sizeof bad, 0);
        if (bad) {
            if (c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
            return 2;
        }
    }
    /* combinations that can never work, told before the data is read: every rank has the
     * same flags (cli_ranks_agree) and process count, so all stop alike and none waits */
    {
        char why[160] = "";
        if (c.dist.mode == DGNN_DIST_DEPBLOOM && !c.dist.partition)
            snprintf(why, sizeof why, "--dist depbloom needs --partition (the other techniques build on it)");
        else if (c.dist.mode != DGNN_DIST_NONE && dgnn_comm_size() > DGNN_DIST_MAX_RANKS)
            snprintf(why, sizeof why, "--dist: at most %d ranks (this job has %d)", DGNN_DIST_MAX_RANKS,
                     dgnn_comm_size());
        if (why[0]) {
            if (dgnn_comm_rank() == 0) fprintf(stderr, "dgnn %s: %s\n", cmdname, why);
            if (c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
            return 2;
        }
    }
    /* rank 0 writes the curve (checked above; should emptying it fail now, training goes
     * on without it rather than leave the other ranks waiting) */
    if (curve && (c.dist.mode == DGNN_DIST_NONE || dgnn_comm_rank() == 0)) {
        if (cli_curve_start(bench ? "bench train" : "train", curve, resume) == 0) {
            c.on_epoch = curve_line;
            c.on_epoch_ctx = (void *)curve;
        } else if (c.dist.mode == DGNN_DIST_NONE) {
            return 2;
        }
    }
    embed_epoch_ctx hook = {c.on_epoch ? curve : NULL, embed, 0};
    if (embed) {
        c.on_epoch = embed_epoch, c.on_epoch_ctx = &hook;
        c.stop = &hook.stop;
        c.interrupt = embed->interrupt;
    }
    /* ---- end of the output checks ---- */

    dgnn_events ev;
    const char *dataset = data ? data : "builtin-synthetic";
    const int own_ev = !embed; /* cli_train_embedded's events are the caller's */
    if (embed) {
        ev = *embed->events;
        dataset = embed->dataset ? embed->dataset : "arrays";
    } else if (data) {
        rc = cli_load(cmdname, data, &lf, &ev);
        /* under mpirun a rank that could not read its file stops every rank (each sees only
         * its own file: one may be missing or damaged where the others' is fine) */
        if (c.dist.mode != DGNN_DIST_NONE && (rc = cli_ranks_loaded(cmdname, rc)) != 0) {
            dgnn_comm_finalize();
            return rc;
        }
        if (rc) return rc;
    } else {
        dgnn_err gerr;
        dgnn_err_clear(&gerr);
        if (dgnn_event_builtin_dataset(&ev, &gerr) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: built-in dataset: %s\n", cmdname, gerr.msg);
            return 1;
        }
        if (eval)
            dgnn_log("the checkpoint's run had no --data: evaluating on the built-in synthetic stream (60,000 events, "
                     "2,000 nodes)\n");
        else
            dgnn_log("no --data: training on the built-in synthetic stream (60,000 events, 2,000 nodes)\n");
    }
    if ((rc = cli_split_mode(cmdname, &c.split.mode, split, &ev, dataset)) != 0) {
        if (own_ev) dgnn_events_free(&ev);
        return rc;
    }
    if (dump_config && (c.dist.mode == DGNN_DIST_NONE || dgnn_comm_rank() == 0)) {
        const cli_dump_extra dx = {model, preset, data, tgbneg, &lf, &nf, no_eval, comm_timeout};
        if (cli_config_dump(cmdname, dump_config, &c, &dx)) {
            dgnn_events_free(&ev);
            return 1;
        }
    }
    if (node_task && !ev.label) {
        fprintf(stderr, "dgnn train: --task node: %s has no event labels (it needs a label per event, as the "
                        "state_label column of JODIE's wikipedia.csv and reddit.csv)\n", dataset);
        if (own_ev) dgnn_events_free(&ev);
        return 2;
    }
    dgnn_emb_request embq = {0};
    int32_t *emb_nodes = NULL;
    double *emb_t = NULL;
    if (emb_out) {
        if ((rc = cli_emb_request(cmdname, emb_at, emb_time, &ev, &emb_nodes, &emb_t, &embq.n))) {
            if (own_ev) dgnn_events_free(&ev);
            return rc;
        }
        embq.nodes = emb_nodes, embq.t = emb_t;
    }
    /* cli_eval_embedded's requests (dense ids, checked by dgnn_event_eval) */
    const int emb_in = embed && embed->emb_n > 0 && embed->emb_out;
    if (emb_in) embq.nodes = embed->emb_nodes, embq.t = embed->emb_t, embq.n = embed->emb_n;
    dgnn_score_request scq = {0};
    int32_t *sc_src = NULL, *sc_dst = NULL;
    double *sc_t = NULL;
    float *sc_out = NULL;
    if (score_at) {
        if ((rc = cli_score_request(cmdname, score_at, &ev, &sc_src, &sc_dst, &sc_t, &scq.n))) {
            free(emb_nodes), free(emb_t);
            if (own_ev) dgnn_events_free(&ev);
            return rc;
        }
        sc_out = dgnn_xmalloc((size_t)scq.n * sizeof *sc_out);
        scq.src = sc_src, scq.dst = sc_dst, scq.t = sc_t, scq.out = sc_out;
    }
    const int score_in = embed && embed->score_n > 0 && embed->score_out;
    if (score_in)
        scq.src = embed->score_src, scq.dst = embed->score_dst, scq.t = embed->score_t, scq.n = embed->score_n,
        scq.out = embed->score_out;
    char a[32], b[32];
    dgnn_log("%s on %s: %s events, %s nodes, preset %s, batch %lld, %lld epochs\n", model, dataset,
             dgnn_fmt_count(a, sizeof a, ev.num_events), dgnn_fmt_count(b, sizeof b, ev.num_nodes), preset,
             (long long)c.batch, (long long)c.epochs);
    double peak1 = 0, peakT = 0;
    int nthreads = threads > 0 ? (int)threads : omp_get_max_threads();
    if (bench && !c.use_cuda) {
        /* the dense-math peak on this machine, now: 1 thread, then the run's threads */
        omp_set_num_threads(1);
        peak1 = dgnn_sgemm_gflops(1024, 1.0);
        omp_set_num_threads(nthreads);
        peakT = nthreads == 1 ? peak1 : dgnn_sgemm_gflops(1024, 1.0);
    }
    double op_seconds[DGNN_PROF_N] = {0};
    if (bench) c.op_seconds = op_seconds;
    dgnn_event_train_result *res = dgnn_xcalloc(1, sizeof *res);
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_tgnn *kept = NULL; /* --task node: the trained link model, frozen for the decoder */
    if (node_task) c.keep_model = &kept;
    rc = eval ? dgnn_event_eval(&ev, &c, eval_split, emb_out || emb_in ? &embq : NULL, score_at || score_in ? &scq : NULL,
                                res, &err)
              : dgnn_event_train(&ev, &c, res, &err);
    free(emb_nodes), free(emb_t), free(sc_src), free(sc_dst), free(sc_t);
    dgnn_event_node_cfg ncfg;
    dgnn_event_node_result *nres = node_task && rc == DGNN_OK ? dgnn_xcalloc(1, sizeof *nres) : NULL;
    if (nres && cli_train_node(dataset, &ev, kept, &c, &nf, &ncfg, nres)) {
        dgnn_tgnn_free(kept);
        free(nres), free(res), free(sc_out);
        if (own_ev) dgnn_events_free(&ev);
        return 1;
    }
    dgnn_tgnn_free(kept);
    if (rc != DGNN_OK) {
        if (c.dist.mode != DGNN_DIST_NONE && dgnn_comm_size() > 1) {
            /* the other ranks may be waiting for this one: end the whole job */
            fprintf(stderr, "dgnn %s: rank %d: %s\n", cmdname, dgnn_comm_rank(), err.msg);
            dgnn_comm_abort(1);
        }
        fprintf(stderr, "dgnn %s: %s\n", cmdname, err.msg);
        free(res), free(sc_out);
        if (own_ev) dgnn_events_free(&ev);
        return 1;
    }
    if (c.dist.mode != DGNN_DIST_NONE && dgnn_comm_rank() != 0) { /* rank 0 reports */
        free(res);
        if (own_ev) dgnn_events_free(&ev);
        dgnn_comm_finalize();
        return 0;
    }
    char f[5][16];
    if (eval && eval_split != DGNN_SPLIT_TEST) {
        const dgnn_epoch_result *e = &res->epochs[res->num_epochs];
        if (eval_split == DGNN_SPLIT_VAL)
            printf("val AP %s  AUC %s  new-node AP %s  new-node AUC %s (memory rebuilt over the training events)\n",
                   dgnn_fmt_metric(f[0], 16, e->val_ap), dgnn_fmt_metric(f[1], 16, e->val_auc),
                   dgnn_fmt_metric(f[2], 16, e->val_new_ap), dgnn_fmt_metric(f[3], 16, e->val_new_auc));
        else
            printf("train AP %s  AUC %s (the training events scored from a zero memory)\n",
                   dgnn_fmt_metric(f[0], 16, e->val_ap), dgnn_fmt_metric(f[1], 16, e->val_auc));
        if (eval_split == DGNN_SPLIT_VAL && c.protocol.tgb)
            printf("TGB one-vs-many: val MRR %s  Hits@10 %s\n", dgnn_fmt_metric(f[0], 16, e->val_mrr_tgb),
                   dgnn_fmt_metric(f[1], 16, e->val_hits10_tgb));
    } else if (!c.skip_eval) { /* n/a: over no events (no new-node test events; no MRR with --eval-negatives 0) */
        char mrr[48] = "MRR";
        if (c.eval_negatives > 0) snprintf(mrr, sizeof mrr, "MRR vs %lld random", (long long)c.eval_negatives);
        char when[96] = "(EdgeBank: no epochs)"; /* it memorises edges, and trains nothing */
        if (!c.edgebank)
            snprintf(when, sizeof when, "(%s epoch %lld; best val %s: epoch %lld)",
                     res->early_stopped ? "early-stopped, back to" : "after",
                     (long long)(res->early_stopped ? res->best_epoch : res->num_epochs),
                     c.protocol.tgb ? "MRR (TGB)" : "AP", (long long)res->best_epoch);
        printf("test AP %s  AUC %s  new-node AP %s  new-node AUC %s  %s %s  %s\n", dgnn_fmt_metric(f[0], 16, res->test_ap),
               dgnn_fmt_metric(f[1], 16, res->test_auc), dgnn_fmt_metric(f[2], 16, res->test_new_ap),
               dgnn_fmt_metric(f[3], 16, res->test_new_auc), mrr, dgnn_fmt_metric(f[4], 16, res->test_mrr), when);
        cli_protocols_print(&c, res);
    }
    if (eval || c.edgebank) printf("peak RSS %.0f MB\n", res->peak_rss_mb); /* EdgeBank trains nothing */
    else printf("training: %.0f events/s, peak RSS %.0f MB\n", res->train_events_per_second, res->peak_rss_mb);
    if (bench) {
        printf("\n%-6s %10s %12s %14s %12s %10s %10s\n", "epoch", "train s", "events", "events/s", "GFLOP", "GFLOP/s",
               "of peak");
        for (int64_t i = 0; i < res->num_epochs; i++) {
            const dgnn_epoch_result *e = &res->epochs[i];
            double gf = e->train_seconds > 0 ? e->flops / 1e9 / e->train_seconds : 0;
            char of[16] = "n/a"; /* the GPU's peak is not measured */
            if (peakT > 0) snprintf(of, sizeof of, "%.1f%%", 100 * gf / peakT);
            printf("%-6lld %10.2f %12lld %14.0f %12.1f %10.1f %10s\n", (long long)e->epoch, e->train_seconds,
                   (long long)e->train_events, e->train_seconds > 0 ? (double)e->train_events / e->train_seconds : 0,
                   e->flops / 1e9, gf, of);
        }
        if (!c.use_cuda && nthreads == 1) /* "of peak": against the run's threads, here one */
            printf("sgemm 1024^3 peak measured now: %.1f GFLOP/s on 1 thread (the run's)\n", peakT);
        else if (!c.use_cuda)
            printf("sgemm 1024^3 peak measured now: %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on the run's %d threads\n",
                   peak1, peakT, nthreads);
        printf("peak RSS %.0f MB; GFLOP counts the dense products executed (forward, backward ~2x forward)\n",
               res->peak_rss_mb);
        if (!c.use_cuda) print_op_shares(op_seconds, res, c.dist.mode != DGNN_DIST_NONE);
        else printf("(on the GPU the per-op shares come from nsys or ncu, not from this bench: README, 'GPU')\n");
    }
    if (c.dist.mode != DGNN_DIST_NONE) print_dist(res);
    /* the step-time curve before the JSON, which holds it */
    cJSON *curve_json = NULL;
    const int curve_failed = n_steps > 0 && cli_bench_step_curve(cmdname, step_sizes, n_steps, &ev, &c, max_batches,
                                                                 out ? &curve_json : NULL);
    if (curve_failed) rc = 1;
    /* the same JSON for the in-process caller, before the files: one that cannot be
     * written then fails the call without losing the results (capi.h) */
    if (embed && embed->json && rc == 0)
        rc = write_json(cmdname, NULL, model, dataset, preset, config, &c, res, &ev, &ncfg, nres, hook.stop, NULL, embed->json,
                        eval ? eval_split : 0);
    if (out && curve_failed) /* a JSON without its curve would be read as a plain training run's */
        fprintf(stderr, "dgnn %s: --out %s not written: the step-time curve is incomplete\n", cmdname, out);
    else if (out) {
        const int wrc = write_json(cmdname, out, model, dataset, preset, config, &c, res, &ev, &ncfg, nres, hook.stop, curve_json,
                                   NULL, eval ? eval_split : 0);
        rc = rc ? rc : wrc;
    }
    if (emb_out && embq.out && write_embeddings(emb_out, &embq)) rc = 1;
    if (score_out && sc_out) {
        dgnn_err werr;
        dgnn_err_clear(&werr);
        if (dgnn_write_npy_f32_vec(score_out, sc_out, scq.n, &werr) != DGNN_OK) {
            fprintf(stderr, "dgnn eval: --score-out: %s\n", werr.msg);
            rc = 1;
        } else {
            dgnn_log("wrote %lld scores to %s\n", (long long)scq.n, score_out);
        }
    }
    free(sc_out);
    if (emb_in && rc == 0) { /* the rows are the caller's */
        *embed->emb_out = embq.out, *embed->emb_dim = embq.dim;
        embq.out = NULL;
    }
    free(embq.out);
    if (plot && write_plot(plot, model, dataset, res)) rc = 1;
    free(nres);
    free(res);
    if (own_ev) dgnn_events_free(&ev);
    if (c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
    return rc;
}

/* train_run, and the lock it may take on the checkpoint folder (held for the whole run,
 * released on every way out) */
static int train_main(int argc, char **argv, int saved, int mode, const cli_train_embed *embed) {
    int lock = -1;
    const int rc = train_run(argc, argv, saved, mode, embed, &lock);
    dgnn_ckpt_dir_unlock(lock);
    return rc;
}

/* The snapshot models have their own trainer and flags (cmd_train_snap.c). */
int cmd_train(int argc, char **argv) {
    if (cli_is_snapshot_model(argc, argv)) return cmd_train_snapshot(argc, argv);
    const int rc = train_main(argc, argv, 0, MODE_TRAIN, NULL);
    cli_config_release();
    return rc;
}
int cmd_train_bench(int argc, char **argv) {
    const int rc = train_main(argc, argv, 0, MODE_BENCH, NULL);
    cli_config_release();
    return rc;
}
int cli_train_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    if (cli_is_snapshot_model(argc, argv)) return cli_train_snapshot_embedded(argc, argv, e);
    const int rc = train_main(argc, argv, 0, MODE_TRAIN, e);
    cli_config_release(); /* --config's tokens, as cmd_train */
    return rc;
}
/* dgnn eval reads the checkpoints of one process: one of an mpirun --dist run is refused
 * here with eval's own advice (the trainer's, on resuming, names mpirun -np and --resume).
 * 0, or 1 after the message; a checkpoint without a readable run record is left to the
 * evaluation's own checks. */
static int eval_single_process(const char *dir) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_ckpt *c;
    dgnn_ckpt_run run;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_ckpt_open(&c, path, &err) != DGNN_OK) return 0;
    const int have = dgnn_ckpt_read_run(c, &run, &err) == DGNN_OK;
    dgnn_ckpt_close(c);
    if (dgnn_ckpt_family(dir, NULL, 0, NULL, 0) == DGNN_CKPT_SNAPSHOT) {
        fprintf(stderr, "dgnn eval: --checkpoint %s is a snapshot model's checkpoint (EvolveGCN, T-GCN, GCRN-GRU, "
                        "WD-GCN, GCN): dgnn eval reads the event models' (TGN, JODIE, DyRep, APAN); a snapshot model's "
                        "run tests itself at its end\n", dir);
        return 1;
    }
    if (!have) return 0;
    const char *procs = dgnn_ckpt_run_get(&run, "processes"), *dist = dgnn_ckpt_run_get(&run, "dist");
    if ((!procs || strcmp(procs, "1") == 0) && (!dist || strcmp(dist, "none") == 0)) return 0;
    char was[256];
    dgnn_ckpt_run_describe(was, sizeof was, &run);
    fprintf(stderr, "dgnn eval: --checkpoint %s was written by %s; dgnn eval reads the checkpoints of one process "
                    "only (those of a dgnn train run without mpirun and --dist)\n", dir, was);
    return 1;
}

/* A token of the training run's saved settings that in-process is left out: --data and the
 * flags that describe its file (the events are the caller's). 0: kept; 1: this token; 2:
 * this one and its value, the next. */
static int saved_file_flag(const char *tok) {
    static const struct {
        const char *name;
        int value;
    } k[] = {{"data", 1},      {"format", 1},    {"columns", 1}, {"edge-feat", 1},
             {"node-feat", 1}, {"bipartite", 0}, {"not-bipartite", 0}};
    if (strncmp(tok, "--", 2) != 0) return 0;
    const char *name = tok + 2, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strlen(k[i].name) == len && strncmp(name, k[i].name, len) == 0) return k[i].value && !eq ? 2 : 1;
    return 0;
}

/* `dgnn eval --checkpoint DIR [flags]`: the training run's settings come from the
 * checkpoint (saved by train_main), the flags given here after them, so that they win. */
static int eval_main(int argc, char **argv, const cli_train_embed *embed) {
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--checkpoint") == 0 && i + 1 < argc) dir = argv[i + 1];
        else if (strncmp(argv[i], "--checkpoint=", 13) == 0) dir = argv[i] + 13;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) dir = NULL, i = argc;
    }
    char *flags = NULL;
    int64_t bytes = 0;
    if (dir) {
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_event_ckpt_flags(dir, &flags, &bytes, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn eval: --checkpoint %s: %s\n", dir, err.msg);
            return 1;
        }
        if (eval_single_process(dir)) {
            free(flags);
            return 1;
        }
    }
    if (!flags) return train_main(argc, argv, 0, MODE_EVAL, embed); /* no saved settings: the flags given */
    int n = 0;
    for (int64_t i = 0; i < bytes; i++) n += flags[i] == 0;
    char **all = dgnn_xmalloc((size_t)(n + argc + 1) * sizeof *all);
    int k = 0;
    char line[2048] = "";
    size_t used = 0;
    for (int64_t i = 0; i < bytes && k < n; i += (int64_t)strlen(flags + i) + 1) {
        /* in-process, the events are the caller's: the training run's --data and the flags
         * that describe its file are left out */
        const int skip = embed ? saved_file_flag(flags + i) : 0;
        if (skip == 2 && i + (int64_t)strlen(flags + i) + 1 < bytes) i += (int64_t)strlen(flags + i) + 1;
        if (skip) continue;
        all[k++] = flags + i;
        used += (size_t)snprintf(line + used, used < sizeof line ? sizeof line - used : 0, " %s", flags + i);
    }
    const int saved = k;
    for (int i = 0; i < argc; i++) all[k++] = argv[i];
    all[k] = NULL;
    dgnn_log("dgnn eval: the training run's settings from %s:%s%s (flags given here override them)\n", dir, line,
             used >= sizeof line ? " ..." : "");
    const int rc = train_main(k, all, saved, MODE_EVAL, embed);
    free(all);
    free(flags);
    return rc;
}
int cmd_eval(int argc, char **argv) { return eval_main(argc, argv, NULL); }
int cli_eval_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    return eval_main(argc, argv, e);
}
