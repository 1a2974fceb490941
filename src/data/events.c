/* events.c: the event table and the builder every text reader fills.
 * The builder owns the three normalisations every format needs: a stable sort by
 * time, dense node ids (in increasing original id) and bipartite detection. */
#include "dgnn/events.h"

#include "dgnn/binfmt.h" /* dgnn_bin_checksum (xxh64.c) */
#include "xxh64.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void dgnn_events_init(dgnn_events *ev) { memset(ev, 0, sizeof *ev); }

void dgnn_events_free(dgnn_events *ev) {
    if (!ev) return;
    if (ev->map) {
        munmap(ev->map, ev->map_len);
    } else {
        free(ev->src);
        free(ev->dst);
        free(ev->t);
        if (!ev->efeat_row) free(ev->efeat); /* a subset's are its table's */
        free(ev->efeat_row);
        free(ev->label);
        free(ev->ext_roll);
        free(ev->node_ids);
        free(ev->nfeat);
        free(ev->period_x);
        free(ev->period_y);
    }
    memset(ev, 0, sizeof *ev);
}

int dgnn_events_alloc(dgnn_events *ev, int64_t E, int64_t edge_dim, int with_label, dgnn_err *err) {
    /* the columns' sum, asked for before any of them: malloc grants each lazily, so a
     * table larger than the machine would be killed while it is filled, not refused */
    const int64_t row = dgnn_size_add(with_label ? 20 : 16, dgnn_size_mul(edge_dim > 0 ? edge_dim : 0, 4));
    if (dgnn_mem_check(dgnn_size_mul(E > 0 ? E : 1, row), err, "a table of %lld events (%lld edge features each)",
                       (long long)E, (long long)(edge_dim > 0 ? edge_dim : 0)))
        return DGNN_ENOMEM;
    size_t e = (size_t)(E > 0 ? E : 0);
    ev->num_events = E;
    ev->edge_dim = edge_dim;
    ev->src = malloc((e ? e : 1) * sizeof(int32_t));
    ev->dst = malloc((e ? e : 1) * sizeof(int32_t));
    ev->t = malloc((e ? e : 1) * sizeof(double));
    ev->efeat = edge_dim > 0 ? malloc((e ? e : 1) * (size_t)edge_dim * sizeof(float)) : NULL;
    ev->label = with_label ? malloc((e ? e : 1) * sizeof(int32_t)) : NULL;
    if (!ev->src || !ev->dst || !ev->t || (edge_dim > 0 && !ev->efeat) || (with_label && !ev->label)) {
        dgnn_events_free(ev);
        return dgnn_err_set(err, DGNN_ENOMEM, "out of memory allocating %lld events", (long long)E);
    }
    return DGNN_OK;
}

int dgnn_events_detect_bipartite(const dgnn_events *ev) {
    if (ev->num_nodes == 0) return 0;
    uint8_t *role = calloc((size_t)ev->num_nodes, 1); /* bit 1: source, bit 2: destination */
    if (!role) return 0;
    for (int64_t i = 0; i < ev->num_events; i++) {
        role[ev->src[i]] |= 1;
        role[ev->dst[i]] |= 2;
    }
    int bip = 1;
    for (int64_t v = 0; v < ev->num_nodes; v++)
        if (role[v] == 3) { bip = 0; break; }
    free(role);
    return bip;
}

/* ---- builder -------------------------------------------------------------- */

void dgnn_builder_init(dgnn_builder *b, int64_t edge_dim, int has_label, int has_ext_roll) {
    memset(b, 0, sizeof *b);
    b->edge_dim = edge_dim;
    b->has_label = has_label;
    b->has_ext_roll = has_ext_roll;
}

void dgnn_builder_free(dgnn_builder *b) {
    free(b->src);
    free(b->dst);
    free(b->t);
    free(b->efeat);
    free(b->label);
    free(b->ext_roll);
    memset(b, 0, sizeof *b);
}

