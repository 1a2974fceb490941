/* snap_report.c: what dgnn train and bench train print and write of a snapshot model's
 * run (snap_report.h): the results' JSON (--out, and the in-process caller's string), one
 * epoch's object (--curve's lines), the printed figures, bench's tables and bandwidth
 * figures, DyGNeX's summary, the --synthetic sequence's line and --plot's SVG.
 * cmd_train_snap.c decides what is asked. */
#include "snap_report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "dgnn/svg.h"

static cJSON *num_array(const double *x, int64_t n) {
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cli_json_number(x[i]));
    return a;
}

/* The `dist` object of a DyGNeX run (snap_train.h, dgnn_snap_dist_result): seconds per
 * epoch, averaged over the epochs run. */
static void add_dist_json(cJSON *o, const dgnn_snap_dist_result *d, int fitted) {
    cJSON *x = cJSON_AddObjectToObject(o, "dist");
    cJSON_AddStringToObject(x, "mode", "dygnex");
    cJSON_AddStringToObject(x, "scheduler", d->scheduler);
    cJSON_AddStringToObject(x, "method", d->method);
    cJSON_AddNumberToObject(x, "ranks", (double)d->ranks);
    cJSON_AddNumberToObject(x, "processes", (double)d->processes);
    cJSON_AddBoolToObject(x, "emulated", d->processes < d->ranks);
    cJSON_AddNumberToObject(x, "rounds", (double)d->rounds);
    cJSON_AddNumberToObject(x, "windows", (double)d->windows);
    cJSON_AddStringToObject(x, "cost_model", fitted ? "profile" : "default");
    cJSON_AddNumberToObject(x, "solve_seconds", d->solve_seconds);
    cJSON_AddItemToObject(x, "gap", cli_json_number(d->gap));
    cJSON_AddBoolToObject(x, "fallback", d->fallback);
    cJSON_AddNumberToObject(x, "imbalance_predicted", d->pred_imbalance);
    cJSON_AddNumberToObject(x, "imbalance_measured", d->meas_imbalance);
    cJSON_AddNumberToObject(x, "imbalance_measured_cpu", d->cpu_imbalance);
    cJSON_AddNumberToObject(x, "makespan_predicted", d->pred_makespan);
    cJSON_AddNumberToObject(x, "makespan_measured", d->meas_makespan);
    cJSON_AddNumberToObject(x, "makespan_measured_cpu", d->cpu_makespan);
    cJSON_AddNumberToObject(x, "mean_predicted", d->pred_mean);
    cJSON_AddNumberToObject(x, "mean_measured", d->meas_mean);
    cJSON_AddNumberToObject(x, "mean_measured_cpu", d->cpu_mean);
    cJSON_AddNumberToObject(x, "epoch_seconds", d->epoch_seconds);
    cJSON_AddNumberToObject(x, "step_seconds", d->step_seconds);
    cJSON *rk = cJSON_AddArrayToObject(x, "per_rank");
    for (int64_t p = 0; p < d->ranks; p++) {
        cJSON *y = cJSON_CreateObject();
        cJSON_AddNumberToObject(y, "rank", (double)p);
        cJSON_AddNumberToObject(y, "windows", (double)d->rank_windows[p]);
        cJSON_AddNumberToObject(y, "predicted_seconds", d->rank_pred[p]);
        cJSON_AddNumberToObject(y, "compute_seconds", d->rank_compute[p]);
        cJSON_AddNumberToObject(y, "cpu_seconds", d->rank_cpu[p]);
        cJSON_AddNumberToObject(y, "comm_seconds", d->rank_comm[p]);
        cJSON_AddItemToArray(rk, y);
    }
    if (d->per_round) {
        cJSON *rr = cJSON_AddArrayToObject(x, "per_round");
        for (int64_t r = 0; r < d->rounds; r++) {
            cJSON *y = cJSON_CreateObject();
            cJSON_AddNumberToObject(y, "round", (double)r);
            cJSON_AddItemToObject(y, "predicted", num_array(d->round_pred + r * d->ranks, d->ranks));
            cJSON_AddItemToObject(y, "measured", num_array(d->round_meas + r * d->ranks, d->ranks));
            cJSON_AddItemToObject(y, "cpu", num_array(d->round_cpu + r * d->ranks, d->ranks));
            cJSON_AddItemToArray(rr, y);
        }
    }
}

