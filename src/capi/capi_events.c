/* capi_events.c: event tables for ctypes callers (capi.h): from arrays through the
 * builder of events.h, from files through dgnn_load, and their sizes and arrays. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_internal.h"
#include "dgnn/readers.h"

void capi_set_msg(char *msg, size_t cap, const char *text) {
    if (msg && cap > 0) snprintf(msg, cap, "%s", text);
}

static int fail(dgnn_err *err, char *msg, size_t cap) {
    capi_set_msg(msg, cap, err->msg);
    return err->code;
}

/* the counts of the arrays agree with src's; 0, or DGNN_EINVAL naming the first that does not */
static int check_counts(int64_t n, int64_t n_dst, int64_t n_t, const float *efeat, int64_t efeat_rows,
                        int64_t edge_dim, const int32_t *label, int64_t n_label, dgnn_err *err) {
    if (n < 0) return dgnn_err_set(err, DGNN_EINVAL, "src: a negative count (%lld)", (long long)n);
    if (n_dst != n) return dgnn_err_set(err, DGNN_EINVAL, "dst has %lld entries, src %lld: one of each per event", (long long)n_dst, (long long)n);
    if (n_t != n) return dgnn_err_set(err, DGNN_EINVAL, "t has %lld entries, src %lld: one of each per event", (long long)n_t, (long long)n);
    if (edge_dim < 0 || edge_dim > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EINVAL, "edge_feat: %lld features per event (0 to %lld)", (long long)edge_dim,
                            (long long)DGNN_MAX_DIM);
    if (!efeat != !edge_dim && !(efeat && n == 0))
        return dgnn_err_set(err, DGNN_EINVAL, "edge_feat: %s", efeat ? "zero features per event" : "no array for its width");
    if (efeat && efeat_rows != n)
        return dgnn_err_set(err, DGNN_EINVAL, "edge_feat has %lld rows, src %lld entries: one row per event",
                            (long long)efeat_rows, (long long)n);
    if (label && n_label != n)
        return dgnn_err_set(err, DGNN_EINVAL, "label has %lld entries, src %lld: one per event", (long long)n_label, (long long)n);
    return DGNN_OK;
}

int dgnn_capi_events_from_arrays(dgnn_capi_events **out, const int64_t *src, int64_t n_src, const int64_t *dst,
                                 int64_t n_dst, const double *t, int64_t n_t, const float *efeat,
                                 int64_t efeat_rows, int64_t edge_dim, const int32_t *label, int64_t n_label,
                                 char *msg, size_t cap) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (!out) {
        capi_set_msg(msg, cap, "dgnn_capi_events_from_arrays: out is NULL (it receives the table)");
        return DGNN_EINVAL;
    }
    *out = NULL;
    if (check_counts(n_src, n_dst, n_t, efeat, efeat_rows, edge_dim, label, n_label, &err)) return fail(&err, msg, cap);
    if (n_src > 0 && (!src || !dst || !t)) {
        dgnn_err_set(&err, DGNN_EINVAL, "%s is NULL with %lld entries", !src ? "src" : !dst ? "dst" : "t",
                     (long long)n_src);
        return fail(&err, msg, cap);
    }
    if (n_src == 0) {
        dgnn_err_set(&err, DGNN_EINVAL, "no events (src, dst and t are empty)");
        return fail(&err, msg, cap);
    }
    for (int64_t e = 0; e < n_src; e++) {
        if (src[e] < 0 || dst[e] < 0) /* as the file readers: "negative node id" */
            dgnn_err_set(&err, DGNN_EINVAL, "%s[%lld] is %lld: node ids are >= 0", src[e] < 0 ? "src" : "dst",
                         (long long)e, (long long)(src[e] < 0 ? src[e] : dst[e]));
        else if (!isfinite(t[e])) dgnn_err_set(&err, DGNN_EINVAL, "t[%lld] is not finite (%g)", (long long)e, t[e]);
        else if (label && label[e] != 0 && label[e] != 1)
            dgnn_err_set(&err, DGNN_EINVAL, "label[%lld] is %d: labels are 0 or 1", (long long)e, (int)label[e]);
        if (err.code) return fail(&err, msg, cap);
    }
    /* as the file readers (textscan.c: "NaN is not allowed"): a non-finite feature would
     * reach the model's inputs and make every score NaN (AP 0.5, no error) */
    for (int64_t e = 0; efeat && e < n_src; e++)
        for (int64_t k = 0; k < edge_dim; k++) {
            const float x = efeat[e * edge_dim + k];
            if (isfinite(x)) continue;
            dgnn_err_set(&err, DGNN_EINVAL, "edge_feat row %lld, feature %lld: %s is not allowed (edge features must "
                         "be finite)", (long long)e, (long long)k, isnan(x) ? "NaN" : x > 0 ? "inf" : "-inf");
            return fail(&err, msg, cap);
        }
    dgnn_builder b;
    dgnn_builder_init(&b, efeat ? edge_dim : 0, label != NULL, 0);
    for (int64_t e = 0; e < n_src; e++)
        if (dgnn_builder_push(&b, src[e], dst[e], t[e], efeat ? efeat + e * edge_dim : NULL, label ? label[e] : 0, 0,
                              &err)) {
            dgnn_builder_free(&b);
            return fail(&err, msg, cap);
        }
    dgnn_capi_events *h = calloc(1, sizeof *h);
    if (!h) {
        dgnn_builder_free(&b);
        dgnn_err_set(&err, DGNN_ENOMEM, "out of memory for an events handle");
        return fail(&err, msg, cap);
    }
    dgnn_events_init(&h->ev);
    if (dgnn_builder_finish(&b, &h->ev, 0, &err)) { /* frees the builder either way */
        free(h);
        return fail(&err, msg, cap);
    }
    *out = h;
    return DGNN_OK;
}

