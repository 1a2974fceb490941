/* read_pgt.c: the PyTorch Geometric Temporal json reader (snapshot datasets).
 *
 * Three layouts of the PGT benchmark files are understood:
 *  - twitter_tennis: keys "0".."T-1", each {edges: [[s,d]..], weights: [..], X: [[..]..],
 *    y: [..]}, plus "time_periods": T (and "node_ids", names -> ids, ignored);
 *  - england_covid: "edge_mapping": {"edge_index": {"t": [[s,d]..]}, "edge_weight":
 *    {"t": [..]}}, "y": T x N, "time_periods": T;
 *  - chickenpox: a static "edges": [[s,d]..] and "FX": T x N (a node time series): the
 *    same edges in every period, period_y = FX.
 * Each snapshot p becomes events with t = p in file order, the edge weight as a 1-dim edge
 * feature (1.0 when the file has no weights). Node ids are 0-based in these files and are
 * kept as they are when the file has node features or targets: N = the number of rows of
 * X / y (an id outside those rows is an error: its features would be missing). Without
 * them, ids are made dense as the text readers make them (dense files keep theirs), so
 * that a lone id 2000000000 cannot declare two billion nodes. Values are checked as the
 * text readers check theirs: ids non-negative integers, numbers finite in float32, at
 * least one period, at most DGNN_MAX_PERIODS periods and DGNN_MAX_DIM values per node.
 *
 * Where errors point: cJSON keeps no source positions for parsed values, and these files
 * are written on one line anyway (json.dump), so a line number would say nothing. A syntax
 * error gets its line and column (from the parser's error position); a content error names
 * its JSON path instead, e.g.
 *   england_covid.json: edge_mapping.edge_index."12"[3][1]: expected a non-negative integer */
#include "dgnn/readers.h"
#include "dgnn/infile.h"
#include "../base/json_keys.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *path;
    dgnn_err *err;
} pgt_ctx;

/* What one period of the file holds (items point into the parsed tree) and the JSON
 * paths that name them in messages. */
typedef struct {
    const cJSON *edges, *weights, *x, *y; /* weights, x, y may be NULL */
    char f_edges[64], f_weights[64], f_x[64], f_y[64];
} pgt_period;

static int bad(const pgt_ctx *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const pgt_ctx *c, const char *field, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return dgnn_err_set(c->err, DGNN_EFORMAT, "%s: %s: %s", c->path, field, what);
}

static const char *json_type_name(const cJSON *it) {
    if (!it) return "nothing";
    if (cJSON_IsNumber(it)) return "a number";
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsArray(it)) return "an array";
    if (cJSON_IsObject(it)) return "an object";
    if (cJSON_IsBool(it)) return "a boolean";
    if (cJSON_IsNull(it)) return "null";
    return "an unknown value";
}

/* A node id: a non-negative integer below 2^31 - 1 (so that N = id + 1 fits an int32). */
static int get_id(const pgt_ctx *c, const cJSON *it, const char *field, int32_t *out) {
    if (!cJSON_IsNumber(it)) return bad(c, field, "expected a non-negative integer, got %s", json_type_name(it));
    double v = it->valuedouble;
    if (!(v >= 0) || v != floor(v)) return bad(c, field, "expected a non-negative integer, got %g", v);
    if (v >= (double)INT32_MAX) return bad(c, field, "node id %.0f is too large (at most 2^31-2)", v);
    *out = (int32_t)v;
    return DGNN_OK;
}

/* A finite number as float (JSON has no NaN literal; an overflowing 1e999 parses as inf). */
static int get_num(const pgt_ctx *c, const cJSON *it, const char *field, float *out) {
    if (!cJSON_IsNumber(it)) return bad(c, field, "expected a number, got %s", json_type_name(it));
    const float x = (float)it->valuedouble; /* as textscan.c: refused when it rounds to inf */
    if (!isfinite(it->valuedouble) || !isfinite(x))
        return bad(c, field, "number %g is not finite in float32", it->valuedouble);
    *out = x;
    return DGNN_OK;
}