static int grow(void **p, int64_t cap, size_t elem) {
    void *q = realloc(*p, (size_t)cap * elem);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* what the readers refuse in a row (textscan.c): a non-finite time or one beyond DBL_MAX / 2,
 * a non-finite edge feature (it
 * reaches the model's inputs and makes every score NaN: AP 0.5, no error), a label other
 * than 0/1. 0, or DGNN_EINVAL naming the row (its index among the pushed ones) and field. */
static int check_row(const dgnn_builder *b, int64_t row, double t, const float *efeat, int32_t label, dgnn_err *err) {
    if (!isfinite(t)) return dgnn_err_set(err, DGNN_EINVAL, "row %lld: t is not finite (%g)", (long long)row, t);
    if (fabs(t) > DBL_MAX / 2) /* the readers' bound: beyond it a time span overflows */
        return dgnn_err_set(err, DGNN_EINVAL, "row %lld: t %g is out of range (above 8.9e307 in magnitude)",
                            (long long)row, t);
    for (int64_t k = 0; efeat && k < b->edge_dim; k++)
        if (!isfinite(efeat[k]))
            return dgnn_err_set(err, DGNN_EINVAL, "row %lld: edge feature %lld is not finite (%g)", (long long)row,
                                (long long)k, (double)efeat[k]);
    if (b->has_label && label != 0 && label != 1)
        return dgnn_err_set(err, DGNN_EINVAL, "row %lld: label %d is not 0 or 1", (long long)row, (int)label);
    return DGNN_OK;
}

static int check_builder(const dgnn_builder *b, const char *fn, dgnn_err *err) {
    if (!b) return dgnn_err_set(err, DGNN_EINVAL, "%s: the builder is NULL", fn);
    if (b->edge_dim < 0 || b->edge_dim > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: edge_dim %lld (0 to %lld features per event)", fn,
                            (long long)b->edge_dim, (long long)DGNN_MAX_DIM);
    return DGNN_OK;
}

int dgnn_builder_push(dgnn_builder *b, int64_t src, int64_t dst, double t, const float *efeat,
                      int32_t label, int8_t ext_roll, dgnn_err *err) {
    int rc = check_builder(b, "dgnn_builder_push", err);
    if (!rc) rc = check_row(b, b->n, t, efeat, label, err);
    if (rc) return rc;
    if (b->n == b->cap) {
        int64_t cap = b->cap ? b->cap * 2 : 1024;
        if (grow((void **)&b->src, cap, sizeof(int64_t)) || grow((void **)&b->dst, cap, sizeof(int64_t)) ||
            grow((void **)&b->t, cap, sizeof(double)) ||
            (b->edge_dim > 0 && grow((void **)&b->efeat, cap, (size_t)b->edge_dim * sizeof(float))) ||
            (b->has_label && grow((void **)&b->label, cap, sizeof(int32_t))) ||
            (b->has_ext_roll && grow((void **)&b->ext_roll, cap, sizeof(int8_t))))
            return dgnn_err_set(err, DGNN_ENOMEM, "out of memory after %lld rows", (long long)b->n);
        b->cap = cap;
    }
    int64_t i = b->n++;
    b->src[i] = src;
    b->dst[i] = dst;
    b->t[i] = t;
    if (b->edge_dim > 0) {
        float *row = b->efeat + i * b->edge_dim;
        if (efeat) memcpy(row, efeat, (size_t)b->edge_dim * sizeof(float));
        else memset(row, 0, (size_t)b->edge_dim * sizeof(float));
    }
    if (b->has_label) b->label[i] = label;
    if (b->has_ext_roll) b->ext_roll[i] = ext_roll;
    return DGNN_OK;
}

/* Stable merge sort of an index permutation by key (timestamps). */
static void merge_sort_idx(int64_t *idx, int64_t *tmp, int64_t n, const double *key) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = key[idx[j]] < key[idx[i]] ? idx[j++] : idx[i++];
            while (i < mid) tmp[k++] = idx[i++];
            while (j < hi) tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof(int64_t));
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The position of the first of the ascending ids[0, n) that is >= key (n if none). */
static int64_t find_id(const int64_t *ids, int64_t n, int64_t key) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int32_t dgnn_events_dense_id(const dgnn_events *ev, int64_t orig) {
    if (!ev) return -1;
    if (!ev->node_ids) return orig >= 0 && orig < ev->num_nodes ? (int32_t)orig : -1;
    int64_t d = find_id(ev->node_ids, ev->num_nodes, orig);
    return d < ev->num_nodes && ev->node_ids[d] == orig ? (int32_t)d : -1;
}

int dgnn_builder_finish(dgnn_builder *b, dgnn_events *ev, int64_t num_nodes_hint, dgnn_err *err) {
    int rc = check_builder(b, "dgnn_builder_finish", err);
    if (!rc && !ev) rc = dgnn_err_set(err, DGNN_EINVAL, "dgnn_builder_finish: ev is NULL");
    /* the rows again: a caller may have filled the builder's arrays itself */
    for (int64_t i = 0; !rc && i < b->n; i++)
        rc = check_row(b, i, b->t[i], b->edge_dim > 0 ? b->efeat + i * b->edge_dim : NULL,
                       b->has_label ? b->label[i] : 0, err);
    if (rc) {
        if (b) dgnn_builder_free(b);
        return rc;
    }
    int64_t n = b->n;
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int64_t *tmp = malloc((size_t)(n > 0 ? 2 * n : 1) * sizeof(int64_t));
    if (!idx || !tmp) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory sorting %lld events", (long long)n);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    int sorted = 1;
    for (int64_t i = 1; i < n && sorted; i++) sorted = b->t[i - 1] <= b->t[i];
    if (!sorted) merge_sort_idx(idx, tmp, n, b->t);

    /* node ids: keep them when a node count is declared and every id fits */
    int64_t max_id = -1, min_id = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = b->src[i], c = b->dst[i];
        if (a > max_id) max_id = a;
        if (c > max_id) max_id = c;
        if (a < min_id) min_id = a;
        if (c < min_id) min_id = c;
    }
    int64_t *uniq = NULL, nu = 0;
    int keep_ids = num_nodes_hint > 0 && min_id >= 0 && max_id < num_nodes_hint;
    if (!keep_ids) {
        uniq = tmp; /* 2n slots */
        for (int64_t i = 0; i < n; i++) {
            uniq[2 * i] = b->src[i];
            uniq[2 * i + 1] = b->dst[i];
        }
        qsort(uniq, (size_t)(2 * n), sizeof(int64_t), cmp_i64);
        for (int64_t i = 0; i < 2 * n; i++)
            if (nu == 0 || uniq[nu - 1] != uniq[i]) uniq[nu++] = uniq[i];
        if (nu > INT32_MAX) {
            rc = dgnn_err_set(err, DGNN_EUNSUPPORTED, "%lld distinct nodes: more than 2^31-1 is not supported",
                              (long long)nu);
            goto done;
        }
    }
    if (keep_ids && num_nodes_hint > INT32_MAX) {
        rc = dgnn_err_set(err, DGNN_EUNSUPPORTED, "node count %lld: more than 2^31-1 is not supported",
                          (long long)num_nodes_hint);
        goto done;
    }
    /* the edge features, the largest column, are not copied: the builder's array becomes the
     * table's, its rows put in time order in place (below) */
    if ((rc = dgnn_events_alloc(ev, n, 0, b->has_label, err)) != DGNN_OK) goto done;
    if (b->has_ext_roll) {
        ev->ext_roll = malloc((size_t)(n ? n : 1));
        if (!ev->ext_roll) {
            dgnn_events_free(ev);
            rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
            goto done;
        }
    }
    ev->num_nodes = keep_ids ? num_nodes_hint : nu;
    for (int64_t k = 0; k < n; k++) {
        int64_t i = idx[k];
        ev->src[k] = (int32_t)(keep_ids ? b->src[i] : find_id(uniq, nu, b->src[i]));
        ev->dst[k] = (int32_t)(keep_ids ? b->dst[i] : find_id(uniq, nu, b->dst[i]));
        ev->t[k] = b->t[i];
        if (b->has_label) ev->label[k] = b->label[i];
        if (b->has_ext_roll) ev->ext_roll[k] = b->ext_roll[i];
    }
    if (b->edge_dim > 0) {
        const int64_t de = b->edge_dim;
        float *row = malloc((size_t)de * sizeof(float));
        if (!row) {
            dgnn_events_free(ev);
            rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
            goto done;
        }
        /* row k := old row idx[k], one cycle of the permutation at a time (idx[k] = k: done) */
        for (int64_t s = 0; s < n; s++) {
            if (idx[s] == s) continue;
            memcpy(row, b->efeat + s * de, (size_t)de * sizeof(float));
            for (int64_t k = s;;) {
                const int64_t j = idx[k];
                idx[k] = k;
                if (j == s) {
                    memcpy(b->efeat + k * de, row, (size_t)de * sizeof(float));
                    break;
                }
                memcpy(b->efeat + k * de, b->efeat + j * de, (size_t)de * sizeof(float));
                k = j;
            }
        }
        free(row);
        float *fit = n > 0 ? realloc(b->efeat, (size_t)n * (size_t)de * sizeof(float)) : NULL; /* the capacity's rest */
        ev->efeat = fit ? fit : b->efeat;
        if (!ev->efeat) ev->efeat = malloc(sizeof(float)); /* n = 0: a table with edge features has the array */
        b->efeat = NULL;
        ev->edge_dim = de;
        if (!ev->efeat) {
            dgnn_events_free(ev);
            rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
            goto done;
        }
    }
    /* keep the id mapping unless it is the identity */
    int identity = keep_ids;
    if (!keep_ids) {
        identity = 1;
        for (int64_t v = 0; v < nu && identity; v++) identity = uniq[v] == v;
        if (!identity) {
            ev->node_ids = malloc((size_t)(nu ? nu : 1) * sizeof(int64_t));
            if (!ev->node_ids) {
                dgnn_events_free(ev);
                rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
                goto done;
            }
            memcpy(ev->node_ids, uniq, (size_t)nu * sizeof(int64_t));
        }
    }
    ev->bipartite = dgnn_events_detect_bipartite(ev);
done:
    free(idx);
    free(tmp);
    dgnn_builder_free(b);
    return rc;
}

