/* evolvegcn.c: EvolveGCN-O and EvolveGCN-H (IBM/EvolveGCN egcn_o.py, egcn_h.py) over a
 * window of snapshots, and the pair classifier of models.py, with the semantics in
 * include/dgnn/snapmodel.h.
 *
 * Layout of the work:
 *  - each GRCU layer keeps, per snapshot of the window, its evolved weights Q_t, the matrix
 *    GRU's saved gates and (-H) the TopK summary with its selection: all R x C, small;
 *  - GCN propagations run only where their output is used (-O: snapshot T only; -H: layer 1
 *    on every snapshot, layer 2 on T only), so the -O window costs T small matrix GRU steps
 *    per layer plus two propagations;
 *  - the backward walks t = T..1 with layer 2 first at each t: by then the gradient of
 *    layer 1's output at t is complete (it feeds only layer 2's TopK at t and, at T, layer
 *    2's propagation), so one (N, L) buffer carries it.
 * The classifier splits its first layer over the two endpoints (snapmodel.h): per pair it
 * only adds two C-vectors, applies ReLU and the C -> K layer. */
#include "dgnn/snapmodel.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* one GRCU layer: weights (R, C) evolved by a matrix GRU, R = input width, C = L */
typedef struct {
    int64_t R, C;
    int onehot_in;           /* input is one-hot (layer 1 on one-hot features) */
    int iQ0, iG, iP;         /* parameter indices: initial weights, matrix GRU block, TopK scorer (-1 in -O) */
    float *Q;                /* (Tcap, R, C) Q_1..Q_T */
    float *gsaved;           /* (Tcap, 4, R, C) the matrix GRU's saved gates */
    float *X;                /* (Tcap, R, C) TopK summaries (-H) */
    int32_t *tk_idx;         /* (Tcap, C) selected rows (-H) */
    float *tk_tanh;          /* (Tcap, C) tanh of their scores (-H) */
    float *dQa, *dQb, *dX;   /* (R, C) backward chain buffers */
} grcu_t;

struct dgnn_snapmodel {
    dgnn_snapmodel_cfg cfg;
    dgnn_params p;
    grcu_t l[2];
    int icW1, icb1, icW2, icb2;
    int64_t N, V, L, Cc, K;
    /* the window */
    int64_t Tcap, T;
    const dgnn_snap_input *win;
    int training;
    int64_t S1cap;           /* layer-1 propagations stored: Tcap (-H) or 1 (-O) */
    float *H1, *g1saved, *slope1; /* (S1cap, N, L) layer 1 outputs, GCN intermediates, RReLU slopes */
    float *W1t;              /* (L, V) Q1^T for a dense first layer (torch layout of the GCN's W) */
    float *g2saved, *slope2; /* (N, L) layer 2 at snapshot T */
    float *W2t;              /* (L, L) Q2_T^T */
    float *dPre, *gscratch, *dH1; /* (N, L) backward */
    float *dW;               /* (L, max(V, L)) */
    float *topk_s;           /* (N) one-hot TopK scores */
    double flops;
    /* the pair classifier's saved batch */
    int64_t M, Mcap, Us, Ud, Ucap;
    int32_t *stamp;          /* (N) node -> row among the distinct nodes, -1 elsewhere */
    int32_t *us, *ud;        /* (Ucap) distinct source / destination nodes, in order of appearance */
    int32_t *ps, *pd;        /* (Mcap) each pair's row in us / ud */
    float *Hs, *Hd;          /* (Ucap, L) gathered embeddings */
    float *Ps, *Qd;          /* (Ucap, C) W1a h_u + b1, W1b h_v */
    float *dPs, *dQd;        /* (Ucap, C) */
    float *dw2c;             /* (K, C) the backward's dW2 before it is added */
    float *dHg;              /* (Ucap, L) */
    const float *dlog_;      /* dlogits of the backward in progress */
};

dgnn_snapmodel_cfg dgnn_snapmodel_cfg_default(dgnn_snapmodel_kind kind) {
    dgnn_snapmodel_cfg c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.onehot = 1;
    /* parameters_bitcoin_alpha_linkpred_egcn_o.yaml / _egcn_h.yaml */
    c.hidden = kind == DGNN_SNAPMODEL_EGCN_H ? 50 : 100;
    c.cls_hidden = kind == DGNN_SNAPMODEL_EGCN_H ? 100 : 400;
    c.num_classes = 2;
    c.rrelu_lower = 1.0f / 8.0f;
    c.rrelu_upper = 1.0f / 3.0f;
    c.seed = 1;
    return c;
}

const char *dgnn_snapmodel_name(dgnn_snapmodel_kind kind) {
    return kind == DGNN_SNAPMODEL_EGCN_H ? "evolvegcn-h" : "evolvegcn-o";
}

dgnn_params *dgnn_snapmodel_params(dgnn_snapmodel *m) { return &m->p; }
const dgnn_snapmodel_cfg *dgnn_snapmodel_config(const dgnn_snapmodel *m) { return &m->cfg; }
double dgnn_snapmodel_last_flops(const dgnn_snapmodel *m) { return m->flops; }

static void free_window(dgnn_snapmodel *m) {
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &m->l[l];
        free(g->Q), free(g->gsaved), free(g->X), free(g->tk_idx), free(g->tk_tanh);
        g->Q = g->gsaved = g->X = g->tk_tanh = NULL;
        g->tk_idx = NULL;
    }
    free(m->H1), free(m->g1saved), free(m->slope1);
    m->H1 = m->g1saved = m->slope1 = NULL;
    m->Tcap = m->S1cap = 0;
}

static void free_pairs(dgnn_snapmodel *m) {
    void *ptrs[] = {m->us, m->ud, m->ps, m->pd, m->Hs, m->Hd,
                    m->Ps, m->Qd, m->dPs, m->dQd, m->dw2c, m->dHg};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    m->us = m->ud = m->ps = m->pd = NULL;
    m->Hs = m->Hd = m->Ps = m->Qd = m->dPs = m->dQd = m->dw2c = m->dHg = NULL;
    m->Mcap = m->Ucap = 0;
}