int dgnn_capi_events_load(dgnn_capi_events **out, const char *path, const char *format, char *msg, size_t cap) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (!out) {
        capi_set_msg(msg, cap, "dgnn_capi_events_load: out is NULL (it receives the table)");
        return DGNN_EINVAL;
    }
    *out = NULL;
    dgnn_load_opts o = dgnn_load_opts_default();
    if (format && strcmp(format, "auto") != 0) {
        int found = 0;
        for (int f = DGNN_FMT_JODIE; f <= DGNN_FMT_TGB; f++)
            if (strcmp(format, dgnn_format_name((dgnn_format)f)) == 0) o.format = (dgnn_format)f, found = 1;
        if (!found) {
            dgnn_err_set(&err, DGNN_EINVAL, "format: unknown format '%s' (auto, jodie, tgl, edgelist, pgt, dgnn, dyglib, tgb)",
                         format);
            return fail(&err, msg, cap);
        }
    }
    dgnn_capi_events *h = calloc(1, sizeof *h);
    if (!h) {
        dgnn_err_set(&err, DGNN_ENOMEM, "out of memory for an events handle");
        return fail(&err, msg, cap);
    }
    if (dgnn_load(&h->ev, path, &o, &err)) {
        free(h);
        return fail(&err, msg, cap);
    }
    char full[PATH_MAX];
    h->source = strdup(realpath(path, full) ? full : path);
    if (!h->source) {
        dgnn_capi_events_free(h);
        dgnn_err_set(&err, DGNN_ENOMEM, "out of memory for an events handle");
        return fail(&err, msg, cap);
    }
    *out = h;
    return DGNN_OK;
}

void dgnn_capi_events_free(dgnn_capi_events *h) {
    if (!h) return;
    dgnn_events_free(&h->ev);
    free(h->source);
    free(h);
}

/* a NULL handle is an empty table: sizes -1 (no table), arrays NULL */
int64_t dgnn_capi_events_num_events(const dgnn_capi_events *h) { return h ? h->ev.num_events : -1; }
int64_t dgnn_capi_events_num_nodes(const dgnn_capi_events *h) { return h ? h->ev.num_nodes : -1; }
int64_t dgnn_capi_events_edge_dim(const dgnn_capi_events *h) { return h ? h->ev.edge_dim : -1; }
int dgnn_capi_events_bipartite(const dgnn_capi_events *h) { return h ? h->ev.bipartite : -1; }
const int32_t *dgnn_capi_events_src(const dgnn_capi_events *h) { return h ? h->ev.src : NULL; }
const int32_t *dgnn_capi_events_dst(const dgnn_capi_events *h) { return h ? h->ev.dst : NULL; }
const double *dgnn_capi_events_t(const dgnn_capi_events *h) { return h ? h->ev.t : NULL; }
const float *dgnn_capi_events_efeat(const dgnn_capi_events *h) { return h ? h->ev.efeat : NULL; }
const int32_t *dgnn_capi_events_label(const dgnn_capi_events *h) { return h ? h->ev.label : NULL; }
const int64_t *dgnn_capi_events_node_ids(const dgnn_capi_events *h) { return h ? h->ev.node_ids : NULL; }

void dgnn_capi_free_string(char *s) { free(s); }
