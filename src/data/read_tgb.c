/* read_tgb.c: TGB's raw link-prediction edge lists (dgnn_read_tgb), numbered as TGB
 * numbers them, so that the node ids in TGB's negative files are this table's
 * original ids (node_ids).
 *
 * What TGB does (shenyangHuang/TGB, tgb/utils/pre_process.py, called from
 * tgb/linkproppred/dataset.py generate_processed_files by dataset name). Every loader
 * skips the first line and reads the rest by position, not by header name:
 *
 *  wiki layout (load_edgelist_wiki: tgbl-wiki, -subreddit, -uci, -enron, -lastfm):
 *    JODIE's csv, header `user_id,item_id,timestamp,state_label,comma_separated_...`;
 *    column 0 src, 1 dst, 2 time, 3 state label (TGB ignores it; kept here as the
 *    event label), 4.. edge features. Ids are integers: src as is, and every dst
 *    shifted by max(src) + 1 (always, even when the ranges do not overlap).
 *  weight layout (csv_to_pd_data_sc: tgbl-coin `time,src,dst,weight`, tgbl-review
 *    `ts,source,target,weight`): column 0 time (an integer, Python's int()), 1 src,
 *    2 dst (names: any text), 3 weight; the one edge feature is log2(weight), with a
 *    weight of 0 taken as 1 (TGB's edge_feat for these two is that column).
 *  comment layout (csv_to_pd_data_rc: tgbl-comment, header `ts,src,dst,subreddit,
 *    num_words,score` over rows of 5 fields: TGB's writer dropped subreddit but kept
 *    its name): column 0 time (integer), 1 src, 2 dst, 3 num_words, 4 score (integers);
 *    edge features (num_words/5000, num_words/5000, score), TGB's feat_l of 2 columns
 *    (both set from num_words by numpy broadcasting) with the weight appended.
 *  In the weight and comment layouts node names are numbered 0, 1, 2, ... in order of
 *  first appearance in the file, src before dst within a row (TGB's node_ids dict,
 *  keyed by the field's text: "7" and "07" are two nodes). This depends on file order,
 *  and is reproduced exactly: the file is read in its order, before the time sort.
 *
 * Times: TGB's full_data keeps timestamps.astype(int), so the wiki layout's times are
 * truncated toward zero as numpy does; the other layouts are integers already.
 * tgbl-flight (csv_to_pd_data: `day,src,dst,callsign,typecode`, string features) is
 * refused with a message. Which layout: a header whose first name is ts / time / day /
 * timestamp is the weight layout when rows have 4 fields, the comment layout when 5;
 * any other header is the wiki layout. */
#include "dgnn/readers.h"
#include "idmap.h"
#include "textscan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum { TGB_WIKI, TGB_WEIGHT, TGB_COMMENT } tgb_layout;

static int field_is(const dgnn_ts_field *f, const char *alts) {
    for (const char *a = alts;;) {
        size_t n = strcspn(a, "|");
        if (n == f->n && strncasecmp(a, f->s, n) == 0) return 1;
        if (!a[n]) return 0;
        a += n + 1;
    }
}

/* The id of a node name (field col) in first-appearance order. */
static int name_id(dgnn_ts_scan *s, dgnn_idmap *m, int64_t col, const char *role, int64_t *id, dgnn_err *err) {
    if (s->fld[col].n == 0) return dgnn_ts_field_fail(s, err, col, role, "empty node name");
    int rc = dgnn_idmap_get(m, s->fld[col].s, s->fld[col].n, id, err);
    if (rc) {
        char why[sizeof err->msg];
        memcpy(why, err->msg, sizeof why);
        return dgnn_ts_fail(s, err, rc, "%s", why);
    }
    return DGNN_OK;
}

/* One data row of the weight or comment layout: ids by first appearance, features. */
static int ts_first_row(dgnn_ts_scan *s, tgb_layout lay, dgnn_idmap *m, int64_t *u, int64_t *v, double *t, float *f,
                        dgnn_err *err) {
    int64_t ts;
    int rc;
    if ((rc = dgnn_ts_get_int(s, 0, "time", INT64_MIN, INT64_MAX, &ts, err)) ||
        (rc = name_id(s, m, 1, "src", u, err)) || (rc = name_id(s, m, 2, "dst", v, err)))
        return rc;
    *t = (double)ts;
    if (lay == TGB_WEIGHT) {
        double w;
        if ((rc = dgnn_ts_get_double(s, 3, "weight", &w, err))) return rc;
        if (w < 0)
            return dgnn_ts_field_fail(s, err, 3, "weight",
                                      "negative weight: TGB's edge feature is log2(weight), which is NaN here");
        f[0] = (float)log2(w == 0 ? 1.0 : w);
        return DGNN_OK;
    }
    int64_t words, score;
    if ((rc = dgnn_ts_get_int(s, 3, "num_words", INT64_MIN, INT64_MAX, &words, err)) ||
        (rc = dgnn_ts_get_int(s, 4, "score", INT64_MIN, INT64_MAX, &score, err)))
        return rc;
    f[0] = f[1] = (float)((double)words / 5000.0); /* TGB's max_words */
    f[2] = (float)score;
    return DGNN_OK;
}

