/* costmodel.c: DyGNeX's per-window cost model (costmodel.h): the window sizes from snapshots,
 * the trainer's profile CSV, the default FLOP-count law, and the non-negative least
 * squares fit with its held-out error. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/costmodel.h"
#include "dgnn/snapshot.h"

int dgnn_windows_of_snapshots(dgnn_window *out, const dgnn_snapshots *s, int64_t begin, int64_t end, int64_t W,
                              int64_t neg_mult, int64_t hidden, dgnn_err *err) {
    const int64_t T = s->count, N = s->num_nodes;
    if (W < 0 || begin < W || end > T - 1 || begin > end)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "windows [%lld, %lld) with window %lld need snapshots %lld..%lld; there are %lld",
                            (long long)begin, (long long)end, (long long)W, (long long)(begin - W), (long long)end,
                            (long long)T);
    /* the trainer's one-hot width: 1 + the largest degree over every snapshot but the last */
    int32_t *deg = dgnn_xmalloc((size_t)(N > 0 ? N : 1) * sizeof(int32_t));
    int64_t maxdeg = 0;
    for (int64_t k = 0; k + 1 < T; k++) {
        int64_t d = dgnn_snap_degree_onehot(deg, &s->snaps[k]);
        if (d > maxdeg) maxdeg = d;
    }
    free(deg);
    for (int64_t i = begin; i < end; i++) {
        dgnn_window *w = &out[i - begin];
        w->sample = i;
        w->nodes = s->snaps[i].num_nodes;
        w->edges = s->snaps[i].num_edges;
        w->edges_window = 0;
        for (int64_t k = i - W; k <= i; k++) w->edges_window += s->snaps[k].num_edges;
        w->label_pairs = s->snaps[i + 1].num_edges * (1 + neg_mult);
        w->in_dim = maxdeg + 1;
        w->hidden = hidden;
        w->seconds = NAN;
    }
    return DGNN_OK;
}

/* ---- profile CSV ---- */

static const char *k_header = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds";
static const char *k_fields[] = {"model", "sample", "nodes", "edges", "edges_window", "label_pairs", "in_dim",
                                 "hidden", "seconds"};

void dgnn_profile_free(dgnn_profile *p) {
    free(p->rows);
    free(p->model);
    memset(p, 0, sizeof *p);
}

/* A window's seconds above this are no measurement (31 years): refused, so that the fit's
 * squares of them stay finite (1e200 s made every subset's residual NaN and hit the fit's
 * assert). */
#define PROFILE_MAX_SECONDS 1e9

/* The next line of f into *line (getline's buffer: a line of any length is one line);
 * its newline and a CR before it removed. Returns its length, -1 at the end of the file,
 * -2 when the line holds a NUL byte (the string would end there). */
static ssize_t next_line(char **line, size_t *cap, FILE *f) {
    ssize_t n = getline(line, cap, f);
    if (n < 0) return -1;
    if ((size_t)n != strlen(*line)) return -2;
    while (n > 0 && ((*line)[n - 1] == '\n' || (*line)[n - 1] == '\r')) (*line)[--n] = '\0';
    return n;
}

