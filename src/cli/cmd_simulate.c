/* cmd_simulate.c: `dgnn simulate`: DyGNeX's cluster simulator (simulate.h): efficiency
 * T1 / (P TP) and imbalance per scheduler over a list of worker counts, for a real
 * dataset's training windows or a synthetic snapshot sequence; a table and an SVG plot.
 *
 * Families: "snapshot" (DyGNeX's windows); "event" (DepBloom against strict, issue 5:
 * simulate_event below; the model in src/cluster/simulate_event.c, the measured runs and the
 * checks against them in simulate_event_runs.c): one worker's measured costs, the
 * stream's rows and partitions, the same alpha-beta network; also checks the model
 * against measured multi-rank runs. This file parses the flags, calls those and prints. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn/costmodel.h"
#include "dgnn/gen.h"
#include "dgnn/simulate.h"
#include "dgnn/split.h"
#include "dgnn/svg.h"

/* the header line's all-reduce words */

/* --alpha / --beta given: they replace the preset's (a negative one is refused by the
 * option table). */
static int cli_net_override(dgnn_net *net, double alpha, double beta) {
    if (CLI_GIVEN_F(alpha)) net->alpha = alpha, net->name = "custom";
    if (CLI_GIVEN_F(beta)) net->beta = beta, net->name = "custom";
    return 0;
}

static const char *ar_label(const dgnn_net *n) {
    return n->allreduce == DGNN_ALLREDUCE_AUTO ? "auto (the cheaper of ring and tree at each P)"
           : n->allreduce == DGNN_ALLREDUCE_TREE ? "tree" : "ring";
}

/* "1,2,4" -> values (ascending, in 1..CLI_MAX_WORKERS); returns the count or -1. Every
 * entry is digits: an empty one ("1,,2", "1,2,", ",1") is refused, as are signs and
 * spaces (strtoll alone would skip them). */
static int64_t parse_list(const char *s, int64_t *v, int64_t cap) {
    int64_t n = 0;
    const char *p = s;
    while (*p) {
        if (*p < '0' || *p > '9') return -1;
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (errno == ERANGE || x < 1 || x > CLI_MAX_WORKERS || n == cap || (n > 0 && x <= v[n - 1])) return -1;
        v[n++] = x;
        if (*end == ',' && end[1] == '\0') return -1;
        if (*end == ',') end++;
        else if (*end) return -1;
        p = end;
    }
    return n;
}

/* "even,greedy" -> kinds[0..] (at most 3, each once, in the order given: the table's
 * columns and the JSON's keys); returns the count, or -1 with the message printed. */
static int64_t parse_schedulers(const char *s, int64_t kinds[3]) {
    int64_t nk = 0;
    for (const char *p = s;; p++) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            fprintf(stderr, "dgnn simulate: --schedulers: empty entry in '%s' (a list such as even,greedy,ilp)\n", s);
            return -1;
        }
        char name[16];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        const int k = len < sizeof name ? dgnn_sched_kind_parse(name) : -1;
        if (k < 0) {
            fprintf(stderr, "dgnn simulate: --schedulers: '%.*s' is not a scheduler (even, greedy, ilp)\n", (int)len, p);
            return -1;
        }
        for (int64_t j = 0; j < nk; j++)
            if (kinds[j] == k) {
                fprintf(stderr, "dgnn simulate: --schedulers: '%s' is given twice in '%s' (each scheduler once)\n",
                        name, s);
                return -1;
            }
        kinds[nk++] = k; /* 3 distinct kinds at most: nk stays <= 3 */
        if (!end) return nk;
        p = end;
    }
}

/* ---- --family event ------------------------------------------------------------- */

typedef struct {
    const char *measured, *m_strict, *m_depbloom;
    int64_t refine, window_events;
    double refine_overhead, window_seconds, apply_gbps, row_bytes, local_alpha, local_beta, cores, background;
    int critical_path;
    /* shared with the snapshot family, copied in by cmd_simulate */
    const char *workers, *data, *net, *allreduce, *svg, *json;
    const cli_load_flags *lf;
    double alpha, beta;
    int64_t params;
} ev_opts;

static ev_opts ev_opts_default(void) {
    ev_opts o;
    memset(&o, 0, sizeof o);
    o.refine = 1;
    o.window_events = 0;      /* 0: the measured depbloom run's, else 10,000 (the trainer's) */
    o.apply_gbps = 0;         /* 0: the step curve's measured rate, else 10 (memcpy-class
                                 unpacking on one core) */
    o.local_alpha = 2e-6;     /* Open MPI over shared memory here (measured: docs/depbloom.md) */
    o.local_beta = 1.0 / 1e9;
    o.cores = -1;             /* -1: this machine's online cores */
    return o;
}