void dgnn_snapmodel_free(dgnn_snapmodel *m) {
    if (!m) return;
    free_window(m);
    free_pairs(m);
    for (int l = 0; l < 2; l++) free(m->l[l].dQa), free(m->l[l].dQb), free(m->l[l].dX);
    void *ptrs[] = {m->W1t, m->g2saved, m->slope2, m->W2t, m->dPre, m->gscratch, m->dH1, m->dW, m->topk_s, m->stamp};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    dgnn_params_free(&m->p);
    free(m);
}

int dgnn_snapmodel_init(dgnn_snapmodel **out, const dgnn_snapmodel_cfg *cfg, dgnn_err *err) {
    *out = NULL;
    const dgnn_snapmodel_cfg *c = cfg;
    if (c->kind != DGNN_SNAPMODEL_EGCN_O && c->kind != DGNN_SNAPMODEL_EGCN_H)
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: unknown kind %d", (int)c->kind);
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
    const int64_t N = m->N, V = m->V, L = m->L, C = m->Cc, K = m->K;
    const int hmode = c->kind == DGNN_SNAPMODEL_EGCN_H;

    dgnn_params_init(&m->p);
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &m->l[l];
        g->R = l == 0 ? V : L;
        g->C = L;
        g->onehot_in = l == 0 && c->onehot;
        char name[DGNN_PARAM_NAME_MAX];
        /* GCN_init_weights (in_feats, out_feats) */
        snprintf(name, sizeof name, "grcu%d.Q0", l + 1);
        g->iQ0 = dgnn_params_add(&m->p, name, g->R, g->C);
        /* mat_GRU_cell's three gates as one block [W (3R, R); U (3R, R); B (3R, C)]
         * (nn_graph.h's layout: the kernels want it contiguous) */
        snprintf(name, sizeof name, "grcu%d.mgru[W;U;B]", l + 1);
        g->iG = dgnn_params_add1(&m->p, name, dgnn_mgru_param_count(g->R, g->C));
        g->iP = -1;
        if (hmode) { /* TopK's scorer; -O's cell creates one too but never uses it */
            snprintf(name, sizeof name, "grcu%d.topk_p", l + 1);
            g->iP = dgnn_params_add1(&m->p, name, g->R);
        }
    }
    m->icW1 = dgnn_params_add(&m->p, "cls.W1", C, 2 * L);
    m->icb1 = dgnn_params_add1(&m->p, "cls.b1", C);
    m->icW2 = dgnn_params_add(&m->p, "cls.W2", K, C);
    m->icb2 = dgnn_params_add1(&m->p, "cls.b2", K);
    int rc = dgnn_params_alloc(&m->p, err);
    if (rc) {
        dgnn_params_free(&m->p);
        free(m);
        return rc;
    }
    dgnn_rng rng;
    dgnn_rng_seed2(&rng, c->seed, 0x6567636e /* "egcn" */);
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &m->l[l];
        /* egcn_*.py: the cell (gates, then the scorer) is built before GCN_init_weights */
        dgnn_mgru_init(dgnn_params_get(&m->p, g->iG), g->R, g->C, &rng);
        if (g->iP >= 0) dgnn_topk_init(dgnn_params_get(&m->p, g->iP), g->R, &rng);
        /* GRCU.reset_param: U(-1/sqrt(cols), 1/sqrt(cols)) */
        float b = (float)(1.0 / sqrt((double)g->C));
        dgnn_init_uniform(dgnn_params_get(&m->p, g->iQ0), g->R * g->C, -b, b, &rng);
        g->dQa = dgnn_xmalloc((size_t)(g->R * g->C) * sizeof(float));
        g->dQb = dgnn_xmalloc((size_t)(g->R * g->C) * sizeof(float));
        g->dX = dgnn_xmalloc((size_t)(g->R * g->C) * sizeof(float));
    }
    /* torch.nn.Linear defaults */
    dgnn_linear_init(dgnn_params_get(&m->p, m->icW1), dgnn_params_get(&m->p, m->icb1), 2 * L, C, &rng);
    dgnn_linear_init(dgnn_params_get(&m->p, m->icW2), dgnn_params_get(&m->p, m->icb2), C, K, &rng);

    const size_t NL = (size_t)(N * L) * sizeof(float);
    const int64_t VL = V > L ? V : L;
    m->W1t = c->onehot ? NULL : dgnn_xmalloc((size_t)(L * V) * sizeof(float));
    m->g2saved = dgnn_xmalloc(NL);
    m->slope2 = dgnn_xmalloc(NL);
    m->W2t = dgnn_xmalloc((size_t)(L * L) * sizeof(float));
    m->dPre = dgnn_xmalloc(NL);
    m->gscratch = dgnn_xmalloc(NL);
    m->dH1 = dgnn_xmalloc(NL);
    m->dW = dgnn_xmalloc((size_t)(L * VL) * sizeof(float));
    m->topk_s = dgnn_xmalloc((size_t)N * sizeof(float));
    m->stamp = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    for (int64_t i = 0; i < N; i++) m->stamp[i] = -1;
    *out = m;
    return DGNN_OK;
}

