/* cmd_simulate.c: `dgnn simulate`: DyGNeX's cluster simulator (simulate.h): efficiency
 * T1 / (P TP) and imbalance per scheduler over a list of worker counts, for a real
 * dataset's training windows or a synthetic snapshot sequence; a table and an SVG plot.
 *
 * Families: "snapshot" is built here; "event" (DepBloom's batches) is a hook for its own
 * issue: it would produce work items and their costs and reuse the same model. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/simulate.h"

/* "1,2,4" -> values (ascending, >= 1); returns the count or -1 */
static int64_t parse_list(const char *s, int64_t *v, int64_t cap) {
    int64_t n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long long x = strtoll(p, &end, 10);
        if (end == p || x < 1 || n == cap || (n > 0 && x <= v[n - 1])) return -1;
        v[n++] = x;
        if (*end == ',') end++;
        else if (*end) return -1;
        p = end;
    }
    return n;
}

static int64_t param_count(int kind, const dgnn_snap_train_cfg *c, int64_t N, int64_t V) {
    dgnn_snapmodel_cfg mc = c->model;
    mc.kind = (dgnn_snapmodel_kind)kind;
    mc.num_nodes = N > 0 ? N : 1;
    mc.in_dim = V > 0 ? V : 1;
    mc.onehot = 1;
    mc.num_classes = 2;
    dgnn_snapmodel *m = NULL;
    dgnn_err err;
    if (dgnn_snapmodel_init(&m, &mc, &err) != DGNN_OK) return -1;
    int64_t k = dgnn_params_count(dgnn_snapmodel_params(m));
    dgnn_snapmodel_free(m);
    return k;
}

