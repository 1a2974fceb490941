/* wdgcn.c: WD-GCN (Manessi et al., "Dynamic graph convolutional networks", the waterfall
 * dynamic GCN) over a window of snapshots: one 2-layer GCN, shared by every snapshot, then
 * one LSTM, shared by every node, over each node's sequence of GCN outputs. Built as the
 * EvolveGCN reference code's version of it (models.py Sp_GCN_LSTM_A, its "GCN-LSTM"
 * baseline), so that it runs on the same protocol as EvolveGCN:
 *   E1_t = RReLU(A_hat_t X_t W1)          W1 (V, L)   (Sp_GCN: no bias)
 *   E2_t = RReLU(A_hat_t E1_t W2)         W2 (L, L)
 *   (h_t, c_t) = LSTM(E2_t, (h_{t-1}, c_{t-1}))   per node, torch.nn.LSTM (one layer, width L)
 * with h_0 = c_0 = 0 (nn.LSTM's initial state for None, so windows are independent), and
 * the output h_T (N, L) (out[-1]).
 *
 * Parameters, in declaration and initialisation order: wdgcn.W1 (V, L), wdgcn.W2 (L, L) in
 * the "X W" layout, U(+-1/sqrt(L)) (utils.reset_param: 1/sqrt of the column count); then
 * wdgcn.lstm.W_ih (4L, L), W_hh (4L, L), b_ih, b_hh (4L), torch's LSTM layout and init
 * (U(+-1/sqrt(L)), nn.h's dgnn_lstm_init). Sizes: layer_2_feats and lstm_l2_feats
 * "same as l1" in the reference configs, so every width is L.
 *
 * RReLU draws its training slopes from the forward's rng, one draw per call, layer 1 then
 * layer 2 at each snapshot. The LSTM step is written out here (nn.h's formulas) rather
 * than called, so that its products run as nn.h's dgnn_gemm_fixed blocks: the bits do not
 * depend on the thread count.
 *
 * Groups (dgnn_snapmodel_group_begin/end; DyGNeX's groups, docs/dygnex.md): E_t depends on
 * snapshot t alone, not on the window's start, so windows that overlap share it. The GCN
 * outputs live in slots keyed by the snapshot input's address (a window alone is a group
 * of one). Inside a group a snapshot's GCN runs once, at its first window (its RReLU slopes
 * drawn from that window's rng), the backward adds each window's dL/dE_t into the slot,
 * and the GCN backward runs once per slot at the group's end: the GCN backward is linear
 * in dL/dE_t, so the summed gradient equals the sum of the windows' own. The LSTM part
 * runs per window as before. */
#include "snapmodel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* One snapshot's GCN outputs (each (N, L)): E1, E2 and their RReLU slopes, and dE, the
 * dL/dE2 that the group's windows have added (pending: dE holds something). */
typedef struct {
    const dgnn_snap_input *key;
    float *E1, *sl1, *E2, *sl2, *dE;
    int pending;
} wd_slot;

/* the parameters (named pointers into the value or the gradient slab) */
typedef struct {
    float *W1;          /* (V, L) */
    float *W2;          /* (L, L) */
    float *W_ih, *W_hh; /* (4L, L) */
    float *b_ih, *b_hh; /* (4L) */
} wdgcn_params;

typedef struct {
    int iW1, iW2, iWih, iWhh, ibih, ibhh; /* the declared tensors' indices, to point w and dw */
    wdgcn_params w, dw;                   /* values, gradients */
    int64_t Tcap;
    int64_t *tslot;             /* (Tcap) the slot of each window snapshot */
    float *ls;                  /* (Tcap, N, 5L) LSTM saved: activated gates, tanh(c') */
    float *h, *c;               /* (Tcap, N, L) h_1..h_T, c_1..c_T */
    wd_slot *slot;              /* (Scap): the first nslot are the current group's */
    int64_t nslot, Scap;
    int grouped;                /* 1 between group_begin and group_end */
    float *zero;                /* (N, L) h_0 = c_0 */
    float *scratch, *da;        /* (N, 4L) */
    float *tmp, *dE, *dE1, *dha, *dhb, *dca, *dcb; /* (N, L) */
} wdgcn_t;

