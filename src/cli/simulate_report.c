/* simulate_report.c: what `dgnn simulate` prints and writes (simulate_report.h): the
 * snapshot family's table (a row per worker count, a column pair per scheduler), the
 * event family's inputs, checks and projection tables, each with its JSON, and the
 * outputs: --svg's plot and --json's file. */
#include "simulate_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dgnn/svg.h"

/* the header lines' all-reduce words */
static const char *ar_label(const dgnn_net *n) {
    return n->allreduce == DGNN_ALLREDUCE_AUTO ? "auto (the cheaper of ring and tree at each P)"
           : n->allreduce == DGNN_ALLREDUCE_TREE ? "tree" : "ring";
}

int sim_write_outputs(int ret, const sim_plot *plot, const char *json, cJSON *jo) {
    if (!ret && plot->path) {
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_sim_svg(plot->path, plot->title, plot->workers, plot->npts, plot->eff, plot->names, plot->nseries,
                         &err) != DGNN_OK) {
            fprintf(stderr, "dgnn simulate: --svg: %s\n", err.msg);
            ret = 1;
        } else {
            printf("plot          %s\n", plot->path);
        }
    }
    if (!ret && json) return cli_write_json("simulate", json, jo);
    cJSON_Delete(jo);
    return ret;
}

/* ---- --family snapshot ------------------------------------------------------------ */

void sim_snap_print_header(const dgnn_net *net, double bytes, int64_t params, const int64_t *kinds, int64_t nk) {
    printf("network       %s: alpha %.3g s, beta %.3g s/B (%.1f GB/s), %s all-reduce of %.3g MB (%lld float "
           "parameters) per round\n",
           net->name, net->alpha, net->beta, 1e-9 / net->beta, ar_label(net), bytes / 1e6, (long long)params);
    printf("\n%8s %7s %10s %5s", "workers", "rounds", "comm/rnd", "algo");
    for (int64_t k = 0; k < nk; k++) printf(" %9s-imb %9s-eff", dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]),
                                            dgnn_sched_kind_name((dgnn_sched_kind)kinds[k]));
    printf("\n");
}

cJSON *sim_snap_json(const char *what, int fitted, const dgnn_net *net, double bytes) {
    cJSON *jo = cJSON_CreateObject();
    cJSON_AddArrayToObject(jo, "points");
    cJSON_AddStringToObject(jo, "input", what);
    cJSON_AddStringToObject(jo, "cost_model", fitted ? "profile" : "default");
    cJSON_AddStringToObject(jo, "net", net->name);
    cJSON_AddNumberToObject(jo, "alpha", net->alpha);
    cJSON_AddNumberToObject(jo, "beta", net->beta);
    cJSON_AddNumberToObject(jo, "grad_bytes", bytes);
    return jo;
}

void sim_snap_point(cJSON *jo, const dgnn_net *net, int64_t P, double bytes, const dgnn_sim_point *pt,
                    const int64_t *kinds, int64_t nk) {
    const char *algo = dgnn_allreduce_name(net, P, bytes);
    if (strncmp(algo, "auto: ", 6) == 0) algo += 6;
    printf("%8lld %7lld %8.3fms %5s", (long long)P, (long long)pt[nk - 1].rounds,
           1e3 * dgnn_allreduce_seconds(net, P, bytes), algo);
    cJSON *q = cJSON_CreateObject();
    cJSON_AddNumberToObject(q, "workers", (double)P);
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
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(jo, "points"), q);
    printf("\n");
}

/* ---- --family event: the inputs ---------------------------------------------------- */

