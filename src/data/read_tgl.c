/* read_tgl.c: the TGL dataset reader (dgnn_read_tgl).
 *
 * TGL keeps a dataset as a folder: edges.csv (written by pandas, so its first column is
 * the row index, often with an empty name: `,src,dst,time,ext_roll`), and optionally
 * edge_features.npy (E, d_e) and node_features.npy (N, d_n). Columns are found by
 * name (src, dst, time, ext_roll; others such as the index or int_roll are ignored),
 * so files without the index column or with extra columns read too; ext_roll is
 * optional.
 *
 * Row i of edge_features.npy belongs to data row i of edges.csv: features are pushed
 * with their rows, and the builder's stable time sort keeps them together. The node
 * feature row count is the node count N: ids are kept and must be < N.
 *
 * TGL's own gen_graph / setup scripts save the features as PyTorch tensors
 * (edge_features.pt, node_features.pt, read by torch.load in TGL's utils.py). dgnn
 * cannot read pickles; a folder with the .pt but not the .npy is refused, with the
 * one-line conversion, rather than read silently without its features. */
#include "dgnn/readers.h"
#include "feat_npy.h"
#include "textscan.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Joins dir and name into a malloc'd path ("dir/name", or "name" when dir is empty). */
static char *join_path(const char *dir, size_t dir_len, const char *name) {
    size_t n = strlen(name);
    char *p = malloc(dir_len + n + 2);
    if (!p) return NULL;
    size_t o = 0;
    if (dir_len) {
        memcpy(p, dir, dir_len);
        o = dir_len;
        if (p[o - 1] != '/') p[o++] = '/';
    }
    memcpy(p + o, name, n + 1);
    return p;
}

/* DGNN_EFORMAT when dir holds NAME.pt but no NAME.npy (name without extension). */
static int refuse_pt(const char *dir, size_t dir_len, const char *name, dgnn_err *err) {
    char pt[64], npy[64];
    snprintf(pt, sizeof pt, "%s.pt", name);
    snprintf(npy, sizeof npy, "%s.npy", name);
    char *p = join_path(dir, dir_len, pt);
    if (!p) return dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
    int rc = DGNN_OK;
    if (access(p, F_OK) == 0)
        rc = dgnn_err_set(err, DGNN_EFORMAT,
                          "%s: a PyTorch tensor file, which dgnn cannot read; convert it to %s beside it: cd into "
                          "the folder and run python3 -c \"import torch, numpy; numpy.save('%s', "
                          "torch.load('%s').float().numpy())\"",
                          p, npy, npy, pt);
    free(p);
    return rc;
}

/* Header name without surrounding quotes (pandas may quote), for matching. */
static int name_is(const dgnn_ts_field *f, const char *name) {
    const char *s = f->s;
    size_t n = f->n, k = strlen(name);
    if (n >= 2 && ((s[0] == '"' && s[n - 1] == '"') || (s[0] == '\'' && s[n - 1] == '\''))) {
        s++;
        n -= 2;
    }
    return n == k && memcmp(s, name, k) == 0;
}

