/* cmd_simulate_event.c: `dgnn simulate --family event` (cmd_simulate.h): DepBloom against
 * strict (issue 5). One worker's costs fitted on measured single-rank runs (or a bench
 * run's step-time curve), the stream those runs trained on, the model checked against
 * measured multi-rank runs on this machine, then projected to P workers on the chosen
 * network (the model in src/cluster/simulate_event.c, the runs and the checks in
 * simulate_event_runs.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_simulate.h"
#include "simulate_report.h"

/* One run: the job, and what it reads and computes on the way. */
typedef struct {
    const sim_job *j;
    /* the measured runs: --measured (single-rank), --measured-strict, --measured-depbloom */
    dgnn_sim_measured *r1, *rs, *rd;
    int64_t n1, ns, nd;
    dgnn_sim_event_in in;   /* one worker's costs and the stream's figures */
    dgnn_events ev, train;  /* the stream, and the training events of r1[0]'s split */
    double apply_bps;       /* bytes/s of applying received rows */
    double cores;           /* the cores the measured ranks shared */
    int64_t wev;            /* the depbloom window, events */
} event_run;

/* "a.json,b.json" -> reads each; returns the count, or -1 (message printed) */
static int64_t read_runs(const char *list, dgnn_sim_measured **out, const char *flag) {
    *out = NULL;
    if (!list) return 0;
    char *buf = strdup(list);
    int64_t n = 0, cap = 4;
    dgnn_sim_measured *m = dgnn_xmalloc((size_t)cap * sizeof *m);
    dgnn_err err;
    dgnn_err_clear(&err);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == cap) m = dgnn_xrealloc(m, (size_t)(cap *= 2) * sizeof *m);
        if (dgnn_sim_measured_read(&m[n], t, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: %s: %s\n", flag, err.msg);
            free(buf), free(m);
            return -1;
        }
        n++;
    }
    free(buf);
    if (n == 0) {
        fprintf(stderr, "dgnn simulate: %s: empty list\n", flag);
        free(m);
        return -1;
    }
    *out = m;
    return n;
}

/* 0 when each of the n runs was trained in mode (flag: the list's), else 1 with a message
 * for the first that was not */
static int check_modes(const dgnn_sim_measured *runs, int64_t n, const char *mode, const char *flag) {
    for (int64_t i = 0; i < n; i++)
        if (strcmp(runs[i].mode, mode) != 0) {
            fprintf(stderr, "dgnn simulate: %s: %s: field 'dist.mode': '%s', not %s\n", flag, runs[i].path,
                    runs[i].mode, mode);
            return 1;
        }
    return 0;
}

/* The three lists of measured runs, each multi-rank run in its list's mode. 0, or 1 with
 * a message. */
static int read_measured(event_run *r) {
    const sim_job *j = r->j;
    if ((r->n1 = read_runs(j->measured, &r->r1, "--measured")) < 0) return 1;
    if ((r->ns = read_runs(j->m_strict, &r->rs, "--measured-strict")) < 0 ||
        (r->nd = read_runs(j->m_depbloom, &r->rd, "--measured-depbloom")) < 0)
        return 1;
    if (check_modes(r->rs, r->ns, "strict", "--measured-strict")) return 1;
    return check_modes(r->rd, r->nd, "depbloom", "--measured-depbloom");
}

/* One worker's costs fitted on the single-rank runs (a step curve refuses
 * --critical-path). 0, 1 or 2 with a message. */
static int fit_costs(event_run *r) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_sim_event_fit(&r->in, r->r1, r->n1, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: --measured: %s\n", err.msg);
        return 1;
    }
    if (r->in.curve.n > 0 && r->j->critical_path) {
        fprintf(stderr, "dgnn simulate: --critical-path: the step-time curve of %s already holds the trainer's own "
                        "overlap of sampling and compute; the prefetch is modelled from --measured `dgnn train` runs\n",
                r->j->measured);
        return 2;
    }
    return 0;
}

/* The stream the runs trained on: --data, else the run's dataset; the built-in stream of
 * `dgnn train` is regenerated (dgnn_sim_event_builtin_stream). 0, 1 or 2 with a message. */