static void wd_free_window(wdgcn_t *s) {
    free(s->tslot), free(s->ls), free(s->h), free(s->c);
    s->tslot = NULL;
    s->ls = s->h = s->c = NULL;
    s->Tcap = 0;
}

static void wd_free(dgnn_snapmodel *m) {
    wdgcn_t *s = m->impl;
    if (!s) return;
    wd_free_window(s);
    for (int64_t k = 0; k < s->Scap; k++) {
        wd_slot *q = &s->slot[k];
        free(q->E1), free(q->sl1), free(q->E2), free(q->sl2), free(q->dE);
    }
    free(s->slot);
    void *ptrs[] = {s->zero, s->scratch, s->da, s->tmp, s->dE, s->dE1, s->dha, s->dhb, s->dca, s->dcb};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    free(s);
    m->impl = NULL;
}

static void wd_declare(dgnn_snapmodel *m) {
    wdgcn_t *s = dgnn_xcalloc(1, sizeof *s);
    m->impl = s;
    const int64_t V = m->V, L = m->L;
    s->iW1 = dgnn_params_add(&m->p, "wdgcn.W1", V, L);
    s->iW2 = dgnn_params_add(&m->p, "wdgcn.W2", L, L);
    s->iWih = dgnn_params_add(&m->p, "wdgcn.lstm.W_ih", 4 * L, L);
    s->iWhh = dgnn_params_add(&m->p, "wdgcn.lstm.W_hh", 4 * L, L);
    s->ibih = dgnn_params_add1(&m->p, "wdgcn.lstm.b_ih", 4 * L);
    s->ibhh = dgnn_params_add1(&m->p, "wdgcn.lstm.b_hh", 4 * L);
}

static void wd_point(wdgcn_params *q, const dgnn_params *p, snapm_slab_fn at, const wdgcn_t *s) {
    q->W1 = at(p, s->iW1), q->W2 = at(p, s->iW2);
    q->W_ih = at(p, s->iWih), q->W_hh = at(p, s->iWhh);
    q->b_ih = at(p, s->ibih), q->b_hh = at(p, s->ibhh);
}

static int wd_init_values(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err) {
    wdgcn_t *s = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L;
    wd_point(&s->w, &m->p, dgnn_params_get, s);
    wd_point(&s->dw, &m->p, dgnn_params_grad, s);
    float b = (float)(1.0 / sqrt((double)L));
    dgnn_init_uniform(s->w.W1, V * L, -b, b, rng);
    dgnn_init_uniform(s->w.W2, L * L, -b, b, rng);
    dgnn_lstm_init(s->w.W_ih, s->w.W_hh, s->w.b_ih, s->w.b_hh, L, L, rng);
    const int64_t NL = MUL(N, L);
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW_ZEROED(&as, s->zero, NL);
    DGNN_GROW(&as, s->scratch, MUL(4, NL));
    DGNN_GROW(&as, s->da, MUL(4, NL));
    float **bufs[] = {&s->tmp, &s->dE, &s->dE1, &s->dha, &s->dhb, &s->dca, &s->dcb};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) DGNN_GROW(&as, *bufs[i], NL);
    return snapm_alloc_done(m, &as, 0, err);
}

static int wd_ensure(dgnn_snapmodel *m, int64_t T, dgnn_err *err) {
    wdgcn_t *s = m->impl;
    if (T <= s->Tcap) return DGNN_OK;
    wd_free_window(s);
    const int64_t TNL = MUL(MUL(T, m->N), m->L);
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, s->h, TNL);
    DGNN_GROW(&as, s->c, TNL);
    DGNN_GROW(&as, s->ls, MUL(5, TNL));
    DGNN_GROW(&as, s->tslot, T);
    int rc = snapm_alloc_done(m, &as, T, err);
    if (rc) return rc;
    s->Tcap = T;
    return DGNN_OK;
}