static void ensure_window(dgnn_snapmodel *m, int64_t T) {
    if (T <= m->Tcap) return;
    free_window(m);
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &m->l[l];
        size_t RC = (size_t)(g->R * g->C);
        g->Q = dgnn_xmalloc((size_t)T * RC * sizeof(float));
        g->gsaved = dgnn_xmalloc((size_t)T * 4 * RC * sizeof(float));
        if (hmode) {
            g->X = dgnn_xmalloc((size_t)T * RC * sizeof(float));
            g->tk_idx = dgnn_xmalloc((size_t)(T * g->C) * sizeof(int32_t));
            g->tk_tanh = dgnn_xmalloc((size_t)(T * g->C) * sizeof(float));
        }
    }
    m->S1cap = hmode ? T : 1;
    size_t NL = (size_t)(m->N * m->L);
    m->H1 = dgnn_xmalloc((size_t)m->S1cap * NL * sizeof(float));
    m->g1saved = dgnn_xmalloc((size_t)m->S1cap * NL * sizeof(float));
    m->slope1 = dgnn_xmalloc((size_t)m->S1cap * NL * sizeof(float));
    m->Tcap = T;
}

/* ---- TopK over one-hot rows ---------------------------------------------------------
 * Row i of X is e_{idx[i]}, so its score X_i p / |p| is p[idx[i]] / |p|: the scores are a
 * gather, and nodes of equal category tie exactly (they also have equal rows, so however
 * torch orders the ties the summary is the same). The selection is nn_graph.h's
 * (dgnn_topk_forward on the (N, 1) column of scores with a unit scorer), the summary
 * (V, k) has one non-zero per column: tanh(s_j) in row idx[sel_j]. */
static double norm2f(const float *p, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)p[i] * (double)p[i];
    return sqrt(s);
}

static void topk_onehot_forward(float *out, int32_t *sel, float *tanh_s, float *scores, const int32_t *idx,
                                const float *p, const uint8_t *mask, int64_t N, int64_t V, int64_t k) {
    double inv = 1.0 / norm2f(p, V);
    for (int64_t i = 0; i < N; i++) scores[i] = idx[i] < 0 ? 0.0f : (float)((double)p[idx[i]] * inv);
    const float unit = 1.0f;
    float *col = dgnn_xmalloc((size_t)k * sizeof(float));
    dgnn_topk_forward(col, sel, tanh_s, scores, &unit, mask, N, 1, k);
    free(col);
    memset(out, 0, (size_t)(V * k) * sizeof(float));
    for (int64_t j = 0; j < k; j++)
        if (sel[j] >= 0 && idx[sel[j]] >= 0) out[(int64_t)idx[sel[j]] * k + j] = tanh_s[j];
}

/* dp (V) += from dout (V, k): column j = tanh(s_j) e_v (v = idx[sel_j]), s_j = p_v / |p|;
 * ds_j/dp = (e_v - s_j p / |p|) / |p|. */
static void topk_onehot_backward(float *dp, const float *dout, const int32_t *sel, const float *tanh_s,
                                 const int32_t *idx, const float *p, int64_t V, int64_t k) {
    double nrm = norm2f(p, V), inv = 1.0 / nrm, along_p = 0;
    double *acc = dgnn_xcalloc((size_t)V, sizeof(double));
    for (int64_t j = 0; j < k; j++) {
        if (sel[j] < 0 || idx[sel[j]] < 0) continue;
        int64_t v = idx[sel[j]];
        double t = tanh_s[j], g = (double)dout[v * k + j] * (1.0 - t * t); /* dL/ds_j */
        double s = (double)p[v] * inv;
        acc[v] += g * inv;
        along_p += g * s * inv * inv;
    }
    for (int64_t f = 0; f < V; f++) dp[f] += (float)(acc[f] - along_p * (double)p[f]);
    free(acc);
}

/* ---- the window --------------------------------------------------------------------- */

/* dW (C, L; row stride ldw) += G^T X for G (U, C), X (U, L): a sum over U rows (nodes).
 * A plain sgemm of this shape rounds differently for 1 and 2 OpenBLAS threads (measured
 * on C = 100..400, L = 100, U = 500..3783: OpenBLAS splits the work by its thread count).
 * Fixed blocks of 64 output rows, each one sgemm over all U run inside the OpenMP loop
 * (OpenBLAS's OpenMP build runs single-threaded there), give the same bits for any
 * thread count. */
static void gemm_tn_fixed(float *dW, int64_t ldw, const float *G, const float *X, int64_t U, int64_t C, int64_t L) {
    const int64_t nb = (C + 63) / 64;
#pragma omp parallel for schedule(dynamic, 1) if (U * C * L > 262144)
    for (int64_t b = 0; b < nb; b++) {
        int64_t c0 = b * 64, cn = c0 + 64 <= C ? 64 : C - c0;
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)cn, (int)L, (int)U, 1.0f, G + c0, (int)C, X, (int)L,
                    1.0f, dW + c0 * ldw, (int)ldw);
    }
}


static double mgru_flops(int64_t R, int64_t C) { return 12.0 * (double)R * (double)R * (double)C; }

/* H1 (N, L) = RReLU(A X Q) for the first layer's input of snapshot `in`, saving into
 * saved / slope (each (N, L)). */
