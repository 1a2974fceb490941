/* simulate_event.c: the event family of the cluster simulator (simulate.h, issue 5):
 * what an epoch of DepBloom and of its strict baseline would take on P workers, from
 * one worker's measured costs, the stream itself (rows each step writes, DepBloom's
 * real partition at that P) and the alpha-beta network model of simulate.c. The measured
 * runs the costs come from, and the checks against them, are simulate_event_runs.c.
 *
 * Why the stream and not only averages: strict's per-step traffic is the distinct
 * endpoints of each rank's slice (repeats in a stream cut it well below 2 per event),
 * and DepBloom's time is set by its largest part and the rows its windows write, which
 * only the partition of the real stream at that P gives. docs/depbloom.md has the model
 * and its validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/partition.h"
#include "dgnn/simulate.h"

/* ---- the stream ----------------------------------------------------------------- */

int64_t dgnn_sim_event_windows(dgnn_sim_window_part **out, const dgnn_events *train, int64_t P,
                               int64_t window_events, double window_seconds, uint64_t seed, dgnn_err *err) {
    *out = NULL;
    if (P < 1 || P > (1 << 20))
        return dgnn_err_set(err, DGNN_EINVAL, "simulate: workers must be in [1, 1048576], got %lld", (long long)P);
    int64_t W = dgnn_windows_make(NULL, train, 0, train->num_events, window_events, window_seconds, err);
    if (W < 0) return W;
    int64_t *bounds = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    dgnn_windows_make(bounds, train, 0, train->num_events, window_events, window_seconds, err);
    const int64_t N = train->num_nodes > 0 ? train->num_nodes : 1;
    int32_t *owner = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    int64_t *last = dgnn_xmalloc((size_t)N * sizeof(int64_t));
    int64_t *own = dgnn_xmalloc((size_t)P * sizeof(int64_t));
    dgnn_owner_init(owner, train->num_nodes, (int)P, 1); /* an epoch starts from a reset memory */
    dgnn_part_opts po = dgnn_part_opts_default();
    po.parts = (int)P;
    po.seed = seed + 1; /* as the trainer's plan_make */
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_sim_window_part *res = dgnn_xcalloc((size_t)(W > 0 ? W : 1), sizeof *res);
    int rc = DGNN_OK;
    for (int64_t w = 0; w < W; w++) {
        const int64_t b = bounds[w], e = bounds[w + 1];
        if ((rc = dgnn_window_partition(&wp, train, b, e, owner, &po, err))) break;
        dgnn_sim_window_part *x = &res[w];
        x->events = e - b;
        x->cut = wp.num_cut;
        for (int64_t q = 0; q < P; q++) x->max_part = wp.part_events[q] > x->max_part ? wp.part_events[q] : x->max_part;
        /* the authoritative row of a node: the part of the last event touching it */
        for (int64_t i = b; i < e; i++) last[train->src[i]] = i, last[train->dst[i]] = i;
        memset(own, 0, (size_t)P * sizeof(int64_t));
        for (int64_t j = 0; j < wp.num_nodes; j++) own[wp.event_part[last[wp.nodes[j]] - b]]++;
        int64_t fewest = own[0];
        for (int64_t q = 1; q < P; q++) fewest = own[q] < fewest ? own[q] : fewest;
        x->rows = wp.num_nodes;
        x->max_recv_rows = wp.num_nodes - fewest;
        dgnn_owner_update(owner, &wp);
    }
    dgnn_window_part_free(&wp);
    free(bounds), free(owner), free(last), free(own);
    if (rc) {
        free(res);
        return rc;
    }
    *out = res;
    return W;
}

double dgnn_sim_rows_per_slice(const dgnn_events *ev, int64_t B) {
    const int64_t n = ev->num_events;
    if (n == 0 || B < 1) return 0;
    /* stamp[v] = 1 + the slice that last counted v: no clearing between slices */
    int64_t *stamp = dgnn_xcalloc((size_t)(ev->num_nodes > 0 ? ev->num_nodes : 1), sizeof(int64_t));
    int64_t rows = 0, slices = 0;
    for (int64_t lo = 0; lo < n; lo += B, slices++) {
        const int64_t hi = lo + B < n ? lo + B : n;
        for (int64_t i = lo; i < hi; i++) {
            int32_t v[2] = {ev->src[i], ev->dst[i]};
            for (int k = 0; k < 2; k++)
                if (stamp[v[k]] != slices + 1) stamp[v[k]] = slices + 1, rows++;
        }
    }
    free(stamp);
    return (double)rows / (double)slices;
}