int dgnn_profile_read(dgnn_profile *p, const char *path, dgnn_err *err) {
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    if (!f) return dgnn_err_set(err, DGNN_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t line_cap = 0;
    int rc = DGNN_OK;
    int64_t cap = 0, lineno = 1;
    ssize_t len = next_line(&line, &line_cap, f);
    if (len == -1) {
        rc = ferror(f) ? dgnn_err_set(err, DGNN_EIO, "%s: read error", path)
                       : dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file (expected the header '%s')", path, k_header);
        goto done;
    }
    if (len == -2 || strcmp(line, k_header) != 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:1: header is '%.200s%s', expected '%s'", path,
                          len == -2 ? "(a NUL byte)" : line, len > 200 ? "..." : "", k_header);
        goto done;
    }
    while ((len = next_line(&line, &line_cap, f)) != -1) {
        lineno++;
        if (len == -2) {
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: a NUL byte: not a line of text", path, (long long)lineno);
            goto done;
        }
        if (len == 0) continue;
        if (p->n == cap) {
            cap = cap ? 2 * cap : 256;
            p->rows = dgnn_xrealloc(p->rows, (size_t)cap * sizeof *p->rows);
            p->model = dgnn_xrealloc(p->model, (size_t)cap * sizeof *p->model);
        }
        dgnn_window *w = &p->rows[p->n];
        int64_t *ints[] = {&w->sample, &w->nodes, &w->edges, &w->edges_window, &w->label_pairs, &w->in_dim,
                           &w->hidden};
        char *tok = line;
        for (int fi = 0; fi < 9; fi++) {
            char *comma = strchr(tok, ',');
            if (fi < 8 && !comma) {
                rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: field '%s': missing (expected 9 fields)", path,
                                  (long long)lineno, k_fields[fi + 1]);
                goto done;
            }
            if (fi == 8 && comma) {
                rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: more than 9 fields", path, (long long)lineno);
                goto done;
            }
            if (comma) *comma = '\0';
            char *end;
            errno = 0;
            if (fi == 0) {
                if (strlen(tok) >= 32 || tok[0] == '\0') {
                    rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: field 'model': empty or longer than 31 characters",
                                      path, (long long)lineno);
                    goto done;
                }
                strcpy(p->model[p->n], tok);
            } else if (fi < 8) {
                long long v = strtoll(tok, &end, 10);
                if (errno || end == tok || *end != '\0' || v < 0) {
                    rc = dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: field '%s': not a non-negative integer: '%.40s'",
                                      path, (long long)lineno, k_fields[fi], tok);
                    goto done;
                }
                *ints[fi - 1] = v;
            } else {
                double v = strtod(tok, &end);
                if (errno || end == tok || *end != '\0' || !isfinite(v) || v < 0 || v > PROFILE_MAX_SECONDS) {
                    rc = dgnn_err_set(err, DGNN_EFORMAT,
                                      "%s:%lld: field 'seconds': not a number of seconds in [0, %g]: '%.40s'", path,
                                      (long long)lineno, PROFILE_MAX_SECONDS, tok);
                    goto done;
                }
                w->seconds = v;
            }
            if (comma) tok = comma + 1;
        }
        p->n++;
    }
    if (ferror(f)) rc = dgnn_err_set(err, DGNN_EIO, "%s: read error", path);
done:
    free(line);
    fclose(f);
    if (rc) dgnn_profile_free(p);
    return rc;
}

/* ---- the law ---- */

void dgnn_cost_features(double f[DGNN_COST_NFEAT], const dgnn_window *w) {
    f[0] = (double)w->edges_window * (double)w->hidden;
    f[1] = (double)w->edges * (double)w->hidden;
    f[2] = (double)w->nodes * (double)w->hidden;
    f[3] = (double)w->label_pairs;
    f[4] = 1.0;
}

dgnn_costmodel dgnn_costmodel_default(int kind, int64_t W, int64_t hidden, int64_t cls_hidden, int64_t in_dim,
                                      double rate) {
    dgnn_costmodel m;
    memset(&m, 0, sizeof m);
    if (!(rate > 0)) rate = DGNN_COST_DEFAULT_RATE;
    const double L = (double)hidden, C = (double)cls_hidden, V = (double)in_dim, T = (double)(W + 1);
    /* flops: 2 per multiply-add, backward twice the forward (so x3 for fwd+bwd); per kind
     * (dgnn_snapmodel_kind order): edges_window and edges coefficients, the dense per-node
     * work in units of L (x T when it runs at every snapshot), and whether the GCN weights
     * evolve (EvolveGCN's matrix GRUs, a constant per window); costmodel.h lists the terms */
    static const struct {
        double a_w, a_e, node_L;
        int per_snapshot, evolves;
    } law[] = {
        {0.0, 12.0, 6.0, 0, 1},  /* -O: the earlier snapshots' GCN outputs feed nothing */
        {6.0, 6.0, 6.0, 0, 1},   /* -H: layer 1 over every snapshot, layer 2 over the last */
        {18.0, 0.0, 36.0, 1, 0}, /* tgcn */
        {36.0, 0.0, 18.0, 1, 0}, /* gcrn-gru */
        {12.0, 0.0, 54.0, 1, 0}, /* wdgcn */
        {12.0, 0.0, 6.0, 0, 0},  /* gcn (union graph) */
    };
    const int k = kind >= 0 && kind < (int)(sizeof law / sizeof law[0]) ? kind : 0;
    m.coef[0] = law[k].a_w;
    m.coef[1] = law[k].a_e;
    m.coef[2] = law[k].node_L * L * (law[k].per_snapshot ? T : 1.0);
    m.coef[4] = law[k].evolves ? 36.0 * T * (V * V * L + L * L * L) : 0.0;
    m.coef[2] += 12.0 * C;
    m.coef[3] = 12.0 * C;
    for (int k = 0; k < DGNN_COST_NFEAT; k++) m.coef[k] /= rate;
    m.fitted = 0;
    m.flops_per_second = rate;
    m.fit_mape = m.holdout_mape = NAN;
    return m;
}

