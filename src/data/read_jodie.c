/* read_jodie.c: the JODIE csv reader (dgnn_read_jodie).
 *
 * Format: one header line, then rows `user,item,timestamp,state_label,f1,...,fd`.
 * The feature count d comes from the first data row (fields - 4) and every row must
 * match it. The header must name the 4 fixed columns; it may name every column (as the
 * shared wikipedia.csv does: `u,i,ts,label`), only the 4 fixed ones, or 5 (the
 * upstream JODIE files' header ends with one name, "comma separated list of features",
 * for all d feature columns). Any other mismatch is an error.
 *
 * User and item ids: the upstream JODIE files number users 0..U-1 and items 0..I-1 in
 * two separate spaces, while the TGN/TGL-prepared files (and the shared wikipedia.csv)
 * already put them in one space (items after users). If some id is used both as a user
 * and as an item, the file cannot be in one space for a user-item graph, so items are
 * shifted by max(user id) + 1 (what TGN's preprocessing does); node_ids then holds the
 * shifted ids. Otherwise ids are kept as they are. */
#include "dgnn/readers.h"
#include "textscan.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Moves items into their own id range when user and item ids share values (see top). */
static int separate_id_spaces(dgnn_builder *b, const char *path, dgnn_err *err) {
    int64_t n = b->n;
    if (n == 0) return DGNN_OK;
    int64_t umin = INT64_MAX, umax = -1, imin = INT64_MAX, imax = -1;
    for (int64_t k = 0; k < n; k++) {
        if (b->src[k] < umin) umin = b->src[k];
        if (b->src[k] > umax) umax = b->src[k];
        if (b->dst[k] < imin) imin = b->dst[k];
        if (b->dst[k] > imax) imax = b->dst[k];
    }
    if (umax < imin || imax < umin) return DGNN_OK; /* disjoint ranges: one id space (fast path) */
    int64_t *u = malloc((size_t)n * sizeof(int64_t)), *it = malloc((size_t)n * sizeof(int64_t));
    if (!u || !it) {
        free(u);
        free(it);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory checking user/item ids", path);
    }
    memcpy(u, b->src, (size_t)n * sizeof(int64_t));
    memcpy(it, b->dst, (size_t)n * sizeof(int64_t));
    qsort(u, (size_t)n, sizeof(int64_t), cmp_i64);
    qsort(it, (size_t)n, sizeof(int64_t), cmp_i64);
    int shared = 0;
    for (int64_t i = 0, j = 0; i < n && j < n && !shared;) {
        if (u[i] < it[j]) i++;
        else if (it[j] < u[i]) j++;
        else shared = 1;
    }
    free(u);
    free(it);
    if (!shared) return DGNN_OK;
    /* umax may be INT64_MAX itself (strtoll takes "9223372036854775807"): test before adding */
    if (umax == INT64_MAX || imax > INT64_MAX - (umax + 1))
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s: user and item ids overlap, and shifting items past the users "
                            "(max user id %lld, max item id %lld) overflows int64",
                            path, (long long)umax, (long long)imax);
    const int64_t shift = umax + 1;
    for (int64_t k = 0; k < n; k++) b->dst[k] += shift;
    return DGNN_OK;
}

int dgnn_read_jodie(dgnn_events *ev, const char *path, dgnn_err *err) {
    static const char *fixed[4] = {"user", "item", "timestamp", "state_label"};
    dgnn_events_init(ev);
    dgnn_ts_scan s;
    int rc = dgnn_ts_open(&s, path, err);
    if (rc) return rc;
    dgnn_builder b;
    int have_builder = 0;
    float *feat = NULL;
    int64_t header_fields = -1, ncols = -1, d = 0, first_data_line = 0;
    while ((rc = dgnn_ts_next(&s, err)) > 0) {
        if (dgnn_ts_blank(&s)) continue;
        if ((rc = dgnn_ts_split(&s, ',', err))) break;
        if (header_fields < 0) {
            header_fields = s.nf;
            if (s.nf >= 3 && dgnn_ts_is_number(&s.fld[0]) && dgnn_ts_is_number(&s.fld[1]) &&
                dgnn_ts_is_number(&s.fld[2])) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "this looks like data, not a header: a JODIE csv starts with one "
                                  "header line (user,item,timestamp,state_label,features...)");
                break;
            }
            if (s.nf < 4) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "header has %lld names, expected at least 4 "
                                  "(user,item,timestamp,state_label[,features...])",
                                  (long long)s.nf);
                break;
            }
            continue;
        }
        if (ncols < 0) {
            ncols = s.nf;
            first_data_line = s.lineno;
            if (ncols < 4) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "expected at least 4 fields (user,item,timestamp,state_label), got %lld",
                                  (long long)ncols);
                break;
            }
            if (!(header_fields == ncols || header_fields == 4 || header_fields == 5)) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "the header names %lld columns but the first data row has %lld fields",
                                  (long long)header_fields, (long long)ncols);
                break;
            }
            d = ncols - 4;
            if ((rc = dgnn_ts_feature_buffer(&s, d, &feat, err))) break;
            dgnn_builder_init(&b, d, 1, 0);
            have_builder = 1;
        } else if (s.nf != ncols) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                              "expected %lld fields (user,item,timestamp,state_label + %lld features, "
                              "as on line %lld), got %lld",
                              (long long)ncols, (long long)d, (long long)first_data_line, (long long)s.nf);
            break;
        }
        int64_t u, i;
        int32_t lab;
        double t;
        if ((rc = dgnn_ts_get_id(&s, 0, fixed[0], &u, err)) || (rc = dgnn_ts_get_id(&s, 1, fixed[1], &i, err)) ||
            (rc = dgnn_ts_get_double(&s, 2, fixed[2], &t, err)) ||
            (rc = dgnn_ts_get_label(&s, 3, fixed[3], &lab, err)) || (rc = dgnn_ts_get_features(&s, 4, d, feat, err)))
            break;
        if ((rc = dgnn_builder_push(&b, u, i, t, feat, lab, 0, err))) break;
    }
    if (rc == 0) {
        if (header_fields < 0)
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file: expected a header line and events", path);
        else if (ncols < 0)
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: no events: the file has only a header line", path);
    }
    if (rc == 0) rc = separate_id_spaces(&b, path, err);
    if (rc == 0) {
        rc = dgnn_builder_finish(&b, ev, 0, err); /* frees the builder */
        have_builder = 0;
    }
    if (have_builder) dgnn_builder_free(&b);
    free(feat);
    dgnn_ts_close(&s);
    if (rc) dgnn_events_free(ev);
    return rc;
}
