/* snapmodel.c: the snapshot models' front (include/dgnn/snapmodel.h): the registry of
 * kinds (name, alias, ops table: one file per kind, evolvegcn.c, tgcn.c, gcrn.c, wdgcn.c,
 * static_gcn.c; snapmodel_internal.h), their default sizes, the parameter slab and its
 * declaration and initialisation order, the checks of a window's input, and the dispatch
 * to the kind's window forward/backward and groups.
 *
 * Calls go one way: this file calls the kinds (through their ops tables) and the edge
 * classifier (snapmodel_edge.c); they call the shared layers below them
 * (snapmodel_gcn.c), never this file. */
#include "snapmodel_internal.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    dgnn_snapmodel_kind kind;
    const char *name, *alias;
    const snapm_ops *ops;
} kinds[] = {
    {DGNN_SNAPMODEL_EGCN_O, "evolvegcn-o", "egcn-o", &snapm_egcn_ops},
    {DGNN_SNAPMODEL_EGCN_H, "evolvegcn-h", "egcn-h", &snapm_egcn_ops},
    {DGNN_SNAPMODEL_TGCN, "tgcn", NULL, &snapm_tgcn_ops},
    {DGNN_SNAPMODEL_GCRN_GRU, "gcrn-gru", NULL, &snapm_gcrn_ops},
    {DGNN_SNAPMODEL_WDGCN, "wdgcn", NULL, &snapm_wdgcn_ops},
    {DGNN_SNAPMODEL_GCN, "gcn", NULL, &snapm_gcn_ops},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

static int kind_row(dgnn_snapmodel_kind kind) {
    for (int i = 0; i < NKINDS; i++)
        if (kinds[i].kind == kind) return i;
    return -1;
}

dgnn_snapmodel_cfg dgnn_snapmodel_cfg_default(dgnn_snapmodel_kind kind) {
    dgnn_snapmodel_cfg c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.onehot = 1;
    /* parameters_bitcoin_alpha_linkpred_egcn_o.yaml / _egcn_h.yaml. The other kinds take
     * the -O file's sizes, the config the reference runs its own GCN / GCN-LSTM baselines
     * with (layer_1_feats 100, layer_2_feats and lstm_l2_feats "same as l1", cls_feats 400);
     * PyG-Temporal's TGCN / GConvGRU have no default width. */
    c.hidden = kind == DGNN_SNAPMODEL_EGCN_H ? 50 : 100;
    c.cls_hidden = kind == DGNN_SNAPMODEL_EGCN_H ? 100 : 400;
    c.num_classes = 2;
    c.rrelu_lower = 1.0f / 8.0f;
    c.rrelu_upper = 1.0f / 3.0f;
    c.seed = 1;
    return c;
}

const char *dgnn_snapmodel_name(dgnn_snapmodel_kind kind) {
    int r = kind_row(kind);
    return r < 0 ? "unknown" : kinds[r].name;
}

int dgnn_snapmodel_kind_parse(const char *name, dgnn_snapmodel_kind *out) {
    for (int i = 0; name && i < NKINDS; i++)
        if (strcmp(name, kinds[i].name) == 0 || (kinds[i].alias && strcmp(name, kinds[i].alias) == 0)) {
            *out = kinds[i].kind;
            return DGNN_OK;
        }
    return DGNN_EINVAL;
}

dgnn_params *dgnn_snapmodel_params(dgnn_snapmodel *m) { return &m->p; }
const dgnn_snapmodel_cfg *dgnn_snapmodel_config(const dgnn_snapmodel *m) { return &m->cfg; }
double dgnn_snapmodel_last_flops(const dgnn_snapmodel *m) { return m->flops; }

void dgnn_snapmodel_free(dgnn_snapmodel *m) {
    if (!m) return;
    if (m->ops) m->ops->free(m);
    snapm_edge_free(m);
    dgnn_params_free(&m->p);
    free(m);
}

int dgnn_snapmodel_init(dgnn_snapmodel **out, const dgnn_snapmodel_cfg *cfg, dgnn_err *err) {
    *out = NULL;
    const dgnn_snapmodel_cfg *c = cfg;
    int row = kind_row(c->kind);
    if (row < 0) return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: unknown kind %d", (int)c->kind);
    if (c->num_nodes < 1 || c->num_nodes > INT32_MAX || c->in_dim < 1 || c->hidden < 1 || c->cls_hidden < 1 ||
        c->num_classes < 2)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "snapshot model: need nodes >= 1 (got %lld), input width >= 1 (%lld), hidden >= 1 "
                            "(%lld), classifier hidden >= 1 (%lld), classes >= 2 (%lld)",
                            (long long)c->num_nodes, (long long)c->in_dim, (long long)c->hidden,
                            (long long)c->cls_hidden, (long long)c->num_classes);
    if (c->in_dim > 65536 || c->hidden > 65536 || c->cls_hidden > 65536)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "snapshot model: widths above 65536 (input %lld, hidden %lld, classifier %lld): the "
                            "matrix GRU is (width x width)",
                            (long long)c->in_dim, (long long)c->hidden, (long long)c->cls_hidden);
    if (!(c->rrelu_lower <= c->rrelu_upper))
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: RReLU bounds %g > %g", c->rrelu_lower, c->rrelu_upper);
    dgnn_snapmodel *m = dgnn_xcalloc(1, sizeof *m);
    m->cfg = *c;
    m->N = c->num_nodes, m->V = c->in_dim, m->L = c->hidden, m->Cc = c->cls_hidden, m->K = c->num_classes;
    m->name = kinds[row].name;

    dgnn_params_init(&m->p);
    kinds[row].ops->declare(m); /* the kind's tensors first, then the classifier's */
    snapm_edge_declare(m);
    int rc = dgnn_params_alloc(&m->p, err);
    if (rc) {
        m->ops = kinds[row].ops;
        dgnn_snapmodel_free(m);
        return rc;
    }
    m->ops = kinds[row].ops;
    dgnn_rng rng;
    dgnn_rng_seed2(&rng, c->seed, 0x6567636e /* "egcn" */);
    if ((rc = m->ops->init_values(m, &rng, err))) {
        dgnn_snapmodel_free(m);
        return rc;
    }
    snapm_edge_init(m, &rng); /* its draws follow the kind's */
    *out = m;
    return DGNN_OK;
}