void sim_event_print_inputs(const sim_event_inputs *x) {
    const dgnn_sim_event_in *in = x->in;
    printf("simulate      event family: %lld training events, %lld nodes (%s)\n", (long long)x->train->num_events,
           (long long)x->train->num_nodes, x->dataset);
    if (in->curve.n == 0)
        printf("one worker    %.4g ms/event (sampling %.4g ms of it), %.4g ms/step, batch %lld (fitted on %lld run%s); "
               "row %.0f B, gradient %.3g MB; %.1f rows written per %lld-event slice\n",
               1e3 * in->event_seconds, 1e3 * in->sample_seconds, 1e3 * in->step_seconds, (long long)in->batch,
               (long long)x->nruns, x->nruns > 1 ? "s" : "", in->row_bytes, in->grad_bytes / 1e6, in->rows_per_slice,
               (long long)in->batch);
    else /* the curve replaces the fitted line as a step's compute */
        printf("one worker    batch %lld; row %.0f B, gradient %.3g MB; %.1f rows written per %lld-event slice\n",
               (long long)in->batch, in->row_bytes, in->grad_bytes / 1e6, in->rows_per_slice, (long long)in->batch);
    if (in->curve.n > 0) {
        printf("step curve    measured on %s, a step's seconds at each batch:", in->curve.device);
        for (int64_t k = 0; k < in->curve.n; k++)
            printf(" %g: %.4g ms%s", in->curve.batch[k], 1e3 * in->curve.seconds[k], k + 1 < in->curve.n ? "," : "");
        if (in->curve.optimizer_seconds > 0)
            printf("; the optimizer %.4g ms of each (refinement's K micro-batches run it once)\n",
                   1e3 * in->curve.optimizer_seconds);
        else
            printf("; the optimizer's part not measured (refinement's micro-batches each cost a whole step)\n");
    }
    printf("apply rows    %.3g GB/s (%s)\n", x->apply_bps / 1e9,
           x->apply_gbps > 0 ? "--apply-gbps" : in->curve.apply_bytes_per_second > 0 ? "measured with the step curve"
                                                                                     : "the default, --apply-gbps");
}

/* the step-time curve's object of the JSON */
static void curve_json(cJSON *jo, const dgnn_sim_curve *curve) {
    cJSON *jc = cJSON_AddObjectToObject(jo, "step_curve");
    cJSON_AddStringToObject(jc, "device", curve->device);
    cJSON_AddNumberToObject(jc, "optimizer_seconds", curve->optimizer_seconds);
    cJSON *jpts = cJSON_AddArrayToObject(jc, "points");
    for (int64_t k = 0; k < curve->n; k++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "batch", curve->batch[k]);
        cJSON_AddNumberToObject(q, "step_seconds", curve->seconds[k]);
        cJSON_AddItemToArray(jpts, q);
    }
}

cJSON *sim_event_json(const sim_event_inputs *x, const dgnn_net *net, int64_t refine, int64_t window_events) {
    const dgnn_sim_event_in *in = x->in;
    cJSON *jo = cJSON_CreateObject();
    cJSON_AddStringToObject(jo, "family", "event");
    cJSON_AddNumberToObject(jo, "train_events", (double)x->train->num_events);
    cJSON_AddNumberToObject(jo, "event_seconds", in->event_seconds);
    cJSON_AddNumberToObject(jo, "step_seconds", in->step_seconds);
    cJSON_AddNumberToObject(jo, "sample_seconds", in->sample_seconds);
    cJSON_AddNumberToObject(jo, "batch", (double)in->batch);
    cJSON_AddNumberToObject(jo, "row_bytes", in->row_bytes);
    cJSON_AddNumberToObject(jo, "grad_bytes", in->grad_bytes);
    cJSON_AddNumberToObject(jo, "rows_per_slice", in->rows_per_slice);
    cJSON_AddNumberToObject(jo, "apply_bytes_per_second", x->apply_bps);
    if (in->curve.n > 0) curve_json(jo, &in->curve);
    cJSON_AddArrayToObject(jo, "checks");
    cJSON_AddArrayToObject(jo, "points");
    cJSON_AddStringToObject(jo, "net", net->name);
    cJSON_AddNumberToObject(jo, "alpha", net->alpha);
    cJSON_AddNumberToObject(jo, "beta", net->beta);
    cJSON_AddNumberToObject(jo, "refine", (double)refine);
    cJSON_AddNumberToObject(jo, "window_events", (double)window_events);
    return jo;
}

