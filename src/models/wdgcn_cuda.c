/* wdgcn_cuda.c: WD-GCN's window on the GPU (snapmodel_cuda.h), behind snapmodel_cuda.c's
 * table of kinds: wdgcn.c's forward and backward, op for op, of the CUDA backend's ops, on
 * the CPU kind's parameters (found by name in the host model's slab):
 *   E1_t = RReLU(A_t X_t W1), E2_t = RReLU(A_t E1_t W2)   (the GCN layers in the "X W" layout)
 *   (h_t, c_t) = LSTM(E2_t, (h_{t-1}, c_{t-1})), h_0 = c_0 = 0; H = h_T
 * RReLU's keys are drawn from the rng as wdgcn.c draws them: layer 1 then layer 2 at each
 * snapshot whose GCN runs.
 *
 * Groups (dgnn_snapmodel_cuda_group, wdgcn.c's top comment): the GCN outputs live in slots
 * keyed by the snapshot's index (the CPU keys them by the input's address: the same
 * snapshots, since the trainer's windows slice one array). Inside a group a snapshot's GCN
 * runs at its first window (its keys drawn from that window's rng), each window's backward
 * adds its dL/dE2_t into the slot (the LSTM backward's dx accumulates there), and the GCN
 * backward runs once per slot at the group's end, in slot order; cfg.group_bytes cuts the
 * group where the CPU cuts it (5 (N, L) arrays per slot, the same test). A window alone is
 * a group of one. So the device draws the CPU's slopes and sums the CPU's terms; only the
 * summation order inside the ops differs. NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA
#include <stdlib.h>
#include <string.h>

/* one snapshot's GCN outputs, each (N, L) on the device, in one block: E1, its slopes,
 * E2, its slopes, dE (the dL/dE2 the group's windows have added; zero when not pending) */
typedef struct {
    int64_t key; /* the snapshot's index among the uploaded ones */
    float *blk;  /* (5, N, L) */
    int pending;
} wdc_slot;

/* the kind's part of the device model (g->impl) */
typedef struct {
    int64_t oW1, oW2, oWih, oWhh, obih, obhh; /* slab offsets of wdgcn.c's tensors */
    int64_t Tcap;
    int64_t *tslot;       /* (Tcap) host: the slot of each window snapshot */
    float *ls, *h, *c;    /* (Tcap, N, 5L) the LSTM's saved; (Tcap, N, L) h_1..h_T, c_1..c_T */
    wdc_slot *slot;       /* (Scap) host structs; the first nslot are the current group's */
    int64_t nslot, Scap;
    int grouped;          /* 1 between the group's begin and end */
    float *zero;          /* (N, L) zeros: h_0 = c_0 */
    float *scratch;       /* (N, 4L) the LSTM cell's */
    float *tmp, *dP, *dE1, *dha, *dhb, *dca, *dcb; /* (N, L) */
} wdgcn_dev;

#define SLOT_E1(g, q) ((q)->blk)
#define SLOT_SL1(g, q) ((q)->blk + (g)->N * (g)->L)
#define SLOT_E2(g, q) ((q)->blk + 2 * (g)->N * (g)->L)
#define SLOT_SL2(g, q) ((q)->blk + 3 * (g)->N * (g)->L)
#define SLOT_DE(g, q) ((q)->blk + 4 * (g)->N * (g)->L)

static void free_window(dgnn_snapmodel_cuda *g) {
    wdgcn_dev *d = g->impl;
    dgnn_cuda_release(g->c, d->ls), dgnn_cuda_release(g->c, d->h), dgnn_cuda_release(g->c, d->c);
    free(d->tslot);
    d->ls = d->h = d->c = NULL;
    d->tslot = NULL;
    d->Tcap = 0;
}

static void wdc_free(dgnn_snapmodel_cuda *g) {
    wdgcn_dev *d = g->impl;
    if (!d) return;
    free_window(g);
    for (int64_t k = 0; k < d->Scap; k++) dgnn_cuda_release(g->c, d->slot[k].blk);
    free(d->slot);
    void *p[] = {d->zero, d->scratch, d->tmp, d->dP, d->dE1, d->dha, d->dhb, d->dca, d->dcb};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(d);
    g->impl = NULL;
}