double dgnn_costmodel_predict(const dgnn_costmodel *m, const dgnn_window *w) {
    double f[DGNN_COST_NFEAT], y = 0;
    dgnn_cost_features(f, w);
    for (int k = 0; k < DGNN_COST_NFEAT; k++) y += m->coef[k] * f[k];
    return y > 0 ? y : 0; /* coefficients are >= 0; guards rounding only */
}

/* Solves the k x k SPD system A x = b in place by Cholesky; returns 0, or -1 when A is not
 * numerically positive definite (a column dependent on the others). */
static int cholesky_solve(double *A, double *b, int k) {
    for (int j = 0; j < k; j++) {
        double d = A[j * k + j];
        for (int t = 0; t < j; t++) d -= A[j * k + t] * A[j * k + t];
        if (!(d > 1e-10)) return -1; /* columns are unit-norm: 1e-10 = nearly dependent */
        d = sqrt(d);
        A[j * k + j] = d;
        for (int i = j + 1; i < k; i++) {
            double s = A[i * k + j];
            for (int t = 0; t < j; t++) s -= A[i * k + t] * A[j * k + t];
            A[i * k + j] = s / d;
        }
    }
    for (int i = 0; i < k; i++) { /* L y = b */
        double s = b[i];
        for (int t = 0; t < i; t++) s -= A[i * k + t] * b[t];
        b[i] = s / A[i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) { /* L^T x = y */
        double s = b[i];
        for (int t = i + 1; t < k; t++) s -= A[t * k + i] * b[t];
        b[i] = s / A[i * k + i];
    }
    return 0;
}

static double mape(const dgnn_costmodel *m, const dgnn_window *rows, const int64_t *idx, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        const dgnn_window *w = &rows[idx ? idx[i] : i];
        s += fabs(dgnn_costmodel_predict(m, w) - w->seconds) / w->seconds;
    }
    return n > 0 ? s / (double)n : NAN;
}

/* NNLS over rows idx[0..n-1] (NULL: all): the Gram matrix of the unit-scaled columns, then
 * every subset of columns solved by Cholesky; the subset with all coefficients >= 0 and
 * the least residual wins. For 5 columns that is 31 tiny solves and the exact NNLS optimum
 * (the optimum's positive coefficients solve the unconstrained problem on their subset). */