static void layer1_gcn(dgnn_snapmodel *m, float *H1, float *saved, float *slope, const dgnn_snap_input *in,
                       const float *Q, dgnn_rng *rng) {
    const int64_t N = m->N, V = m->V, L = m->L;
    if (m->cfg.onehot) {
        dgnn_gcn_onehot_forward(H1, saved, &in->A, in->feat_idx, Q, NULL, N, V, L);
    } else {
        dgnn_transpose(m->W1t, Q, V, L, 0); /* GCN's W (L, V) = Q^T */
        dgnn_gcn_forward(H1, saved, &in->A, in->feat, m->W1t, NULL, N, V, L);
        m->flops += 2.0 * (double)N * (double)V * (double)L;
    }
    dgnn_rrelu_forward(H1, slope, H1, N * L, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
}

int dgnn_snapmodel_forward(dgnn_snapmodel *m, float *H, const dgnn_snap_input *win, int64_t T, dgnn_rng *rng,
                           dgnn_err *err) {
    if (T < 1) return dgnn_err_set(err, DGNN_EINVAL, "snapshot model: a window needs at least one snapshot");
    const int64_t N = m->N, V = m->V, L = m->L;
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
    ensure_window(m, T);
    m->T = T;
    m->win = win;
    m->training = rng != NULL;
    m->flops = 0;
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    grcu_t *g1 = &m->l[0], *g2 = &m->l[1];
    const int64_t RC1 = g1->R * L, RC2 = L * L;
    const float *G1 = dgnn_params_get(&m->p, g1->iG), *G2 = dgnn_params_get(&m->p, g2->iG);
    const float *Q1prev = dgnn_params_get(&m->p, g1->iQ0), *Q2prev = dgnn_params_get(&m->p, g2->iQ0);
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &win[t];
        const int last = t == T - 1;
        float *Q1 = g1->Q + t * RC1, *Q2 = g2->Q + t * RC2;
        /* layer 1: evolve, then propagate where the output is used */
        const float *x1 = Q1prev;
        if (hmode) {
            float *X1 = g1->X + t * RC1;
            const float *p1 = dgnn_params_get(&m->p, g1->iP);
            if (m->cfg.onehot)
                topk_onehot_forward(X1, g1->tk_idx + t * L, g1->tk_tanh + t * L, m->topk_s, in->feat_idx, p1, in->mask,
                                    N, V, L);
            else
                dgnn_topk_forward(X1, g1->tk_idx + t * L, g1->tk_tanh + t * L, in->feat, p1, in->mask, N, V, L);
            x1 = X1;
        }
        dgnn_mgru_forward(Q1, g1->gsaved + t * 4 * RC1, x1, Q1prev, G1, g1->R, L);
        m->flops += mgru_flops(g1->R, L);
        int64_t s1 = hmode ? t : 0;
        float *H1 = m->H1 + s1 * N * L;
        if (hmode || last) layer1_gcn(m, H1, m->g1saved + s1 * N * L, m->slope1 + s1 * N * L, in, Q1, rng);
        /* layer 2 */
        const float *x2 = Q2prev;
        if (hmode) {
            float *X2 = g2->X + t * RC2;
            dgnn_topk_forward(X2, g2->tk_idx + t * L, g2->tk_tanh + t * L, H1, dgnn_params_get(&m->p, g2->iP), in->mask,
                              N, L, L);
            x2 = X2;
        }
        dgnn_mgru_forward(Q2, g2->gsaved + t * 4 * RC2, x2, Q2prev, G2, L, L);
        m->flops += mgru_flops(L, L);
        if (last) {
            dgnn_transpose(m->W2t, Q2, L, L, 0);
            dgnn_gcn_forward(H, m->g2saved, &in->A, H1, m->W2t, NULL, N, L, L);
            dgnn_rrelu_forward(H, m->slope2, H, N * L, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
            m->flops += 2.0 * (double)N * (double)L * (double)L;
        }
        Q1prev = Q1;
        Q2prev = Q2;
    }
    return DGNN_OK;
}

void dgnn_snapmodel_backward(dgnn_snapmodel *m, const float *dH) {
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T;
    DGNN_ASSERT(T >= 1 && m->win);
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    const size_t NLb = (size_t)(N * L) * sizeof(float);
    grcu_t *g1 = &m->l[0], *g2 = &m->l[1];
    const int64_t R1 = g1->R, RC1 = R1 * L, RC2 = L * L;
    const float *G1 = dgnn_params_get(&m->p, g1->iG), *G2 = dgnn_params_get(&m->p, g2->iG);
    float *dG1 = dgnn_params_grad(&m->p, g1->iG), *dG2 = dgnn_params_grad(&m->p, g2->iG);
    const float *Q10 = dgnn_params_get(&m->p, g1->iQ0), *Q20 = dgnn_params_get(&m->p, g2->iQ0);
    const dgnn_snap_input *win = m->win;
    const dgnn_csr *AtT = win[T - 1].At ? win[T - 1].At : &win[T - 1].A;

    /* layer 2's propagation at T: H = RReLU(A H1_T Q2_T) */
    memset(m->dPre, 0, NLb);
    dgnn_rrelu_backward(m->dPre, dH, m->slope2, N * L);
    memset(m->dH1, 0, NLb);
    memset(m->dW, 0, (size_t)(L * L) * sizeof(float));
    const float *H1T = m->H1 + (hmode ? T - 1 : 0) * N * L;
    /* the forward ran dgnn_gcn_forward's A (X W^T) order (L <= L): dT = A^T dPre,
     * dH1 += dT W, dW += dT^T H1 (the last a sum over the N nodes: gemm_tn_fixed) */
    memset(m->gscratch, 0, NLb);
    dgnn_spmm_backward(m->gscratch, AtT, m->dPre, L);
    dgnn_linear_backward(m->dH1, NULL, NULL, m->gscratch, H1T, m->W2t, N, L, L);
    gemm_tn_fixed(m->dW, L, m->gscratch, H1T, N, L, L);
    m->flops += 4.0 * (double)N * (double)L * (double)L;
    float *dQ2 = g2->dQa, *dQ2p = g2->dQb, *dQ1 = g1->dQa, *dQ1p = g1->dQb;
    dgnn_transpose(dQ2, m->dW, L, L, 0); /* dW is the gradient of Q2_T^T */
    memset(dQ1, 0, (size_t)RC1 * sizeof(float));

    for (int64_t t = T - 1; t >= 0; t--) {
        const dgnn_snap_input *in = &win[t];
        const dgnn_csr *At = in->At ? in->At : &in->A;
        /* layer 2, step t: dQ2 = dL/dQ2_t */
        const float *Q2prev = t > 0 ? g2->Q + (t - 1) * RC2 : Q20;
        memset(dQ2p, 0, (size_t)RC2 * sizeof(float));
        if (hmode) {
            memset(g2->dX, 0, (size_t)RC2 * sizeof(float));
            dgnn_mgru_backward(g2->dX, dQ2p, dG2, dQ2, g2->gsaved + t * 4 * RC2, g2->X + t * RC2, Q2prev, G2, L, L);
            dgnn_topk_backward(m->dH1, dgnn_params_grad(&m->p, g2->iP), g2->dX, g2->tk_idx + t * L,
                               g2->tk_tanh + t * L, m->H1 + t * N * L, dgnn_params_get(&m->p, g2->iP), N, L, L);
        } else {
            dgnn_mgru_backward(dQ2p, dQ2p, dG2, dQ2, g2->gsaved + t * 4 * RC2, Q2prev, Q2prev, G2, L, L);
        }
        m->flops += 2.0 * mgru_flops(L, L);
        float *sw = dQ2;
        dQ2 = dQ2p, dQ2p = sw;

        /* layer 1, step t: its output's gradient (dH1) is complete now */
        if (hmode || t == T - 1) {
            int64_t s1 = hmode ? t : 0;
            memset(m->dPre, 0, NLb);
            dgnn_rrelu_backward(m->dPre, m->dH1, m->slope1 + s1 * N * L, N * L);
            if (m->cfg.onehot) {
                dgnn_gcn_onehot_backward(dQ1, NULL, m->gscratch, m->dPre, At, in->feat_idx, N, V, L);
            } else {
                const float *Q1 = g1->Q + t * RC1;
                dgnn_transpose(m->W1t, Q1, V, L, 0);
                memset(m->dW, 0, (size_t)(L * V) * sizeof(float));
                dgnn_gcn_backward(NULL, m->dW, NULL, m->gscratch, m->dPre, m->g1saved + s1 * N * L, At, in->feat,
                                  m->W1t, N, V, L);
                dgnn_transpose(dQ1, m->dW, L, V, 1);
                m->flops += 2.0 * (double)N * (double)V * (double)L;
            }
            if (hmode) memset(m->dH1, 0, NLb); /* the next (earlier) step's */
        }
        const float *Q1prev = t > 0 ? g1->Q + (t - 1) * RC1 : Q10;
        memset(dQ1p, 0, (size_t)RC1 * sizeof(float));
        if (hmode) {
            memset(g1->dX, 0, (size_t)RC1 * sizeof(float));
            dgnn_mgru_backward(g1->dX, dQ1p, dG1, dQ1, g1->gsaved + t * 4 * RC1, g1->X + t * RC1, Q1prev, G1, R1, L);
            float *dp1 = dgnn_params_grad(&m->p, g1->iP);
            const float *p1 = dgnn_params_get(&m->p, g1->iP);
            if (m->cfg.onehot)
                topk_onehot_backward(dp1, g1->dX, g1->tk_idx + t * L, g1->tk_tanh + t * L, in->feat_idx, p1, V, L);
            else
                dgnn_topk_backward(NULL, dp1, g1->dX, g1->tk_idx + t * L, g1->tk_tanh + t * L, in->feat, p1, N, V, L);
        } else {
            dgnn_mgru_backward(dQ1p, dQ1p, dG1, dQ1, g1->gsaved + t * 4 * RC1, Q1prev, Q1prev, G1, R1, L);
        }
        m->flops += 2.0 * mgru_flops(R1, L);
        sw = dQ1;
        dQ1 = dQ1p, dQ1p = sw;
    }
    /* what is left is the gradient of the initial weights */
    float *dQ10 = dgnn_params_grad(&m->p, g1->iQ0), *dQ20 = dgnn_params_grad(&m->p, g2->iQ0);
    for (int64_t i = 0; i < RC1; i++) dQ10[i] += dQ1[i];
    for (int64_t i = 0; i < RC2; i++) dQ20[i] += dQ2[i];
    g1->dQa = dQ1, g1->dQb = dQ1p; /* keep ownership straight after the swaps */
    g2->dQa = dQ2, g2->dQb = dQ2p;
}

/* ---- the pair classifier ------------------------------------------------------------ */

/* The per-pair kernels run over blocks of pairs and are cloned for AVX-512 and AVX2 (the
 * build targets plain x86-64; the clone is picked once at load time): per pair they only
 * add, max and multiply-add C-vectors, so the vector width is the speed. */
#define DGNN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* logits (K) of pairs i0..i1-1: h = relu(P[ps[i]] + Q[pd[i]]) (C, in hbuf), z = W2 h + b2 */
DGNN_CLONES
static void pair_fwd_block(float *restrict logits, float *restrict hbuf, const float *Ps, const float *Qd,
                           const int32_t *ps, const int32_t *pd, const float *W2, const float *b2, int64_t i0,
                           int64_t i1, int64_t C, int64_t K) {
    for (int64_t i = i0; i < i1; i++) {
        const float *restrict p = Ps + (int64_t)ps[i] * C, *restrict q = Qd + (int64_t)pd[i] * C;
        for (int64_t c = 0; c < C; c++) {
            float x = p[c] + q[c];
            hbuf[c] = x > 0.0f ? x : 0.0f;
        }
        for (int64_t k = 0; k < K; k++) {
            const float *restrict w = W2 + k * C;
            float s = 0.0f;
#pragma omp simd reduction(+ : s)
            for (int64_t c = 0; c < C; c++) s += w[c] * hbuf[c];
            logits[i * K + k] = s + b2[k];
        }
    }
}

/* pair_bwd_cols for K = 2 over columns c0..c1-1 of one pair. The ReLU is a 0/1 mask
 * multiplied in and every load is unconditional, so the loop is branch-free and
 * vectorizes (restrict: the six rows never overlap). */
static inline void cols_k2(float *restrict dp, float *restrict dq, float *restrict d0, float *restrict d1,
                           const float *restrict p, const float *restrict q, const float *restrict w0,
                           const float *restrict w1, float g0, float g1, int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c++) {
        float x = p[c] + q[c], gw = w0[c] * g0 + w1[c] * g1;
        float on = x > 0.0f ? 1.0f : 0.0f;
        float h = x * on, g = gw * on;
        dp[c] += g;
        dq[c] += g;
        d0[c] += g0 * h;
        d1[c] += g1 * h;
    }
}