static int wdc_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    wdgcn_dev *d = dgnn_xcalloc(1, sizeof *d);
    g->impl = d;
    const dgnn_snapmodel *m = g->m;
    const int64_t NL = g->N * g->L;
    d->oW1 = snapc_offset(m, "wdgcn.W1"), d->oW2 = snapc_offset(m, "wdgcn.W2");
    d->oWih = snapc_offset(m, "wdgcn.lstm.W_ih"), d->oWhh = snapc_offset(m, "wdgcn.lstm.W_hh");
    d->obih = snapc_offset(m, "wdgcn.lstm.b_ih"), d->obhh = snapc_offset(m, "wdgcn.lstm.b_hh");
    int rc = SNAPC_ALLOC_F(g, d->zero, NL, "the LSTM's initial state");
    if (!rc) rc = dgnn_cuda_zero(g->c, d->zero, (size_t)NL * sizeof(float), err);
    if (!rc) rc = SNAPC_ALLOC_F(g, d->scratch, 4 * NL, "the LSTM cell's scratch");
    float **nl[] = {&d->tmp, &d->dP, &d->dE1, &d->dha, &d->dhb, &d->dca, &d->dcb};
    for (size_t i = 0; i < sizeof nl / sizeof nl[0] && !rc; i++)
        rc = SNAPC_ALLOC_F(g, *nl[i], NL, "the window's node activations");
    return rc; /* the front frees a partial kind (wdc_free) */
}

static int ensure_window(dgnn_snapmodel_cuda *g, int64_t T, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    if (T <= d->Tcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(g->c, err);
    if (rc) return rc;
    free_window(g);
    const int64_t TNL = T * g->N * g->L;
    if ((rc = SNAPC_ALLOC_F(g, d->h, TNL, "the window's LSTM outputs")) ||
        (rc = SNAPC_ALLOC_F(g, d->c, TNL, "the window's LSTM cells")) ||
        (rc = SNAPC_ALLOC_F(g, d->ls, 5 * TNL, "the window's LSTM gates")))
        return rc;
    d->tslot = dgnn_xmalloc((size_t)T * sizeof(int64_t));
    d->Tcap = T;
    return DGNN_OK;
}

/* The slot of snapshot `key` in the current group: its index (found, *fresh = 0) or a new
 * one (*fresh = 1: its E1, E2 and slopes are for the caller to fill), as wdgcn.c's
 * wd_slot_of. Slots keep their device blocks from group to group; a block is allocated
 * (its dE zeroed) only past the largest group seen. Negative: an error. */
static int64_t slot_of(dgnn_snapmodel_cuda *g, int64_t key, int *fresh, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    for (int64_t k = 0; k < d->nslot; k++)
        if (d->slot[k].key == key) return *fresh = 0, k;
    if (d->nslot == d->Scap) {
        const int64_t cap = d->Scap ? 2 * d->Scap : 16;
        d->slot = dgnn_xrealloc(d->slot, (size_t)cap * sizeof *d->slot); /* a few host structs */
        memset(d->slot + d->Scap, 0, (size_t)(cap - d->Scap) * sizeof *d->slot);
        d->Scap = cap;
    }
    wdc_slot *q = &d->slot[d->nslot];
    if (!q->blk) {
        const int64_t NL = g->N * g->L;
        int rc = SNAPC_ALLOC_F(g, q->blk, 5 * NL, "a snapshot's GCN outputs (WD-GCN's group)");
        if (!rc) rc = dgnn_cuda_zero(g->c, SLOT_DE(g, q), (size_t)NL * sizeof(float), err);
        if (rc) return rc;
    }
    q->key = key, q->pending = 0;
    *fresh = 1;
    return d->nslot++;
}

/* The GCN backward of every slot with a pending dL/dE2 (then zeroed), in slot order:
 * wdgcn.c's wd_flush. */
static int flush(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const float *W2 = g->param + d->oW2;
    float *dW1 = g->grad + d->oW1, *dW2 = g->grad + d->oW2;
    int rc = DGNN_OK;
    for (int64_t k = 0; k < d->nslot && !rc; k++) {
        wdc_slot *q = &d->slot[k];
        if (!q->pending) continue;
        const snapc_snap *s = &g->s[q->key];
        dgnn_cuda_csr *At = (dgnn_cuda_csr *)(s->At.rows ? &s->At : &s->A);
        /* layer 2: E2 = RReLU(A E1 W2): dP = dE2 * slope; U = A^T dP; dW2 += E1^T U; dE1 = U W2^T */
        rc = dgnn_cuda_zero(c, d->dP, NLb, err);
        if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dP, SLOT_DE(g, q), SLOT_SL2(g, q), NL, err);
        if (!rc) rc = dgnn_cuda_spmm(c, d->tmp, At, d->dP, L, 0, err);
        if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, L, L, N, SLOT_E1(g, q), L, d->tmp, L, 1.0f, dW2, L, err);
        if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, N, L, L, d->tmp, L, W2, L, 0.0f, d->dE1, L, err);
        /* layer 1: E1 = RReLU(A X W1), the input without gradient */
        if (!rc) rc = dgnn_cuda_zero(c, d->dP, NLb, err);
        if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dP, d->dE1, SLOT_SL1(g, q), NL, err);
        if (m->cfg.onehot) {
            if (!rc) rc = dgnn_cuda_gcn_onehot_backward(c, dW1, NULL, d->tmp, d->dP, At, s->idx, N, V, L, err);
        } else {
            if (!rc) rc = dgnn_cuda_spmm(c, d->tmp, At, d->dP, L, 0, err);
            if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, V, L, N, s->feat, V, d->tmp, L, 1.0f, dW1, L, err);
        }
        if (!rc) rc = dgnn_cuda_zero(c, SLOT_DE(g, q), NLb, err);
        q->pending = 0;
    }
    return rc;
}