static int fit_rows(dgnn_costmodel *m, const dgnn_window *rows, const int64_t *idx, int64_t n, dgnn_err *err) {
    enum { K = DGNN_COST_NFEAT };
    if (n < 2) return dgnn_err_set(err, DGNN_EINVAL, "cost model: need at least 2 profile rows, got %lld", (long long)n);
    double G[K * K] = {0}, g[K] = {0}, yy = 0, scale[K] = {0};
    for (int64_t i = 0; i < n; i++) {
        const dgnn_window *w = &rows[idx ? idx[i] : i];
        if (!(w->seconds > 0) || !isfinite(w->seconds))
            return dgnn_err_set(err, DGNN_EINVAL, "cost model: sample %lld: seconds must be a positive number, got %g",
                                (long long)w->sample, w->seconds);
        double f[K];
        dgnn_cost_features(f, w);
        for (int a = 0; a < K; a++) scale[a] += f[a] * f[a];
    }
    for (int a = 0; a < K; a++) scale[a] = scale[a] > 0 ? sqrt(scale[a]) : 0;
    for (int64_t i = 0; i < n; i++) {
        const dgnn_window *w = &rows[idx ? idx[i] : i];
        double f[K];
        dgnn_cost_features(f, w);
        for (int a = 0; a < K; a++) f[a] = scale[a] > 0 ? f[a] / scale[a] : 0;
        for (int a = 0; a < K; a++) {
            g[a] += f[a] * w->seconds;
            for (int b = 0; b < K; b++) G[a * K + b] += f[a] * f[b];
        }
        yy += w->seconds * w->seconds;
    }
    double best = INFINITY, bestc[K] = {0};
    for (int mask = 1; mask < (1 << K); mask++) {
        int cols[K], k = 0, ok = 1;
        for (int a = 0; a < K; a++)
            if (mask >> a & 1) {
                if (scale[a] == 0) ok = 0; /* an all-zero column: the smaller subset covers it */
                cols[k++] = a;
            }
        if (!ok) continue;
        double A[K * K], x[K];
        for (int i = 0; i < k; i++) {
            x[i] = g[cols[i]];
            for (int j = 0; j < k; j++) A[i * k + j] = G[cols[i] * K + cols[j]];
        }
        if (cholesky_solve(A, x, k) != 0) continue;
        for (int i = 0; i < k; i++)
            if (x[i] < 0) ok = 0;
        if (!ok) continue;
        /* residual ||y - F x||^2 = y'y - 2 x'g + x'G x */
        double r = yy;
        for (int i = 0; i < k; i++) {
            r -= 2 * x[i] * g[cols[i]];
            for (int j = 0; j < k; j++) r += x[i] * x[j] * G[cols[i] * K + cols[j]];
        }
        if (r < best - 1e-15 * yy) {
            best = r;
            memset(bestc, 0, sizeof bestc);
            for (int i = 0; i < k; i++) bestc[cols[i]] = x[i];
        }
    }
    DGNN_ASSERT(isfinite(best)); /* the constant column alone always qualifies (y > 0) */
    memset(m, 0, sizeof *m);
    for (int a = 0; a < K; a++) m->coef[a] = scale[a] > 0 ? bestc[a] / scale[a] : 0;
    m->fitted = 1;
    m->rows = n;
    m->fit_mape = mape(m, rows, idx, n);
    m->holdout_mape = NAN;
    return DGNN_OK;
}

int dgnn_costmodel_fit(dgnn_costmodel *m, const dgnn_window *rows, int64_t n, dgnn_err *err) {
    return fit_rows(m, rows, NULL, n, err);
}

int dgnn_costmodel_fit_holdout(dgnn_costmodel *m, const dgnn_window *rows, int64_t n, double holdout_frac,
                               uint64_t seed, dgnn_err *err) {
    if (n < 3) return dgnn_err_set(err, DGNN_EINVAL, "cost model: need at least 3 profile rows to hold some out");
    int64_t *idx = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, seed);
    for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int64_t j = (int64_t)dgnn_rng_below(&rng, (uint64_t)(i + 1));
        int64_t t = idx[i];
        idx[i] = idx[j], idx[j] = t;
    }
    int64_t h = (int64_t)llround(holdout_frac * (double)n);
    if (h < 1) h = 1;
    if (h > n - 2) h = n - 2;
    dgnn_costmodel part;
    int rc = fit_rows(&part, rows, idx + h, n - h, err);
    double hm = rc ? NAN : mape(&part, rows, idx, h);
    if (!rc) rc = fit_rows(m, rows, NULL, n, err);
    if (!rc) m->holdout_rows = h, m->holdout_mape = hm;
    free(idx);
    return rc;
}