static int read_stream(dgnn_events *ev, const sim_job *j, const dgnn_sim_measured *m) {
    const char *path = j->data ? j->data : m->dataset;
    if (!j->data && strcmp(m->dataset, DGNN_SIM_BUILTIN_DATASET) == 0) {
        if (cli_load_flags_unused_why("simulate", &j->lf, "the run trained on the built-in stream, which is "
                                                          "regenerated here, not read"))
            return 2;
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_sim_event_builtin_stream(ev, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: built-in stream: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    if (!j->data && access(path, R_OK) != 0) {
        fprintf(stderr, "dgnn simulate: %s: field 'dataset': '%s' cannot be read here; give --data FILE\n", m->path,
                path);
        return 1;
    }
    return cli_load("simulate", path, &j->lf, ev);
}

/* The stream and its training events under the first run's split (a warning when their
 * count is not the run's). 0, 1 or 2 with a message. */
static int load_stream(event_run *r) {
    const sim_job *j = r->j;
    int rc = read_stream(&r->ev, j, &r->r1[0]);
    if (rc) return rc;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_sim_measured_train_events(&r->train, &r->ev, &r->r1[0], &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: split: %s\n", err.msg);
        return 1;
    }
    if (r->train.num_events != r->r1[0].train_events && !j->data) /* --data: another stream on purpose */
        fprintf(stderr, "dgnn simulate: warning: the stream has %lld training events, %s trained on %lld (another "
                        "dataset or split?)\n", (long long)r->train.num_events, r->r1[0].path,
                (long long)r->r1[0].train_events);
    return 0;
}

/* The flags over the fitted costs (row and gradient bytes, the apply rate) and the
 * stream's figures; the checks' cores and the depbloom window. */
static void settle_inputs(event_run *r) {
    const sim_job *j = r->j;
    dgnn_sim_event_in *in = &r->in;
    if (j->row_bytes > 0) in->row_bytes = j->row_bytes;
    if (j->params > 0) in->grad_bytes = 4.0 * (double)j->params;
    r->apply_bps = j->apply_gbps > 0                       ? 1e9 * j->apply_gbps
                   : in->curve.apply_bytes_per_second > 0 ? in->curve.apply_bytes_per_second
                                                          : 10e9;
    in->apply_seconds_per_byte = 1 / r->apply_bps;
    in->events = r->train.num_events;
    in->rows_per_slice = dgnn_sim_rows_per_slice(&r->train, in->batch);
    r->cores = j->cores > 0 ? j->cores : (double)sysconf(_SC_NPROCESSORS_ONLN);
    r->wev = j->window_events;
    if (r->wev == 0 && r->nd > 0 && r->rd[0].window_events > 0) r->wev = r->rd[0].window_events;
    if (r->wev == 0) r->wev = DGNN_SIM_WINDOW_EVENTS;
}

/* The model against one measured run, on this machine's network and cores: its table row
 * and its entry of jo's checks (a run on another kind of device than the step curve is
 * not checked). 0, or 1 with a message. */
static int check_run(event_run *r, const dgnn_sim_measured *m, const dgnn_net *local, cJSON *jo) {
    const dgnn_sim_event_in *base = &r->in;
    if (base->curve.n > 0 && (strncmp(m->device, "cuda", 4) == 0) != (strncmp(base->curve.device, "cuda", 4) == 0)) {
        sim_event_check_skipped(m, base->curve.device);
        return 0;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_sim_run_prediction pr;
    if (dgnn_sim_event_predict_run(&pr, m, base, &r->train, r->cores, r->j->background, local, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)m->ranks, err.msg);
        return 1;
    }
    sim_event_check(jo, m, &pr);
    return 0;
}

/* 1. the model against the measured runs (this machine: local network, shared cores):
 * the single-rank ones, then strict's, then depbloom's. 0, or 1 with a message. */
static int check_runs(event_run *r, cJSON *jo) {
    const dgnn_net local = {"local", r->j->local_alpha, r->j->local_beta, 0};
    sim_event_print_checks_header(&local, r->cores, r->j->background);
    const dgnn_sim_measured *lists[3] = {r->r1, r->rs, r->rd};
    const int64_t counts[3] = {r->n1, r->ns, r->nd};
    for (int l = 0; l < 3; l++)
        for (int64_t i = 0; i < counts[l]; i++)
            if (check_run(r, &lists[l][i], &local, jo)) return 1;
    return 0;
}

/* 2. the projection: P workers with their own cores on the chosen network, a row and an
 * entry of jo's points each, efficiencies into eff (strict's, then depbloom's). 0, or 1
 * with a message (no row for that count). */
static int project(event_run *r, cJSON *jo, double *eff) {
    const sim_job *j = r->j;
    dgnn_sim_event_in *in = &r->in;
    in->refine = j->refine;
    in->refine_overhead = j->refine_overhead;
    in->critical_path = j->critical_path;
    in->cores = 0;
    in->background = 0;
    in->max_steps = 0;
    sim_event_print_projection_header(&j->net, j->window_seconds, r->wev, j->refine, j->critical_path, &in->curve);
    dgnn_err err;
    dgnn_err_clear(&err);
    for (int64_t i = 0; i < j->npts; i++) {
        dgnn_sim_event_point pt;
        if (dgnn_sim_event_on_stream(&pt, in, j->W[i], &r->train, r->wev, j->window_seconds, r->r1[0].seed, &j->net,
                                     &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)j->W[i], err.msg);
            return 1;
        }
        eff[i] = pt.strict_eff, eff[j->npts + i] = pt.db_eff;
        sim_event_point(jo, &pt, j->W[i]);
    }
    return 0;
}

/* The inputs described, the checks, the projection, the plot and the JSON. The exit status. */
static int report(event_run *r) {
    const sim_job *j = r->j;
    const sim_event_inputs x = {.in = &r->in, .train = &r->train, .dataset = j->data ? j->data : r->r1[0].dataset,
                                .nruns = r->n1, .apply_bps = r->apply_bps, .apply_gbps = j->apply_gbps};
    sim_event_print_inputs(&x);
    cJSON *jo = sim_event_json(&x, &j->net, j->refine, r->wev);
    double *eff = dgnn_xmalloc((size_t)(2 * j->npts) * sizeof(double));
    int ret = check_runs(r, jo);
    if (!ret) ret = project(r, jo, eff);
    sim_plot plot = {.path = j->svg, .workers = j->W, .npts = j->npts, .eff = eff, .names = {"strict", "depbloom"},
                     .nseries = 2};
    snprintf(plot.title, sizeof plot.title, "DepBloom vs strict, simulated efficiency: %lld events, %s, K = %lld",
             (long long)r->train.num_events, j->net.name, (long long)j->refine);
    ret = sim_write_outputs(ret, &plot, j->json, jo);
    free(eff);
    return ret;
}

int sim_event_run(const sim_job *j) {
    event_run r = {.j = j};
    int rc = read_measured(&r);
    if (rc == 0) rc = fit_costs(&r);
    if (rc == 0) rc = load_stream(&r);
    if (rc == 0) {
        settle_inputs(&r);
        rc = report(&r);
    }
    dgnn_events_free(&r.train), dgnn_events_free(&r.ev);
    free(r.r1), free(r.rs), free(r.rd);
    return rc;
}
