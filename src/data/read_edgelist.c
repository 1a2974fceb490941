/* read_edgelist.c: SNAP / KONECT style edge lists (dgnn_read_edgelist).
 *
 * One event per line, fields separated by whitespace or by commas (decided once per
 * file from the first data line: a comma means csv). Lines starting with '%' (KONECT)
 * or '#' (SNAP) are comments; blank lines are skipped. There is no header line.
 *
 * Column roles come from `columns` ("src,dst,weight,ts", roles: src dst ts weight feat
 * label skip) or, without it, from the field count: 3 = src dst ts, 4 = src dst weight
 * ts (KONECT's layout; also bitcoin-alpha's SRC,DST,RATING,TIME). The weight and every
 * feat column become edge features: the weight first, then the feats in column order.
 * Rows may come in any time order; the builder sorts them stably. */
#include "dgnn/readers.h"
#include "textscan.h"

#include <stdlib.h>
#include <string.h>

enum { R_SRC, R_DST, R_TS, R_WEIGHT, R_FEAT, R_LABEL, R_SKIP };
static const char *role_names[] = {"src", "dst", "ts", "weight", "feat", "label", "skip"};

/* The parsed column layout. */
typedef struct {
    int *role;      /* (ncols) */
    int64_t *slot;  /* (ncols) edge-feature index of weight/feat columns, else -1 */
    int64_t ncols, edge_dim;
    int has_label;
} layout;

/* Fills L from a roles string; DGNN_EINVAL on a bad one. */
static int parse_columns(layout *L, const char *spec, const char *path, dgnn_err *err) {
    int64_t n = 1;
    for (const char *p = spec; *p; p++) n += *p == ',';
    L->role = malloc((size_t)n * sizeof(int));
    L->slot = malloc((size_t)n * sizeof(int64_t));
    if (!L->role || !L->slot) return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    L->ncols = n;
    int count[7] = {0};
    const char *p = spec;
    for (int64_t c = 0; c < n; c++) {
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        const char *a = p, *z = e;
        while (a < z && (*a == ' ' || *a == '\t')) a++;
        while (z > a && (z[-1] == ' ' || z[-1] == '\t')) z--;
        int r = -1;
        for (int k = 0; k < 7 && r < 0; k++)
            if ((size_t)(z - a) == strlen(role_names[k]) && memcmp(a, role_names[k], (size_t)(z - a)) == 0) r = k;
        if (r < 0) {
            char shown[64];
            return dgnn_err_set(err, DGNN_EINVAL,
                                "%s: --columns \"%s\": unknown role '%s' in column %lld "
                                "(roles: src dst ts weight feat label skip)",
                                path, spec, dgnn_ts_show(shown, sizeof shown, a, (size_t)(z - a)), (long long)(c + 1));
        }
        L->role[c] = r;
        count[r]++;
        p = *e ? e + 1 : e;
    }
    for (int r = R_SRC; r <= R_TS; r++)
        if (count[r] != 1)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: --columns \"%s\": needs exactly one '%s' column, has %d", path,
                                spec, role_names[r], count[r]);
    if (count[R_WEIGHT] > 1 || count[R_LABEL] > 1)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: --columns \"%s\": at most one '%s' column", path, spec,
                            count[R_WEIGHT] > 1 ? "weight" : "label");
    int64_t next = count[R_WEIGHT]; /* the weight takes feature slot 0 */
    L->edge_dim = count[R_WEIGHT] + count[R_FEAT];
    if (L->edge_dim > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: --columns names %lld feature columns: at most %lld", path,
                            (long long)L->edge_dim, (long long)DGNN_MAX_DIM);
    L->has_label = count[R_LABEL] > 0;
    for (int64_t c = 0; c < n; c++)
        L->slot[c] = L->role[c] == R_WEIGHT ? 0 : L->role[c] == R_FEAT ? next++ : -1;
    return DGNN_OK;
}

