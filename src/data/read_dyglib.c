/* read_dyglib.c: the TGN / DyGLib processed-dataset reader (dgnn_read_dyglib).
 *
 * TGN's utils/preprocess_data.py (and DyGLib, which loads the same files in its
 * utils/DataLoader.py get_link_prediction_data) writes three files per dataset NAME:
 *   ml_NAME.csv       pandas' to_csv of a frame u,i,ts,label,idx, so the header is
 *                     `,u,i,ts,label,idx` and the first column is the row index;
 *                     ts and label are floats ("36.0", "0.0"); a frame written
 *                     without its index (`u,i,ts,label,idx`) reads too;
 *   ml_NAME.npy       edge features, E + 1 rows: row 0 is padding, the event whose idx
 *                     is k uses row k (TGN numbers idx 1..E);
 *   ml_NAME_node.npy  node features: row 0 is padding, node id v uses row v.
 * Node ids were shifted by +1 (1-based; bipartite data also put items after users).
 * They are kept as the table's original ids (node_ids), so that ids in the files and
 * in dgnn's outputs agree; dense id = position in increasing original id, as for every
 * reader (events.h), and node feature rows are gathered by original id.
 *
 * The .npy files are optional (a csv alone reads with no features), but when present
 * their row counts are checked: E + 1 edge rows, at least max id + 1 node rows. */
#include "dgnn/readers.h"
#include "feat_npy.h"
#include "textscan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The paths of the two .npy files beside ml_NAME.csv (malloc'd; NULL when the file
 * is absent). */
static int npy_paths(const char *csv, char **efile, char **nfile, dgnn_err *err) {
    size_t n = strlen(csv);
    size_t stem = n >= 4 && strcmp(csv + n - 4, ".csv") == 0 ? n - 4 : n;
    *efile = malloc(stem + 16);
    *nfile = malloc(stem + 16);
    if (!*efile || !*nfile) {
        free(*efile), free(*nfile);
        *efile = *nfile = NULL;
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", csv);
    }
    snprintf(*efile, stem + 16, "%.*s.npy", (int)stem, csv);
    snprintf(*nfile, stem + 16, "%.*s_node.npy", (int)stem, csv);
    if (access(*efile, F_OK) != 0) free(*efile), *efile = NULL;
    if (access(*nfile, F_OK) != 0) free(*nfile), *nfile = NULL;
    return DGNN_OK;
}

/* The header must be TGN's: `,u,i,ts,label,idx` (an empty or any first name), or
 * `u,i,ts,label,idx` when the frame was written without its index. *off receives the
 * column of u (1, or 0 without the index). */
static int check_header(dgnn_ts_scan *s, int64_t *off, dgnn_err *err) {
    static const char *names[5] = {"u", "i", "ts", "label", "idx"};
    if (s->nf != 6 && s->nf != 5)
        return dgnn_ts_fail(s, err, DGNN_EFORMAT,
                            "header has %lld columns, expected the 6 of TGN's processed csv: ,u,i,ts,label,idx",
                            (long long)s->nf);
    *off = s->nf - 5;
    for (int c = 0; c < 5; c++) {
        const dgnn_ts_field *f = &s->fld[c + *off];
        if (f->n != strlen(names[c]) || memcmp(f->s, names[c], f->n) != 0) {
            char shown[64];
            return dgnn_ts_fail(s, err, DGNN_EFORMAT,
                                "header column %d is '%s', expected '%s' (TGN's processed csv: ,u,i,ts,label,idx)",
                                (int)(c + *off + 1), dgnn_ts_show(shown, sizeof shown, f->s, f->n), names[c]);
        }
    }
    return DGNN_OK;
}