/* The classifier's backward over columns c0..c1-1 of every pair, in pair order: with
 * pre = P[s] + Q[d] and h = relu(pre), dh = (W2^T dz) * (pre > 0), it accumulates
 * dP[s] += dh, dQ[d] += dh and dW2 += dz h^T (dW2c (K, C): this call's columns only).
 * Each column is independent, so the columns split over the threads with no race and no
 * stored per-pair rows, and every element still sums its pairs in pair order. */
DGNN_CLONES
static void pair_bwd_cols(float *dP, float *dQ, float *dW2c, const float *Ps, const float *Qd, const int32_t *ps,
                          const int32_t *pd, const float *W2, const float *dlogits, int64_t M, int64_t C, int64_t K,
                          int64_t c0, int64_t c1) {
    for (int64_t i = 0; i < M; i++) {
        const float *restrict p = Ps + (int64_t)ps[i] * C, *restrict q = Qd + (int64_t)pd[i] * C;
        float *dp = dP + (int64_t)ps[i] * C, *dq = dQ + (int64_t)pd[i] * C;
        const float *dz = dlogits + i * K;
        if (K == 2) { /* link prediction: one fused pass */
            cols_k2(dp, dq, dW2c, dW2c + C, p, q, W2, W2 + C, dz[0], dz[1], c0, c1);
            continue;
        }
        for (int64_t c = c0; c < c1; c++) {
            float x = p[c] + q[c];
            if (!(x > 0.0f)) continue;
            float g = 0.0f;
            for (int64_t k = 0; k < K; k++) g += W2[k * C + c] * dz[k], dW2c[k * C + c] += dz[k] * x;
            dp[c] += g;
            dq[c] += g;
        }
    }
}