int dgnn_events_subset(dgnn_events *out, const dgnn_events *ev, const uint8_t *mask, uint8_t bits, dgnn_err *err) {
    dgnn_events_init(out);
    int64_t n = 0;
    for (int64_t e = 0; e < ev->num_events; e++) n += (mask[e] & bits) != 0;
    int rc = dgnn_events_alloc(out, n, 0, ev->label != NULL, err);
    if (rc) return rc;
    out->num_nodes = ev->num_nodes;
    const int64_t de = ev->edge_dim;
    if (de > 0) {
        dgnn_alloc_set as = {0, 0};
        DGNN_GROW(&as, out->efeat_row, n);
        if ((rc = dgnn_alloc_done(&as, err, "the feature rows of a subset of %lld events", (long long)n))) {
            dgnn_events_free(out);
            return rc;
        }
        out->edge_dim = de;
        out->efeat = ev->efeat;
    }
    int64_t k = 0;
    for (int64_t e = 0; e < ev->num_events; e++) {
        if (!(mask[e] & bits)) continue;
        out->src[k] = ev->src[e];
        out->dst[k] = ev->dst[e];
        out->t[k] = ev->t[e];
        if (de > 0) out->efeat_row[k] = ev->efeat_row ? ev->efeat_row[e] : e;
        if (ev->label) out->label[k] = ev->label[e];
        k++;
    }
    out->bipartite = ev->bipartite;
    return DGNN_OK;
}

