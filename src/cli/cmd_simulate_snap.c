/* cmd_simulate_snap.c: `dgnn simulate --family snapshot` (cmd_simulate.h): DyGNeX's
 * windows, from a dataset cut as the trainer cuts it or from a synthetic sequence, costed
 * by the cost model, scheduled by each listed scheduler at each worker count, and the
 * alpha-beta all-reduce of the gradient each round (src/cluster/simulate.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd_simulate.h"
#include "simulate_report.h"

/* One run: the job, and what it reads and computes on the way. */
typedef struct {
    const sim_job *j;
    dgnn_snap_train_cfg c;  /* the job's, as cli_snap_windows leaves it */
    dgnn_window *win;       /* (n) the windows to schedule; freed once costed */
    int64_t n, N;           /* windows, nodes */
    char what[512];         /* the input, described */
    int fitted;             /* the cost model was fitted on --profile */
    double *cost;           /* (n) each window's predicted seconds */
    int64_t params;         /* the gradient's floats */
    double *eff;            /* (nk, npts) efficiency per scheduler and worker count */
} snap_run;

/* --synthetic T's windows: generated snapshot sizes cut into windows. 0, or 2 with a message. */
static int synthetic_windows(snap_run *r) {
    const sim_job *j = r->j;
    if (j->synthetic < r->c.window + 2) {
        fprintf(stderr, "dgnn simulate: --synthetic %lld: needs at least window + 2 = %lld snapshots\n",
                (long long)j->synthetic, (long long)(r->c.window + 2));
        return 2;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    int64_t *edges = dgnn_xmalloc((size_t)j->synthetic * sizeof(int64_t));
    if (dgnn_sim_synthetic_edges(edges, j->synthetic, j->pattern, (uint64_t)j->seed, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        free(edges);
        return 2;
    }
    r->n = j->synthetic - r->c.window - 1;
    r->win = dgnn_xmalloc((size_t)r->n * sizeof *r->win);
    dgnn_sim_windows(r->win, edges, j->synthetic, r->c.window, j->nodes, r->c.neg_mult, r->c.model.hidden, j->in_dim);
    free(edges);
    snprintf(r->what, sizeof r->what, "synthetic %s sequence of %lld snapshots (%lld windows, every one trained)",
             j->pattern, (long long)j->synthetic, (long long)r->n);
    return 0;
}

/* The windows to schedule (--data's or --synthetic's), then --rounds against their count
 * (greedy and ilp fill R rounds, none empty; even ignores --rounds: refused here, before
 * the table, not by the first point's schedule). 0, 1 or 2 with a message. */
static int load_windows(snap_run *r) {
    const sim_job *j = r->j;
    r->N = j->nodes;
    if (j->data) {
        if (cli_snap_windows("simulate", j->data, &j->lf, &r->c, &r->win, &r->n, &r->N)) return 1;
        snprintf(r->what, sizeof r->what, "%s (%lld training windows)", j->data, (long long)r->n);
    } else if (synthetic_windows(r)) {
        return 2;
    }
    for (int64_t k = 0; k < j->nk && j->rounds > r->n; k++)
        if (j->kinds[k] != DGNN_SCHED_EVEN) {
            fprintf(stderr, "dgnn simulate: --rounds %lld is more than the %lld windows to schedule\n",
                    (long long)j->rounds, (long long)r->n);
            return 2;
        }
    return 0;
}

/* Each window's cost from the cost model (its description printed), and the gradient's
 * size (--params, else the model's). 0, or 1 with a message. */
static int window_costs(snap_run *r) {
    const sim_job *j = r->j;
    dgnn_costmodel cm;
    if (cli_snap_cost_model("simulate", &cm, r->win, r->n, j->kind, &r->c, j->profile, j->rate, 0)) return 1;
    r->fitted = cm.fitted;
    dgnn_err err;
    dgnn_err_clear(&err);
    r->params = j->params;
    if (r->params <= 0) r->params = dgnn_sim_snapshot_params(&r->c.model, j->kind, r->N, r->win[0].in_dim, &err);
    if (r->params <= 0) {
        fprintf(stderr, "dgnn simulate: cannot size the model's parameters (%s); pass --params N\n", err.msg);
        return 1;
    }
    r->cost = dgnn_xmalloc((size_t)r->n * sizeof(double));
    for (int64_t i = 0; i < r->n; i++) r->cost[i] = dgnn_costmodel_predict(&cm, &r->win[i]);
    free(r->win);
    r->win = NULL;
    return 0;
}

/* The table: at each worker count, every listed scheduler's schedule of the costs, a row
 * and an entry of jo's points. 0, or 2 with a message (no row for that count). */
static int simulate_points(snap_run *r, double bytes, cJSON *jo) {
    const sim_job *j = r->j;
    dgnn_err err;
    dgnn_err_clear(&err);
    for (int64_t i = 0; i < j->npts; i++) {
        dgnn_sim_point pt[3];
        for (int64_t k = 0; k < j->nk; k++) {
            dgnn_sched_opts o = dgnn_sched_opts_default();
            o.kind = (dgnn_sched_kind)j->kinds[k], o.rounds = j->rounds, o.time_limit = j->time_limit;
            if (dgnn_sim_snapshot(&pt[k], r->cost, r->n, j->W[i], &o, &j->net, bytes, &err) != DGNN_OK) {
                fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)j->W[i], err.msg);
                return 2;
            }
            r->eff[k * j->npts + i] = pt[k].efficiency;
        }
        sim_snap_point(jo, &j->net, j->W[i], bytes, pt, j->kinds, j->nk);
    }
    return 0;
}

/* The table, the plot and the JSON of the costed windows. The exit status. */
static int report_points(snap_run *r) {
    const sim_job *j = r->j;
    const double bytes = 4.0 * (double)r->params;
    sim_snap_print_header(&j->net, bytes, r->params, j->kinds, j->nk);
    r->eff = dgnn_xmalloc((size_t)(j->nk * j->npts) * sizeof(double));
    cJSON *jo = sim_snap_json(r->what, r->fitted, &j->net, bytes);
    const int ret = simulate_points(r, bytes, jo);
    sim_plot plot = {.path = j->svg, .workers = j->W, .npts = j->npts, .eff = r->eff, .nseries = j->nk};
    for (int64_t k = 0; k < j->nk; k++) plot.names[k] = dgnn_sched_kind_name((dgnn_sched_kind)j->kinds[k]);
    snprintf(plot.title, sizeof plot.title, "DyGNeX simulated efficiency: %.200s, %s", r->what, j->net.name);
    return sim_write_outputs(ret, &plot, j->json, jo);
}

int sim_snapshot_run(const sim_job *j) {
    snap_run r = {.j = j, .c = j->cfg};
    int rc = load_windows(&r);
    if (rc == 0) {
        printf("simulate      %s, model %s\n", r.what, dgnn_snapmodel_name((dgnn_snapmodel_kind)j->kind));
        rc = window_costs(&r);
    }
    if (rc == 0) rc = report_points(&r);
    free(r.win), free(r.cost), free(r.eff);
    return rc;
}