int dgnn_read_dyglib(dgnn_events *ev, const char *path, dgnn_err *err) {
    dgnn_events_init(ev);
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    dgnn_feat_npy npy;
    dgnn_feat_npy_init(&npy);
    dgnn_ts_scan s;
    memset(&s, 0, sizeof s);
    dgnn_builder b;
    int have_builder = 0;
    int rc = npy_paths(path, &npy.efile, &npy.nfile, err);
    if (rc) return rc;
    if ((rc = dgnn_feat_npy_read(&npy, err))) goto done;

    if ((rc = dgnn_ts_open(&s, path, err))) goto done;
    int header = 0;
    int64_t e = 0, o = 1;
    while ((rc = dgnn_ts_next(&s, err)) > 0) {
        if (dgnn_ts_blank(&s)) continue;
        if ((rc = dgnn_ts_split(&s, ',', err))) break;
        if (!header) {
            if ((rc = check_header(&s, &o, err))) break;
            header = 1;
            dgnn_builder_init(&b, npy.efeat ? npy.ecols : 0, 1, 0);
            have_builder = 1;
            continue;
        }
        if (s.nf != 5 + o) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "expected %lld fields (%su,i,ts,label,idx), got %lld",
                              (long long)(5 + o), o ? "index," : "", (long long)s.nf);
            break;
        }
        int64_t u, v, idx;
        double t, lab;
        if ((rc = dgnn_ts_get_id(&s, o, "u", &u, err)) || (rc = dgnn_ts_get_id(&s, o + 1, "i", &v, err)) ||
            (rc = dgnn_ts_get_double(&s, o + 2, "ts", &t, err)) ||
            (rc = dgnn_ts_get_double(&s, o + 3, "label", &lab, err)) ||
            (rc = dgnn_ts_get_id(&s, o + 4, "idx", &idx, err)))
            break;
        if (lab != 0 && lab != 1) {
            rc = dgnn_ts_field_fail(&s, err, o + 3, "label", "label out of range: a label is 0 or 1");
            break;
        }
        if (npy.nrows >= 0 && (u >= npy.nrows || v >= npy.nrows)) {
            char what[200];
            snprintf(what, sizeof what, "node id has no row in %s (%lld rows, row v for node v)", npy.nfile,
                     (long long)npy.nrows);
            rc = dgnn_ts_field_fail(&s, err, u >= npy.nrows ? o : o + 1, u >= npy.nrows ? "u" : "i", what);
            break;
        }
        if (npy.erows >= 0 && (idx < 1 || idx >= npy.erows)) {
            char what[200];
            snprintf(what, sizeof what, "edge index has no row in %s (%lld rows; row 0 is padding, idx is 1..%lld)",
                     npy.efile, (long long)npy.erows, (long long)(npy.erows - 1));
            rc = dgnn_ts_field_fail(&s, err, o + 4, "idx", what);
            break;
        }
        const float *row = npy.efeat && npy.ecols > 0 ? npy.efeat + idx * npy.ecols : NULL;
        if ((rc = dgnn_builder_push(&b, u, v, t, row, (int32_t)lab, 0, err))) break;
        e++;
    }
    if (rc) goto done;
    if (!header) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file: expected the header ,u,i,ts,label,idx and events", path);
        goto done;
    }
    if (e == 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: no events: the file has only a header line", path);
        goto done;
    }
    if (npy.erows >= 0 && npy.erows != e + 1) {
        rc = dgnn_err_set(err, DGNN_EFORMAT,
                          "%s has %lld rows but %s has %lld events: expected %lld (one per event plus the padding "
                          "row 0)",
                          npy.efile, (long long)npy.erows, path, (long long)e, (long long)(e + 1));
        goto done;
    }
    rc = dgnn_builder_finish(&b, ev, 0, err);
    have_builder = 0;
    if (rc) goto done;
    if (npy.nfeat && npy.ncols > 0) { /* gather row node_ids[d] for dense id d */
        float *g = malloc((size_t)ev->num_nodes * (size_t)npy.ncols * sizeof(float));
        if (!g) {
            rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory for node features", npy.nfile);
            goto done;
        }
        for (int64_t d = 0; d < ev->num_nodes; d++) {
            int64_t id = ev->node_ids ? ev->node_ids[d] : d;
            memcpy(g + d * npy.ncols, npy.nfeat + id * npy.ncols, (size_t)npy.ncols * sizeof(float));
        }
        ev->node_dim = npy.ncols;
        ev->nfeat = g;
    }
done:
    if (have_builder) dgnn_builder_free(&b);
    dgnn_ts_close(&s);
    dgnn_feat_npy_free(&npy);
    if (rc) dgnn_events_free(ev);
    return rc;
}