/* ---- the window --------------------------------------------------------------------- */

int dgnn_snapmodel_forward(dgnn_snapmodel *m, float *H, const dgnn_snap_input *win, int64_t T, dgnn_rng *rng,
                           dgnn_err *err) {
    if (T < 1) return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: a window needs at least one snapshot");
    const int64_t N = m->N, V = m->V;
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &win[t];
        if (in->A.rows != N || in->A.cols != N)
            return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: window snapshot %lld is %lld x %lld, model has %lld nodes",
                                (long long)t, (long long)in->A.rows, (long long)in->A.cols, (long long)N);
        if (m->cfg.onehot) {
            if (!in->feat_idx)
                return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: window snapshot %lld has no one-hot input",
                                    (long long)t);
            for (int64_t i = 0; i < N; i++)
                if (in->feat_idx[i] >= V)
                    return dgnn_err_set(err, DGNN_EINVAL,
                                        "snapshot model: window snapshot %lld: node %lld has input category %d, but "
                                        "the model has %lld",
                                        (long long)t, (long long)i, in->feat_idx[i], (long long)V);
        } else if (!in->feat) {
            return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: window snapshot %lld has no features", (long long)t);
        }
    }
    m->T = T;
    m->win = win;
    m->training = rng != NULL;
    m->flops = 0;
    int rc = m->ops->forward(m, H, rng, err);
    if (rc) m->T = 0, m->win = NULL; /* no backward of a failed forward */
    return rc;
}

void dgnn_snapmodel_backward(dgnn_snapmodel *m, const float *dH) {
    DGNN_ASSERT(m->T >= 1 && m->win);
    m->ops->backward(m, dH);
}

int dgnn_snapmodel_shares_snapshots(const dgnn_snapmodel *m) { return m->ops->group != NULL; }

void dgnn_snapmodel_group_begin(dgnn_snapmodel *m) {
    if (m->ops->group) m->ops->group(m, 1);
}

void dgnn_snapmodel_group_end(dgnn_snapmodel *m) {
    if (m->ops->group) m->ops->group(m, 0);
}