#define EV_OPTS(o)                                                                                                    \
    {"measured", ARG_STRING, &(o).measured, "LIST", "event: single-rank `dgnn train --out` runs (2 batch sizes: per-step cost fitted), or a `dgnn bench train --step-curve LIST --out` run (its measured step times, CPU or GPU)"}, \
    {"measured-strict", ARG_STRING, &(o).m_strict, "LIST", "event: multi-rank strict runs to check the model against"},      \
    {"measured-depbloom", ARG_STRING, &(o).m_depbloom, "LIST", "event: multi-rank depbloom runs to check it against"},        \
    {"refine", ARG_INT, &(o).refine, "K", "event: depbloom micro-batches per step (1)", ARG_IN(1, 1024)},                    \
    {"refine-overhead", ARG_DOUBLE, &(o).refine_overhead, "F", "event: refinement's extra compute per event, fraction (0)", \
     ARG_IN(0, 100)},                                                                                                         \
    {"window-events", ARG_INT, &(o).window_events, "N", "event: depbloom window (default: the depbloom run's, or 10000)",  \
     ARG_MIN(1)},                                                                                                             \
    {"window-seconds", ARG_DOUBLE, &(o).window_seconds, "S", "event: depbloom windows of S time units instead", ARG_ABOVE(0)}, \
    {"critical-path", ARG_FLAG, &(o).critical_path, NULL, "event: depbloom samples beside compute (prefetch)"},              \
    {"apply-gbps", ARG_DOUBLE, &(o).apply_gbps, "G", "event: GB/s of applying received rows (the step curve's, else 10)", ARG_ABOVE(0)}, \
    {"row-bytes", ARG_DOUBLE, &(o).row_bytes, "N", "event: bytes of a node's state row (default: from the run's model)",  \
     ARG_ABOVE(0)},                                                                                                           \
    {"local-alpha", ARG_DOUBLE, &(o).local_alpha, "S", "event, checks: this machine's MPI latency (2e-6)", ARG_MIN(0)},   \
    {"local-beta", ARG_DOUBLE, &(o).local_beta, "S_PER_BYTE", "event, checks: this machine's MPI s/byte (1e-9)", ARG_MIN(0)}, \
    {"cores", ARG_DOUBLE, &(o).cores, "C", "event, checks: cores the measured ranks shared, a share under load (default: this machine's)", \
     ARG_IN_OPEN_LO(0, 1e6)},                                                                                                         \
    {"background", ARG_DOUBLE, &(o).background, "L", "event, checks: other runnable threads on those cores (0)", ARG_IN(0, 1e6)}

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

/* The stream the runs trained on: --data, else the run's dataset; the built-in stream of
 * `dgnn train` is regenerated (dgnn_sim_event_builtin_stream). */
