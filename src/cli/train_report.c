/* train_report.c: what dgnn train, bench train and eval print and write of an event
 * model's run (train_report.h): the results' JSON (--out, and the in-process caller's
 * string), one epoch's object (--curve's lines), the printed figures, bench's throughput
 * table, --plot's SVG and --emb-out's embeddings. cmd_train.c decides what is asked. */
#include "train_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "dgnn/npy.h"
#include "dgnn/svg.h"
#include "train_node.h"

static const char *dist_mode_name(dgnn_dist_mode m) {
    return m == DGNN_DIST_STRICT ? "strict" : m == DGNN_DIST_DEPBLOOM ? "depbloom" : "none";
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
cJSON *cli_epoch_json(const dgnn_epoch_result *e) {
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

/* --plot: the learning curve as SVG (report/svg.h); 0, or 1 with a message */
int cli_event_plot(const char *path, const char *model, const char *dataset, const dgnn_event_train_result *r) {
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
int cli_event_json(const char *cmd, const char *path, const char *model, const char *dataset, const char *preset,
                   const char *config, const dgnn_event_train_cfg *c, const dgnn_event_train_result *r,
                   const dgnn_events *ev, const dgnn_event_node_cfg *nc, const dgnn_event_node_result *nres,
                   int caller_stopped, cJSON *step_curve, char **sink, int on) {
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
    for (int64_t i = 0; i < r->num_epochs; i++) cJSON_AddItemToArray(eps, cli_epoch_json(&r->epochs[i]));
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
void cli_event_print_dist(const dgnn_event_train_result *res) {
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

/* --emb-out: the embeddings as (n, dim) float32 .npy; 0, or 1 with a message */
int cli_event_embeddings(const char *path, const dgnn_emb_request *e) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_write_npy_f32(path, e->out, e->n, e->dim, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn eval: --emb-out: %s\n", err.msg);
        return 1;
    }
    dgnn_log("wrote %lld embeddings of width %lld to %s\n", (long long)e->n, (long long)e->dim, path);
    return 0;
}

void cli_event_print_eval(const dgnn_event_train_cfg *c, const dgnn_event_train_result *res, int eval, int eval_split) {
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
        if (eval_split == DGNN_SPLIT_VAL && c->protocol.tgb)
            printf("TGB one-vs-many: val MRR %s  Hits@10 %s\n", dgnn_fmt_metric(f[0], 16, e->val_mrr_tgb),
                   dgnn_fmt_metric(f[1], 16, e->val_hits10_tgb));
    } else if (!c->skip_eval) { /* n/a: over no events (no new-node test events; no MRR with --eval-negatives 0) */
        char mrr[48] = "MRR";
        if (c->eval_negatives > 0) snprintf(mrr, sizeof mrr, "MRR vs %lld random", (long long)c->eval_negatives);
        char when[96] = "(EdgeBank: no epochs)"; /* it memorises edges, and trains nothing */
        if (!c->edgebank)
            snprintf(when, sizeof when, "(%s epoch %lld; best val %s: epoch %lld)",
                     res->early_stopped ? "early-stopped, back to" : "after",
                     (long long)(res->early_stopped ? res->best_epoch : res->num_epochs),
                     c->protocol.tgb ? "MRR (TGB)" : "AP", (long long)res->best_epoch);
        printf("test AP %s  AUC %s  new-node AP %s  new-node AUC %s  %s %s  %s\n", dgnn_fmt_metric(f[0], 16, res->test_ap),
               dgnn_fmt_metric(f[1], 16, res->test_auc), dgnn_fmt_metric(f[2], 16, res->test_new_ap),
               dgnn_fmt_metric(f[3], 16, res->test_new_auc), mrr, dgnn_fmt_metric(f[4], 16, res->test_mrr), when);
        cli_protocols_print(c, res);
    }
    if (eval || c->edgebank) printf("peak RSS %.0f MB\n", res->peak_rss_mb); /* EdgeBank trains nothing */
    else printf("training: %.0f events/s, peak RSS %.0f MB\n", res->train_events_per_second, res->peak_rss_mb);
}

void cli_event_print_bench(const dgnn_event_train_cfg *c, const dgnn_event_train_result *res, const double *op_seconds,
                           double peak1, double peakT, int nthreads) {
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
    if (!c->use_cuda && nthreads == 1) /* "of peak": against the run's threads, here one */
        printf("sgemm 1024^3 peak measured now: %.1f GFLOP/s on 1 thread (the run's)\n", peakT);
    else if (!c->use_cuda)
        printf("sgemm 1024^3 peak measured now: %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on the run's %d threads\n",
               peak1, peakT, nthreads);
    printf("peak RSS %.0f MB; GFLOP counts the dense products executed (forward, backward ~2x forward)\n",
           res->peak_rss_mb);
    if (!c->use_cuda) print_op_shares(op_seconds, res, c->dist.mode != DGNN_DIST_NONE);
    else printf("(on the GPU the per-op shares come from nsys or ncu, not from this bench: README, 'GPU')\n");
}
