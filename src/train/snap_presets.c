/* snap_presets.c: the snapshot trainer's configurations (snap_train.h): the default,
 * the named presets of the reference's yaml files (EvolveGCN's link prediction and edge
 * classification on bitcoin-alpha and UCI) and dgnn's own for node regression, and the
 * checks a configuration needs before any data is read. */
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"

#include <math.h>
#include <string.h>

dgnn_snap_train_cfg dgnn_snap_train_cfg_default(dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c;
    memset(&c, 0, sizeof c);
    c.model = dgnn_snapmodel_cfg_default(kind);
    c.windows_per_step = 1;
    c.seed = 1234;
    c.progress = 1;
    dgnn_snap_train_preset(&c, "bitcoin-alpha", NULL);
    return c;
}

int dgnn_snap_train_preset(dgnn_snap_train_cfg *c, const char *name, dgnn_err *err) {
    const int h = c->model.kind == DGNN_SNAPMODEL_EGCN_H;
    if (c->task == DGNN_SNAP_TASK_EDGE) {
        if (strcmp(name, "bitcoin-alpha") != 0 && strcmp(name, "bc-alpha") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task edge (bitcoin-alpha)", name);
        /* parameters_bitcoin_alpha_edgecls_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->snapshot_count = 0;
        c->window = 10;
        c->model.hidden = h ? 100 : 122;
        c->model.cls_hidden = h ? 200 : 77;
        c->class_w[0] = 0.8f;
        c->class_w[1] = 0.2f;
        c->lr = 0.001;
        c->neg_mult = 0; /* no sampling: every label edge is a pair */
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 1000;
        c->patience = 100;
        c->skip_val_epochs = 6;
        return DGNN_OK;
    }
    if (c->task == DGNN_SNAP_TASK_NODE) {
        if (strcmp(name, "pgt") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task node (pgt)", name);
        /* no reference configuration: one snapshot per period, a window of 8 snapshots as
         * PGT's 8 lags, small widths for tables of ~100-1000 nodes */
        c->snapshot_seconds = 0;
        c->snapshot_count = 0;
        c->window = 7;
        c->model.hidden = 32;
        c->model.cls_hidden = 32;
        c->class_w[0] = c->class_w[1] = 1.0f;
        c->lr = 0.01;
        c->neg_mult = 0;
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 200;
        c->patience = 20;
        c->skip_val_epochs = 0;
        return DGNN_OK;
    }
    /* shared by both reference configurations */
    c->snapshot_count = 0;
    c->window = 10;
    c->patience = 50;
    c->skip_val_epochs = 6; /* eval_after_epochs: 5, and the check is e > 5 with e from 0 */
    c->val_frac = 0.1;
    if (strcmp(name, "bitcoin-alpha") == 0 || strcmp(name, "bc-alpha") == 0) {
        /* parameters_bitcoin_alpha_linkpred_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->model.hidden = h ? 50 : 100;
        c->model.cls_hidden = h ? 100 : 400;
        c->class_w[0] = h ? 0.1f : 0.05f;
        c->class_w[1] = h ? 0.9f : 0.95f;
        c->lr = 0.005;
        c->neg_mult = 100;
        c->train_frac = 0.7;
        c->epochs = 500;
        return DGNN_OK;
    }
    if (strcmp(name, "uci") == 0) {
        /* parameters_uc_irv_mess_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 190080;
        c->model.hidden = 100;
        c->model.cls_hidden = 100;
        c->class_w[0] = 0.1f;
        c->class_w[1] = 0.9f;
        c->lr = 0.001;
        c->neg_mult = 50;
        c->train_frac = 0.71;
        c->epochs = 1000;
        return DGNN_OK;
    }
    return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' (bitcoin-alpha, uci)", name);
}

/* ---- checks ---- */

int dgnn_snap_train_cfg_check(const dgnn_snap_train_cfg *c, dgnn_err *err) {
    if (c->task != DGNN_SNAP_TASK_LINK && c->task != DGNN_SNAP_TASK_EDGE && c->task != DGNN_SNAP_TASK_NODE)
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: unknown task %d", (int)c->task);
    if (c->window < 0 || c->windows_per_step < 1 || c->epochs < 0 || !(c->lr > 0) || !isfinite(c->lr) ||
        c->neg_mult < 0 || c->patience < 0 || c->skip_val_epochs < 0 || c->max_train_windows < 0 || c->threads < 0 ||
        !(c->class_w[0] >= 0) || !(c->class_w[1] >= 0))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "snapshot training: need --window >= 0, --windows-per-step >= 1, --epochs >= 0, --lr > 0, "
                            "negatives >= 0, patience >= 0, --max-windows >= 0, class weights >= 0");
    if (!(c->train_frac > 0 && c->train_frac < 1) || !(c->val_frac >= 0 && c->val_frac < 1) ||
        !(c->train_frac + c->val_frac < 1))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--train-frac (%g) and --val-frac (%g) must leave a test part: 0 < train, 0 <= val, "
                            "train + val < 1", c->train_frac, c->val_frac);
    if (c->epochs > 1024) return dgnn_err_set(err, DGNN_EINVAL, "--epochs: at most 1024");
    if (c->use_cuda) {
        if (!dgnn_snapmodel_cuda_built())
            return dgnn_err_set(err, DGNN_EINVAL,
                                "--device cuda: this dgnn was built without the CUDA backend; rebuild with "
                                "-DDGNN_CUDA=ON (README, 'GPU') or use --device cpu");
        int rc = dgnn_snapmodel_cuda_supports(&c->model, err);
        if (rc) return rc;
        const int n = dgnn_snapmodel_cuda_devices();
        if (c->cuda_device < DGNN_SNAP_CUDA_LOCAL_RANK || c->cuda_device >= n || n == 0)
            return dgnn_err_set(err, DGNN_EINVAL, "--device cuda:%d: this machine has %d CUDA device%s (or no driver); "
                                "use --device cpu", c->cuda_device < 0 ? 0 : c->cuda_device, n, n == 1 ? "" : "s");
    }
    return DGNN_OK;
}