/* Rank 0's summary of a DyGNeX run. */
void cli_snap_print_dist(const dgnn_snap_dist_result *d, int fitted) {
    printf("\ndygnex: scheduler %s (%s), %lld ranks on %lld process%s%s, %lld rounds, %lld windows per epoch\n",
           d->scheduler, d->method, (long long)d->ranks, (long long)d->processes, d->processes > 1 ? "es" : "",
           d->processes < d->ranks ? " (emulated: each round's groups one after the other)" : "", (long long)d->rounds,
           (long long)d->windows);
    printf("%-12s %14s %14s %14s\n", "per epoch", fitted ? "predicted" : "predicted(law)", "measured wall",
           "measured cpu");
    printf("%-12s %13.4fs %13.4fs %13.4fs\n", "makespan", d->pred_makespan, d->meas_makespan, d->cpu_makespan);
    printf("%-12s %13.4fs %13.4fs %13.4fs\n", "mean", d->pred_mean, d->meas_mean, d->cpu_mean);
    printf("%-12s %13.2f%% %13.2f%% %13.2f%%\n", "imbalance", 100 * d->pred_imbalance, 100 * d->meas_imbalance,
           100 * d->cpu_imbalance);
    printf("%-5s %8s %12s %12s %12s %12s\n", "rank", "windows", "predicted s", "compute s", "cpu s", "comm s");
    for (int64_t p = 0; p < d->ranks; p++)
        printf("%-5lld %8lld %12.4f %12.4f %12.4f %12.4f\n", (long long)p, (long long)d->rank_windows[p],
               d->rank_pred[p], d->rank_compute[p], d->rank_cpu[p], d->rank_comm[p]);
    printf("epoch %.3f s of training (rank 0's wall clock), of which Adam steps %.3f s\n", d->epoch_seconds,
           d->step_seconds);
}

/* One epoch's figures as a JSON object (the results' "epochs" entries, --curve's lines):
 * the task's validation metrics. */
cJSON *cli_snap_epoch_json(const dgnn_snap_epoch_result *e, dgnn_snap_task task) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "epoch", (double)e->epoch);
    cJSON_AddItemToObject(x, "train_loss", cli_json_number(e->train_loss));
    if (task == DGNN_SNAP_TASK_LINK) {
        cJSON_AddItemToObject(x, "val_map", cli_json_number(e->val_map));
        cJSON_AddItemToObject(x, "val_mrr", cli_json_number(e->val_mrr));
    } else if (task == DGNN_SNAP_TASK_EDGE) {
        cJSON_AddItemToObject(x, "val_f1", cli_json_number(e->val_f1));
    } else {
        cJSON_AddItemToObject(x, "val_mse", cli_json_number(e->val_mse));
    }
    cJSON_AddNumberToObject(x, "seconds", e->seconds);
    cJSON_AddNumberToObject(x, "train_seconds", e->train_seconds);
    cJSON_AddNumberToObject(x, "val_seconds", e->val_seconds);
    cJSON_AddNumberToObject(x, "train_samples", (double)e->train_windows);
    cJSON_AddNumberToObject(x, "train_pairs", (double)e->train_pairs);
    return x;
}

/* The results' "config" object: the settings the run trained with. */
static void add_config_json(cJSON *o, const char *preset, const dgnn_snap_train_cfg *c,
                            const dgnn_snap_train_result *r) {
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
    for (int k = 0; k < 2; k++) /* the float as typed (0.05, not 0.0500000007) */
        cJSON_AddItemToArray(cw, cJSON_CreateNumber(args_float_json(c->class_w[k])));
    cJSON_AddNumberToObject(cfg, "negatives_per_edge", (double)c->neg_mult);
    cJSON_AddBoolToObject(cfg, "negatives_from_all_nodes", c->neg_all_nodes);
    cJSON_AddNumberToObject(cfg, "train_frac", c->train_frac);
    cJSON_AddNumberToObject(cfg, "val_frac", c->val_frac);
    cJSON_AddNumberToObject(cfg, "patience", (double)c->patience);
    cJSON_AddNumberToObject(cfg, "skip_val_epochs", (double)c->skip_val_epochs);
    cJSON_AddNumberToObject(cfg, "seed", (double)c->seed);
    cJSON_AddNumberToObject(cfg, "threads", (double)c->threads);
    char dev[32] = "cpu";
    if (c->use_cuda) snprintf(dev, sizeof dev, "cuda:%d", r->cuda_device);
    cJSON_AddStringToObject(cfg, "device", dev);
    cJSON_AddStringToObject(cfg, "device_name", r->device);
    cJSON_AddNumberToObject(cfg, "max_windows", (double)c->max_train_windows);
}