/* The slot of snapshot input `in` in the current group: k (found, *fresh = 0) or a new
 * one (*fresh = 1; its E1, E2 and slopes are for the caller to fill). Slots keep their
 * buffers from group to group; a new one is allocated only past the largest group seen. */
static int64_t wd_slot_of(dgnn_snapmodel *m, const dgnn_snap_input *in, int *fresh, dgnn_err *err) {
    wdgcn_t *s = m->impl;
    for (int64_t k = 0; k < s->nslot; k++)
        if (s->slot[k].key == in) return *fresh = 0, k;
    if (s->nslot == s->Scap) {
        int64_t cap = s->Scap ? 2 * s->Scap : 16;
        s->slot = dgnn_xrealloc(s->slot, (size_t)cap * sizeof *s->slot); /* a few structs */
        memset(s->slot + s->Scap, 0, (size_t)(cap - s->Scap) * sizeof *s->slot);
        const int64_t NL = MUL(m->N, m->L);
        dgnn_alloc_set as = {0, 0};
        for (int64_t k = s->Scap; k < cap; k++) {
            wd_slot *q = &s->slot[k];
            DGNN_GROW(&as, q->E1, NL), DGNN_GROW(&as, q->sl1, NL), DGNN_GROW(&as, q->E2, NL);
            DGNN_GROW(&as, q->sl2, NL), DGNN_GROW_ZEROED(&as, q->dE, NL);
        }
        if (as.failed) { /* the new slots are dropped whole: the old ones stay usable */
            for (int64_t k = s->Scap; k < cap; k++) {
                wd_slot *q = &s->slot[k];
                free(q->E1), free(q->sl1), free(q->E2), free(q->sl2), free(q->dE);
                memset(q, 0, sizeof *q);
            }
            return snapm_alloc_done(m, &as, cap, err);
        }
        s->Scap = cap;
    }
    wd_slot *q = &s->slot[s->nslot];
    q->key = in, q->pending = 0;
    *fresh = 1;
    return s->nslot++;
}

/* The GCN backward of every slot with a pending dL/dE2 (then zeroed), in slot order (the
 * order the group first read the snapshots: fixed, so the bits are too). */
static void wd_flush(dgnn_snapmodel *m) {
    wdgcn_t *s = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L, NL = N * L;
    const float *W2 = s->w.W2;
    float *dW1 = s->dw.W1, *dW2 = s->dw.W2;
    for (int64_t k = 0; k < s->nslot; k++) {
        wd_slot *q = &s->slot[k];
        if (!q->pending) continue;
        /* layer 2: E2 = RReLU(A E1 W2); the slope multiplies in place */
#pragma omp parallel for schedule(static) if (NL > 65536)
        for (int64_t i = 0; i < NL; i++) q->dE[i] *= q->sl2[i], s->dE1[i] = 0.0f;
        snapm_h_gcn_backward(s->dE1, dW2, NULL, s->tmp, snapm_At(q->key), q->E1, W2, q->dE, N, L, L);
#pragma omp parallel for schedule(static) if (NL > 65536)
        for (int64_t i = 0; i < NL; i++) s->dE1[i] *= q->sl1[i], q->dE[i] = 0.0f;
        snapm_in_gcn_backward(m, dW1, NULL, s->tmp, q->key, s->dE1, L);
        q->pending = 0;
        m->flops += 2.0 * (double)NL * (double)L * 2.0 + (m->cfg.onehot ? 0.0 : 2.0 * (double)NL * (double)V);
    }
}

static void wd_group(dgnn_snapmodel *m, int begin) {
    wdgcn_t *s = m->impl;
    if (!begin) wd_flush(m);
    s->nslot = 0;
    s->grouped = begin;
}

/* One LSTM step over the N nodes, as nn.h's dgnn_lstm_forward (same formulas, same
 * saved layout: activated gates (N, 4L) then tanh(c') (N, L)) with the two projections
 * as fixed-block products. */