/* A non-negative integer count (time_periods). */
static int get_count(const pgt_ctx *c, const cJSON *it, const char *field, int64_t *out) {
    if (!it) return bad(c, field, "missing key");
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble != floor(it->valuedouble) ||
        it->valuedouble > 1e15)
        return bad(c, field, "expected a non-negative integer, got %s", json_type_name(it));
    *out = (int64_t)it->valuedouble;
    return DGNN_OK;
}

static const cJSON *get_key(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int is_digits(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* Number of rows of a node matrix (X or y of one period); -1 when it is not an array. */
static int64_t rows_of(const cJSON *m) { return cJSON_IsArray(m) ? (int64_t)cJSON_GetArraySize(m) : -1; }

/* Width of a node matrix row: 1 for a number (a vector per period), the length for an array. */
static int64_t width_of(const cJSON *row) {
    if (cJSON_IsArray(row)) return cJSON_GetArraySize(row);
    return 1;
}

/* Reads a node matrix m (N rows, each a number when dim == 1, or an array
 * of dim numbers) into out (N, dim). */
static int read_node_matrix(const pgt_ctx *c, const cJSON *m, const char *field, int64_t n, int64_t dim,
                            float *out) {
    char f[160];
    if (!cJSON_IsArray(m)) return bad(c, field, "expected an array of %lld rows, got %s", (long long)n, json_type_name(m));
    int64_t rows = rows_of(m);
    if (rows != n) return bad(c, field, "expected %lld rows (one per node), got %lld", (long long)n, (long long)rows);
    int64_t i = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, m) {
        snprintf(f, sizeof f, "%s[%lld]", field, (long long)i);
        if (cJSON_IsArray(row)) {
            int64_t w = cJSON_GetArraySize(row);
            if (w != dim)
                return bad(c, f, "expected %lld number%s, got %lld (rows of different lengths)", (long long)dim,
                           dim == 1 ? "" : "s", (long long)w);
            int64_t j = 0;
            const cJSON *v;
            cJSON_ArrayForEach(v, row) {
                char fj[192];
                snprintf(fj, sizeof fj, "%s[%lld]", f, (long long)j);
                int rc = get_num(c, v, fj, &out[i * dim + j]);
                if (rc) return rc;
                j++;
            }
        } else {
            if (dim != 1)
                return bad(c, f, "expected an array of %lld numbers, got %s", (long long)dim, json_type_name(row));
            int rc = get_num(c, row, f, &out[i]);
            if (rc) return rc;
        }
        i++;
    }
    return DGNN_OK;
}

/* Checks the shape of an edge list (an array of [s, d] pairs); returns its length in *n. */
static int check_edges_array(const pgt_ctx *c, const cJSON *e, const char *field, int64_t *n) {
    if (!e) return bad(c, field, "missing key");
    if (!cJSON_IsArray(e)) return bad(c, field, "expected an array of [src, dst] pairs, got %s", json_type_name(e));
    *n = cJSON_GetArraySize(e);
    return DGNN_OK;
}

/* Fills events [k, k + n) of ev from one period's edges and weights, and tracks the max id. */
static int fill_period(const pgt_ctx *c, dgnn_events *ev, int64_t k, const pgt_period *pp, int64_t p,
                       int64_t n_feat, int32_t *max_id) {
    char f[192];
    int64_t i = 0;
    const cJSON *pair;
    cJSON_ArrayForEach(pair, pp->edges) {
        snprintf(f, sizeof f, "%s[%lld]", pp->f_edges, (long long)i);
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
            return bad(c, f, "expected a [src, dst] pair, got %s%s", json_type_name(pair),
                       cJSON_IsArray(pair) ? " of another length" : "");
        int32_t s, d;
        char fs[200];
        snprintf(fs, sizeof fs, "%s[0]", f);
        int rc = get_id(c, pair->child, fs, &s);
        if (rc) return rc;
        snprintf(fs, sizeof fs, "%s[1]", f);
        if ((rc = get_id(c, pair->child->next, fs, &d))) return rc;
        if (n_feat > 0 && (s >= n_feat || d >= n_feat))
            return bad(c, f, "node id %d out of range: the node features/targets describe %lld nodes",
                       s >= n_feat ? s : d, (long long)n_feat);
        if (s > *max_id) *max_id = s;
        if (d > *max_id) *max_id = d;
        ev->src[k + i] = s;
        ev->dst[k + i] = d;
        ev->t[k + i] = (double)p;
        ev->efeat[k + i] = 1.0f;
        i++;
    }
    if (pp->weights) {
        if (!cJSON_IsArray(pp->weights))
            return bad(c, pp->f_weights, "expected an array of numbers, got %s", json_type_name(pp->weights));
        int64_t nw = cJSON_GetArraySize(pp->weights);
        if (nw != i)
            return bad(c, pp->f_weights, "%lld weights for %lld edges (%s)", (long long)nw, (long long)i, pp->f_edges);
        int64_t j = 0;
        const cJSON *w;
        cJSON_ArrayForEach(w, pp->weights) {
            snprintf(f, sizeof f, "%s[%lld]", pp->f_weights, (long long)j);
            int rc = get_num(c, w, f, &ev->efeat[k + j]);
            if (rc) return rc;
            j++;
        }
    }
    return DGNN_OK;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Without node features or targets nothing in the file fixes the node count, and N =
 * max id + 1 would let one edge [0, 2000000000] declare two billion nodes. As in the
 * text readers, ids are then made dense in increasing original id (the originals kept
 * in node_ids); files whose ids are already 0..N-1 keep them. */
static int densify_ids(const pgt_ctx *c, dgnn_events *ev, int32_t max_id) {
    int64_t E = ev->num_events;
    int32_t *u = malloc((size_t)(E > 0 ? 2 * E : 1) * sizeof *u);
    if (!u) return dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory", c->path);
    for (int64_t i = 0; i < E; i++) u[2 * i] = ev->src[i], u[2 * i + 1] = ev->dst[i];
    qsort(u, (size_t)(2 * E), sizeof *u, cmp_i32);
    int64_t nu = 0;
    for (int64_t i = 0; i < 2 * E; i++)
        if (nu == 0 || u[nu - 1] != u[i]) u[nu++] = u[i];
    ev->num_nodes = nu;
    if (nu == (int64_t)max_id + 1) { /* already dense */
        free(u);
        return DGNN_OK;
    }
    ev->node_ids = malloc((size_t)(nu > 0 ? nu : 1) * sizeof *ev->node_ids);
    if (!ev->node_ids) {
        free(u);
        return dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory", c->path);
    }
    for (int64_t v = 0; v < nu; v++) ev->node_ids[v] = u[v];
    for (int64_t i = 0; i < E; i++) {
        ev->src[i] = (int32_t)((const int32_t *)bsearch(&ev->src[i], u, (size_t)nu, sizeof *u, cmp_i32) - u);
        ev->dst[i] = (int32_t)((const int32_t *)bsearch(&ev->dst[i], u, (size_t)nu, sizeof *u, cmp_i32) - u);
    }
    free(u);
    return DGNN_OK;
}

/* The layout-independent part: periods -> events, period_x, period_y. */
static int build_table(const pgt_ctx *c, dgnn_events *ev, const pgt_period *per, int64_t T) {
    if (T == 0) return dgnn_err_set(c->err, DGNN_EFORMAT, "%s: no snapshots: the file declares 0 time periods", c->path);
    if (T > DGNN_MAX_PERIODS)
        return dgnn_err_set(c->err, DGNN_EFORMAT, "%s: %lld time periods: at most %lld are supported", c->path,
                            (long long)T, (long long)DGNN_MAX_PERIODS);
    /* shapes first: which of X / y the file has, the node count they imply, their widths */
    int has_x = T > 0 && per[0].x != NULL, has_y = T > 0 && per[0].y != NULL;
    int64_t n_feat = -1, dx = 0, dy = 0; /* -1: no X / y seen yet */
    int64_t E = 0;
    for (int64_t p = 0; p < T; p++) {
        const pgt_period *pp = &per[p];
        int64_t ne = 0;
        int rc = check_edges_array(c, pp->edges, pp->f_edges, &ne);
        if (rc) return rc;
        E += ne;
        if ((pp->x != NULL) != has_x) return bad(c, pp->f_x, "X is in some periods and not in others");
        if ((pp->y != NULL) != has_y) return bad(c, pp->f_y, "y is in some periods and not in others");
        const cJSON *ms[2] = {pp->x, pp->y};
        const char *fs[2] = {pp->f_x, pp->f_y};
        for (int q = 0; q < 2; q++) {
            if (!ms[q]) continue;
            int64_t r = rows_of(ms[q]);
            if (r < 0) return bad(c, fs[q], "expected an array of node rows, got %s", json_type_name(ms[q]));
            if (n_feat < 0) n_feat = r;
            if (r != n_feat)
                return bad(c, fs[q], "%lld rows, but %s has %lld (one row per node expected)", (long long)r,
                           has_x ? per[0].f_x : per[0].f_y, (long long)n_feat);
        }
    }
    if (n_feat < 0) n_feat = 0;
    if (n_feat > INT32_MAX) return bad(c, has_x ? per[0].f_x : per[0].f_y, "too many nodes (%lld)", (long long)n_feat);
    if (has_x && n_feat > 0) dx = width_of(per[0].x->child);
    if (has_y && n_feat > 0) dy = width_of(per[0].y->child);
    if (has_x && n_feat > 0 && dx == 0) return bad(c, per[0].f_x, "node feature rows are empty");
    if (has_y && n_feat > 0 && dy == 0) return bad(c, per[0].f_y, "target rows are empty");
    if (dx > DGNN_MAX_DIM || dy > DGNN_MAX_DIM)
        return bad(c, dx > DGNN_MAX_DIM ? per[0].f_x : per[0].f_y, "%lld values per node: at most %lld are supported",
                   (long long)(dx > DGNN_MAX_DIM ? dx : dy), (long long)DGNN_MAX_DIM);

    int rc = dgnn_events_alloc(ev, E, 1, 0, c->err);
    if (rc) return rc;
    int32_t max_id = -1;
    int64_t k = 0;
    for (int64_t p = 0; p < T; p++) {
        if ((rc = fill_period(c, ev, k, &per[p], p, n_feat, &max_id))) goto fail;
        k += cJSON_GetArraySize(per[p].edges);
    }
    DGNN_ASSERT(k == E);
    if (n_feat == 0) {
        if ((rc = densify_ids(c, ev, max_id))) goto fail;
    } else {
        ev->num_nodes = n_feat; /* every id was checked to be below it */
    }
    const int64_t N = ev->num_nodes;
    ev->num_periods = T;
    /* sizes below come from the file but every value is in it, so they are bounded by its size */
    if (has_x && N > 0) {
        ev->period_x_dim = dx;
        ev->period_x = malloc((size_t)T * (size_t)N * (size_t)dx * sizeof(float));
        if (!ev->period_x) { rc = dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory for X", c->path); goto fail; }
        for (int64_t p = 0; p < T; p++)
            if ((rc = read_node_matrix(c, per[p].x, per[p].f_x, N, dx, ev->period_x + p * N * dx))) goto fail;
    }
    if (has_y && N > 0) {
        ev->period_y_dim = dy;
        ev->period_y = malloc((size_t)T * (size_t)N * (size_t)dy * sizeof(float));
        if (!ev->period_y) { rc = dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory for y", c->path); goto fail; }
        for (int64_t p = 0; p < T; p++)
            if ((rc = read_node_matrix(c, per[p].y, per[p].f_y, N, dy, ev->period_y + p * N * dy))) goto fail;
    }
    ev->bipartite = dgnn_events_detect_bipartite(ev);
    return DGNN_OK;
fail:
    dgnn_events_free(ev);
    return rc;
}

/* ---- the three layouts: each fills the period table ------------------------------ */

/* Keys "0".."T-1" at the top level. */
static int layout_twitter(const pgt_ctx *c, const cJSON *root, pgt_period **out, int64_t *T) {
    int rc = get_count(c, get_key(root, "time_periods"), "time_periods", T);
    if (rc) return rc;
    /* every numeric key must be a period below T (catches a wrong time_periods both ways) */
    int64_t numeric = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        if (!is_digits(it->string)) continue;
        numeric++;
        if (strlen(it->string) > 15 || strtoll(it->string, NULL, 10) >= *T)
            return bad(c, "time_periods", "%lld, but the file has a snapshot key \"%s\"", (long long)*T, it->string);
    }
    if (numeric < *T) {
        for (int64_t p = 0; p < *T; p++) {
            char key[32];
            snprintf(key, sizeof key, "%lld", (long long)p);
            if (!get_key(root, key))
                return bad(c, "time_periods", "%lld, but snapshot key \"%s\" is missing", (long long)*T, key);
        }
    }
    pgt_period *per = calloc((size_t)(*T ? *T : 1), sizeof *per);
    if (!per) return dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory", c->path);
    for (int64_t p = 0; p < *T; p++) {
        char key[32], f[48];
        snprintf(key, sizeof key, "%lld", (long long)p);
        snprintf(f, sizeof f, "\"%s\"", key);
        const cJSON *s = get_key(root, key);
        if (!cJSON_IsObject(s)) {
            rc = bad(c, f, "expected an object {edges, weights, X, y}, got %s", json_type_name(s));
            break;
        }
        const cJSON *idx = get_key(s, "index");
        if (idx && (!cJSON_IsNumber(idx) || idx->valuedouble != (double)p)) {
            char fi[64];
            snprintf(fi, sizeof fi, "%s.index", f);
            rc = bad(c, fi, "expected %lld (the snapshot's key)", (long long)p);
            break;
        }
        pgt_period *pp = &per[p];
        pp->edges = get_key(s, "edges");
        pp->weights = get_key(s, "weights");
        pp->x = get_key(s, "X");
        pp->y = get_key(s, "y");
        snprintf(pp->f_edges, sizeof pp->f_edges, "%s.edges", f);
        snprintf(pp->f_weights, sizeof pp->f_weights, "%s.weights", f);
        snprintf(pp->f_x, sizeof pp->f_x, "%s.X", f);
        snprintf(pp->f_y, sizeof pp->f_y, "%s.y", f);
    }
    if (rc) { free(per); return rc; }
    *out = per;
    return DGNN_OK;
}

/* Checks that obj (edge_index or edge_weight) is an object whose keys are exactly "0".."T-1". */
static int check_period_keys(const pgt_ctx *c, const cJSON *obj, const char *field, int64_t T) {
    if (!cJSON_IsObject(obj)) return bad(c, field, "expected an object keyed by period, got %s", json_type_name(obj));
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        if (!is_digits(it->string) || strlen(it->string) > 15 || strtoll(it->string, NULL, 10) >= T)
            return bad(c, field, "key \"%s\" is not a period 0..%lld (time_periods = %lld)", it->string,
                       (long long)T - 1, (long long)T);
    }
    int64_t n = cJSON_GetArraySize(obj);
    if (n != T) {
        for (int64_t p = 0; p < T; p++) {
            char key[32];
            snprintf(key, sizeof key, "%lld", (long long)p);
            if (!get_key(obj, key))
                return bad(c, field, "period \"%s\" is missing (time_periods = %lld)", key, (long long)T);
        }
        return bad(c, field, "%lld keys for %lld periods (a key is repeated)", (long long)n, (long long)T);
    }
    return DGNN_OK;
}

static int layout_england(const pgt_ctx *c, const cJSON *root, pgt_period **out, int64_t *T) {
    int rc = get_count(c, get_key(root, "time_periods"), "time_periods", T);
    if (rc) return rc;
    const cJSON *em = get_key(root, "edge_mapping");
    if (!cJSON_IsObject(em)) return bad(c, "edge_mapping", "expected an object, got %s", json_type_name(em));
    const cJSON *ei = get_key(em, "edge_index"), *ew = get_key(em, "edge_weight");
    if (!ei) return bad(c, "edge_mapping.edge_index", "missing key");
    if ((rc = check_period_keys(c, ei, "edge_mapping.edge_index", *T))) return rc;
    if (ew && (rc = check_period_keys(c, ew, "edge_mapping.edge_weight", *T))) return rc;
    const cJSON *y = get_key(root, "y");
    if (y) {
        if (!cJSON_IsArray(y)) return bad(c, "y", "expected an array of %lld rows (one per period), got %s", (long long)*T, json_type_name(y));
        if (cJSON_GetArraySize(y) != *T)
            return bad(c, "y", "%d rows for time_periods = %lld", cJSON_GetArraySize(y), (long long)*T);
    }
    pgt_period *per = calloc((size_t)(*T ? *T : 1), sizeof *per);
    if (!per) return dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory", c->path);
    const cJSON *yrow = y ? y->child : NULL;
    for (int64_t p = 0; p < *T; p++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)p);
        pgt_period *pp = &per[p];
        pp->edges = get_key(ei, key);
        pp->weights = ew ? get_key(ew, key) : NULL;
        pp->y = yrow;
        if (yrow) yrow = yrow->next;
        snprintf(pp->f_edges, sizeof pp->f_edges, "edge_mapping.edge_index.\"%s\"", key);
        snprintf(pp->f_weights, sizeof pp->f_weights, "edge_mapping.edge_weight.\"%s\"", key);
        snprintf(pp->f_x, sizeof pp->f_x, "X");
        snprintf(pp->f_y, sizeof pp->f_y, "y[%s]", key);
    }
    *out = per;
    return DGNN_OK;
}