int dgnn_read_tgl(dgnn_events *ev, const char *path, const char *edge_feat_npy, const char *node_feat_npy,
                  dgnn_err *err) {
    dgnn_events_init(ev);
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    int rc = DGNN_OK;
    char *csv = NULL;
    dgnn_feat_npy npy;
    dgnn_feat_npy_init(&npy);
    dgnn_ts_scan s;
    memset(&s, 0, sizeof s);
    dgnn_builder b;
    int have_builder = 0;

    /* where the files are: a folder holding edges.csv, or the csv itself */
    struct stat st;
    size_t dir_len;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        dir_len = strlen(path);
        csv = join_path(path, dir_len, "edges.csv");
    } else {
        const char *slash = strrchr(path, '/');
        dir_len = slash ? (size_t)(slash - path) + 1 : 0;
        csv = join_path("", 0, path);
    }
    if (!csv) return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    if (edge_feat_npy) npy.efile = join_path("", 0, edge_feat_npy);
    else {
        npy.efile = join_path(path, dir_len, "edge_features.npy");
        if (npy.efile && access(npy.efile, R_OK) != 0) {
            free(npy.efile);
            npy.efile = NULL;
            if ((rc = refuse_pt(path, dir_len, "edge_features", err))) goto done;
        }
    }
    if (node_feat_npy) npy.nfile = join_path("", 0, node_feat_npy);
    else {
        npy.nfile = join_path(path, dir_len, "node_features.npy");
        if (npy.nfile && access(npy.nfile, R_OK) != 0) {
            free(npy.nfile);
            npy.nfile = NULL;
            if ((rc = refuse_pt(path, dir_len, "node_features", err))) goto done;
        }
    }
    if ((edge_feat_npy && !npy.efile) || (node_feat_npy && !npy.nfile)) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    if ((rc = dgnn_feat_npy_read(&npy, err))) goto done;
    if (npy.efeat && npy.ecols == 0) { /* (E, 0): no features, but the row count is still checked */
        free(npy.efeat);
        npy.efeat = NULL;
    }

    if ((rc = dgnn_ts_open(&s, csv, err))) goto done;
    int64_t nf = -1, c_src = -1, c_dst = -1, c_t = -1, c_roll = -1, e = 0;
    while ((rc = dgnn_ts_next(&s, err)) > 0) {
        if (dgnn_ts_blank(&s)) continue;
        if ((rc = dgnn_ts_split(&s, ',', err))) break;
        if (nf < 0) { /* the header */
            nf = s.nf;
            int all_numbers = 1;
            for (int64_t c = 0; c < s.nf; c++) {
                const dgnn_ts_field *f = &s.fld[c];
                int64_t *slot = name_is(f, "src") ? &c_src
                                : name_is(f, "dst") ? &c_dst
                                : (name_is(f, "time") || name_is(f, "ts")) ? &c_t
                                : name_is(f, "ext_roll") ? &c_roll
                                : NULL;
                all_numbers &= f->n == 0 || dgnn_ts_is_number(f);
                if (!slot) continue;
                if (*slot >= 0) {
                    char shown[64];
                    rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "header names column '%s' twice (columns %lld and %lld)",
                                      dgnn_ts_show(shown, sizeof shown, f->s, f->n), (long long)(*slot + 1),
                                      (long long)(c + 1));
                    break;
                }
                *slot = c;
            }
            if (rc) break;
            if (all_numbers) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "this looks like data, not a header: a TGL edges.csv starts with the "
                                  "header ,src,dst,time,ext_roll");
                break;
            }
            const char *missing = c_src < 0 ? "src" : c_dst < 0 ? "dst" : c_t < 0 ? "time" : NULL;
            if (missing) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "header has no '%s' column (expected ,src,dst,time,ext_roll)",
                                  missing);
                break;
            }
            dgnn_builder_init(&b, npy.efeat ? npy.ecols : 0, 0, c_roll >= 0);
            have_builder = 1;
            continue;
        }
        if (s.nf != nf) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "expected %lld fields (as in the header), got %lld", (long long)nf,
                              (long long)s.nf);
            break;
        }
        int64_t u, v, roll = 0;
        double t;
        if ((rc = dgnn_ts_get_id(&s, c_src, "src", &u, err)) || (rc = dgnn_ts_get_id(&s, c_dst, "dst", &v, err)) ||
            (rc = dgnn_ts_get_double(&s, c_t, "time", &t, err)) ||
            (c_roll >= 0 && (rc = dgnn_ts_get_int(&s, c_roll, "ext_roll", 0, 2, &roll, err))))
            break;
        if (npy.nrows >= 0 && (u >= npy.nrows || v >= npy.nrows)) {
            char what[160];
            snprintf(what, sizeof what, "node id not below the %lld rows of the node features", (long long)npy.nrows);
            rc = dgnn_ts_field_fail(&s, err, u >= npy.nrows ? c_src : c_dst, u >= npy.nrows ? "src" : "dst", what);
            break;
        }
        if (npy.erows >= 0 && e >= npy.erows) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "event %lld has no edge feature row: %s has only %lld rows",
                              (long long)(e + 1), npy.efile, (long long)npy.erows);
            break;
        }
        const float *row = npy.efeat ? npy.efeat + e * npy.ecols : NULL;
        if ((rc = dgnn_builder_push(&b, u, v, t, row, 0, (int8_t)roll, err))) break;
        e++;
    }
    if (rc) goto done;
    if (nf < 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file: expected the header ,src,dst,time,ext_roll and events",
                          csv);
        goto done;
    }
    if (e == 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: no events: the file has only a header line", csv);
        goto done;
    }
    if (npy.erows >= 0 && npy.erows != e) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s has %lld rows but %s has %lld events: they must match", npy.efile,
                          (long long)npy.erows, csv, (long long)e);
        goto done;
    }
    rc = dgnn_builder_finish(&b, ev, npy.nrows > 0 ? npy.nrows : 0, err);
    have_builder = 0;
    if (rc) goto done;
    if (npy.nfeat && npy.ncols > 0) {
        ev->node_dim = npy.ncols;
        ev->nfeat = npy.nfeat;
        npy.nfeat = NULL;
    }
done:
    if (have_builder) dgnn_builder_free(&b);
    dgnn_ts_close(&s); /* safe on the zeroed scanner when the csv was never opened */
    dgnn_feat_npy_free(&npy);
    free(csv);
    if (rc) dgnn_events_free(ev);
    return rc;
}