/* ---- the model ------------------------------------------------------------------ */

double dgnn_sim_curve_seconds(const dgnn_sim_curve *c, double x) {
    if (c->n <= 0) return 0;
    if (c->n == 1) return c->batch[0] > 0 ? c->seconds[0] * x / c->batch[0] : 0;
    int64_t k = 0; /* the segment [k, k + 1]: the one holding x, else the nearest end's */
    while (k + 2 < c->n && x > c->batch[k + 1]) k++;
    const double x0 = c->batch[k], x1 = c->batch[k + 1], y0 = c->seconds[k], y1 = c->seconds[k + 1];
    double t = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    if (x < x0 && c->optimizer_seconds > 0 && c->optimizer_seconds < y0) {
        /* below the smallest batch a step still runs its optimizer */
        const double floor = c->optimizer_seconds + (y0 - c->optimizer_seconds) * x / x0;
        t = t > floor ? t : floor;
    }
    return t > 0 ? t : 0;
}

/* Seconds of a step's per-event work: with the critical-path prefetch, sampling of the
 * next batch runs beside this one's compute, so the longer of the two remains. */
static double event_cost(const dgnn_sim_event_in *in) {
    if (!in->critical_path) return in->event_seconds;
    double rest = in->event_seconds - in->sample_seconds;
    return rest > in->sample_seconds ? rest : in->sample_seconds;
}

/* Seconds of one step of x events on one worker, trained as K micro-batches in order
 * (refinement, depbloom_refine.c: each a forward and backward, one optimizer step for
 * all), rho their extra compute per event. With the line: a + (1 + rho) b x (a once a
 * step). With a measured curve each micro-batch is a step of x / K events but for the
 * optimizer, which runs once: K u(x / K) - (K - 1) t_opt, u(y) = t(y) + rho (t(y) -
 * t(0)), t(0) standing for the per-step part. A straight curve a + b x with t_opt = a
 * gives the line's figure. */
static double step_cost(const dgnn_sim_event_in *in, double x, int64_t K, double rho) {
    if (in->curve.n > 0) {
        if (K < 1) K = 1;
        const double y = x / (double)K, t = dgnn_sim_curve_seconds(&in->curve, y);
        const double t0 = dgnn_sim_curve_seconds(&in->curve, 0), opt = in->curve.optimizer_seconds;
        const double mb = t + rho * (t > t0 ? t - t0 : 0);
        const double s = (double)K * mb - (double)(K - 1) * (opt < mb ? opt : mb);
        return s > 0 ? s : 0;
    }
    return in->step_seconds + (1 + rho) * event_cost(in) * x;
}

/* strict on P workers: steps, events, and the time split */
static void strict_epoch(dgnn_sim_event_point *o, const dgnn_sim_event_in *in, int64_t P, const dgnn_net *net,
                         double sigma) {
    const int64_t B = in->batch, G = P * B, n = in->events;
    int64_t nb = (n + G - 1) / G;
    if (in->max_steps > 0 && nb > in->max_steps) nb = in->max_steps;
    const double rb = in->row_bytes;
    dgnn_net bw = *net;
    bw.alpha = 0;
    const double A = dgnn_allreduce_seconds(net, P, in->grad_bytes), A_bw = dgnn_allreduce_seconds(&bw, P, in->grad_bytes);
    double compute = 0, ar = 0, gather = 0, comm = 0, bytes = 0;
    int64_t events = 0;
    /* the full steps are alike; only the last one can be shorter */
    const int64_t nfull = n / G < nb ? n / G : nb;
    for (int part = 0; part < 2; part++) {
        const int64_t cnt = part == 0 ? nfull : nb - nfull;
        if (cnt <= 0) continue;
        const int64_t Gb = part == 0 ? G : n - nfull * G;
        const double Bp = (double)((Gb + P - 1) / P);           /* the busiest slice */
        const double rows = in->rows_per_slice * ((double)Gb / (double)G); /* rows one rank writes */
        const double recv = (double)(P - 1) * rows * rb;        /* bytes each rank receives */
        /* two collectives (the byte counts, then the rows), each (P-1) ring steps */
        const double x_bw = recv * net->beta + sigma * recv * in->apply_seconds_per_byte;
        const double X = P > 1 ? 2.0 * (double)(P - 1) * net->alpha + x_bw : 0;
        /* the all-reduce runs beside the exchange, but both cross the same link */
        double E = A > X ? A : X;
        if (A_bw + x_bw > E && P > 1) E = A_bw + x_bw;
        compute += (double)cnt * sigma * step_cost(in, Bp, 1, 0);
        ar += (double)cnt * A;
        gather += (double)cnt * X;
        comm += (double)cnt * E;
        bytes += (double)cnt * (double)P * rows * rb * (double)(P - 1);
        events += cnt * Gb;
    }
    o->strict_steps = nb;
    o->strict_events = events;
    o->strict_compute = compute;
    o->strict_allreduce = ar;
    o->strict_gather = gather;
    o->strict_comm = comm;
    o->strict_tp = compute + comm;
    o->strict_state_bytes = bytes;
}