/* Static edges, node time series FX (T x N): the same edges in every period. */
static int layout_chickenpox(const pgt_ctx *c, const cJSON *root, pgt_period **out, int64_t *T) {
    const cJSON *edges = get_key(root, "edges"), *fx = get_key(root, "FX");
    if (!cJSON_IsArray(fx)) return bad(c, "FX", "expected an array of rows (one per period), got %s", json_type_name(fx));
    *T = cJSON_GetArraySize(fx);
    const cJSON *tp = get_key(root, "time_periods");
    if (tp) {
        int64_t t2;
        int rc = get_count(c, tp, "time_periods", &t2);
        if (rc) return rc;
        if (t2 != *T) return bad(c, "time_periods", "%lld, but FX has %lld rows", (long long)t2, (long long)*T);
    }
    pgt_period *per = calloc((size_t)(*T ? *T : 1), sizeof *per);
    if (!per) return dgnn_err_set(c->err, DGNN_ENOMEM, "%s: out of memory", c->path);
    const cJSON *row = fx->child;
    for (int64_t p = 0; p < *T; p++, row = row->next) {
        pgt_period *pp = &per[p];
        pp->edges = edges;
        pp->y = row;
        snprintf(pp->f_edges, sizeof pp->f_edges, "edges");
        snprintf(pp->f_weights, sizeof pp->f_weights, "weights");
        snprintf(pp->f_x, sizeof pp->f_x, "X");
        snprintf(pp->f_y, sizeof pp->f_y, "FX[%lld]", (long long)p);
    }
    *out = per;
    return DGNN_OK;
}