int dgnn_read_tgb(dgnn_events *ev, const char *path, dgnn_err *err) {
    dgnn_events_init(ev);
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    dgnn_ts_scan s;
    int rc = dgnn_ts_open(&s, path, err);
    if (rc) return rc;
    dgnn_builder b;
    int have_builder = 0, header = 0, ts_first = 0;
    tgb_layout lay = TGB_WIKI;
    dgnn_idmap ids;
    dgnn_idmap_init(&ids);
    float *feat = NULL;
    int64_t nf = -1, d = 0, first_line = 0, e = 0;
    while ((rc = dgnn_ts_next(&s, err)) > 0) {
        if (dgnn_ts_blank(&s)) continue;
        if ((rc = dgnn_ts_split(&s, ',', err))) break;
        if (!header) {
            header = 1;
            if (s.nf >= 3 && dgnn_ts_is_number(&s.fld[0]) && dgnn_ts_is_number(&s.fld[1])) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "this looks like data, not a header: TGB's edge lists start with a header line "
                                  "(TGB skips it, so this event would be lost)");
                break;
            }
            ts_first = field_is(&s.fld[0], "ts|time|day|timestamp");
            if (ts_first && s.nf >= 4 && field_is(&s.fld[3], "callsign")) {
                rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                  "tgbl-flight's layout (day,src,dst,callsign,typecode: text features) is not read; "
                                  "export it from TGB (e.g. scripts/tgb_export.py) or write a TGL edges.csv");
                break;
            }
            continue;
        }
        if (nf < 0) { /* the first data row fixes the layout and the field count */
            nf = s.nf;
            first_line = s.lineno;
            if (ts_first) {
                if (nf == 4) lay = TGB_WEIGHT, d = 1;
                else if (nf == 5) lay = TGB_COMMENT, d = 3;
                else {
                    rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                      "expected 4 fields (time,src,dst,weight: tgbl-coin, tgbl-review) or 5 "
                                      "(ts,src,dst,num_words,score: tgbl-comment), got %lld",
                                      (long long)nf);
                    break;
                }
            } else {
                if (nf < 4) {
                    rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT,
                                      "expected at least 4 fields (src,dst,time,state_label[,features...]: "
                                      "tgbl-wiki's layout), got %lld",
                                      (long long)nf);
                    break;
                }
                d = nf - 4;
            }
            if ((rc = dgnn_ts_feature_buffer(&s, d, &feat, err))) break;
            dgnn_builder_init(&b, d, lay == TGB_WIKI, 0);
            have_builder = 1;
        } else if (s.nf != nf) {
            rc = dgnn_ts_fail(&s, err, DGNN_EFORMAT, "expected %lld fields (as on line %lld), got %lld", (long long)nf,
                              (long long)first_line, (long long)s.nf);
            break;
        }
        int64_t u, v;
        double t;
        int32_t lab = 0;
        if (lay != TGB_WIKI) {
            if ((rc = ts_first_row(&s, lay, &ids, &u, &v, &t, feat, err))) break;
        } else {
            double l;
            if ((rc = dgnn_ts_get_id(&s, 0, "src", &u, err)) || (rc = dgnn_ts_get_id(&s, 1, "dst", &v, err)) ||
                (rc = dgnn_ts_get_double(&s, 2, "time", &t, err)) ||
                (rc = dgnn_ts_get_double(&s, 3, "state_label", &l, err)))
                break;
            if (l != 0 && l != 1) {
                rc = dgnn_ts_field_fail(&s, err, 3, "state_label", "label out of range: a label is 0 or 1");
                break;
            }
            lab = (int32_t)l;
            t = trunc(t); /* numpy's astype(int) */
            if ((rc = dgnn_ts_get_features(&s, 4, d, feat, err))) break;
        }
        if ((rc = dgnn_builder_push(&b, u, v, t, feat, lab, 0, err))) break;
        e++;
    }
    if (rc == 0 && !header) rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file: expected a header line and events", path);
    if (rc == 0 && e == 0) rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: no events: the file has only a header line", path);
    if (rc == 0 && lay == TGB_WIKI) { /* dst += max(src) + 1, as load_edgelist_wiki */
        int64_t umax = 0, vmax = 0;
        for (int64_t k = 0; k < b.n; k++) {
            if (b.src[k] > umax) umax = b.src[k];
            if (b.dst[k] > vmax) vmax = b.dst[k];
        }
        if (umax == INT64_MAX || vmax > INT64_MAX - (umax + 1))
            rc = dgnn_err_set(err, DGNN_EFORMAT,
                              "%s: shifting dst past the largest src (%lld), as TGB does, overflows int64", path,
                              (long long)umax);
        else
            for (int64_t k = 0; k < b.n; k++) b.dst[k] += umax + 1;
    }
    if (rc == 0) {
        /* the weight and comment layouts number every id 0..N-1: N = ids.count keeps them */
        rc = dgnn_builder_finish(&b, ev, lay == TGB_WIKI ? 0 : ids.count, err);
        have_builder = 0;
    }
    if (have_builder) dgnn_builder_free(&b);
    dgnn_idmap_free(&ids);
    free(feat);
    dgnn_ts_close(&s);
    if (rc) dgnn_events_free(ev);
    return rc;
}
