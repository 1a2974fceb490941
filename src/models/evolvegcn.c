/* evolvegcn.c: EvolveGCN-O and EvolveGCN-H (IBM/EvolveGCN egcn_o.py, egcn_h.py) over a
 * window of snapshots, with the semantics in include/dgnn/snapmodel.h. The struct and the
 * input checks are snapmodel.c's, the pair classifier snapmodel_edge.c's
 * (snapmodel_internal.h).
 *
 * Layout of the work:
 *  - each GRCU layer keeps, per snapshot of the window, its evolved weights Q_t, the matrix
 *    GRU's saved gates and (-H) the TopK summary with its selection: all R x C, small;
 *  - GCN propagations run only where their output is used (-O: snapshot T only; -H: layer 1
 *    on every snapshot, layer 2 on T only), so the -O window costs T small matrix GRU steps
 *    per layer plus two propagations;
 *  - the backward walks t = T..1 with layer 2 first at each t: by then the gradient of
 *    layer 1's output at t is complete (it feeds only layer 2's TopK at t and, at T, layer
 *    2's propagation), so one (N, L) buffer carries it. */
#include "snapmodel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* one GRCU layer's parameters (named pointers into the value or the gradient slab) */
typedef struct {
    float *Q0;               /* (R, C) initial weights (GCN_init_weights) */
    float *mgru;             /* (dgnn_mgru_param_count(R, C)) the matrix GRU block [W; U; B] */
    float *topk_p;           /* (R) TopK's scorer (-H); NULL in -O */
} grcu_params;

/* one GRCU layer: weights (R, C) evolved by a matrix GRU, R = input width, C = L */
typedef struct {
    int64_t R, C;
    int onehot_in;           /* input is one-hot (layer 1 on one-hot features) */
    int iQ0, iG, iP;         /* the declared tensors' indices (iP -1 in -O), to point w and dw */
    grcu_params w, dw;       /* values, gradients */
    float *Q;                /* (Tcap, R, C) Q_1..Q_T */
    float *gsaved;           /* (Tcap, 4, R, C) the matrix GRU's saved gates */
    float *X;                /* (Tcap, R, C) TopK summaries (-H) */
    int32_t *tk_idx;         /* (Tcap, C) selected rows (-H) */
    float *tk_tanh;          /* (Tcap, C) tanh of their scores (-H) */
    float *dQa, *dQb, *dX;   /* (R, C) backward chain buffers */
} grcu_t;

/* EvolveGCN's part of the model (m->impl) */
typedef struct {
    grcu_t l[2];
    int64_t Tcap;
    int64_t S1cap;           /* layer-1 propagations stored: Tcap (-H) or 1 (-O) */
    float *H1, *g1saved, *slope1; /* (S1cap, N, L) layer 1 outputs, GCN intermediates, RReLU slopes */
    float *W1t;              /* (L, V) Q1^T for a dense first layer (torch layout of the GCN's W) */
    float *g2saved, *slope2; /* (N, L) layer 2 at snapshot T */
    float *W2t;              /* (L, L) Q2_T^T */
    float *dPre, *gscratch, *dH1; /* (N, L) backward */
    float *dW;               /* (L, max(V, L)) */
    float *topk_s;           /* (N) one-hot TopK scores */
} egcn_t;

static void free_window(egcn_t *e) {
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &e->l[l];
        free(g->Q), free(g->gsaved), free(g->X), free(g->tk_idx), free(g->tk_tanh);
        g->Q = g->gsaved = g->X = g->tk_tanh = NULL;
        g->tk_idx = NULL;
    }
    free(e->H1), free(e->g1saved), free(e->slope1);
    e->H1 = e->g1saved = e->slope1 = NULL;
    e->Tcap = e->S1cap = 0;
}

static void egcn_free(dgnn_snapmodel *m) {
    egcn_t *e = m->impl;
    if (!e) return;
    free_window(e);
    for (int l = 0; l < 2; l++) free(e->l[l].dQa), free(e->l[l].dQb), free(e->l[l].dX);
    void *ptrs[] = {e->W1t, e->g2saved, e->slope2, e->W2t, e->dPre, e->gscratch, e->dH1, e->dW, e->topk_s};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    free(e);
    m->impl = NULL;
}

