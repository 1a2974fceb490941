/* simulate_event_runs.c: the event family of the cluster simulator against measured runs
 * (simulate.h, issue 5): reading the `dgnn train --out` JSON of a run (and the step-time
 * curve a `dgnn bench train --step-curve` run holds, issue 18), fitting one worker's costs
 * on single-rank runs, the stream and training split a run trained on, and
 * the model's prediction of a measured (multi-rank) run on this machine. The model itself
 * is simulate_event.c; `dgnn simulate --family event` (src/cli/cmd_simulate.c) prints
 * what these return. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/gen.h"
#include "dgnn/simulate.h"
#include "dgnn/split.h"
#include "../base/json_keys.h"

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

/* a byte count or time span: a number >= 0 */
static int get_nonneg(double *x, const cJSON *obj, const char *key, const char *name, const char *path, dgnn_err *err) {
    int rc = get_num(x, obj, key, name, path, err);
    if (!rc && *x < 0) rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': must be >= 0, got %g", path, name, *x);
    return rc;
}

/* A measured duration: seconds in [0, 1e9]. Above that (31 years) is no measurement, and
 * the simulator's products of such seconds with event counts would overflow (a step
 * curve of 1e308 s gave infinite step times). */
#define MAX_SECONDS 1e9
static int get_seconds(double *x, const cJSON *obj, const char *key, const char *name, const char *path,
                       dgnn_err *err) {
    int rc = get_num(x, obj, key, name, path, err);
    if (!rc && (*x < 0 || *x > MAX_SECONDS))
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': must be seconds in [0, %g], got %g", path, name,
                          MAX_SECONDS, *x);
    return rc;
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

/* The file's bytes, NUL-terminated; *len: their count (a NUL inside tells text from binary). */
static char *read_all(const char *path, size_t *len, dgnn_err *err) {
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
    *len = n;
    return buf;
}

/* o.step_curve, when present (a `dgnn bench train --step-curve LIST --out F` run) */
static int parse_curve(dgnn_sim_curve *c, const cJSON *o, const char *path, dgnn_err *err) {
    memset(c, 0, sizeof *c);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(o, "step_curve");
    if (!sc) return DGNN_OK;
    int rc;
    if (!cJSON_IsObject(sc)) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'step_curve': not an object", path);
    if ((rc = get_str(c->device, sizeof c->device, sc, "device", "step_curve.device", path, err))) return rc;
    const cJSON *ap = cJSON_GetObjectItemCaseSensitive(sc, "apply_bytes_per_second");
    if (ap && !cJSON_IsNull(ap)) {
        if ((rc = get_num(&c->apply_bytes_per_second, sc, "apply_bytes_per_second", "step_curve.apply_bytes_per_second",
                          path, err)))
            return rc;
        if (c->apply_bytes_per_second <= 0)
            return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'step_curve.apply_bytes_per_second': must be > 0, got %g",
                                path, c->apply_bytes_per_second);
    }
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(sc, "optimizer_seconds");
    if (op && !cJSON_IsNull(op)) {
        if ((rc = get_seconds(&c->optimizer_seconds, sc, "optimizer_seconds", "step_curve.optimizer_seconds", path,
                              err)))
            return rc;
    }
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(sc, "points");
    if (!pts) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'step_curve.points': missing", path);
    const int n = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : -1;
    if (n < 1 || n > DGNN_SIM_CURVE_MAX)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'step_curve.points': not an array of 1 to %d points", path,
                            DGNN_SIM_CURVE_MAX);
    for (int k = 0; k < n; k++) {
        const cJSON *p = cJSON_GetArrayItem(pts, k);
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "step_curve.points[%d].batch", k);
        snprintf(n2, sizeof n2, "step_curve.points[%d].step_seconds", k);
        if (!cJSON_IsObject(p))
            return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'step_curve.points[%d]': not an object", path, k);
        int64_t b;
        if ((rc = get_i64(&b, p, "batch", n1, path, 1, err)) || (rc = get_seconds(&c->seconds[k], p, "step_seconds", n2, path, err)))
            return rc;
        c->batch[k] = (double)b;
        if (k > 0 && c->batch[k] <= c->batch[k - 1])
            return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': batches must ascend (%g after %g)", path, n1,
                                c->batch[k], c->batch[k - 1]);
        if (c->seconds[k] <= 0) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': must be > 0, got %g", path, n2,
                                                    c->seconds[k]);
    }
    c->n = n;
    return DGNN_OK;
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
    /* the seed is a uint64_t (a JSON number holds those, as doubles, up to 2^64) */
    if (x != floor(x) || x < 0 || x >= 18446744073709551616.0)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: field 'config.seed': expected an integer in [0, 2^64), got %g", path,
                            x);
    m->seed = (uint64_t)x;
    snprintf(m->device, sizeof m->device, "cpu");
    if (cJSON_GetObjectItemCaseSensitive(cfg, "device") &&
        (rc = get_str(m->device, sizeof m->device, cfg, "device", "config.device", path, err)))
        return rc;
    if ((rc = parse_curve(&m->curve, o, path, err))) return rc;
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
        double s;
        int64_t v;
        if ((rc = get_seconds(&s, e, "train_seconds", n1, path, err)) ||
            (rc = get_i64(&v, e, "train_events", n2, path, 1, err)))
            return rc;
        if (s <= 0) return dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s': an epoch needs seconds > 0 (got %g)", path, n1, s);
        secs += s / (double)m->epochs, evs += (double)v / (double)m->epochs;
    }
    const double E = (double)m->epochs;
    m->train_seconds = secs;
    m->epoch_events = (int64_t)llround(evs);
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
        (rc = get_nonneg(&m->window_seconds, dist, "window_seconds", "dist.window_seconds", path, err)) ||
        (rc = get_i64(&m->refine, dist, "refine", "dist.refine", path, 0, err)) ||
        (rc = get_i64(&steps, dist, "steps", "dist.steps", path, m->epochs, err)) ||
        (rc = get_nonneg(&m->state_bytes_per_epoch, dist, "state_bytes_per_epoch", "dist.state_bytes_per_epoch", path,
                         err)) ||
        (rc = get_nonneg(&m->grad_bytes_per_epoch, dist, "grad_bytes_per_epoch", "dist.grad_bytes_per_epoch", path,
                         err)))
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
        if ((rc = get_seconds(&c, y, "compute_seconds", n1, path, err)) ||
            (rc = get_seconds(&s, y, "sample_seconds", n2, path, err)) || (rc = get_seconds(&k, y, "comm_seconds", n3, path, err)))
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
    size_t len = 0;
    char *text = read_all(path, &len, err);
    if (!text) return err ? err->code : DGNN_EIO;
    /* one JSON value and nothing else: cJSON_Parse stops at a NUL byte and after the
     * value, so that a file with more after it (two runs appended, a --curve file of one
     * JSON line per epoch) would be read as its first value */
    const char *end = NULL;
    cJSON *o = strlen(text) == len ? cJSON_ParseWithOpts(text, &end, 0) : NULL;
    if (o) end += strspn(end, " \t\r\n");
    if (!o || *end) {
        const char *at = strlen(text) < len ? text + strlen(text) : o ? end : cJSON_GetErrorPtr();
        if (!at || at < text || at > text + len) at = text + len;
        long line = 1, col = 1;
        for (const char *c = text; c < at; c++) col = *c == '\n' ? (line++, 1) : col + 1;
        const char *what = strlen(text) < len ? "a NUL byte: not a JSON text"
                           : o                ? "text after the JSON value (a run's file holds one JSON object)"
                                              : "not valid JSON";
        const long byte = (long)(at - text);
        cJSON_Delete(o);
        free(text);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s:%ld:%ld: %s (byte %ld)", path, line, col, what, byte);
    }
    /* a key given twice (two "seconds" in an epoch) is refused, as the PyG-T reader does:
     * cJSON would read the first, a Python script the last */
    char where[256], key[64];
    const int rep = dgnn_json_repeated_key(o, where, sizeof where, key, sizeof key);
    int rc = rep < 0 ? dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path)
             : rep  ? dgnn_err_set(err, DGNN_EFORMAT, "%s: field '%s%s%s': key \"%s\" appears twice (JSON readers disagree on which one counts)",
                                  path, where, where[0] ? "." : "", key, key)
                    : parse_run(m, o, path, err);
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
    memset(&in->curve, 0, sizeof in->curve);
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
        if (m->curve.n > 0) {
            if (in->curve.n > 0)
                return dgnn_err_set(err, DGNN_EINVAL, "%s: a second step-time curve (one of the --measured runs may "
                                    "have one)", m->path);
            in->curve = m->curve;
        }
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