/* The results' "data" object: the events, the snapshots and the split's samples. */
static void add_data_json(cJSON *o, const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *r,
                          const dgnn_events *ev) {
    cJSON *data = cJSON_AddObjectToObject(o, "data");
    cJSON_AddNumberToObject(data, "events", (double)ev->num_events);
    cJSON_AddNumberToObject(data, "nodes", (double)ev->num_nodes);
    cJSON_AddNumberToObject(data, "snapshots", (double)r->num_snapshots);
    /* the one-hot degree width, or the node task's feature count */
    cJSON_AddNumberToObject(data, c->task == DGNN_SNAP_TASK_NODE ? "input_width" : "onehot_width", (double)r->in_dim);
    cJSON_AddNumberToObject(data, "train_samples", (double)(r->train_end - r->train_begin));
    cJSON_AddNumberToObject(data, "val_samples", (double)(r->val_end > r->train_end ? r->val_end - r->train_end : 0));
    cJSON_AddNumberToObject(data, "test_samples", (double)(r->test_end > r->val_end ? r->test_end - r->val_end : 0));
    cJSON_AddNumberToObject(data, "first_train_sample", (double)r->train_begin);
    if (c->task == DGNN_SNAP_TASK_EDGE) {
        cJSON_AddNumberToObject(data, "train_labels_0", (double)r->label_counts[0]);
        cJSON_AddNumberToObject(data, "train_labels_1", (double)r->label_counts[1]);
        cJSON_AddNumberToObject(data, "f1_class", (double)r->f1_class);
    }
}

/* The results' "test" object (the task's metrics) and, with --baseline-last,
 * "baseline_last_snapshot" beside it. */
static void add_test_json(cJSON *o, const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *r) {
    cJSON *t = cJSON_AddObjectToObject(o, "test");
    cJSON *b = c->baseline_last ? cJSON_AddObjectToObject(o, "baseline_last_snapshot") : NULL;
    if (c->task == DGNN_SNAP_TASK_LINK) {
        cJSON_AddItemToObject(t, "map", cli_json_number(r->test_map));
        cJSON_AddItemToObject(t, "mrr", cli_json_number(r->test_mrr));
        if (b) cJSON_AddItemToObject(b, "map", cli_json_number(r->last_map));
        if (b) cJSON_AddItemToObject(b, "mrr", cli_json_number(r->last_mrr));
    } else if (c->task == DGNN_SNAP_TASK_EDGE) {
        cJSON_AddItemToObject(t, "f1", cli_json_number(r->test_f1));
        cJSON_AddItemToObject(t, "precision", cli_json_number(r->test_precision));
        cJSON_AddItemToObject(t, "recall", cli_json_number(r->test_recall));
        cJSON_AddNumberToObject(t, "f1_class", (double)r->f1_class);
        if (b) cJSON_AddItemToObject(b, "f1", cli_json_number(r->last_f1));
    } else {
        cJSON_AddItemToObject(t, "mse", cli_json_number(r->test_mse));
        if (b) cJSON_AddItemToObject(b, "mse", cli_json_number(r->last_mse));
    }
    cJSON_AddNumberToObject(t, "seconds", r->test_seconds);
}

/* The same top-level keys as the memory-based trainer's JSON where they apply (model,
 * dataset, config, data, num_params, epochs, best_epoch, early_stopped, test,
 * train_events_per_second, peak_rss_mb), the task's metrics in `test` (map, mrr), and the
 * snapshot throughputs beside them. train_events_per_second counts the events of every
 * training sample's input snapshots (a snapshot read by 11 samples counts 11 times). */
int cli_snap_json(const char *cmd, const char *path, const char *model, const char *dataset, const char *preset,
                  const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *r, const dgnn_events *ev, int fitted,
                  int caller_stopped, char **sink) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", model);
    cJSON_AddStringToObject(o, "dataset", dataset);
    cJSON_AddStringToObject(o, "task", dgnn_snap_task_name(c->task));
    add_config_json(o, preset, c, r);
    add_data_json(o, c, r, ev);
    cJSON_AddNumberToObject(o, "num_params", (double)r->num_params);
    cJSON *eps = cJSON_AddArrayToObject(o, "epochs");
    for (int64_t i = 0; i < r->num_epochs; i++) cJSON_AddItemToArray(eps, cli_snap_epoch_json(&r->epochs[i], c->task));
    cJSON_AddNumberToObject(o, "best_epoch", (double)r->best_epoch);
    cJSON_AddBoolToObject(o, "early_stopped", r->early_stopped);
    add_test_json(o, c, r);
    cJSON_AddNumberToObject(o, "train_events_per_second", r->train_events_per_second);
    cJSON_AddNumberToObject(o, "train_windows_per_second", r->train_windows_per_second);
    cJSON_AddNumberToObject(o, "train_snapshots_per_second", r->train_snapshots_per_second);
    cJSON_AddNumberToObject(o, "eval_pairs_per_second", r->eval_pairs_per_second);
    cJSON_AddNumberToObject(o, "peak_rss_mb", r->peak_rss_mb);
    if (r->dist.active) add_dist_json(o, &r->dist, fitted);
    if (caller_stopped) cJSON_AddTrueToObject(o, "stopped_by_caller"); /* the in-process caller's on_epoch */
    cli_add_run_info(o);
    if (!sink) return cli_write_json(cmd, path, o);
    *sink = cJSON_Print(o); /* cli_train_snapshot_embedded: the same JSON as a string */
    cJSON_Delete(o);
    if (*sink) return 0;
    fprintf(stderr, "dgnn %s: out of memory writing the results\n", cmd);
    return 1;
}