/* ---- --family event: the checks against measured runs ------------------------------ */

void sim_event_print_checks_header(const dgnn_net *local, double cores, double background) {
    printf("\nchecks        the model against measured runs, on this machine: MPI alpha %.3g s, beta %.3g s/B; "
           "%.0f cores shared by the ranks%s\n", local->alpha, local->beta, cores,
           background > 0 ? " and the background load" : "");
    printf("%-22s %-8s %5s %5s %13s %15s %8s %8s %8s %13s %13s %15s\n", "run", "mode", "ranks", "batch",
           "steps m/p", "events m/p", "meas s", "pred s", "error", "compute m/p", "comm m/p", "state MB m/p");
}

/* the run's file name, without its folder */
static const char *run_name(const dgnn_sim_measured *m) {
    const char *slash = strrchr(m->path, '/');
    return slash ? slash + 1 : m->path;
}

void sim_event_check_skipped(const dgnn_sim_measured *m, const char *curve_device) {
    printf("%-22.22s %-8s %5lld  not checked: it trained on %s, the step-time curve was measured on %s\n", run_name(m),
           m->mode, (long long)m->ranks, m->device, curve_device);
}

static double pct(double pred, double meas) { return meas != 0 ? 100.0 * (pred - meas) / meas : NAN; }

/* a figure of the checks table with prec decimals, or "n/a" where the run did not measure
 * it (NaN: a single-process run has no per-rank compute and comm); returns b */
static const char *fig(char *b, size_t cap, double x, int prec) {
    if (isfinite(x)) snprintf(b, cap, "%.*f", prec, x);
    else snprintf(b, cap, "n/a");
    return b;
}

/* the check's table row */
static void print_check(const dgnn_sim_measured *m, const dgnn_sim_run_prediction *pr) {
    char f[8][32], e[32];
    const size_t F = sizeof f[0];
    const double error = pct(pr->seconds, m->train_seconds);
    if (isfinite(error)) snprintf(e, sizeof e, "%+7.1f%%", error);
    else snprintf(e, sizeof e, "%8s", "n/a");
    printf("%-22.22s %-8s %5lld %5lld %6lld/%-6lld %7lld/%-7lld %8s %8s %s %6s/%-6s %6s/%-6s %7s/%-7s\n", run_name(m),
           m->mode, (long long)m->ranks, (long long)m->batch, (long long)m->steps, (long long)pr->steps,
           (long long)m->epoch_events, (long long)pr->events, fig(f[0], F, m->train_seconds, 2),
           fig(f[1], F, pr->seconds, 2), e, fig(f[2], F, m->compute_seconds, 2), fig(f[3], F, pr->compute, 2),
           fig(f[4], F, m->comm_seconds, 2), fig(f[5], F, pr->comm, 2),
           fig(f[6], F, m->state_bytes_per_epoch / 1e6, 1), fig(f[7], F, pr->state_bytes / 1e6, 1));
}

void sim_event_check(cJSON *jo, const dgnn_sim_measured *m, const dgnn_sim_run_prediction *pr) {
    print_check(m, pr);
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "run", m->path);
    cJSON_AddStringToObject(q, "mode", m->mode);
    cJSON_AddNumberToObject(q, "ranks", (double)m->ranks);
    cJSON_AddNumberToObject(q, "batch", (double)m->batch);
    cJSON_AddNumberToObject(q, "measured_seconds", m->train_seconds);
    cJSON_AddNumberToObject(q, "predicted_seconds", pr->seconds);
    cJSON_AddNumberToObject(q, "error", pr->error);
    cJSON_AddNumberToObject(q, "predicted_compute", pr->compute);
    cJSON_AddNumberToObject(q, "predicted_comm", pr->comm);
    if (isfinite(m->compute_seconds)) cJSON_AddNumberToObject(q, "measured_compute_max_rank", m->compute_seconds);
    if (isfinite(m->comm_seconds)) cJSON_AddNumberToObject(q, "measured_comm_max_rank", m->comm_seconds);
    cJSON_AddNumberToObject(q, "measured_state_bytes", m->state_bytes_per_epoch);
    cJSON_AddNumberToObject(q, "predicted_state_bytes", pr->state_bytes);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(jo, "checks"), q);
}

