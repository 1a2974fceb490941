/* simulate_event.c: the event family of the cluster simulator (simulate.h, issue 5):
 * what an epoch of DepBloom and of its strict baseline would take on P workers, from
 * one worker's measured costs, the stream itself (rows each step writes, DepBloom's
 * real partition at that P) and the alpha-beta network model of simulate.c. Also reads
 * the `dgnn train --out` JSON the costs come from and fits them.
 *
 * Why the stream and not only averages: strict's per-step traffic is the distinct
 * endpoints of each rank's slice (repeats in a stream cut it well below 2 per event),
 * and DepBloom's time is set by its largest part and the rows its windows write, which
 * only the partition of the real stream at that P gives. docs/depbloom.md has the model
 * and its validation. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* Seconds of a step's per-event work: with the critical-path prefetch, sampling of the
 * next batch runs beside this one's compute, so the longer of the two remains. */
static double event_cost(const dgnn_sim_event_in *in) {
    if (!in->critical_path) return in->event_seconds;
    double rest = in->event_seconds - in->sample_seconds;
    return rest > in->sample_seconds ? rest : in->sample_seconds;
}

/* strict on P workers: steps, events, and the time split */
static void strict_epoch(dgnn_sim_event_point *o, const dgnn_sim_event_in *in, int64_t P, const dgnn_net *net,
                         double sigma) {
    const int64_t B = in->batch, G = P * B, n = in->events;
    int64_t nb = (n + G - 1) / G;
    if (in->max_steps > 0 && nb > in->max_steps) nb = in->max_steps;
    const double b = event_cost(in), rb = in->row_bytes;
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
        compute += (double)cnt * sigma * (in->step_seconds + b * Bp);
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
    const double b = event_cost(in) * (1 + in->refine_overhead), rb = in->row_bytes;
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
        compute += sigma * ((double)done * in->step_seconds + b * (double)x->max_part * frac);
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

/* ---- measured runs ----------------------------------------------------------------- */

/* obj.key (nested with dots) as a number; name is the field's full name for messages */
static int get_num(double *x, const cJSON *obj, const char *key, const char *name, const char *path, dgnn_err *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': missing", path, name);
    if (cJSON_IsBool(it)) *x = cJSON_IsTrue(it) ? 1 : 0;
    else if (cJSON_IsNumber(it)) *x = it->valuedouble;
    else return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': not a number", path, name);
    if (!isfinite(*x)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': not finite", path, name);
    return DGNN_OK;
}

static int get_i64(int64_t *x, const cJSON *obj, const char *key, const char *name, const char *path, int64_t lo,
                   dgnn_err *err) {
    double d = 0;
    int rc = get_num(&d, obj, key, name, path, err);
    if (rc) return rc;
    if (d != floor(d) || d < (double)lo || d > 9e15)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': expected an integer >= %lld, got %g", path, name,
                            (long long)lo, d);
    *x = (int64_t)d;
    return DGNN_OK;
}

static int get_obj(const cJSON **o, const cJSON *obj, const char *key, const char *path, dgnn_err *err) {
    *o = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*o) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': missing", path, key);
    if (!cJSON_IsObject(*o)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': not an object", path, key);
    return DGNN_OK;
}

static int get_str(char *out, size_t cap, const cJSON *obj, const char *key, const char *name, const char *path,
                   dgnn_err *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': missing", path, name);
    if (!cJSON_IsString(it)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': not a string", path, name);
    snprintf(out, cap, "%s", it->valuestring);
    return DGNN_OK;
}

static char *read_all(const char *path, dgnn_err *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        dgnn_err_set(err, DGNN_EIO, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = dgnn_xmalloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) buf = dgnn_xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        dgnn_err_set(err, DGNN_EIO, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int parse_run(dgnn_sim_measured *m, const cJSON *o, const char *path, dgnn_err *err) {
    const cJSON *cfg, *data, *dist;
    double x;
    int rc;
    if (!cJSON_IsObject(o)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: not a JSON object", path);
    if ((rc = get_str(m->model, sizeof m->model, o, "model", "model", path, err)) ||
        (rc = get_str(m->dataset, sizeof m->dataset, o, "dataset", "dataset", path, err)) ||
        (rc = get_obj(&cfg, o, "config", path, err)) || (rc = get_obj(&data, o, "data", path, err)) ||
        (rc = get_i64(&m->batch, cfg, "batch", "config.batch", path, 1, err)) ||
        (rc = get_i64(&m->threads, cfg, "threads", "config.threads", path, 0, err)) ||
        (rc = get_i64(&m->max_batches, cfg, "max_batches", "config.max_batches", path, 0, err)) ||
        (rc = get_i64(&m->mem_dim, cfg, "mem_dim", "config.mem_dim", path, 1, err)) ||
        (rc = get_i64(&m->time_dim, cfg, "time_dim", "config.time_dim", path, 0, err)) ||
        (rc = get_i64(&m->mail_slots, cfg, "mail_slots", "config.mail_slots", path, 1, err)) ||
        (rc = get_num(&m->new_node_frac, cfg, "new_node_frac", "config.new_node_frac", path, err)) ||
        (rc = get_num(&m->val_quantile, cfg, "val_quantile", "config.val_quantile", path, err)) ||
        (rc = get_num(&m->test_quantile, cfg, "test_quantile", "config.test_quantile", path, err)) ||
        (rc = get_num(&x, cfg, "seed", "config.seed", path, err)) ||
        (rc = get_i64(&m->train_events, data, "train_events", "data.train_events", path, 1, err)) ||
        (rc = get_i64(&m->edge_dim, data, "edge_dim", "data.edge_dim", path, 0, err)) ||
        (rc = get_i64(&m->num_params, o, "num_params", "num_params", path, 1, err)))
        return rc;
    m->seed = (uint64_t)x;
    const cJSON *eps = cJSON_GetObjectItemCaseSensitive(o, "epochs");
    if (!eps) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'epochs': missing", path);
    if (!cJSON_IsArray(eps) || cJSON_GetArraySize(eps) < 1)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'epochs': not a non-empty array", path);
    m->epochs = cJSON_GetArraySize(eps);
    double secs = 0, evs = 0;
    for (int64_t i = 0; i < m->epochs; i++) {
        const cJSON *e = cJSON_GetArrayItem(eps, (int)i);
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "epochs[%lld].train_seconds", (long long)i);
        snprintf(n2, sizeof n2, "epochs[%lld].train_events", (long long)i);
        if (!cJSON_IsObject(e)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'epochs[%lld]': not an object", path,
                                                    (long long)i);
        double s, v;
        if ((rc = get_num(&s, e, "train_seconds", n1, path, err)) || (rc = get_num(&v, e, "train_events", n2, path, err)))
            return rc;
        if (s <= 0 || v < 1) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s' / '%s': an epoch needs seconds > 0 "
                                                 "and events >= 1 (got %g s, %g events)", path, n1, n2, s, v);
        secs += s, evs += v;
    }
    const double E = (double)m->epochs;
    m->train_seconds = secs / E;
    m->epoch_events = (int64_t)llround(evs / E);
    snprintf(m->mode, sizeof m->mode, "none");
    m->ranks = 1;
    m->sample_seconds = m->compute_seconds = m->comm_seconds = NAN;
    m->steps = (m->epoch_events + m->batch - 1) / m->batch;
    dist = cJSON_GetObjectItemCaseSensitive(o, "dist");
    if (!dist) return DGNN_OK;
    if (!cJSON_IsObject(dist)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'dist': not an object", path);
    int64_t steps;
    if ((rc = get_str(m->mode, sizeof m->mode, dist, "mode", "dist.mode", path, err)) ||
        (rc = get_i64(&m->ranks, dist, "ranks", "dist.ranks", path, 1, err)) ||
        (rc = get_num(&x, dist, "partition", "dist.partition", path, err)) ||
        (rc = get_i64(&m->window_events, dist, "window_events", "dist.window_events", path, 0, err)) ||
        (rc = get_num(&m->window_seconds, dist, "window_seconds", "dist.window_seconds", path, err)) ||
        (rc = get_i64(&m->refine, dist, "refine", "dist.refine", path, 0, err)) ||
        (rc = get_i64(&steps, dist, "steps", "dist.steps", path, 0, err)) ||
        (rc = get_num(&m->state_bytes_per_epoch, dist, "state_bytes_per_epoch", "dist.state_bytes_per_epoch", path,
                      err)) ||
        (rc = get_num(&m->grad_bytes_per_epoch, dist, "grad_bytes_per_epoch", "dist.grad_bytes_per_epoch", path, err)))
        return rc;
    if (strcmp(m->mode, "strict") != 0 && strcmp(m->mode, "depbloom") != 0)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'dist.mode': '%s' (strict, depbloom)", path, m->mode);
    m->partition = x != 0;
    m->steps = (int64_t)llround((double)steps / E);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(dist, "per_rank");
    if (!pr) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'dist.per_rank': missing", path);
    if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != m->ranks)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'dist.per_rank': not an array of dist.ranks = %lld entries",
                            path, (long long)m->ranks);
    m->compute_seconds = m->comm_seconds = 0;
    for (int64_t q = 0; q < m->ranks; q++) {
        const cJSON *y = cJSON_GetArrayItem(pr, (int)q);
        char n1[64], n2[64], n3[64];
        snprintf(n1, sizeof n1, "dist.per_rank[%lld].compute_seconds", (long long)q);
        snprintf(n2, sizeof n2, "dist.per_rank[%lld].sample_seconds", (long long)q);
        snprintf(n3, sizeof n3, "dist.per_rank[%lld].comm_seconds", (long long)q);
        double c, s, k;
        if (!cJSON_IsObject(y))
            return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'dist.per_rank[%lld]': not an object", path, (long long)q);
        if ((rc = get_num(&c, y, "compute_seconds", n1, path, err)) || (rc = get_num(&s, y, "sample_seconds", n2, path, err)) ||
            (rc = get_num(&k, y, "comm_seconds", n3, path, err)))
            return rc;
        if (q == 0) m->sample_seconds = s / E;
        if (c / E > m->compute_seconds) m->compute_seconds = c / E;
        if (k / E > m->comm_seconds) m->comm_seconds = k / E;
    }
    return DGNN_OK;
}

int dgnn_sim_measured_read(dgnn_sim_measured *m, const char *path, dgnn_err *err) {
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    char *text = read_all(path, err);
    if (!text) return err ? err->code : DGNN_EIO;
    cJSON *o = cJSON_Parse(text);
    if (!o) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + strlen(text) ? (long)(at - text) : -1;
        free(text);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: not valid JSON (near byte %ld)", path, off);
    }
    int rc = parse_run(m, o, path, err);
    cJSON_Delete(o);
    free(text);
    return rc;
}

double dgnn_sim_measured_row_bytes(const dgnn_sim_measured *m) {
    const int apan = strcmp(m->model, "apan") == 0;
    const double M = (double)m->mem_dim, S = apan ? (double)m->mail_slots : 1;
    const double D = 2 * M + (double)m->edge_dim + (apan ? 0 : (double)m->time_dim);
    return 16 + 8 + 8 * S + 4 * M + 4 * S * D;
}

int dgnn_sim_event_fit(dgnn_sim_event_in *in, const dgnn_sim_measured *runs, int64_t nruns, dgnn_err *err) {
    if (nruns < 1) return dgnn_err_set(err, DGNN_EINVAL, "simulate: --measured: no run given");
    double sx = 0, sy = 0, sxx = 0, sxy = 0, samp = 0, samp_ev = 0;
    int distinct = 0;
    for (int64_t i = 0; i < nruns; i++) {
        const dgnn_sim_measured *m = &runs[i];
        if (m->ranks != 1)
            return dgnn_err_set(err, DGNN_EINVAL,
                                "%s: a %lld-rank run; --measured takes single-rank runs (the multi-rank ones are for "
                                "--measured-strict / --measured-depbloom)", m->path, (long long)m->ranks);
        if (m->steps < 1 || m->epoch_events < 1)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: no training steps", m->path);
        if (i > 0 && (strcmp(m->model, runs[0].model) != 0 || m->num_params != runs[0].num_params ||
                      m->mem_dim != runs[0].mem_dim))
            return dgnn_err_set(err, DGNN_EINVAL, "%s: model %s with %lld parameters, but %s has %s with %lld", m->path,
                                m->model, (long long)m->num_params, runs[0].path, runs[0].model,
                                (long long)runs[0].num_params);
        if (strcmp(m->mode, "depbloom") == 0 && m->refine > 1)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: a --refine run; --measured takes runs without refinement",
                                m->path);
        const double x = (double)m->epoch_events / (double)m->steps, y = m->train_seconds / (double)m->steps;
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        if (i > 0 && m->batch != runs[0].batch) distinct = 1;
        if (isfinite(m->sample_seconds)) samp += m->sample_seconds, samp_ev += (double)m->epoch_events;
    }
    const double k = (double)nruns;
    double a = 0, b;
    if (distinct && k * sxx - sx * sx > 0) {
        b = (k * sxy - sx * sy) / (k * sxx - sx * sx);
        a = (sy - b * sx) / k;
        if (a < 0 || b < 0) a = 0, b = sxy / sxx; /* through the origin */
    } else {
        double t = 0, e = 0;
        for (int64_t i = 0; i < nruns; i++) t += runs[i].train_seconds, e += (double)runs[i].epoch_events;
        b = t / e;
    }
    in->step_seconds = a;
    in->event_seconds = b;
    in->sample_seconds = samp_ev > 0 ? samp / samp_ev : 0;
    if (in->sample_seconds > b) in->sample_seconds = b;
    in->row_bytes = dgnn_sim_measured_row_bytes(&runs[0]);
    in->grad_bytes = 4.0 * (double)runs[0].num_params;
    in->batch = runs[0].batch;
    return DGNN_OK;
}