static void lstm_step_forward(dgnn_snapmodel *m, float *hout, float *cout, float *saved, const float *x,
                              const float *h, const float *c) {
    wdgcn_t *s = m->impl;
    const int64_t N = m->N, L = m->L, G = 4 * L;
    const float *Wih = s->w.W_ih, *Whh = s->w.W_hh, *bih = s->w.b_ih, *bhh = s->w.b_hh;
    float *gates = saved, *tcn = saved + N * G, *ah = s->scratch;
    dgnn_gemm_fixed(0, 1, N, G, L, x, L, Wih, L, 0.0f, gates, G);
    dgnn_gemm_fixed(0, 1, N, G, L, h, L, Whh, L, 0.0f, ah, G);
#pragma omp parallel for schedule(static) if (N * L > 16384)
    for (int64_t b = 0; b < N; b++) {
        float *gi = gates + b * G, *gf = gi + L, *gg = gi + 2 * L, *go = gi + 3 * L;
        const float *a = ah + b * G, *cb = c + b * L;
        for (int64_t k = 0; k < L; k++) {
            float i = dgnn_sigmoidf(gi[k] + bih[k] + a[k] + bhh[k]);
            float f = dgnn_sigmoidf(gf[k] + bih[L + k] + a[L + k] + bhh[L + k]);
            float g = tanhf(gg[k] + bih[2 * L + k] + a[2 * L + k] + bhh[2 * L + k]);
            float o = dgnn_sigmoidf(go[k] + bih[3 * L + k] + a[3 * L + k] + bhh[3 * L + k]);
            float cn = f * cb[k] + i * g, t = tanhf(cn);
            gi[k] = i, gf[k] = f, gg[k] = g, go[k] = o;
            tcn[b * L + k] = t;
            cout[b * L + k] = cn;
            hout[b * L + k] = o * t;
        }
    }
}

static int wd_forward(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err) {
    wdgcn_t *s = m->impl; /* snapmodel.c has checked the window */
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T, NL = N * L;
    const float lo = m->cfg.rrelu_lower, hi = m->cfg.rrelu_upper;
    int rc = wd_ensure(m, T, err);
    if (rc) return rc;
    /* a window alone is a group of one; a group whose slots would pass cfg.group_bytes
     * flushes what it holds and starts afresh here, between two windows: memory stays
     * bounded whatever the group's size, and only the sharing is cut there */
    const int64_t budget = m->cfg.group_bytes > 0 ? m->cfg.group_bytes : DGNN_SNAPMODEL_GROUP_BYTES;
    if (!s->grouped) s->nslot = 0;
    else if (s->nslot > 0 && (s->nslot + T) * 5 * NL * (int64_t)sizeof(float) > budget) {
        wd_flush(m);
        s->nslot = 0;
    }
    const float *W1 = s->w.W1, *W2 = s->w.W2;
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &m->win[t];
        int fresh;
        const int64_t k = wd_slot_of(m, in, &fresh, err);
        if (k < 0) return (int)k;
        wd_slot *q = &s->slot[k];
        s->tslot[t] = k;
        if (fresh) {
            snapm_in_gcn_forward(m, q->E1, s->tmp, in, W1, NULL, L);
            dgnn_rrelu_forward(q->E1, q->sl1, q->E1, NL, lo, hi, rng != NULL, rng);
            snapm_h_gcn_forward(q->E2, s->tmp, &in->A, q->E1, W2, NULL, N, L, L);
            dgnn_rrelu_forward(q->E2, q->sl2, q->E2, NL, lo, hi, rng != NULL, rng);
            m->flops += 2.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 2.0 * (double)NL * (double)V);
        }
        const float *hp = t > 0 ? s->h + (t - 1) * NL : s->zero, *cp = t > 0 ? s->c + (t - 1) * NL : s->zero;
        lstm_step_forward(m, s->h + t * NL, s->c + t * NL, s->ls + t * 5 * NL, q->E2, hp, cp);
        m->flops += 2.0 * (double)NL * (double)L * 8.0;
    }
    memcpy(H, s->h + (T - 1) * NL, (size_t)NL * sizeof(float));
    return DGNN_OK;
}