/* ---- --family event: the projection ------------------------------------------------ */

void sim_event_print_projection_header(const dgnn_net *net, double window_seconds, int64_t window_events,
                                       int64_t refine, int critical_path, const dgnn_sim_curve *curve) {
    char wins[64];
    if (window_seconds > 0) snprintf(wins, sizeof wins, "%g time units", window_seconds);
    else snprintf(wins, sizeof wins, "%lld events", (long long)window_events);
    printf("\nprojection    %s: alpha %.3g s, beta %.3g s/B (%.1f GB/s), %s all-reduce; depbloom windows of %s, "
           "refine K = %lld%s; ",
           net->name, net->alpha, net->beta, 1e-9 / net->beta, ar_label(net), wins, (long long)refine,
           critical_path ? ", critical path (sampling hidden)" : "");
    if (curve->n > 0) printf("each worker as the step curve's %s\n", curve->device);
    else printf("one core per worker\n");
    printf("%8s %8s %10s %10s %10s %10s %9s %9s %8s %8s %10s %10s\n", "workers", "steps", "strict s", "s-gather",
           "depbloom s", "d-sync", "speedup", "s-eff", "d-eff", "imbal", "cut", "d-steps");
}

/* a scheme's object of a point, named name, with what both schemes have first: its steps,
 * epoch seconds, compute and all-reduce (the caller adds the rest) */
static cJSON *scheme_json(cJSON *q, const char *name, int64_t steps, double seconds, double compute,
                          double allreduce) {
    cJSON *s = cJSON_AddObjectToObject(q, name);
    cJSON_AddNumberToObject(s, "steps", (double)steps);
    cJSON_AddNumberToObject(s, "seconds", seconds);
    cJSON_AddNumberToObject(s, "compute", compute);
    cJSON_AddNumberToObject(s, "allreduce", allreduce);
    return s;
}

void sim_event_point(cJSON *jo, const dgnn_sim_event_point *pt, int64_t P) {
    printf("%8lld %8lld %10.4g %10.3g %10.4g %10.3g %8.2fx %8.1f%% %7.1f%% %8.3f %10.4f %10lld\n", (long long)P,
           (long long)pt->strict_steps, pt->strict_tp, pt->strict_gather, pt->db_tp, pt->db_sync, pt->speedup,
           100 * pt->strict_eff, 100 * pt->db_eff, pt->db_imbalance, pt->db_cut_fraction, (long long)pt->db_steps);
    cJSON *q = cJSON_CreateObject();
    cJSON_AddNumberToObject(q, "workers", (double)P);
    cJSON_AddNumberToObject(q, "t1", pt->t1);
    cJSON *s = scheme_json(q, "strict", pt->strict_steps, pt->strict_tp, pt->strict_compute, pt->strict_allreduce);
    cJSON_AddNumberToObject(s, "gather", pt->strict_gather);
    cJSON_AddNumberToObject(s, "comm", pt->strict_comm);
    cJSON_AddNumberToObject(s, "efficiency", pt->strict_eff);
    cJSON_AddNumberToObject(s, "state_bytes", pt->strict_state_bytes);
    cJSON *d = scheme_json(q, "depbloom", pt->db_steps, pt->db_tp, pt->db_compute, pt->db_allreduce);
    cJSON_AddNumberToObject(d, "sync", pt->db_sync);
    cJSON_AddNumberToObject(d, "efficiency", pt->db_eff);
    cJSON_AddNumberToObject(d, "state_bytes", pt->db_state_bytes);
    cJSON_AddNumberToObject(d, "imbalance", pt->db_imbalance);
    cJSON_AddNumberToObject(d, "cut_fraction", pt->db_cut_fraction);
    cJSON_AddNumberToObject(q, "speedup", pt->speedup);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(jo, "points"), q);
}