static int ev_stream(dgnn_events *ev, const ev_opts *o, const dgnn_sim_measured *m) {
    const char *path = o->data ? o->data : m->dataset;
    if (!o->data && strcmp(m->dataset, DGNN_SIM_BUILTIN_DATASET) == 0) {
        if (cli_load_flags_unused_why("simulate", o->lf, "the run trained on the built-in stream, which is "
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
    if (!o->data && access(path, R_OK) != 0) {
        fprintf(stderr, "dgnn simulate: %s: field 'dataset': '%s' cannot be read here; give --data FILE\n", m->path,
                path);
        return 1;
    }
    return cli_load("simulate", path, o->lf, ev);
}

static double pct(double pred, double meas) { return meas != 0 ? 100.0 * (pred - meas) / meas : NAN; }

/* a figure of the checks table with prec decimals, or "n/a" where the run did not measure
 * it (NaN: a single-process run has no per-rank compute and comm); returns b */
static const char *fig(char *b, size_t cap, double x, int prec) {
    if (isfinite(x)) snprintf(b, cap, "%.*f", prec, x);
    else snprintf(b, cap, "n/a");
    return b;
}

/* The model against one measured run, on this machine's network and cores: one table row
 * and one JSON entry. */
static int ev_check(cJSON *jv, const dgnn_sim_measured *m, const dgnn_sim_event_in *base, const dgnn_events *train,
                    const ev_opts *o, const dgnn_net *local, double cores) {
    dgnn_err err;
    dgnn_err_clear(&err);
    const char *slash = strrchr(m->path, '/');
    if (base->curve.n > 0 && (strncmp(m->device, "cuda", 4) == 0) != (strncmp(base->curve.device, "cuda", 4) == 0)) {
        printf("%-22.22s %-8s %5lld  not checked: it trained on %s, the step-time curve was measured on %s\n",
               slash ? slash + 1 : m->path, m->mode, (long long)m->ranks, m->device, base->curve.device);
        return 0;
    }
    dgnn_sim_run_prediction pr;
    if (dgnn_sim_event_predict_run(&pr, m, base, train, cores, o->background, local, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)m->ranks, err.msg);
        return 1;
    }
    char f[8][32], e[32];
    const size_t F = sizeof f[0];
    const double error = pct(pr.seconds, m->train_seconds);
    if (isfinite(error)) snprintf(e, sizeof e, "%+7.1f%%", error);
    else snprintf(e, sizeof e, "%8s", "n/a");
    printf("%-22.22s %-8s %5lld %5lld %6lld/%-6lld %7lld/%-7lld %8s %8s %s %6s/%-6s %6s/%-6s %7s/%-7s\n",
           slash ? slash + 1 : m->path, m->mode, (long long)m->ranks, (long long)m->batch, (long long)m->steps,
           (long long)pr.steps, (long long)m->epoch_events, (long long)pr.events, fig(f[0], F, m->train_seconds, 2),
           fig(f[1], F, pr.seconds, 2), e, fig(f[2], F, m->compute_seconds, 2), fig(f[3], F, pr.compute, 2),
           fig(f[4], F, m->comm_seconds, 2), fig(f[5], F, pr.comm, 2),
           fig(f[6], F, m->state_bytes_per_epoch / 1e6, 1), fig(f[7], F, pr.state_bytes / 1e6, 1));
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "run", m->path);
    cJSON_AddStringToObject(q, "mode", m->mode);
    cJSON_AddNumberToObject(q, "ranks", (double)m->ranks);
    cJSON_AddNumberToObject(q, "batch", (double)m->batch);
    cJSON_AddNumberToObject(q, "measured_seconds", m->train_seconds);
    cJSON_AddNumberToObject(q, "predicted_seconds", pr.seconds);
    cJSON_AddNumberToObject(q, "error", pr.error);
    cJSON_AddNumberToObject(q, "predicted_compute", pr.compute);
    cJSON_AddNumberToObject(q, "predicted_comm", pr.comm);
    if (isfinite(m->compute_seconds)) cJSON_AddNumberToObject(q, "measured_compute_max_rank", m->compute_seconds);
    if (isfinite(m->comm_seconds)) cJSON_AddNumberToObject(q, "measured_comm_max_rank", m->comm_seconds);
    cJSON_AddNumberToObject(q, "measured_state_bytes", m->state_bytes_per_epoch);
    cJSON_AddNumberToObject(q, "predicted_state_bytes", pr.state_bytes);
    cJSON_AddItemToArray(jv, q);
    return 0;
}

static int simulate_event(const ev_opts *o) {
    int64_t W[64];
    int64_t npts = parse_list(o->workers, W, 64);
    if (npts < 1) {
        fprintf(stderr, "dgnn simulate: --workers: expected at most 64 ascending integers in 1..%d separated by commas, got "
                        "'%s'\n", CLI_MAX_WORKERS,
                o->workers);
        return 2;
    }
    if (!o->measured) {
        fprintf(stderr, "dgnn simulate: --family event needs --measured RUN.json (a single-rank `dgnn train --out` "
                        "run; two with different --batch fit the per-step cost)\n");
        return 2;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_net net, local = {"local", o->local_alpha, o->local_beta, 0};
    if (dgnn_net_preset(&net, o->net, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    if (cli_net_override(&net, o->alpha, o->beta)) return 2;
    if (dgnn_allreduce_parse(&net, o->allreduce, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    dgnn_sim_measured *r1 = NULL, *rs = NULL, *rd = NULL;
    int64_t n1 = read_runs(o->measured, &r1, "--measured"), ns = 0, nd = 0;
    if (n1 < 0) return 1;
    if ((ns = read_runs(o->m_strict, &rs, "--measured-strict")) < 0 ||
        (nd = read_runs(o->m_depbloom, &rd, "--measured-depbloom")) < 0) {
        free(r1), free(rs);
        return 1;
    }
    int ret = 0;
    for (int64_t i = 0; i < ns && !ret; i++)
        if (strcmp(rs[i].mode, "strict") != 0) {
            fprintf(stderr, "dgnn simulate: --measured-strict: %s: field 'dist.mode': '%s', not strict\n", rs[i].path,
                    rs[i].mode);
            ret = 1;
        }
    for (int64_t i = 0; i < nd && !ret; i++)
        if (strcmp(rd[i].mode, "depbloom") != 0) {
            fprintf(stderr, "dgnn simulate: --measured-depbloom: %s: field 'dist.mode': '%s', not depbloom\n",
                    rd[i].path, rd[i].mode);
            ret = 1;
        }
    dgnn_sim_event_in in;
    memset(&in, 0, sizeof in);
    if (!ret && dgnn_sim_event_fit(&in, r1, n1, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: --measured: %s\n", err.msg);
        ret = 1;
    }
    if (!ret && in.curve.n > 0 && o->critical_path) {
        fprintf(stderr, "dgnn simulate: --critical-path: the step-time curve of %s already holds the trainer's own "
                        "overlap of sampling and compute; the prefetch is modelled from --measured `dgnn train` runs\n",
                o->measured);
        ret = 2;
    }
    dgnn_events ev, train;
    memset(&ev, 0, sizeof ev), memset(&train, 0, sizeof train);
    if (!ret) ret = ev_stream(&ev, o, &r1[0]);
    if (!ret && dgnn_sim_measured_train_events(&train, &ev, &r1[0], &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: split: %s\n", err.msg);
        ret = 1;
    }
    if (ret) {
        dgnn_events_free(&ev);
        free(r1), free(rs), free(rd);
        return ret;
    }
    if (train.num_events != r1[0].train_events && !o->data) /* --data: another stream on purpose */
        fprintf(stderr, "dgnn simulate: warning: the stream has %lld training events, %s trained on %lld (another "
                        "dataset or split?)\n", (long long)train.num_events, r1[0].path,
                (long long)r1[0].train_events);
    if (o->row_bytes > 0) in.row_bytes = o->row_bytes;
    if (o->params > 0) in.grad_bytes = 4.0 * (double)o->params;
    const double apply_bps = o->apply_gbps > 0 ? 1e9 * o->apply_gbps
                             : in.curve.apply_bytes_per_second > 0 ? in.curve.apply_bytes_per_second : 10e9;
    in.apply_seconds_per_byte = 1 / apply_bps;
    in.events = train.num_events;
    in.rows_per_slice = dgnn_sim_rows_per_slice(&train, in.batch);
    const double cores = o->cores > 0 ? o->cores : (double)sysconf(_SC_NPROCESSORS_ONLN);
    int64_t wev = o->window_events;
    if (wev == 0 && nd > 0 && rd[0].window_events > 0) wev = rd[0].window_events;
    if (wev == 0) wev = DGNN_SIM_WINDOW_EVENTS;
    printf("simulate      event family: %lld training events, %lld nodes (%s)\n", (long long)train.num_events,
           (long long)train.num_nodes, o->data ? o->data : r1[0].dataset);
    if (in.curve.n == 0)
        printf("one worker    %.4g ms/event (sampling %.4g ms of it), %.4g ms/step, batch %lld (fitted on %lld run%s); "
               "row %.0f B, gradient %.3g MB; %.1f rows written per %lld-event slice\n",
               1e3 * in.event_seconds, 1e3 * in.sample_seconds, 1e3 * in.step_seconds, (long long)in.batch,
               (long long)n1, n1 > 1 ? "s" : "", in.row_bytes, in.grad_bytes / 1e6, in.rows_per_slice,
               (long long)in.batch);
    else /* the curve replaces the fitted line as a step's compute */
        printf("one worker    batch %lld; row %.0f B, gradient %.3g MB; %.1f rows written per %lld-event slice\n",
               (long long)in.batch, in.row_bytes, in.grad_bytes / 1e6, in.rows_per_slice, (long long)in.batch);
    if (in.curve.n > 0) {
        printf("step curve    measured on %s, a step's seconds at each batch:", in.curve.device);
        for (int64_t k = 0; k < in.curve.n; k++)
            printf(" %g: %.4g ms%s", in.curve.batch[k], 1e3 * in.curve.seconds[k], k + 1 < in.curve.n ? "," : "");
        if (in.curve.optimizer_seconds > 0)
            printf("; the optimizer %.4g ms of each (refinement's K micro-batches run it once)\n",
                   1e3 * in.curve.optimizer_seconds);
        else
            printf("; the optimizer's part not measured (refinement's micro-batches each cost a whole step)\n");
    }
    printf("apply rows    %.3g GB/s (%s)\n", apply_bps / 1e9,
           o->apply_gbps > 0 ? "--apply-gbps" : in.curve.apply_bytes_per_second > 0 ? "measured with the step curve"
                                                                                   : "the default, --apply-gbps");
    cJSON *jo = cJSON_CreateObject();
    cJSON_AddStringToObject(jo, "family", "event");
    cJSON_AddNumberToObject(jo, "train_events", (double)train.num_events);
    cJSON_AddNumberToObject(jo, "event_seconds", in.event_seconds);
    cJSON_AddNumberToObject(jo, "step_seconds", in.step_seconds);
    cJSON_AddNumberToObject(jo, "sample_seconds", in.sample_seconds);
    cJSON_AddNumberToObject(jo, "batch", (double)in.batch);
    cJSON_AddNumberToObject(jo, "row_bytes", in.row_bytes);
    cJSON_AddNumberToObject(jo, "grad_bytes", in.grad_bytes);
    cJSON_AddNumberToObject(jo, "rows_per_slice", in.rows_per_slice);
    cJSON_AddNumberToObject(jo, "apply_bytes_per_second", apply_bps);
    if (in.curve.n > 0) {
        cJSON *jc = cJSON_AddObjectToObject(jo, "step_curve");
        cJSON_AddStringToObject(jc, "device", in.curve.device);
        cJSON_AddNumberToObject(jc, "optimizer_seconds", in.curve.optimizer_seconds);
        cJSON *jpts = cJSON_AddArrayToObject(jc, "points");
        for (int64_t k = 0; k < in.curve.n; k++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddNumberToObject(q, "batch", in.curve.batch[k]);
            cJSON_AddNumberToObject(q, "step_seconds", in.curve.seconds[k]);
            cJSON_AddItemToArray(jpts, q);
        }
    }

    /* 1. the model against the measured runs (this machine: local network, shared cores) */
    cJSON *jv = cJSON_AddArrayToObject(jo, "checks");
    printf("\nchecks        the model against measured runs, on this machine: MPI alpha %.3g s, beta %.3g s/B; "
           "%.0f cores shared by the ranks%s\n", local.alpha, local.beta, cores,
           o->background > 0 ? " and the background load" : "");
    printf("%-22s %-8s %5s %5s %13s %15s %8s %8s %8s %13s %13s %15s\n", "run", "mode", "ranks", "batch",
           "steps m/p", "events m/p", "meas s", "pred s", "error", "compute m/p", "comm m/p", "state MB m/p");
    for (int64_t i = 0; i < n1 && !ret; i++) ret = ev_check(jv, &r1[i], &in, &train, o, &local, cores);
    for (int64_t i = 0; i < ns && !ret; i++) ret = ev_check(jv, &rs[i], &in, &train, o, &local, cores);
    for (int64_t i = 0; i < nd && !ret; i++) ret = ev_check(jv, &rd[i], &in, &train, o, &local, cores);

    /* 2. the projection: P workers with their own cores on the chosen network */
    in.refine = o->refine;
    in.refine_overhead = o->refine_overhead;
    in.critical_path = o->critical_path;
    in.cores = 0;
    in.background = 0;
    in.max_steps = 0;
    double *eff = dgnn_xmalloc((size_t)(2 * npts) * sizeof(double));
    cJSON *jp = cJSON_AddArrayToObject(jo, "points");
    cJSON_AddStringToObject(jo, "net", net.name);
    cJSON_AddNumberToObject(jo, "alpha", net.alpha);
    cJSON_AddNumberToObject(jo, "beta", net.beta);
    cJSON_AddNumberToObject(jo, "refine", (double)o->refine);
    cJSON_AddNumberToObject(jo, "window_events", (double)wev);
    if (!ret) {
        char wins[64];
        if (o->window_seconds > 0) snprintf(wins, sizeof wins, "%g time units", o->window_seconds);
        else snprintf(wins, sizeof wins, "%lld events", (long long)wev);
        printf("\nprojection    %s: alpha %.3g s, beta %.3g s/B (%.1f GB/s), %s all-reduce; depbloom windows of %s, "
               "refine K = %lld%s; ",
               net.name, net.alpha, net.beta, 1e-9 / net.beta, ar_label(&net), wins, (long long)o->refine,
               o->critical_path ? ", critical path (sampling hidden)" : "");
        if (in.curve.n > 0) printf("each worker as the step curve's %s\n", in.curve.device);
        else printf("one core per worker\n");
        printf("%8s %8s %10s %10s %10s %10s %9s %9s %8s %8s %10s %10s\n", "workers", "steps", "strict s", "s-gather",
               "depbloom s", "d-sync", "speedup", "s-eff", "d-eff", "imbal", "cut", "d-steps");
    }
    for (int64_t i = 0; i < npts && !ret; i++) {
        dgnn_sim_event_point pt;
        if (dgnn_sim_event_on_stream(&pt, &in, W[i], &train, wev, o->window_seconds, r1[0].seed, &net, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: %lld workers: %s\n", (long long)W[i], err.msg);
            ret = 1;
            break;
        }
        eff[i] = pt.strict_eff, eff[npts + i] = pt.db_eff;
        printf("%8lld %8lld %10.4g %10.3g %10.4g %10.3g %8.2fx %8.1f%% %7.1f%% %8.3f %10.4f %10lld\n",
               (long long)W[i], (long long)pt.strict_steps, pt.strict_tp, pt.strict_gather, pt.db_tp, pt.db_sync,
               pt.speedup, 100 * pt.strict_eff, 100 * pt.db_eff, pt.db_imbalance, pt.db_cut_fraction,
               (long long)pt.db_steps);
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "workers", (double)W[i]);
        cJSON_AddNumberToObject(q, "t1", pt.t1);
        cJSON *s = cJSON_AddObjectToObject(q, "strict");
        cJSON_AddNumberToObject(s, "steps", (double)pt.strict_steps);
        cJSON_AddNumberToObject(s, "seconds", pt.strict_tp);
        cJSON_AddNumberToObject(s, "compute", pt.strict_compute);
        cJSON_AddNumberToObject(s, "allreduce", pt.strict_allreduce);
        cJSON_AddNumberToObject(s, "gather", pt.strict_gather);
        cJSON_AddNumberToObject(s, "comm", pt.strict_comm);
        cJSON_AddNumberToObject(s, "efficiency", pt.strict_eff);
        cJSON_AddNumberToObject(s, "state_bytes", pt.strict_state_bytes);
        cJSON *d = cJSON_AddObjectToObject(q, "depbloom");
        cJSON_AddNumberToObject(d, "steps", (double)pt.db_steps);
        cJSON_AddNumberToObject(d, "seconds", pt.db_tp);
        cJSON_AddNumberToObject(d, "compute", pt.db_compute);
        cJSON_AddNumberToObject(d, "allreduce", pt.db_allreduce);
        cJSON_AddNumberToObject(d, "sync", pt.db_sync);
        cJSON_AddNumberToObject(d, "efficiency", pt.db_eff);
        cJSON_AddNumberToObject(d, "state_bytes", pt.db_state_bytes);
        cJSON_AddNumberToObject(d, "imbalance", pt.db_imbalance);
        cJSON_AddNumberToObject(d, "cut_fraction", pt.db_cut_fraction);
        cJSON_AddNumberToObject(q, "speedup", pt.speedup);
        cJSON_AddItemToArray(jp, q);
    }
    if (!ret && o->svg) {
        const char *names[2] = {"strict", "depbloom"};
        char title[640];
        snprintf(title, sizeof title, "DepBloom vs strict, simulated efficiency: %lld events, %s, K = %lld",
                 (long long)train.num_events, net.name, (long long)o->refine);
        if (dgnn_sim_svg(o->svg, title, W, npts, eff, names, 2, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: --svg: %s\n", err.msg);
            ret = 1;
        } else {
            printf("plot          %s\n", o->svg);
        }
    }
    if (!ret && o->json) ret = cli_write_json("simulate", o->json, jo);
    else cJSON_Delete(jo);
    free(eff);
    dgnn_events_free(&train), dgnn_events_free(&ev);
    free(r1), free(rs), free(rd);
    return ret;
}

/* ---- flags that one family or one input acts on ------------------------------------ */

/* Where a flag has an effect. Given anywhere else it would be ignored while the output
 * reads as if it were used (the JSON records no such thing), so it is refused. Flags not
 * listed act in both families (--workers, --data, --net, --alpha, --beta, --allreduce,
 * --params, --svg, --json, the loading flags); --data and --synthetic choose the input
 * and have their own checks. */
enum { ON_EVENT = 1, ON_SNAP_DATA = 2, ON_SNAP_SYNTH = 4, ON_SNAP = ON_SNAP_DATA | ON_SNAP_SYNTH };
static const struct {
    const char *flag;
    int on;
} scoped_flags[] = {
    {"measured", ON_EVENT},      {"measured-strict", ON_EVENT}, {"measured-depbloom", ON_EVENT},
    {"refine", ON_EVENT},        {"refine-overhead", ON_EVENT}, {"window-events", ON_EVENT},
    {"window-seconds", ON_EVENT}, {"critical-path", ON_EVENT},  {"apply-gbps", ON_EVENT},
    {"row-bytes", ON_EVENT},     {"local-alpha", ON_EVENT},     {"local-beta", ON_EVENT},
    {"cores", ON_EVENT},         {"background", ON_EVENT},      {"model", ON_SNAP},
    {"preset", ON_SNAP},         {"window", ON_SNAP},           {"profile", ON_SNAP},
    {"rate", ON_SNAP},           {"schedulers", ON_SNAP},       {"rounds", ON_SNAP},
    {"time-limit", ON_SNAP},     {"snapshot-seconds", ON_SNAP_DATA}, {"pattern", ON_SNAP_SYNTH},
    {"nodes", ON_SNAP_SYNTH},    {"in-dim", ON_SNAP_SYNTH},     {"seed", ON_SNAP_SYNTH},
};

static const char *scope_name(int on) {
    return on == ON_EVENT ? "--family event" : on == ON_SNAP ? "--family snapshot"
           : on == ON_SNAP_DATA ? "--family snapshot --data FILE" : "--family snapshot --synthetic T";
}

/* This run is `here`: ON_EVENT, ON_SNAP_DATA or ON_SNAP_SYNTH (ON_SNAP: a snapshot run
 * whose input is not settled, checked by family only). Returns 2 with a message for the
 * first flag given that it would ignore, else 0. */
static int refuse_unused_flags(const arg_opt *opts, int argc, char **argv, int here) {
    for (size_t k = 0; k < sizeof scoped_flags / sizeof scoped_flags[0]; k++) {
        const int on = scoped_flags[k].on;
        if ((on & here) || !args_given(opts, argc, argv, scoped_flags[k].flag)) continue;
        fprintf(stderr, "dgnn simulate: --%s acts on %s only; a %s run would ignore it\n", scoped_flags[k].flag,
                scope_name(on), scope_name(here));
        return 2;
    }
    return 0;
}

int cmd_simulate(int argc, char **argv) {
    cli_load_flags lf = {0};
    static const char default_workers[] = "1,2,4,8,16,32,64,128,256,512,1024,2048,4096";
    const char *family = "snapshot", *workers_s = default_workers, *data = NULL;
    const char *pattern = "growing", *model = "evolvegcn-o", *preset = "bitcoin-alpha", *profile = NULL;
    const char *net_s = "ib", *allreduce = "auto", *scheds_s = "even,greedy", *svg = NULL, *json = NULL;
    int64_t synthetic = 0, window = CLI_UNSET, params = 0, seed = 1, nodes = 10000, in_dim = 100, rounds = 0;
    double seconds = CLI_UNSET_F, rate = 0, alpha = CLI_UNSET_F, beta = CLI_UNSET_F, time_limit = 10;
    ev_opts eo = ev_opts_default();
    arg_opt opts[] = {
        {"family", ARG_STRING, &family, "F", "snapshot (DyGNeX, default) or event (DepBloom against strict)"},
        {"workers", ARG_STRING, &workers_s, "LIST", "worker counts, ascending (snapshot 1,2,4,...,4096; event 1,2,4,...,512)"},
        {"data", ARG_STRING, &data, "FILE", "a real dataset's training windows (cut as the trainer does) ..."},
        CLI_LOAD_OPTS(lf),
        {"synthetic", ARG_INT, &synthetic, "T", "... or a synthetic sequence of T snapshots (at least window + 2)",
         ARG_IN(1, CLI_MAX_SNAPSHOTS)},
        {"pattern", ARG_STRING, &pattern, "P", "synthetic sizes: growing (default) or bursty"},
        {"nodes", ARG_INT, &nodes, "N", "synthetic: node count (10000)", ARG_IN(1, 1e9)},
        {"in-dim", ARG_INT, &in_dim, "V", "synthetic: one-hot input width (100)", ARG_IN(1, 65536)},
        {"seed", ARG_INT, &seed, "S", "synthetic: generator seed (1)", ARG_MIN(0)},
        {"model", ARG_STRING, &model, "M", "snapshot: evolvegcn-o (default), evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn"},
        {"preset", ARG_STRING, &preset, "P", "the trainer's configuration: bitcoin-alpha (default) or uci"},
        {"snapshot-seconds", ARG_DOUBLE, &seconds, "S", "--data: snapshot length in time units", ARG_ABOVE(0)},
        {"window", ARG_INT, &window, "W", "a window reads snapshots t-W..t (10)", ARG_IN(0, CLI_MAX_WINDOW)},
        {"profile", ARG_STRING, &profile, "CSV", "fit the cost model on the trainer's profile (else the default law)"},
        {"rate", ARG_DOUBLE, &rate, "F", "default cost law: nominal FLOP/s (5e10)", ARG_ABOVE(0)},
        {"schedulers", ARG_STRING, &scheds_s, "LIST", "even,greedy (default); add ilp for the ILP (time-limited)"},
        {"rounds", ARG_INT, &rounds, "R",
         "greedy/ilp rounds per epoch (default, or 0: the R in C - 7 .. C with R >= 0.9 C, C = ceil(windows / P), "
         "whose greedy schedule has the lowest makespan; ties: the larger R)",
         ARG_MIN(0)},
        {"time-limit", ARG_DOUBLE, &time_limit, "S", "ilp: time limit per point (10)", ARG_IN_OPEN_LO(0, CLI_MAX_SECONDS)},
        {"net", ARG_STRING, &net_s, "NET", "all-reduce network preset: ib (default) or nvlink"},
        {"alpha", ARG_DOUBLE, &alpha, "S", "override: latency per message, seconds", ARG_MIN(0)},
        {"beta", ARG_DOUBLE, &beta, "S_PER_BYTE", "override: seconds per byte", ARG_MIN(0)},
        {"allreduce", ARG_STRING, &allreduce, "A", "ring, tree or auto (default: the cheaper at each P, as NCCL picks)"},
        {"params", ARG_INT, &params, "N", "gradient size in floats (default: the model's parameter count)",
         ARG_IN(1, 1e13)},
        {"svg", ARG_STRING, &svg, "FILE", "write the scaling plot"},
        {"json", ARG_STRING, &json, "FILE", "write the table as JSON"},
        EV_OPTS(eo),
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "simulate",
                     .usage = "dgnn simulate --family snapshot [--data FILE | --synthetic T --pattern growing|bursty] "
                              "[options]\n       dgnn simulate --family event --measured RUN.json[,RUN2.json] [--data FILE] "
                              "[--measured-strict R.json,...] [--measured-depbloom R.json,...] [options]",
                     .summary = "Predicts data-parallel scaling of DyGNeX schedules: for each worker count P, schedules\n"
                                "the windows, then TP = makespan + rounds x all-reduce(gradient bytes) (alpha-beta\n"
                                "model), T1 = total cost, efficiency = T1 / (P TP). Costs from the cost model (the\n"
                                "default FLOP law unless --profile).\n"
                                "--family event: strict and DepBloom epoch time per P from one worker's measured costs\n"
                                "(dgnn train --out JSON), the stream's rows per step and DepBloom's partition at each\n"
                                "P, and the same network model; checks itself against measured multi-rank runs\n"
                                "(docs/depbloom.md, \"Simulator (event family)\").",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    /* one process simulates: under mpirun each copy would print and write the same */
    if (cli_refuse_copies("simulate", "dgnn simulate runs in one process, and each would simulate alone and write "
                                      "the same outputs: run it without mpirun"))
        return 2;
    const int event = strcmp(family, "event") == 0;
    if (!event && strcmp(family, "snapshot") != 0) {
        fprintf(stderr, "dgnn simulate: --family: unknown family '%s' (snapshot, event)\n", family);
        return 2;
    }
    if (event && synthetic > 0) {
        fprintf(stderr, "dgnn simulate: --family event: --synthetic T (a snapshot sequence) is not built yet for "
                        "the event family; give --measured RUN.json and --data FILE (or the run's own dataset)\n");
        return 2;
    }
    /* a flag this run would ignore, before anything is read (both or neither of --data and
     * --synthetic: refused below, the snapshot flags checked by family only) */
    const int here = event                              ? ON_EVENT
                     : (data != NULL) == (synthetic > 0) ? ON_SNAP
                     : data                              ? ON_SNAP_DATA
                                                         : ON_SNAP_SYNTH;
    if (refuse_unused_flags(opts, argc, argv, here)) return 2;
    /* before any simulation; never an input (a measured run's JSON among them) */
    const cli_output outs[] = {{"--svg", svg, CLI_OUT_FILE},       {"--json", json, CLI_OUT_FILE},
                               {"--data", data, CLI_IN},           {"--profile", profile, CLI_IN},
                               {"--measured", eo.measured, CLI_IN_LIST}, {"--measured-strict", eo.m_strict, CLI_IN_LIST},
                               {"--measured-depbloom", eo.m_depbloom, CLI_IN_LIST}};
    if (cli_check_outputs("simulate", outs, 7)) return 2;
    if (event) {
        eo.workers = workers_s == default_workers ? "1,2,4,8,16,32,64,128,256,512" : workers_s;
        eo.data = data, eo.lf = &lf, eo.net = net_s, eo.alpha = alpha, eo.beta = beta, eo.allreduce = allreduce;
        eo.svg = svg, eo.json = json, eo.params = params;
        return simulate_event(&eo);
    }
    int64_t W[64];
    int64_t npts = parse_list(workers_s, W, 64);
    if (npts < 1) {
        fprintf(stderr, "dgnn simulate: --workers: expected at most 64 ascending integers in 1..%d separated by commas, got "
                        "'%s'\n", CLI_MAX_WORKERS,
                workers_s);
        return 2;
    }
    int64_t kinds[3];
    const int64_t nk = parse_schedulers(scheds_s, kinds);
    if (nk < 0) return 2;
    /* settings that no listed scheduler reads would be ignored: refused, as dgnn schedule does */
    int has_ilp = 0, only_even = 1;
    for (int64_t k = 0; k < nk; k++) {
        has_ilp |= kinds[k] == DGNN_SCHED_ILP;
        only_even &= kinds[k] == DGNN_SCHED_EVEN;
    }
    if (args_given(opts, argc, argv, "time-limit") && !has_ilp) {
        fprintf(stderr, "dgnn simulate: --time-limit is the ILP's (add ilp to --schedulers); '%s' does not read it\n",
                scheds_s);
        return 2;
    }
    if (args_given(opts, argc, argv, "rounds") && only_even) {
        fprintf(stderr, "dgnn simulate: --rounds applies to the greedy and ilp schedulers: the even scheduler's rounds "
                        "are ceil(windows / P), one window per rank and round\n");
        return 2;
    }
    dgnn_net net;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_net_preset(&net, net_s, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    if (cli_net_override(&net, alpha, beta)) return 2;
    if (dgnn_allreduce_parse(&net, allreduce, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    int kind = cli_snap_model_kind("simulate", model);
    if (kind < 0) return 2;
    if (profile && rate > 0) {
        fprintf(stderr, "dgnn simulate: --rate sets the default cost law, which --profile replaces (give one)\n");
        return 2;
    }
    if ((data != NULL) == (synthetic > 0)) {
        fprintf(stderr, "dgnn simulate: give --data FILE or --synthetic T (one of them)\n");
        return 2;
    }
    if (synthetic > 0 &&
        cli_load_flags_unused_why("simulate", &lf, "--synthetic T simulates a generated sequence, which would ignore it"))
        return 2;
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default((dgnn_snapmodel_kind)kind);
    if (dgnn_snap_train_preset(&c, preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: --preset: %s\n", err.msg);
        return 2;
    }
    if (window != CLI_UNSET) c.window = window;
    if (CLI_GIVEN_F(seconds)) c.snapshot_seconds = seconds, c.snapshot_count = 0;

    dgnn_window *win = NULL;
    int64_t n = 0, N = nodes;
    char what[512];
    if (data) {
        if (cli_snap_windows("simulate", data, &lf, &c, &win, &n, &N)) return 1;
        snprintf(what, sizeof what, "%s (%lld training windows)", data, (long long)n);
    } else {
        if (synthetic < c.window + 2) {
            fprintf(stderr, "dgnn simulate: --synthetic %lld: needs at least window + 2 = %lld snapshots\n",
                    (long long)synthetic, (long long)(c.window + 2));
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
    /* greedy and ilp fill R rounds, none empty (even ignores --rounds): refused here, before
     * the table, not by the first point's schedule */
    for (int64_t k = 0; k < nk && rounds > n; k++)
        if (kinds[k] != DGNN_SCHED_EVEN) {
            fprintf(stderr, "dgnn simulate: --rounds %lld is more than the %lld windows to schedule\n", (long long)rounds,
                    (long long)n);
            free(win);
            return 2;
        }
    printf("simulate      %s, model %s\n", what, dgnn_snapmodel_name((dgnn_snapmodel_kind)kind));
    dgnn_costmodel cm;
    if (cli_snap_cost_model("simulate", &cm, win, n, kind, &c, profile, rate, 0)) {
        free(win);
        return 1;
    }
    if (params <= 0) params = dgnn_sim_snapshot_params(&c.model, kind, N, win[0].in_dim, &err);
    if (params <= 0) {
        fprintf(stderr, "dgnn simulate: cannot size the model's parameters (%s); pass --params N\n", err.msg);
        free(win);
        return 1;
    }
    double *cost = dgnn_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) cost[i] = dgnn_costmodel_predict(&cm, &win[i]);
    free(win);
    const double bytes = 4.0 * (double)params;
    printf("network       %s: alpha %.3g s, beta %.3g s/B (%.1f GB/s), %s all-reduce of %.3g MB (%lld float "
           "parameters) per round\n",
           net.name, net.alpha, net.beta, 1e-9 / net.beta, ar_label(&net), bytes / 1e6, (long long)params);
    printf("\n%8s %7s %10s %5s", "workers", "rounds", "comm/rnd", "algo");
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
        const char *algo = dgnn_allreduce_name(&net, W[i], bytes);
        if (strncmp(algo, "auto: ", 6) == 0) algo += 6;
        printf("%8lld %7lld %8.3fms %5s", (long long)W[i], (long long)pt[nk - 1].rounds,
               1e3 * dgnn_allreduce_seconds(&net, W[i], bytes), algo);
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "workers", (double)W[i]);
        cJSON_AddStringToObject(q, "allreduce", algo);
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