/* The LSTM step's backward (the formulas of nn.h's dgnn_lstm_backward): dx (N, L)
 * and dh (N, L) overwritten, dc (N, L) overwritten with dL/dc_{t-1}; weights +=. */
static void lstm_step_backward(dgnn_snapmodel *m, float *dx, float *dh, float *dc, const float *dhout,
                               const float *dcout, const float *saved, const float *x, const float *h, const float *c) {
    wdgcn_t *s = m->impl;
    const int64_t N = m->N, L = m->L, G = 4 * L;
    const float *gates = saved, *tcn = saved + N * G;
    float *da = s->da;
#pragma omp parallel for schedule(static) if (N * L > 16384)
    for (int64_t b = 0; b < N; b++) {
        const float *gi = gates + b * G, *gf = gi + L, *gg = gi + 2 * L, *go = gi + 3 * L, *tc = tcn + b * L;
        float *d = da + b * G;
        for (int64_t k = 0; k < L; k++) {
            float dho = dhout[b * L + k];
            /* c' reaches the loss directly (dcout) and through h' = o tanh(c') */
            float dct = dcout[b * L + k] + dho * go[k] * (1.0f - tc[k] * tc[k]);
            float i = gi[k], f = gf[k], g = gg[k], o = go[k];
            d[k] = dct * g * i * (1.0f - i);
            d[L + k] = dct * c[b * L + k] * f * (1.0f - f);
            d[2 * L + k] = dct * i * (1.0f - g * g);
            d[3 * L + k] = dho * tc[k] * o * (1.0f - o);
            dc[b * L + k] = dct * f;
        }
    }
    const wdgcn_params *w = &s->w, *dw = &s->dw;
    dgnn_gemm_fixed(0, 0, N, L, G, da, G, w->W_ih, L, 0.0f, dx, L);
    dgnn_gemm_fixed(0, 0, N, L, G, da, G, w->W_hh, L, 0.0f, dh, L);
    dgnn_gemm_fixed(1, 0, G, L, N, da, G, x, L, 1.0f, dw->W_ih, L);
    dgnn_gemm_fixed(1, 0, G, L, N, da, G, h, L, 1.0f, dw->W_hh, L);
    snapm_colsum(dw->b_ih, da, N, G);
    snapm_colsum(dw->b_hh, da, N, G);
}

static void wd_backward(dgnn_snapmodel *m, const float *dH) {
    wdgcn_t *s = m->impl;
    const int64_t N = m->N, L = m->L, T = m->T, NL = N * L;
    float *dhn = s->dha, *dhp = s->dhb, *dcn = s->dca, *dcp = s->dcb; /* at t and t-1 */
    memcpy(dhn, dH, (size_t)NL * sizeof(float));
    memset(dcn, 0, (size_t)NL * sizeof(float));
    for (int64_t t = T - 1; t >= 0; t--) {
        const float *hp = t > 0 ? s->h + (t - 1) * NL : s->zero, *cp = t > 0 ? s->c + (t - 1) * NL : s->zero;
        wd_slot *q = &s->slot[s->tslot[t]];
        lstm_step_backward(m, s->dE, dhp, dcp, dhn, dcn, s->ls + t * 5 * NL, q->E2, hp, cp);
        /* dL/dE2_t into the snapshot's slot; its GCN backward waits for the group's end */
#pragma omp parallel for schedule(static) if (NL > 65536)
        for (int64_t i = 0; i < NL; i++) q->dE[i] += s->dE[i];
        q->pending = 1;
        m->flops += 2.0 * (double)NL * (double)L * 16.0;
        float *sw = dhn;
        dhn = dhp, dhp = sw;
        sw = dcn, dcn = dcp, dcp = sw;
    }
    if (!s->grouped) wd_flush(m);
}

const snapm_ops snapm_wdgcn_ops = {wd_declare, wd_init_values, wd_forward, wd_backward, wd_free, wd_group};