static int wdc_group(dgnn_snapmodel_cuda *g, int begin, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    int rc = begin ? DGNN_OK : flush(g, err);
    d->nslot = 0;
    d->grouped = begin;
    return rc;
}

/* E1 and E2 of snapshot s into slot q (wdgcn.c's fresh slot), RReLU's keys from rng */
static int gcn_forward(dgnn_snapmodel_cuda *g, const snapc_snap *s, wdc_slot *q, dgnn_rng *rng, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
    const float lo = m->cfg.rrelu_lower, hi = m->cfg.rrelu_upper;
    const float *W1 = g->param + d->oW1, *W2 = g->param + d->oW2;
    dgnn_cuda_csr *A = (dgnn_cuda_csr *)&s->A;
    float *E1 = SLOT_E1(g, q), *E2 = SLOT_E2(g, q);
    const int training = rng != NULL;
    int rc;
    /* layer 1: A X W1 (a one-hot X gathers W1's rows) */
    if (m->cfg.onehot) {
        rc = dgnn_cuda_gcn_onehot_forward(c, E1, d->tmp, A, s->idx, W1, NULL, N, V, L, err);
    } else {
        rc = dgnn_cuda_gemm(c, 0, 0, N, L, V, s->feat, V, W1, L, 0.0f, d->tmp, L, err);
        if (!rc) rc = dgnn_cuda_spmm(c, E1, A, d->tmp, L, 0, err);
    }
    uint64_t key = training ? dgnn_rng_u64(rng) : 0; /* one draw per RReLU, as the CPU's */
    if (!rc) rc = dgnn_cuda_rrelu_forward(c, E1, SLOT_SL1(g, q), E1, NL, lo, hi, training, &key, err);
    /* layer 2: A (E1 W2) */
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, N, L, L, E1, L, W2, L, 0.0f, d->tmp, L, err);
    if (!rc) rc = dgnn_cuda_spmm(c, E2, A, d->tmp, L, 0, err);
    key = training ? dgnn_rng_u64(rng) : 0;
    if (!rc) rc = dgnn_cuda_rrelu_forward(c, E2, SLOT_SL2(g, q), E2, NL, lo, hi, training, &key, err);
    return rc;
}