static void depbloom_epoch(dgnn_sim_event_point *o, const dgnn_sim_event_in *in, int64_t P,
                           const dgnn_sim_window_part *win, int64_t nwin, const dgnn_net *net, double sigma) {
    const int64_t KB = (in->refine > 1 ? in->refine : 1) * in->batch;
    const double rb = in->row_bytes;
    const double A = dgnn_allreduce_seconds(net, P, in->grad_bytes);
    double compute = 0, ar = 0, sync = 0, bytes = 0, events = 0, maxsum = 0, cut = 0;
    int64_t steps = 0, windows = 0;
    for (int64_t w = 0; w < nwin; w++) {
        const dgnn_sim_window_part *x = &win[w];
        if (in->max_steps > 0 && steps >= in->max_steps) break;
        if (x->events <= 0) continue;
        const int64_t S = (x->max_part + KB - 1) / KB;
        int64_t done = S;
        if (in->max_steps > 0 && steps + S > in->max_steps) done = in->max_steps - steps;
        const double frac = S > 0 ? (double)done / (double)S : 1;
        /* every rank takes S steps (the all-reduce pairs them up), so the largest part
         * sets the pace; each rank spreads its part evenly over the S steps */
        if (S > 0)
            compute += sigma * (double)done *
                       step_cost(in, (double)x->max_part / (double)S, in->refine > 1 ? in->refine : 1, in->refine_overhead);
        ar += (double)done * A;
        /* the window ends with one all-gather of its authoritative rows (also when the
         * epoch stops inside it: the trainer syncs the window it stopped in) */
        const double recv = (double)x->max_recv_rows * rb;
        if (P > 1)
            sync += 2.0 * (double)(P - 1) * net->alpha + recv * net->beta + sigma * recv * in->apply_seconds_per_byte;
        bytes += (double)x->rows * rb * (double)(P - 1);
        events += (double)x->events * frac;
        maxsum += (double)x->max_part * frac;
        cut += (double)x->cut * frac;
        steps += done;
        windows++;
    }
    o->db_steps = steps;
    o->db_events = (int64_t)llround(events);
    o->db_windows = windows;
    o->db_compute = compute;
    o->db_allreduce = ar;
    o->db_sync = sync;
    o->db_tp = compute + ar + sync;
    o->db_state_bytes = bytes;
    o->db_imbalance = events > 0 ? maxsum * (double)P / events : NAN;
    o->db_cut_fraction = events > 0 ? cut / events : NAN;
}