static void ensure_pairs(dgnn_snapmodel *m, int64_t M) {
    const int64_t L = m->L, C = m->Cc;
    if (M < 1) M = 1; /* so that an empty batch still has valid (tiny) buffers */
    int64_t U = M < m->N ? M : m->N;
    if (M > m->Mcap) {
        free(m->ps), free(m->pd);
        m->Mcap = M + M / 4 + 16;
        m->ps = dgnn_xmalloc((size_t)m->Mcap * sizeof(int32_t));
        m->pd = dgnn_xmalloc((size_t)m->Mcap * sizeof(int32_t));
    }
    if (!m->dw2c) m->dw2c = dgnn_xmalloc((size_t)(m->K * C) * sizeof(float));
    if (U > m->Ucap) {
        void *ptrs[] = {m->us, m->ud, m->Hs, m->Hd, m->Ps, m->Qd, m->dPs, m->dQd, m->dHg};
        for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
        int64_t u = U + U / 4 + 16;
        if (u > m->N) u = m->N;
        m->Ucap = u;
        m->us = dgnn_xmalloc((size_t)u * sizeof(int32_t));
        m->ud = dgnn_xmalloc((size_t)u * sizeof(int32_t));
        m->Hs = dgnn_xmalloc((size_t)(u * L) * sizeof(float));
        m->Hd = dgnn_xmalloc((size_t)(u * L) * sizeof(float));
        m->Ps = dgnn_xmalloc((size_t)(u * C) * sizeof(float));
        m->Qd = dgnn_xmalloc((size_t)(u * C) * sizeof(float));
        m->dPs = dgnn_xmalloc((size_t)(u * C) * sizeof(float));
        m->dQd = dgnn_xmalloc((size_t)(u * C) * sizeof(float));
        m->dHg = dgnn_xmalloc((size_t)(u * L) * sizeof(float));
    }
}

/* Maps the nodes of ids (M) to rows of distinct nodes (uniq, in order of appearance);
 * rows (M) = each entry's row. Returns U. stamp (N) is all -1 on entry and on return. */
static int64_t distinct_rows(int32_t *uniq, int32_t *rows, int32_t *stamp, const int32_t *ids, int64_t M) {
    int64_t U = 0;
    for (int64_t i = 0; i < M; i++) {
        int32_t v = ids[i];
        if (stamp[v] < 0) stamp[v] = (int32_t)U, uniq[U++] = v;
        rows[i] = stamp[v];
    }
    for (int64_t r = 0; r < U; r++) stamp[uniq[r]] = -1;
    return U;
}

/* out (U, C) = H[rows] (U, L) gathered into G, then G @ Wh^T (+ b), Wh = a (C, L) slice
 * of W1 (C, 2L) starting at column off */
static void half_layer(float *out, float *G, const float *H, const int32_t *uniq, int64_t U, const float *W1,
                       int64_t off, const float *b, int64_t L, int64_t C) {
#pragma omp parallel for schedule(static) if (U * L > 65536)
    for (int64_t r = 0; r < U; r++) memcpy(G + r * L, H + (int64_t)uniq[r] * L, (size_t)L * sizeof(float));
    if (U == 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)U, (int)C, (int)L, 1.0f, G, (int)L, W1 + off,
                (int)(2 * L), 0.0f, out, (int)C);
    if (b) {
#pragma omp parallel for schedule(static) if (U * C > 65536)
        for (int64_t r = 0; r < U; r++)
            for (int64_t c = 0; c < C; c++) out[r * C + c] += b[c];
    }
}