int dgnn_read_edgelist(dgnn_events *ev, const char *path, const char *columns, dgnn_err *err) {
    dgnn_events_init(ev);
    layout L = {0};
    dgnn_ts_scan s;
    memset(&s, 0, sizeof s);
    dgnn_builder b;
    int have_builder = 0;
    float *feat = NULL;
    int rc = DGNN_OK;
    if (columns && (rc = parse_columns(&L, columns, path, err))) goto done;
    if ((rc = dgnn_ts_open(&s, path, err))) goto done;

    char sep = 0;
    int64_t first_data_line = 0, e = 0;
    while ((rc = dgnn_ts_next(&s, err)) > 0) {
        if (dgnn_ts_blank(&s) || dgnn_ts_comment(&s)) continue;
        if (!sep) sep = memchr(s.line, ',', s.len) ? ',' : ' ';
        if ((rc = dgnn_ts_split(&s, sep, err))) break;
        if (!first_data_line) {
            first_data_line = s.lineno;
            int any_number = 0;
            for (int64_t c = 0; c < s.nf; c++) any_number |= dgnn_ts_is_number(&s.fld[c]);
            if (!any_number) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "this looks like a header line, but edge lists have none: "
                                  "start it with '#' to make it a comment");
                break;
            }
            if (columns) {
                if (s.nf != L.ncols) {
                    rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "%lld fields, but --columns \"%s\" names %lld",
                                      (long long)s.nf, columns, (long long)L.ncols);
                    break;
                }
            } else if (s.nf == 3 || s.nf == 4) {
                rc = parse_columns(&L, s.nf == 3 ? "src,dst,ts" : "src,dst,weight,ts", path, err);
                if (rc) break;
            } else if (s.nf == 2) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "2 fields (src dst) and no timestamp column: a dynamic graph needs one; "
                                  "pass --columns to name the roles if a column holds time");
                break;
            } else {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "%lld fields: only 3 (src dst ts) or 4 (src dst weight ts) are known; "
                                  "pass --columns to name them (roles: src dst ts weight feat label skip)",
                                  (long long)s.nf);
                break;
            }
            feat = malloc((size_t)(L.edge_dim > 0 ? L.edge_dim : 1) * sizeof(float));
            if (!feat) {
                rc = dgnn_ts_fail(&s, err, DGNN_ENOMEM, "out of memory");
                break;
            }
            dgnn_builder_init(&b, L.edge_dim, L.has_label, 0);
            have_builder = 1;
        } else if (s.nf != L.ncols) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "expected %lld fields (as on line %lld), got %lld",
                              (long long)L.ncols, (long long)first_data_line, (long long)s.nf);
            break;
        }
        int64_t u = 0, v = 0;
        int32_t lab = 0;
        double t = 0;
        for (int64_t c = 0; c < L.ncols && !rc; c++) {
            const char *name = role_names[L.role[c]];
            switch (L.role[c]) {
            case R_SRC: rc = dgnn_ts_get_id(&s, c, name, &u, err); break;
            case R_DST: rc = dgnn_ts_get_id(&s, c, name, &v, err); break;
            case R_TS: rc = dgnn_ts_get_double(&s, c, name, &t, err); break;
            case R_WEIGHT:
            case R_FEAT: rc = dgnn_ts_get_float(&s, c, name, &feat[L.slot[c]], err); break;
            case R_LABEL: rc = dgnn_ts_get_label(&s, c, name, &lab, err); break;
            default: break; /* skip */
            }
        }
        if (rc) break;
        if ((rc = dgnn_builder_push(&b, u, v, t, feat, lab, 0, err))) break;
        e++;
    }
    if (rc) goto done;
    if (e == 0) {
        rc = s.lineno == 0 ? dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file: expected one event per line", path)
                           : dgnn_err_set(err, DGNN_EFORMAT, "%s: no events: the file has only comments and blank lines",
                                          path);
        goto done;
    }
    rc = dgnn_builder_finish(&b, ev, 0, err);
    have_builder = 0;
done:
    if (have_builder) dgnn_builder_free(&b);
    dgnn_ts_close(&s);
    free(feat);
    free(L.role);
    free(L.slot);
    if (rc) dgnn_events_free(ev);
    return rc;
}