int dgnn_events_efeat_block(const float **out, const dgnn_events *ev, int64_t e0, int64_t n, float **buf,
                            int64_t *cap, dgnn_err *err) {
    const int64_t de = ev->edge_dim;
    *out = NULL;
    if (de <= 0 || !ev->efeat) return DGNN_OK;
    const int64_t *row = ev->efeat_row;
    /* in order when each row follows the one before (a table's own, or a subset's run) */
    int in_order = 1;
    for (int64_t i = 1; row && in_order && i < n; i++) in_order = row[e0 + i] == row[e0] + i;
    if (in_order) {
        *out = dgnn_events_efeat(ev, e0);
        return DGNN_OK;
    }
    const int64_t need = dgnn_size_mul(n, de);
    if (need > *cap) {
        dgnn_alloc_set as = {0, 0};
        dgnn_alloc_grow(&as, (void **)buf, need, sizeof(float));
        int rc = dgnn_alloc_done(&as, err, "the edge features of %lld events", (long long)n);
        if (rc) return rc;
        *cap = need;
    }
    for (int64_t i = 0; i < n; i++) memcpy(*buf + i * de, dgnn_events_efeat(ev, e0 + i), (size_t)de * sizeof(float));
    *out = *buf;
    return DGNN_OK;
}

dgnn_events dgnn_events_slice(const dgnn_events *ev, int64_t e0, int64_t n) {
    dgnn_events v = *ev;
    v.num_events = n;
    v.src = ev->src + e0, v.dst = ev->dst + e0, v.t = ev->t + e0;
    if (ev->efeat_row) v.efeat_row = ev->efeat_row + e0; /* efeat stays the table's */
    else if (ev->efeat) v.efeat = ev->efeat + e0 * ev->edge_dim;
    if (ev->label) v.label = ev->label + e0;
    if (ev->ext_roll) v.ext_roll = ev->ext_roll + e0;
    v.map = NULL, v.map_len = 0;
    return v;
}