void dgnn_snapmodel_edge_forward(dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                 const int32_t *dst, int64_t M) {
    const int64_t L = m->L, C = m->Cc, K = m->K;
    ensure_pairs(m, M);
    m->M = M;
    for (int64_t i = 0; i < M; i++) DGNN_ASSERT(src[i] >= 0 && src[i] < m->N && dst[i] >= 0 && dst[i] < m->N);
    m->Us = distinct_rows(m->us, m->ps, m->stamp, src, M);
    m->Ud = distinct_rows(m->ud, m->pd, m->stamp, dst, M);
    const float *W1 = dgnn_params_get(&m->p, m->icW1), *b1 = dgnn_params_get(&m->p, m->icb1);
    const float *W2 = dgnn_params_get(&m->p, m->icW2), *b2 = dgnn_params_get(&m->p, m->icb2);
    half_layer(m->Ps, m->Hs, H, m->us, m->Us, W1, 0, b1, L, C);
    half_layer(m->Qd, m->Hd, H, m->ud, m->Ud, W1, L, NULL, L, C);
    const float *Ps = m->Ps, *Qd = m->Qd;
    const int32_t *ps = m->ps, *pd = m->pd;
    const int64_t nb = (M + 255) / 256;
#pragma omp parallel if (M * C > 65536)
    {
        float *hbuf = dgnn_xmalloc((size_t)C * sizeof(float));
#pragma omp for schedule(static)
        for (int64_t bI = 0; bI < nb; bI++) {
            int64_t i0 = bI * 256, i1 = i0 + 256 < M ? i0 + 256 : M;
            pair_fwd_block(logits, hbuf, Ps, Qd, ps, pd, W2, b2, i0, i1, C, K);
        }
        free(hbuf);
    }
}

void dgnn_snapmodel_edge_backward(dgnn_snapmodel *m, float *dH, const float *dlogits) {
    const int64_t L = m->L, C = m->Cc, K = m->K, M = m->M, Us = m->Us, Ud = m->Ud;
    const float *W1 = dgnn_params_get(&m->p, m->icW1), *W2 = dgnn_params_get(&m->p, m->icW2);
    float *dW1 = dgnn_params_grad(&m->p, m->icW1), *db1 = dgnn_params_grad(&m->p, m->icb1);
    float *dW2 = dgnn_params_grad(&m->p, m->icW2), *db2 = dgnn_params_grad(&m->p, m->icb2);
    const float *Ps = m->Ps, *Qd = m->Qd;
    const int32_t *ps = m->ps, *pd = m->pd;
    memset(m->dPs, 0, (size_t)(Us * C) * sizeof(float));
    memset(m->dQd, 0, (size_t)(Ud * C) * sizeof(float));
    /* the columns split evenly over the threads (in multiples of 16: whole cache lines) */
    const int nt = M * C > 65536 ? omp_get_max_threads() : 1;
    int64_t cw = (C + nt - 1) / nt;
    cw = (cw + 15) / 16 * 16;
    const int64_t ncb = (C + cw - 1) / cw;
    float *dW2c = m->dw2c;
    memset(dW2c, 0, (size_t)(K * C) * sizeof(float));
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t cb = 0; cb < ncb; cb++) {
        int64_t c0 = cb * cw, c1 = c0 + cw < C ? c0 + cw : C;
        pair_bwd_cols(m->dPs, m->dQd, dW2c, Ps, Qd, ps, pd, W2, dlogits, M, C, K, c0, c1);
    }
    for (int64_t k = 0; k < K * C; k++) dW2[k] += dW2c[k];
    dgnn_linear_backward(NULL, NULL, db2, dlogits, NULL, NULL, M, 1, K); /* column sums of dZ */
    /* first layer: dW1a += dP^T Hs, dW1b += dQ^T Hd, db1 += column sums of dP,
     * dH[us] += dP W1a, dH[ud] += dQ W1b */
    if (Us > 0) {
        gemm_tn_fixed(dW1, 2 * L, m->dPs, m->Hs, Us, C, L);
        dgnn_linear_backward(NULL, NULL, db1, m->dPs, NULL, NULL, Us, 1, C);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)Us, (int)L, (int)C, 1.0f, m->dPs, (int)C, W1,
                    (int)(2 * L), 0.0f, m->dHg, (int)L);
#pragma omp parallel for schedule(static) if (Us * L > 65536)
        for (int64_t r = 0; r < Us; r++) {
            float *d = dH + (int64_t)m->us[r] * L;
            const float *g = m->dHg + r * L;
            for (int64_t c = 0; c < L; c++) d[c] += g[c];
        }
    }
    if (Ud > 0) {
        gemm_tn_fixed(dW1 + L, 2 * L, m->dQd, m->Hd, Ud, C, L);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)Ud, (int)L, (int)C, 1.0f, m->dQd, (int)C, W1 + L,
                    (int)(2 * L), 0.0f, m->dHg, (int)L);
#pragma omp parallel for schedule(static) if (Ud * L > 65536)
        for (int64_t r = 0; r < Ud; r++) {
            float *d = dH + (int64_t)m->ud[r] * L;
            const float *g = m->dHg + r * L;
            for (int64_t c = 0; c < L; c++) d[c] += g[c];
        }
    }
}

/* One tile of the all-pairs scores, two source rows by PAIR_TILE = 64 destinations:
 * acc (2, 64) = bd + sum_c wd[c] relu(P_r[c] + QT[c][j]) for r = 0, 1, where the tile's
 * destinations are the 64 columns of QT (C rows of stride ld). Vectorized across
 * destinations (no horizontal sums), with the eight 16-wide accumulators in registers for
 * the whole c loop and each loaded QT vector used by both rows. GCC's vector types keep
 * that shape in every clone (AVX-512: one register per vector; the others: several). */
#define PAIR_TILE 64
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));

/* macros, not functions: a function returning a 64-byte vector has an ABI that depends on
 * the target, which GCC warns about in the generic clone */
#define LOAD16(p) ({ v16f v_; memcpy(&v_, (p), sizeof v_); v_; })
#define RELU16(x) ({ v16f x_ = (x); (v16f)((v16i)x_ & (v16i)(x_ > (v16f){0})); })