/* --plot: the learning curve as SVG (report/svg.h), with the validation metric the task
 * selects on: MAP (link), minority-class F1 (edge), MSE (node). 0, or 1 with a message. */
int cli_snap_plot(const char *cmd, const char *path, const char *model, const char *dataset,
                  const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *res) {
    static double loss[1024], val[1024];
    for (int64_t i = 0; i < res->num_epochs; i++) {
        const dgnn_snap_epoch_result *e = &res->epochs[i];
        loss[i] = e->train_loss;
        val[i] = c->task == DGNN_SNAP_TASK_LINK ? e->val_map : c->task == DGNN_SNAP_TASK_EDGE ? e->val_f1 : e->val_mse;
    }
    char title[256];
    snprintf(title, sizeof title, "%s on %s", model, dataset ? dataset : "synthetic");
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_curve_svg(path, title, loss, val, res->num_epochs,
                       c->task == DGNN_SNAP_TASK_LINK ? "MAP" : c->task == DGNN_SNAP_TASK_EDGE ? "F1" : "MSE",
                       &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --plot: %s\n", cmd, err.msg);
        return 1;
    }
    return 0;
}

/* The bandwidth figures of `dgnn bench train` (dgnn_snap_spmm_bandwidth). */
static void print_bandwidth(const dgnn_events *ev, const dgnn_snap_train_cfg *c, double secs) {
    dgnn_snap_bandwidth b;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_spmm_bandwidth(&b, ev, c, secs, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn bench train: snapshots: %s\n", err.msg);
        return;
    }
    printf("SpMM on the largest snapshot (%lld, A_hat nnz %lld, N %lld, F = hidden %lld): %.1f GB/s, %.2f GFLOP/s\n",
           (long long)b.snapshot, (long long)b.hat_nnz, (long long)b.num_nodes, (long long)b.hidden, b.spmm_gbps,
           b.spmm_gflops);
    printf("STREAM triad measured now: %.1f GB/s; SpMM / triad = %.2f (SpMM's gathers may hit cache: see "
           "dgnn_spmm_bytes)\n",
           b.triad_gbps, b.triad_gbps > 0 ? b.spmm_gbps / b.triad_gbps : 0.0);
}

/* One line saying which synthetic sequence was used: its cut as the trainer cuts it
 * (symmetric, so edges = nnz of A + A^T, each undirected edge counted twice) and the
 * sizes of its first and last snapshot. */
void cli_snap_synthetic_report(const dgnn_events *ev, int64_t T, double seconds, int64_t nodes, int64_t events) {
    dgnn_snapshots s;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snapshots_cut(&s, ev, seconds, 0, 0, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn bench train: --synthetic: snapshots: %s\n", err.msg);
        return;
    }
    if (s.count == 0) {
        fprintf(stderr, "dgnn bench train: --synthetic: snapshots: no snapshot\n");
        dgnn_snapshots_free(&s);
        return;
    }
    const dgnn_snapshot *f = &s.snaps[0], *l = &s.snaps[s.count - 1];
    printf("synthetic sequence: T %lld (%lld snapshots cut) of %g s; dgnn gen with nodes %lld, events %lld, growth "
           "%g, bursts 0, seed 1; first snapshot %lld events, %lld edges; last %lld events, %lld "
           "edges (edges: nnz of A + A^T)\n",
           (long long)T, (long long)s.count, seconds, (long long)nodes, (long long)events, DGNN_SNAP_SYNTH_GROWTH,
           (long long)(f->ev_end - f->ev_begin), (long long)f->num_edges,
           (long long)(l->ev_end - l->ev_begin), (long long)l->num_edges);
    fflush(stdout); /* before the trainer's log lines on stderr */
    dgnn_snapshots_free(&s);
}

/* Rank 0's report of a trained run: the split, the test and baseline figures, the
 * training throughput. */