int cmd_simulate(int argc, char **argv) {
    cli_load_flags lf = {0};
    const char *family = "snapshot", *workers_s = "1,2,4,8,16,32,64,128,256,512,1024,2048,4096", *data = NULL;
    const char *pattern = "growing", *model = "evolvegcn-o", *preset = "bitcoin-alpha", *profile = NULL;
    const char *net_s = "ib", *allreduce = "ring", *scheds_s = "even,greedy", *svg = NULL, *json = NULL;
    int64_t synthetic = 0, window = -1, params = 0, seed = 1, nodes = 10000, in_dim = 100, rounds = 0;
    double seconds = -1, rate = 0, alpha = -1, beta = -1, time_limit = 10;
    arg_opt opts[] = {
        {"family", ARG_STRING, &family, "F", "snapshot (DyGNeX); event: not built yet (its own issue)"},
        {"workers", ARG_STRING, &workers_s, "LIST", "worker counts, ascending (1,2,4,...,4096)"},
        {"data", ARG_STRING, &data, "FILE", "a real dataset's training windows (cut as the trainer does) ..."},
        CLI_LOAD_OPTS(lf),
        {"synthetic", ARG_INT, &synthetic, "T", "... or a synthetic sequence of T snapshots"},
        {"pattern", ARG_STRING, &pattern, "P", "synthetic sizes: growing (default) or bursty"},
        {"nodes", ARG_INT, &nodes, "N", "synthetic: node count (10000)"},
        {"in-dim", ARG_INT, &in_dim, "V", "synthetic: one-hot input width (100)"},
        {"seed", ARG_INT, &seed, "S", "synthetic: generator seed (1)"},
        {"model", ARG_STRING, &model, "M", "evolvegcn-o (default) or evolvegcn-h"},
        {"preset", ARG_STRING, &preset, "P", "the trainer's configuration: bitcoin-alpha (default) or uci"},
        {"snapshot-seconds", ARG_DOUBLE, &seconds, "S", "--data: snapshot length in time units"},
        {"window", ARG_INT, &window, "W", "a window reads snapshots t-W..t (10)"},
        {"profile", ARG_STRING, &profile, "CSV", "fit the cost model on the trainer's profile (else the default law)"},
        {"rate", ARG_DOUBLE, &rate, "F", "default cost law: nominal FLOP/s (5e10)"},
        {"schedulers", ARG_STRING, &scheds_s, "LIST", "even,greedy (default); add ilp for the ILP (time-limited)"},
        {"rounds", ARG_INT, &rounds, "R", "greedy/ilp rounds per epoch (default ceil(windows / P))"},
        {"time-limit", ARG_DOUBLE, &time_limit, "S", "ilp: time limit per point (10)"},
        {"net", ARG_STRING, &net_s, "NET", "all-reduce network preset: ib (default) or nvlink"},
        {"alpha", ARG_DOUBLE, &alpha, "S", "override: latency per message, seconds"},
        {"beta", ARG_DOUBLE, &beta, "S_PER_BYTE", "override: seconds per byte"},
        {"allreduce", ARG_STRING, &allreduce, "A", "ring (default) or tree"},
        {"params", ARG_INT, &params, "N", "gradient size in floats (default: the model's parameter count)"},
        {"svg", ARG_STRING, &svg, "FILE", "write the scaling plot"},
        {"json", ARG_STRING, &json, "FILE", "write the table as JSON"},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "simulate",
                     .usage = "dgnn simulate --family snapshot [--data FILE | --synthetic T --pattern growing|bursty] "
                              "[options]",
                     .summary = "Predicts data-parallel scaling of DyGNeX schedules: for each worker count P, schedules\n"
                                "the windows, then TP = makespan + rounds x all-reduce(gradient bytes) (alpha-beta\n"
                                "model), T1 = total cost, efficiency = T1 / (P TP). Costs from the cost model (the\n"
                                "default FLOP law unless --profile).",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    if (strcmp(family, "event") == 0) {
        fprintf(stderr, "dgnn simulate: --family event is not built yet (DepBloom's simulator has its own issue); "
                        "use --family snapshot\n");
        return 2;
    }
    if (strcmp(family, "snapshot") != 0) {
        fprintf(stderr, "dgnn simulate: --family: unknown family '%s' (snapshot, event)\n", family);
        return 2;
    }
    int64_t W[64];
    int64_t npts = parse_list(workers_s, W, 64);
    if (npts < 1) {
        fprintf(stderr, "dgnn simulate: --workers: expected ascending integers >= 1 separated by commas, got '%s'\n",
                workers_s);
        return 2;
    }
    int64_t kinds[3], nk = 0;
    {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", scheds_s);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            int k = dgnn_sched_kind_parse(t);
            if (k < 0 || nk == 3) {
                fprintf(stderr, "dgnn simulate: --schedulers: '%s' is not a scheduler (even, greedy, ilp)\n", t);
                return 2;
            }
            kinds[nk++] = k;
        }
        if (nk == 0) {
            fprintf(stderr, "dgnn simulate: --schedulers: empty list\n");
            return 2;
        }
    }
    dgnn_net net;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_net_preset(&net, net_s, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    if (alpha >= 0) net.alpha = alpha, net.name = "custom";
    if (beta >= 0) net.beta = beta, net.name = "custom";
    if (strcmp(allreduce, "tree") == 0) net.tree = 1;
    else if (strcmp(allreduce, "ring") != 0) {
        fprintf(stderr, "dgnn simulate: --allreduce: '%s' (ring, tree)\n", allreduce);
        return 2;
    }
    int kind = cli_snap_model_kind("simulate", model);
    if (kind < 0) return 2;
    if ((data != NULL) == (synthetic > 0)) {
        fprintf(stderr, "dgnn simulate: give --data FILE or --synthetic T (one of them)\n");
        return 2;
    }
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default((dgnn_snapmodel_kind)kind);
    if (dgnn_snap_train_preset(&c, preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: --preset: %s\n", err.msg);
        return 2;
    }
    if (window >= 0) c.window = window;
    if (seconds > 0) c.snapshot_seconds = seconds, c.snapshot_count = 0;

    dgnn_window *win = NULL;
    int64_t n = 0, N = nodes;
    char what[512];
    if (data) {
        if (cli_snap_windows("simulate", data, &lf, &c, &win, &n, &N)) return 1;
        snprintf(what, sizeof what, "%s (%lld training windows)", data, (long long)n);
    } else {
        if (synthetic < c.window + 2 || nodes < 1 || in_dim < 1) {
            fprintf(stderr, "dgnn simulate: --synthetic needs at least window + 2 = %lld snapshots, --nodes and "
                            "--in-dim >= 1\n", (long long)(c.window + 2));
            return 2;
        }
        int64_t *edges = dgnn_xmalloc((size_t)synthetic * sizeof(int64_t));
        if (dgnn_sim_synthetic_edges(edges, synthetic, pattern, (uint64_t)seed, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: %s\n", err.msg);
            free(edges);
            return 2;
        }
        n = synthetic - c.window - 1;
        win = dgnn_xmalloc((size_t)n * sizeof *win);
        dgnn_sim_windows(win, edges, synthetic, c.window, nodes, c.neg_mult, c.model.hidden, in_dim);
        free(edges);
        snprintf(what, sizeof what, "synthetic %s sequence of %lld snapshots (%lld windows, every one trained)",
                 pattern, (long long)synthetic, (long long)n);
    }
    printf("simulate      %s, model %s\n", what, dgnn_snapmodel_name((dgnn_snapmodel_kind)kind));
    dgnn_costmodel cm;
    if (cli_snap_cost_model("simulate", &cm, win, n, kind, &c, profile, rate, 0)) {
        free(win);
        return 1;
    }
    if (params <= 0) params = param_count(kind, &c, N, win[0].in_dim);
    if (params <= 0) {
        fprintf(stderr, "dgnn simulate: cannot size the model's parameters; pass --params N\n");
        free(win);
        return 1;
    }
    double *cost = dgnn_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) cost[i] = dgnn_costmodel_predict(&cm, &win[i]);
    free(win);
    const double bytes = 4.0 * (double)params;
    printf("network       %s: alpha %.3g s, beta %.3g s/B (%.1f GB/s), %s all-reduce of %.3g MB (%lld float "
           "parameters) per round\n",
           net.name, net.alpha, net.beta, 1e-9 / net.beta, net.tree ? "tree" : "ring", bytes / 1e6, (long long)params);
    printf("\n%8s %7s %10s", "workers", "rounds", "comm/rnd");
    for (int64_t k = 0; k < nk; k++) printf(" %9s-imb %9s-eff", dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]),
                                            dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]));
    printf("\n");
    double *eff = dgnn_xmalloc((size_t)(nk * npts) * sizeof(double));
    cJSON *jo = cJSON_CreateObject(), *jp = cJSON_AddArrayToObject(jo, "points");
    cJSON_AddStringToObject(jo, "input", what);
    cJSON_AddStringToObject(jo, "cost_model", cm.fitted ? "profile" : "default");
    cJSON_AddStringToObject(jo, "net", net.name);
    cJSON_AddNumberToObject(jo, "alpha", net.alpha);
    cJSON_AddNumberToObject(jo, "beta", net.beta);
    cJSON_AddNumberToObject(jo, "grad_bytes", bytes);
    int ret = 0;
    for (int64_t i = 0; i < npts && !ret; i++) {
        dgnn_sim_point pt[3];
        for (int64_t k = 0; k < nk; k++) {
            dgnn_sched_opts o = dgnn_sched_opts_default();
            o.kind = (dgnn_sched_kind)kinds[k], o.rounds = rounds, o.time_limit = time_limit;
            if (dgnn_sim_snapshot(&pt[k], cost, n, W[i], &o, &net, bytes, &err) != DGNN_OK) {
                fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)W[i], err.msg);
                ret = 2;
                break;
            }
            eff[k * npts + i] = pt[k].efficiency;
        }
        if (ret) break;
        printf("%8lld %7lld %8.3fms", (long long)W[i], (long long)pt[nk - 1].rounds,
               1e3 * dgnn_allreduce_seconds(&net, W[i], bytes));
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "workers", (double)W[i]);
        for (int64_t k = 0; k < nk; k++) {
            printf(" %12.2f%% %12.2f%%", 100 * pt[k].imbalance, 100 * pt[k].efficiency);
            cJSON *s = cJSON_AddObjectToObject(q, dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]));
            cJSON_AddNumberToObject(s, "rounds", (double)pt[k].rounds);
            cJSON_AddNumberToObject(s, "t1", pt[k].t1);
            cJSON_AddNumberToObject(s, "tp", pt[k].tp);
            cJSON_AddNumberToObject(s, "makespan", pt[k].makespan);
            cJSON_AddNumberToObject(s, "comm", pt[k].comm);
            cJSON_AddNumberToObject(s, "imbalance", pt[k].imbalance);
            cJSON_AddNumberToObject(s, "efficiency", pt[k].efficiency);
            cJSON_AddNumberToObject(s, "solve_seconds", pt[k].solve_seconds);
            cJSON_AddNumberToObject(s, "gap", pt[k].gap);
        }
        cJSON_AddItemToArray(jp, q);
        printf("\n");
    }
    if (!ret && svg) {
        const char *names[3];
        for (int64_t k = 0; k < nk; k++) names[k] = dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]);
        char title[640];
        snprintf(title, sizeof title, "DyGNeX simulated efficiency: %.200s, %s", what, net.name);
        if (dgnn_sim_svg(svg, title, W, npts, eff, names, nk, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: --svg: %s\n", err.msg);
            ret = 1;
        } else {
            printf("plot          %s\n", svg);
        }
    }
    if (!ret && json) ret = cli_write_json("simulate", json, jo);
    else cJSON_Delete(jo);
    free(eff), free(cost);
    return ret;
}