static void egcn_declare(dgnn_snapmodel *m) {
    egcn_t *e = dgnn_xcalloc(1, sizeof *e);
    m->impl = e;
    const int64_t V = m->V, L = m->L;
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &e->l[l];
        g->R = l == 0 ? V : L;
        g->C = L;
        g->onehot_in = l == 0 && m->cfg.onehot;
        char name[DGNN_PARAM_NAME_MAX];
        /* GCN_init_weights (in_feats, out_feats) */
        snprintf(name, sizeof name, "grcu%d.Q0", l + 1);
        g->iQ0 = dgnn_params_add(&m->p, name, g->R, g->C);
        /* mat_GRU_cell's three gates as one block [W (3R, R); U (3R, R); B (3R, C)]
         * (nn.h's layout: the kernels want it contiguous) */
        snprintf(name, sizeof name, "grcu%d.mgru[W;U;B]", l + 1);
        g->iG = dgnn_params_add1(&m->p, name, dgnn_mgru_param_count(g->R, g->C));
        g->iP = -1;
        if (hmode) { /* TopK's scorer; -O's cell creates one too but never uses it */
            snprintf(name, sizeof name, "grcu%d.topk_p", l + 1);
            g->iP = dgnn_params_add1(&m->p, name, g->R);
        }
    }
}

static void grcu_point(grcu_params *q, const dgnn_params *p, snapm_slab_fn at, const grcu_t *g) {
    q->Q0 = at(p, g->iQ0), q->mgru = at(p, g->iG);
    q->topk_p = g->iP >= 0 ? at(p, g->iP) : NULL;
}

static int egcn_init_values(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err) {
    egcn_t *e = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L;
    dgnn_alloc_set as = {0, 0};
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &e->l[l];
        grcu_point(&g->w, &m->p, dgnn_params_get, g);
        grcu_point(&g->dw, &m->p, dgnn_params_grad, g);
        /* egcn_*.py: the cell (gates, then the scorer) is built before GCN_init_weights */
        dgnn_mgru_init(g->w.mgru, g->R, g->C, rng);
        if (g->w.topk_p) dgnn_topk_init(g->w.topk_p, g->R, rng);
        /* GRCU.reset_param: U(-1/sqrt(cols), 1/sqrt(cols)) */
        float b = (float)(1.0 / sqrt((double)g->C));
        dgnn_init_uniform(g->w.Q0, g->R * g->C, -b, b, rng);
        DGNN_GROW(&as, g->dQa, MUL(g->R, g->C));
        DGNN_GROW(&as, g->dQb, MUL(g->R, g->C));
        DGNN_GROW(&as, g->dX, MUL(g->R, g->C));
    }
    const int64_t NL = MUL(N, L);
    const int64_t VL = V > L ? V : L;
    if (!m->cfg.onehot) DGNN_GROW(&as, e->W1t, MUL(L, V));
    DGNN_GROW(&as, e->g2saved, NL);
    DGNN_GROW(&as, e->slope2, NL);
    DGNN_GROW(&as, e->W2t, MUL(L, L));
    DGNN_GROW(&as, e->dPre, NL);
    DGNN_GROW(&as, e->gscratch, NL);
    DGNN_GROW(&as, e->dH1, NL);
    DGNN_GROW(&as, e->dW, MUL(L, VL));
    DGNN_GROW(&as, e->topk_s, N);
    return snapm_alloc_done(m, &as, 0, err);
}

static int ensure_window(dgnn_snapmodel *m, int64_t T, dgnn_err *err) {
    egcn_t *e = m->impl;
    if (T <= e->Tcap) return DGNN_OK;
    free_window(e);
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    dgnn_alloc_set as = {0, 0};
    for (int l = 0; l < 2; l++) {
        grcu_t *g = &e->l[l];
        const int64_t RC = MUL(g->R, g->C);
        DGNN_GROW(&as, g->Q, MUL(T, RC));
        DGNN_GROW(&as, g->gsaved, MUL(MUL(T, 4), RC));
        if (hmode) {
            DGNN_GROW(&as, g->X, MUL(T, RC));
            DGNN_GROW(&as, g->tk_idx, MUL(T, g->C));
            DGNN_GROW(&as, g->tk_tanh, MUL(T, g->C));
        }
    }
    const int64_t S1 = hmode ? T : 1, NL = MUL(m->N, m->L);
    DGNN_GROW(&as, e->H1, MUL(S1, NL));
    DGNN_GROW(&as, e->g1saved, MUL(S1, NL));
    DGNN_GROW(&as, e->slope1, MUL(S1, NL));
    int rc = snapm_alloc_done(m, &as, T, err);
    if (rc) return rc;
    e->S1cap = S1;
    e->Tcap = T;
    return DGNN_OK;
}