void cli_snap_print_results(const dgnn_snap_train_cfg *c, const dgnn_snap_train_result *res) {
    const dgnn_snap_task task = c->task;
    dgnn_log("%lld snapshots, input width %lld, samples: train %lld..%lld, validation ..%lld, test ..%lld\n",
             (long long)res->num_snapshots, (long long)res->in_dim, (long long)res->train_begin,
             (long long)res->train_end - 1, (long long)res->val_end - 1, (long long)res->test_end - 1);
    char f[3][16]; /* n/a: a metric over nothing (no positive prediction for precision, ...) */
    if (!c->skip_eval) {
        if (task == DGNN_SNAP_TASK_LINK)
            printf("test MAP %s  MRR %s", dgnn_fmt_metric(f[0], 16, res->test_map),
                   dgnn_fmt_metric(f[1], 16, res->test_mrr));
        else if (task == DGNN_SNAP_TASK_EDGE)
            printf("test F1 %s  precision %s  recall %s  of class %lld (the minority: %lld vs %lld training "
                   "labels)",
                   dgnn_fmt_metric(f[0], 16, res->test_f1), dgnn_fmt_metric(f[1], 16, res->test_precision),
                   dgnn_fmt_metric(f[2], 16, res->test_recall), (long long)res->f1_class,
                   (long long)res->label_counts[res->f1_class], (long long)res->label_counts[1 - res->f1_class]);
        else
            printf("test MSE %s", dgnn_fmt_metric(f[0], 16, res->test_mse));
        if (res->best_epoch > 0 || res->num_epochs > c->skip_val_epochs)
            printf("  (best validation epoch %lld of %lld)\n", (long long)res->best_epoch, (long long)res->num_epochs);
        else /* every epoch within --skip-val-epochs: nothing chose an epoch */
            printf("  (the last of %lld epochs: none was validated, --skip-val-epochs %lld)\n",
                   (long long)res->num_epochs, (long long)c->skip_val_epochs);
    }
    if (c->baseline_last) {
        printf("baseline \"repeat the last snapshot\", same test samples: ");
        if (task == DGNN_SNAP_TASK_LINK)
            printf("MAP %s  MRR %s\n", dgnn_fmt_metric(f[0], 16, res->last_map), dgnn_fmt_metric(f[1], 16, res->last_mrr));
        else if (task == DGNN_SNAP_TASK_EDGE)
            printf("F1 %s (the pair's last label, else the majority class)\n", dgnn_fmt_metric(f[0], 16, res->last_f1));
        else printf("MSE %s (y_t+1 predicted as y_t)\n", dgnn_fmt_metric(f[0], 16, res->last_mse));
    }
    double tsec = 0;
    for (int64_t i = 0; i < res->num_epochs; i++) tsec += res->epochs[i].train_seconds;
    printf("training: %.2f s per epoch, %.1f samples/s, %.0f snapshots/s; peak RSS %.0f MB\n",
           res->num_epochs ? tsec / (double)res->num_epochs : 0.0, res->train_windows_per_second,
           res->train_snapshots_per_second, res->peak_rss_mb);
    if (c->use_cuda) printf("device: cuda:%d (%s)\n", res->cuda_device, res->device);
}

/* `dgnn bench train`'s tables: seconds per epoch, the per-sample time distribution, the
 * bandwidth figures. */
void cli_snap_print_bench(const dgnn_snap_train_result *res, const dgnn_snap_profile *prof, const dgnn_events *ev,
                          const dgnn_snap_train_cfg *c, double bench_secs) {
    printf("\n%-6s %10s %10s %12s\n", "epoch", "train s", "samples", "samples/s");
    for (int64_t i = 0; i < res->num_epochs; i++) {
        const dgnn_snap_epoch_result *e = &res->epochs[i];
        printf("%-6lld %10.3f %10lld %12.1f\n", (long long)e->epoch, e->train_seconds, (long long)e->train_windows,
               e->train_seconds > 0 ? (double)e->train_windows / e->train_seconds : 0.0);
    }
    double mn, md, p9, mx;
    dgnn_snap_profile_stats(prof, &mn, &md, &p9, &mx);
    printf("per-sample training time (sampling + forward + backward; CPU time with --threads 1; median over %lld "
           "epochs, %lld samples): min %.2f ms, median %.2f ms, p90 %.2f ms, max %.2f ms; max/median %.2f\n",
           (long long)prof->epochs, (long long)prof->count, 1e3 * mn, 1e3 * md, 1e3 * p9, 1e3 * mx,
           md > 0 ? mx / md : 0.0);
    print_bandwidth(ev, c, bench_secs);
}