/* ---- file and parser ------------------------------------------------------------- */

/* Reads the whole file into a NUL-terminated malloc'd buffer. Regular files only (a FIFO
 * or /dev/zero is refused, see infile.h), so the size is known before anything is read. */
static int read_all(const char *path, char **out, size_t *len, dgnn_err *err) {
    int fd;
    int64_t size;
    int rc = dgnn_in_open(path, &fd, &size, err);
    if (rc) return rc;
    if ((uint64_t)size >= SIZE_MAX / 2) {
        close(fd);
        return dgnn_err_set(err, DGNN_EUNSUPPORTED, "%s: file too large (%lld bytes)", path, (long long)size);
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        close(fd);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory reading the file (%lld bytes)", path, (long long)size);
    }
    size_t n = 0;
    while (n < (size_t)size) { /* a file that shrinks while read ends early; one that grows is cut */
        ssize_t got = read(fd, buf + n, (size_t)size - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return dgnn_err_set(err, DGNN_EIO, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    char what[320];
    if (dgnn_in_sniff((const unsigned char *)buf, n, what, sizeof what)) {
        free(buf);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: %s", path, what);
    }
    *out = buf;
    *len = n;
    return DGNN_OK;
}

/* A syntax error at byte offset `off`: message with line, column and what is there. */
static int syntax_error(const char *path, const char *text, size_t len, size_t off, dgnn_err *err) {
    if (off > len) off = len;
    int64_t line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') line++, bol = i + 1;
    char near[24];
    size_t k = 0;
    for (size_t i = off; i < len && k < 16 && text[i] != '\n' && text[i] != '\r'; i++)
        near[k++] = isprint((unsigned char)text[i]) ? text[i] : '?';
    near[k] = '\0';
    const char *s = text + off;
    const char *hint = "";
    if (!strncmp(s, "NaN", 3) || !strncmp(s, "Infinity", 8) || !strncmp(s, "-Infinity", 9))
        hint = " (NaN and Infinity are not JSON numbers)";
    else if (off >= len)
        hint = " (unexpected end of file: the file is truncated?)";
    return dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld:%lld: JSON syntax error at byte %zu near '%s'%s", path,
                        (long long)line, (long long)(off - bol + 1), off, near, hint);
}

int dgnn_read_pgt(dgnn_events *ev, const char *path, dgnn_err *err) {
    dgnn_events_init(ev);
    char *text = NULL;
    size_t len = 0;
    int rc = read_all(path, &text, &len, err);
    if (rc) return rc;
    size_t start = 0;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        start = 3; /* UTF-8 byte-order mark */
    size_t first = start;
    while (first < len && isspace((unsigned char)text[first])) first++;
    if (first == len) {
        free(text);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file (expected a PyG-Temporal json object)", path);
    }
    const char *end = NULL;
    /* length + 1 takes in the terminating NUL, which require_null_terminated needs to see:
     * this rejects trailing garbage after the top-level value */
    cJSON *root = cJSON_ParseWithLengthOpts(text + start, len - start + 1, &end, 1);
    if (!root) {
        size_t off = end ? (size_t)(end - text) : start;
        rc = syntax_error(path, text, len, off, err);
        free(text);
        return rc;
    }
    pgt_ctx c = {path, err};
    pgt_period *per = NULL;
    int64_t T = 0;
    char where[256] = "", key[64];
    const int rep = dgnn_json_repeated_key(root, where, sizeof where, key, sizeof key);
    if (rep < 0) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    } else if (rep) {
        rc = bad(&c, where[0] ? where : "(top level)", "key \"%s\" appears twice (JSON readers disagree on which one counts)",
                 key);
    } else if (!cJSON_IsObject(root)) {
        rc = bad(&c, "(top level)", "expected an object, got %s", json_type_name(root));
    } else if (get_key(root, "edge_mapping")) {
        rc = layout_england(&c, root, &per, &T);
    } else if (get_key(root, "FX")) {
        rc = layout_chickenpox(&c, root, &per, &T);
    } else if (get_key(root, "0") || get_key(root, "time_periods")) {
        rc = layout_twitter(&c, root, &per, &T);
    } else {
        rc = dgnn_err_set(err, DGNN_EUNSUPPORTED,
                          "%s: unsupported PyG-Temporal layout: expected the twitter_tennis layout (keys \"0\"..\"T-1\" "
                          "with edges/weights/X/y, and time_periods), the england_covid layout (edge_mapping.edge_index, "
                          "edge_mapping.edge_weight, y, time_periods) or the chickenpox layout (edges, FX)",
                          path);
    }
    if (rc == DGNN_OK) rc = build_table(&c, ev, per, T);
    free(per);
    cJSON_Delete(root);
    free(text);
    if (rc) dgnn_events_free(ev);
    return rc;
}