/* ---- the stream of a run ------------------------------------------------------------ */

int dgnn_sim_event_builtin_stream(dgnn_events *ev, dgnn_err *err) {
    dgnn_gen_opts g = dgnn_gen_opts_default();
    g.num_events = 60000, g.num_nodes = 2000, g.bipartite = 1, g.seed = 7, g.repeat_prob = 0.8, g.session = 0.8;
    return dgnn_gen_events(ev, &g, err);
}

int dgnn_sim_measured_train_events(dgnn_events *train, const dgnn_events *ev, const dgnn_sim_measured *m,
                                   dgnn_err *err) {
    dgnn_split_opts so = dgnn_split_opts_default();
    so.new_node_frac = m->new_node_frac, so.val_q = m->val_quantile, so.test_q = m->test_quantile;
    dgnn_split sp;
    int rc = dgnn_split_make(&sp, ev, &so, err);
    if (!rc) rc = dgnn_events_subset(train, ev, sp.mask, DGNN_SPLIT_TRAIN, err);
    dgnn_split_free(&sp);
    return rc;
}

/* ---- the model against a measured run ------------------------------------------------ */

int dgnn_sim_event_predict_run(dgnn_sim_run_prediction *out, const dgnn_sim_measured *m, const dgnn_sim_event_in *base,
                               const dgnn_events *train, double cores, double background, const dgnn_net *local,
                               dgnn_err *err) {
    memset(out, 0, sizeof *out);
    dgnn_sim_event_in in = *base;
    const int depbloom = strcmp(m->mode, "depbloom") == 0;
    in.batch = m->batch;
    in.refine = depbloom && m->refine > 1 ? m->refine : 1;
    in.critical_path = 0;
    in.max_steps = m->max_batches;
    in.cores = cores;
    in.background = background;
    in.rows_per_slice = dgnn_sim_rows_per_slice(train, m->batch);
    dgnn_sim_event_point pt;
    int rc = dgnn_sim_event_on_stream(&pt, &in, m->ranks, train,
                                      m->window_events > 0 ? m->window_events : DGNN_SIM_WINDOW_EVENTS, m->window_seconds,
                                      m->seed, local, err);
    if (rc) return rc;
    out->seconds = depbloom ? pt.db_tp : pt.strict_tp;
    out->compute = depbloom ? pt.db_compute : pt.strict_compute;
    out->comm = out->seconds - out->compute;
    out->state_bytes = depbloom ? pt.db_state_bytes : pt.strict_state_bytes;
    out->steps = depbloom ? pt.db_steps : pt.strict_steps;
    out->events = depbloom ? pt.db_events : pt.strict_events;
    out->error = (out->seconds - m->train_seconds) / m->train_seconds;
    return DGNN_OK;
}