/* ---- TopK over one-hot rows ---------------------------------------------------------
 * Row i of X is e_{idx[i]}, so its score X_i p / |p| is p[idx[i]] / |p|: the scores are a
 * gather, and nodes of equal category tie exactly (they also have equal rows, so however
 * torch orders the ties the summary is the same). The selection is nn.h's
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

static double mgru_flops(int64_t R, int64_t C) { return 12.0 * (double)R * (double)R * (double)C; }

/* H1 (N, L) = RReLU(A X Q) for the first layer's input of snapshot `in`, saving into
 * saved / slope (each (N, L)). */
static void layer1_gcn(dgnn_snapmodel *m, float *H1, float *saved, float *slope, const dgnn_snap_input *in,
                       const float *Q, dgnn_rng *rng) {
    egcn_t *e = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L;
    if (m->cfg.onehot) {
        dgnn_gcn_onehot_forward(H1, saved, &in->A, in->feat_idx, Q, NULL, N, V, L);
    } else {
        dgnn_transpose(e->W1t, Q, V, L, 0); /* GCN's W (L, V) = Q^T */
        dgnn_gcn_forward(H1, saved, &in->A, in->feat, e->W1t, NULL, N, V, L);
        m->flops += 2.0 * (double)N * (double)V * (double)L;
    }
    dgnn_rrelu_forward(H1, slope, H1, N * L, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
}

static int egcn_forward(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err) {
    egcn_t *e = m->impl; /* snapmodel.c has checked the window */
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T;
    const dgnn_snap_input *win = m->win;
    int rc = ensure_window(m, T, err);
    if (rc) return rc;
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    grcu_t *g1 = &e->l[0], *g2 = &e->l[1];
    const int64_t RC1 = g1->R * L, RC2 = L * L;
    const float *G1 = g1->w.mgru, *G2 = g2->w.mgru;
    const float *Q1prev = g1->w.Q0, *Q2prev = g2->w.Q0;
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &win[t];
        const int last = t == T - 1;
        float *Q1 = g1->Q + t * RC1, *Q2 = g2->Q + t * RC2;
        /* layer 1: evolve, then propagate where the output is used */
        const float *x1 = Q1prev;
        if (hmode) {
            float *X1 = g1->X + t * RC1;
            const float *p1 = g1->w.topk_p;
            if (m->cfg.onehot)
                topk_onehot_forward(X1, g1->tk_idx + t * L, g1->tk_tanh + t * L, e->topk_s, in->feat_idx, p1, in->mask,
                                    N, V, L);
            else
                dgnn_topk_forward(X1, g1->tk_idx + t * L, g1->tk_tanh + t * L, in->feat, p1, in->mask, N, V, L);
            x1 = X1;
        }
        dgnn_mgru_forward(Q1, g1->gsaved + t * 4 * RC1, x1, Q1prev, G1, g1->R, L);
        m->flops += mgru_flops(g1->R, L);
        int64_t s1 = hmode ? t : 0;
        float *H1 = e->H1 + s1 * N * L;
        if (hmode || last) layer1_gcn(m, H1, e->g1saved + s1 * N * L, e->slope1 + s1 * N * L, in, Q1, rng);
        /* layer 2 */
        const float *x2 = Q2prev;
        if (hmode) {
            float *X2 = g2->X + t * RC2;
            dgnn_topk_forward(X2, g2->tk_idx + t * L, g2->tk_tanh + t * L, H1, g2->w.topk_p, in->mask, N, L, L);
            x2 = X2;
        }
        dgnn_mgru_forward(Q2, g2->gsaved + t * 4 * RC2, x2, Q2prev, G2, L, L);
        m->flops += mgru_flops(L, L);
        if (last) {
            dgnn_transpose(e->W2t, Q2, L, L, 0);
            dgnn_gcn_forward(H, e->g2saved, &in->A, H1, e->W2t, NULL, N, L, L);
            dgnn_rrelu_forward(H, e->slope2, H, N * L, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
            m->flops += 2.0 * (double)N * (double)L * (double)L;
        }
        Q1prev = Q1;
        Q2prev = Q2;
    }
    return DGNN_OK;
}

static void egcn_backward(dgnn_snapmodel *m, const float *dH) {
    egcn_t *e = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T;
    const int hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    const size_t NLb = (size_t)(N * L) * sizeof(float);
    grcu_t *g1 = &e->l[0], *g2 = &e->l[1];
    const int64_t R1 = g1->R, RC1 = R1 * L, RC2 = L * L;
    const float *G1 = g1->w.mgru, *G2 = g2->w.mgru;
    float *dG1 = g1->dw.mgru, *dG2 = g2->dw.mgru;
    const float *Q10 = g1->w.Q0, *Q20 = g2->w.Q0;
    const dgnn_snap_input *win = m->win;
    const dgnn_csr *AtT = win[T - 1].At ? win[T - 1].At : &win[T - 1].A;

    /* layer 2's propagation at T: H = RReLU(A H1_T Q2_T) */
    memset(e->dPre, 0, NLb);
    dgnn_rrelu_backward(e->dPre, dH, e->slope2, N * L);
    memset(e->dH1, 0, NLb);
    memset(e->dW, 0, (size_t)(L * L) * sizeof(float));
    const float *H1T = e->H1 + (hmode ? T - 1 : 0) * N * L;
    /* the forward ran dgnn_gcn_forward's A (X W^T) order (L <= L): dT = A^T dPre,
     * dH1 += dT W, dW += dT^T H1 (the last a sum over the N nodes: gemm_tn_fixed) */
    memset(e->gscratch, 0, NLb);
    dgnn_spmm_backward(e->gscratch, AtT, e->dPre, L);
    dgnn_gemm_fixed(0, 0, N, L, L, e->gscratch, L, e->W2t, L, 1.0f, e->dH1, L); /* dH1 += dT W */
    dgnn_gemm_fixed(1, 0, L, L, N, e->gscratch, L, H1T, L, 1.0f, e->dW, L);
    m->flops += 4.0 * (double)N * (double)L * (double)L;
    float *dQ2 = g2->dQa, *dQ2p = g2->dQb, *dQ1 = g1->dQa, *dQ1p = g1->dQb;
    dgnn_transpose(dQ2, e->dW, L, L, 0); /* dW is the gradient of Q2_T^T */
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
            dgnn_topk_backward(e->dH1, g2->dw.topk_p, g2->dX, g2->tk_idx + t * L, g2->tk_tanh + t * L,
                               e->H1 + t * N * L, g2->w.topk_p, N, L, L);
        } else {
            dgnn_mgru_backward(dQ2p, dQ2p, dG2, dQ2, g2->gsaved + t * 4 * RC2, Q2prev, Q2prev, G2, L, L);
        }
        m->flops += 2.0 * mgru_flops(L, L);
        float *sw = dQ2;
        dQ2 = dQ2p, dQ2p = sw;

        /* layer 1, step t: its output's gradient (dH1) is complete now */
        if (hmode || t == T - 1) {
            int64_t s1 = hmode ? t : 0;
            memset(e->dPre, 0, NLb);
            dgnn_rrelu_backward(e->dPre, e->dH1, e->slope1 + s1 * N * L, N * L);
            if (m->cfg.onehot) {
                dgnn_gcn_onehot_backward(dQ1, NULL, e->gscratch, e->dPre, At, in->feat_idx, N, V, L);
            } else {
                const float *Q1 = g1->Q + t * RC1;
                dgnn_transpose(e->W1t, Q1, V, L, 0);
                memset(e->dW, 0, (size_t)(L * V) * sizeof(float));
                dgnn_gcn_backward(NULL, e->dW, NULL, e->gscratch, e->dPre, e->g1saved + s1 * N * L, At, in->feat,
                                  e->W1t, N, V, L);
                dgnn_transpose(dQ1, e->dW, L, V, 1);
                m->flops += 2.0 * (double)N * (double)V * (double)L;
            }
            if (hmode) memset(e->dH1, 0, NLb); /* the next (earlier) step's */
        }
        const float *Q1prev = t > 0 ? g1->Q + (t - 1) * RC1 : Q10;
        memset(dQ1p, 0, (size_t)RC1 * sizeof(float));
        if (hmode) {
            memset(g1->dX, 0, (size_t)RC1 * sizeof(float));
            dgnn_mgru_backward(g1->dX, dQ1p, dG1, dQ1, g1->gsaved + t * 4 * RC1, g1->X + t * RC1, Q1prev, G1, R1, L);
            float *dp1 = g1->dw.topk_p;
            const float *p1 = g1->w.topk_p;
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
    float *dQ10 = g1->dw.Q0, *dQ20 = g2->dw.Q0;
    for (int64_t i = 0; i < RC1; i++) dQ10[i] += dQ1[i];
    for (int64_t i = 0; i < RC2; i++) dQ20[i] += dQ2[i];
    g1->dQa = dQ1, g1->dQb = dQ1p; /* keep ownership straight after the swaps */
    g2->dQa = dQ2, g2->dQb = dQ2p;
}

const snapm_ops snapm_egcn_ops = {egcn_declare, egcn_init_values, egcn_forward, egcn_backward, egcn_free, NULL};