/* the window [t0, t0 + T): wdgcn.c's wd_forward, H (N, L) into g->H */
static int wdc_forward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    wdgcn_dev *d = g->impl;
    int rc = ensure_window(g, T, err);
    if (rc) return rc;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, L = g->L, NL = N * L;
    /* a window alone is a group of one; a group whose slots would pass cfg.group_bytes
     * runs what it holds and starts afresh here, as the CPU's does */
    const int64_t budget = m->cfg.group_bytes > 0 ? m->cfg.group_bytes : DGNN_SNAPMODEL_GROUP_BYTES;
    if (!d->grouped) d->nslot = 0;
    else if (d->nslot > 0 && (d->nslot + T) * 5 * NL * (int64_t)sizeof(float) > budget) {
        if ((rc = flush(g, err))) return rc;
        d->nslot = 0;
    }
    const float *Wih = g->param + d->oWih, *Whh = g->param + d->oWhh;
    const float *bih = g->param + d->obih, *bhh = g->param + d->obhh;
    for (int64_t t = 0; t < T && !rc; t++) {
        int fresh;
        const int64_t k = slot_of(g, t0 + t, &fresh, err);
        if (k < 0) return (int)k;
        wdc_slot *q = &d->slot[k];
        d->tslot[t] = k;
        if (fresh && (rc = gcn_forward(g, &g->s[t0 + t], q, rng, err))) return rc;
        const float *hp = t > 0 ? d->h + (t - 1) * NL : d->zero, *cp = t > 0 ? d->c + (t - 1) * NL : d->zero;
        rc = dgnn_cuda_lstm_forward(c, d->h + t * NL, d->c + t * NL, d->ls + t * 5 * NL, d->scratch, SLOT_E2(g, q), hp,
                                    cp, Wih, Whh, bih, bhh, N, L, L, err);
    }
    if (!rc) rc = dgnn_cuda_copy(c, g->H, d->h + (T - 1) * NL, (size_t)NL * sizeof(float), err);
    return rc;
}

/* wdgcn.c's wd_backward from g->dH: the LSTM steps T..1, each dL/dE2_t added into its
 * snapshot's slot (the LSTM backward's dx +=); the GCN backward waits for the group's end
 * (now, for a window alone). */
static int wdc_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
    (void)t0;
    wdgcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L, NL = N * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const float *Wih = g->param + d->oWih, *Whh = g->param + d->oWhh;
    float *dWih = g->grad + d->oWih, *dWhh = g->grad + d->oWhh, *dbih = g->grad + d->obih, *dbhh = g->grad + d->obhh;
    const float *dhout = g->dH, *dcout = NULL; /* dL/dh_T; c_T reaches the loss only through h_T */
    float *dhp = d->dha, *dcp = d->dca;         /* dL/dh_{t-1}, dL/dc_{t-1} */
    int rc = DGNN_OK;
    for (int64_t t = T - 1; t >= 0 && !rc; t--) {
        wdc_slot *q = &d->slot[d->tslot[t]];
        const float *hp = t > 0 ? d->h + (t - 1) * NL : d->zero, *cp = t > 0 ? d->c + (t - 1) * NL : d->zero;
        if (t > 0) { /* h_0 = c_0 = 0 are constants: no gradient */
            rc = dgnn_cuda_zero(c, dhp, NLb, err);
            if (!rc) rc = dgnn_cuda_zero(c, dcp, NLb, err);
        }
        if (!rc)
            rc = dgnn_cuda_lstm_backward(c, SLOT_DE(g, q), t > 0 ? dhp : NULL, t > 0 ? dcp : NULL, dWih, dWhh, dbih,
                                         dbhh, d->scratch, dhout, dcout, d->ls + t * 5 * NL, SLOT_E2(g, q), hp, cp, Wih,
                                         Whh, N, L, L, err);
        q->pending = 1;
        /* this step's dL/dh_{t-1}, dL/dc_{t-1} are the next step's outputs' gradients */
        dhout = dhp, dcout = dcp;
        dhp = dhp == d->dha ? d->dhb : d->dha;
        dcp = dcp == d->dca ? d->dcb : d->dca;
    }
    if (!rc && !d->grouped) rc = flush(g, err);
    return rc;
}

const snapc_ops snapc_wdgcn_ops = {.rows = 0, .init = wdc_init, .forward = wdc_forward, .backward = wdc_backward,
                                    .free = wdc_free, .group = wdc_group};
#endif