uint64_t dgnn_events_hash(const dgnn_events *ev) {
    const int64_t E = ev->num_events, N = ev->num_nodes, P = ev->num_periods;
    const struct {
        const void *p;
        size_t bytes;
    } a[] = {{ev->src, (size_t)E * sizeof(int32_t)},
             {ev->dst, (size_t)E * sizeof(int32_t)},
             {ev->t, (size_t)E * sizeof(double)},
             {ev->efeat, (size_t)(E * ev->edge_dim) * sizeof(float)},
             {ev->label, (size_t)E * sizeof(int32_t)},
             {ev->ext_roll, (size_t)E},
             {ev->node_ids, (size_t)N * sizeof(int64_t)},
             {ev->nfeat, (size_t)(N * ev->node_dim) * sizeof(float)},
             {ev->period_x, (size_t)(P * N * ev->period_x_dim) * sizeof(float)},
             {ev->period_y, (size_t)(P * N * ev->period_y_dim) * sizeof(float)}};
    uint64_t h = dgnn_hash64((uint64_t)E ^ dgnn_hash64((uint64_t)N ^ dgnn_hash64((uint64_t)P)));
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        uint64_t c = a[i].p ? dgnn_bin_checksum(a[i].p, a[i].bytes) : (uint64_t)i;
        if (a[i].p == ev->efeat && ev->efeat && ev->efeat_row) { /* a subset's: its rows, as a copy would hold them */
            xxh64_state s;
            xxh64_init(&s);
            for (int64_t e = 0; e < E; e++) xxh64_update(&s, dgnn_events_efeat(ev, e), (size_t)ev->edge_dim * sizeof(float));
            c = xxh64_digest(&s);
        }
        h = dgnn_hash64(h ^ c);
    }
    return h;
}