DGNN_CLONES
static void score_tile2(float *restrict acc, const float *restrict P0, const float *restrict P1,
                        const float *restrict QT, int64_t ld, const float *restrict wd, float bd, int64_t C) {
    const v16f init = (v16f){0} + bd;
    v16f a0 = init, a1 = init, a2 = init, a3 = init, b0 = init, b1 = init, b2 = init, b3 = init;
    for (int64_t c = 0; c < C; c++) {
        const float *q = QT + c * ld;
        const v16f q0 = LOAD16(q), q1 = LOAD16(q + 16), q2 = LOAD16(q + 32), q3 = LOAD16(q + 48);
        const float p0 = P0[c], p1 = P1[c], w = wd[c];
        a0 += RELU16(q0 + p0) * w, a1 += RELU16(q1 + p0) * w, a2 += RELU16(q2 + p0) * w, a3 += RELU16(q3 + p0) * w;
        b0 += RELU16(q0 + p1) * w, b1 += RELU16(q1 + p1) * w, b2 += RELU16(q2 + p1) * w, b3 += RELU16(q3 + p1) * w;
    }
    memcpy(acc, &a0, 64), memcpy(acc + 16, &a1, 64), memcpy(acc + 32, &a2, 64), memcpy(acc + 48, &a3, 64);
    memcpy(acc + 64, &b0, 64), memcpy(acc + 80, &b1, 64), memcpy(acc + 96, &b2, 64), memcpy(acc + 112, &b3, 64);
}

void dgnn_snapmodel_edge_prob_rows(dgnn_snapmodel *m, float *prob, const float *H, int64_t u0, int64_t rows) {
    const int64_t N = m->N, L = m->L, C = m->Cc;
    DGNN_ASSERT(m->K == 2 && u0 >= 0 && rows >= 0 && u0 + rows <= N);
    if (rows == 0) return;
    const float *W1 = dgnn_params_get(&m->p, m->icW1), *b1 = dgnn_params_get(&m->p, m->icb1);
    const float *W2 = dgnn_params_get(&m->p, m->icW2), *b2 = dgnn_params_get(&m->p, m->icb2);
    float *P = dgnn_xmalloc((size_t)(rows * C) * sizeof(float));
    float *Qa = dgnn_xmalloc((size_t)(N * C) * sizeof(float));
    const int64_t ntiles = (N + PAIR_TILE - 1) / PAIR_TILE, ldq = ntiles * PAIR_TILE;
    float *QT = dgnn_xmalloc((size_t)(ldq * C) * sizeof(float)); /* padded: every tile is whole */
    float *wd = dgnn_xmalloc((size_t)C * sizeof(float));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)C, (int)L, 1.0f, H + u0 * L, (int)L, W1,
                (int)(2 * L), 0.0f, P, (int)C);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < C; c++) P[r * C + c] += b1[c];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)N, (int)C, (int)L, 1.0f, H, (int)L, W1 + L, (int)(2 * L),
                0.0f, Qa, (int)C);
    /* QT (C, ldq): destinations contiguous, the padding columns zero */
#pragma omp parallel for schedule(static) if (N * C > 65536)
    for (int64_t c = 0; c < C; c++) {
        float *o = QT + c * ldq;
        for (int64_t v = 0; v < N; v++) o[v] = Qa[v * C + c];
        for (int64_t v = N; v < ldq; v++) o[v] = 0.0f;
    }
    free(Qa);
    /* softmax(z)[1] = sigmoid(z1 - z0), and z1 - z0 = (W2[1] - W2[0]) h + (b2[1] - b2[0]) */
    for (int64_t c = 0; c < C; c++) wd[c] = W2[C + c] - W2[c];
    const float bd = b2[1] - b2[0];
    /* parallel over destination tiles: a tile's C x 64 block of QT stays in cache while
     * every source row runs over it; each iteration writes its own columns of prob */
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t tI = 0; tI < ntiles; tI++) {
        int64_t v0 = tI * PAIR_TILE, n = v0 + PAIR_TILE <= N ? PAIR_TILE : N - v0;
        float acc[2 * PAIR_TILE];
        for (int64_t r = 0; r < rows; r += 2) {
            const int two = r + 1 < rows;
            score_tile2(acc, P + r * C, P + (two ? r + 1 : r) * C, QT + v0, ldq, wd, bd, C);
            for (int k = 0; k <= two; k++) {
                float *out = prob + (r + k) * N + v0;
                for (int64_t j = 0; j < n; j++) out[j] = 1.0f / (1.0f + expf(-acc[k * PAIR_TILE + j]));
            }
        }
    }
    free(P), free(QT), free(wd);
}

void dgnn_snapmodel_edge_forward_ref(const dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                     const int32_t *dst, int64_t M) {
    const int64_t L = m->L, C = m->Cc, K = m->K;
    const float *W1 = dgnn_params_get(&m->p, m->icW1), *b1 = dgnn_params_get(&m->p, m->icb1);
    const float *W2 = dgnn_params_get(&m->p, m->icW2), *b2 = dgnn_params_get(&m->p, m->icb2);
    double *hid = dgnn_xmalloc((size_t)C * sizeof(double));
    float *x = dgnn_xmalloc((size_t)(2 * L) * sizeof(float));
    for (int64_t i = 0; i < M; i++) {
        memcpy(x, H + (int64_t)src[i] * L, (size_t)L * sizeof(float));
        memcpy(x + L, H + (int64_t)dst[i] * L, (size_t)L * sizeof(float));
        for (int64_t c = 0; c < C; c++) {
            double s = b1[c];
            for (int64_t j = 0; j < 2 * L; j++) s += (double)W1[c * 2 * L + j] * (double)x[j];
            hid[c] = s > 0 ? s : 0;
        }
        for (int64_t k = 0; k < K; k++) {
            double s = b2[k];
            for (int64_t c = 0; c < C; c++) s += (double)W2[k * C + c] * hid[c];
            logits[i * K + k] = (float)s;
        }
    }
    free(hid);
    free(x);
}
