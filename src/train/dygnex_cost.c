/* dygnex_cost.c: what a DyGNeX schedule is made from, for the commands that schedule,
 * simulate or train with --dist dygnex (snap_train.h): the training windows of a
 * dataset cut and split exactly as the trainer does, and the cost model of a snapshot
 * model, fitted on the trainer's profile (the windows it measured take its sizes) or the
 * default FLOP law. */
#include "dgnn/snap_train.h"

#include <stdlib.h>

#include "dgnn/split.h"

int dgnn_snap_cost_windows(dgnn_window **win_out, int64_t *n_out, const dgnn_events *ev, const dgnn_snap_train_cfg *c,
                           dgnn_err *err) {
    *win_out = NULL, *n_out = 0;
    dgnn_snapshots s;
    /* the weights do not change a window's sizes: the events are counted */
    int rc = dgnn_snapshots_cut(&s, ev, c->snapshot_seconds, c->snapshot_count, 0, err);
    if (rc) return rc;
    int64_t tb, te, ve, xe;
    dgnn_snap_split(s.count, c->window, c->train_frac, c->val_frac, &tb, &te, &ve, &xe);
    if (te <= tb) {
        rc = dgnn_err_set(err, DGNN_EINVAL, "%lld snapshots leave no training window (window %lld, train fraction %g)",
                          (long long)s.count, (long long)c->window, c->train_frac);
        dgnn_snapshots_free(&s);
        return rc;
    }
    dgnn_window *win = dgnn_xmalloc((size_t)(te - tb) * sizeof *win);
    rc = dgnn_windows_of_snapshots(win, &s, tb, te, c->window, c->neg_mult, c->model.hidden, err);
    dgnn_snapshots_free(&s);
    if (rc) {
        free(win);
        return rc;
    }
    *win_out = win, *n_out = te - tb;
    return DGNN_OK;
}

int dgnn_snap_cost_model(dgnn_costmodel *cm, dgnn_snap_cost_fit *fit, dgnn_window *win, int64_t n, int kind,
                         const dgnn_snap_train_cfg *c, const char *profile, double rate, dgnn_err *err) {
    fit->rows = fit->matched = 0;
    if (!profile) {
        *cm = dgnn_costmodel_default(kind, c->window, c->model.hidden, c->model.cls_hidden, n > 0 ? win[0].in_dim : 1,
                                     rate);
        return DGNN_OK;
    }
    const char *mname = dgnn_snapmodel_name((dgnn_snapmodel_kind)kind);
    dgnn_profile pr;
    dgnn_err e2;
    dgnn_err_clear(&e2);
    int rc = dgnn_profile_read(&pr, profile, &e2);
    if (rc) return dgnn_err_set(err, rc, "%s", e2.msg); /* it names the file */
    /* the rows of this model; the profiler may spell it either way */
    int64_t m = 0;
    for (int64_t i = 0; i < pr.n; i++) {
        dgnn_snapmodel_kind kk;
        if (dgnn_snapmodel_kind_parse(pr.model[i], &kk) == 0 && (int)kk == kind) pr.rows[m++] = pr.rows[i];
    }
    if (m < 3) {
        dgnn_profile_free(&pr);
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s: %lld rows of model %s, need at least 3 to fit the cost model", profile,
                            (long long)m, mname);
    }
    if ((rc = dgnn_costmodel_fit_holdout(cm, pr.rows, m, 0.2, 1, &e2)) != DGNN_OK) {
        dgnn_profile_free(&pr);
        return dgnn_err_set(err, rc, "%s: %s", profile, e2.msg);
    }
    /* a window the profile measured keeps the profiler's own sizes (its definitions win) */
    int64_t matched = 0;
    for (int64_t w = 0; w < n; w++)
        for (int64_t i = 0; i < m; i++)
            if (pr.rows[i].sample == win[w].sample) {
                win[w] = pr.rows[i];
                matched++;
                break;
            }
    fit->rows = m, fit->matched = matched;
    dgnn_profile_free(&pr);
    return DGNN_OK;
}