int dgnn_sim_event(dgnn_sim_event_point *out, const dgnn_sim_event_in *in, int64_t P, const dgnn_sim_window_part *win,
                   int64_t nwin, const dgnn_net *net, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    if (P < 1) return dgnn_err_set(err, DGNN_EINVAL, "simulate: workers must be >= 1, got %lld", (long long)P);
    if (in->batch < 1 || in->events < 0 || !(in->event_seconds >= 0) || !(in->step_seconds >= 0) ||
        !(in->row_bytes >= 0) || !(in->grad_bytes >= 0) || !(in->rows_per_slice >= 0) ||
        !(in->apply_seconds_per_byte >= 0) || !(in->refine_overhead >= 0) || !(in->sample_seconds >= 0))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "simulate: costs must be finite and >= 0 and the batch >= 1 (batch %lld, %g s/event, "
                            "%g s/step)", (long long)in->batch, in->event_seconds, in->step_seconds);
    if (in->curve.n < 0 || in->curve.n > DGNN_SIM_CURVE_MAX)
        return dgnn_err_set(err, DGNN_EINVAL, "simulate: a step-time curve of %lld points (at most %d)",
                            (long long)in->curve.n, DGNN_SIM_CURVE_MAX);
    for (int64_t k = 0; k < in->curve.n; k++)
        if (!(in->curve.batch[k] >= 1) || !(in->curve.seconds[k] > 0) || !isfinite(in->curve.seconds[k]) ||
            (k > 0 && !(in->curve.batch[k] > in->curve.batch[k - 1])))
            return dgnn_err_set(err, DGNN_EINVAL,
                                "simulate: step-time curve point %lld (batch %g, %g s): batches must ascend from 1 "
                                "and seconds be > 0", (long long)k, in->curve.batch[k], in->curve.seconds[k]);
    if (!(in->curve.optimizer_seconds >= 0) || !isfinite(in->curve.optimizer_seconds))
        return dgnn_err_set(err, DGNN_EINVAL, "simulate: the step-time curve's optimizer seconds must be >= 0, got %g",
                            in->curve.optimizer_seconds);
    if (in->curve.n > 0 && in->critical_path)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "simulate: the critical path's prefetch needs per-event sampling costs; a step-time "
                            "curve's steps already hold the trainer's own overlap");
    out->workers = P;
    if (in->cores < 0 || !(in->background >= 0))
        return dgnn_err_set(err, DGNN_EINVAL, "simulate: cores and background must be >= 0");
    /* workers sharing cores: each computes at its share of a core, relative to the share
     * the single worker had when its costs were measured */
    double sigma = 1;
    if (in->cores > 0) {
        double s1 = in->cores / (1 + in->background), sp = in->cores / ((double)P + in->background);
        s1 = s1 < 1 ? s1 : 1, sp = sp < 1 ? sp : 1;
        sigma = s1 / sp;
    }
    /* T1: one worker, its own core, the whole epoch (or the same truncation) */
    dgnn_sim_event_point one;
    memset(&one, 0, sizeof one);
    dgnn_sim_event_in in1 = *in;
    in1.max_steps = 0;
    strict_epoch(&one, &in1, 1, net, 1);
    out->t1 = one.strict_tp;
    const double per_event = in->events > 0 ? out->t1 / (double)in->events : 0;
    strict_epoch(out, in, P, net, sigma);
    /* efficiency against one worker training the same events */
    out->strict_eff = out->strict_tp > 0 ? per_event * (double)out->strict_events / ((double)P * out->strict_tp) : NAN;
    if (nwin > 0 && win) {
        depbloom_epoch(out, in, P, win, nwin, net, sigma);
        out->db_eff = out->db_tp > 0 ? per_event * (double)out->db_events / ((double)P * out->db_tp) : NAN;
        out->speedup = out->db_tp > 0 ? out->strict_tp / out->db_tp : NAN;
    } else {
        out->db_compute = out->db_allreduce = out->db_sync = out->db_tp = out->db_eff = NAN;
        out->db_state_bytes = out->db_imbalance = out->db_cut_fraction = out->speedup = NAN;
    }
    return DGNN_OK;
}

int dgnn_sim_event_on_stream(dgnn_sim_event_point *out, const dgnn_sim_event_in *in, int64_t P, const dgnn_events *train,
                             int64_t window_events, double window_seconds, uint64_t seed, const dgnn_net *net,
                             dgnn_err *err) {
    dgnn_sim_window_part *win = NULL;
    int64_t nw = dgnn_sim_event_windows(&win, train, P, window_events, window_seconds, seed, err);
    int rc = nw < 0 ? (int)nw : dgnn_sim_event(out, in, P, win, nw, net, err);
    free(win);
    return rc;
}
