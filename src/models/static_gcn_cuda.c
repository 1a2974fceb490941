/* static_gcn_cuda.c: the static baseline "gcn" on the GPU (snapmodel_cuda.h), behind
 * snapmodel_cuda.c's table of kinds: static_gcn.c's forward and backward, op for op, of the
 * CUDA backend's ops, on the CPU kind's parameters (gcn.W1 (V, L), gcn.W2 (L, L), found by
 * name):
 *   H1 = RReLU(A_u X_T W1),  H = RReLU(A_u H1 W2)
 * with A_u the normalised binary union of the window's snapshots and X_T the last
 * snapshot's input. RReLU's keys: layer 1's, then layer 2's, as the CPU draws them.
 *
 * The union graph is the CPU's own: static_gcn.c's snapm_union_build, on host copies of the
 * snapshots' A_hat (kept from dgnn_snapmodel_cuda_inputs), then uploaded with its
 * transpose (when a snapshot of the window is not symmetric). A window's union is cached on
 * the device by window start (the trainer's windows come back every epoch) while the
 * cached unions stay under SGCN_CACHE_BYTES; past it a union is built and uploaded at each
 * forward, into one scratch slot. NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA
#include <stdlib.h>
#include <string.h>

/* device memory for the cached unions (their CSRs and transposes) */
#define SGCN_CACHE_BYTES ((size_t)256 << 20)

/* one window's union graph on the device */
typedef struct {
    int64_t T;              /* the window's length; 0: empty */
    dgnn_cuda_csr Au, AuT;  /* AuT.rows 0 when the union is symmetric (A_u is its own transpose) */
    size_t bytes;
} sgc_union;

/* the kind's part of the device model (g->impl) */
typedef struct {
    int64_t oW1, oW2;       /* slab offsets of static_gcn.c's tensors */
    /* host copies of the uploaded snapshots' A_hat (the union's input) */
    dgnn_snap_input *hin;   /* (nh) only .A set, a view of hmem[t] */
    void **hmem;            /* (nh) */
    uint8_t *hsym;          /* (nh) 1: the snapshot is symmetric (its input had no At) */
    int64_t nh;
    snapm_union u;          /* the host builder */
    sgc_union *cache;       /* (nh) by window start */
    size_t cached;          /* bytes held by cache */
    sgc_union scratch;      /* the union of a window past the cache's budget */
    sgc_union *cur;         /* the last forward's union */
    int64_t cur_last;       /* the last forward's last snapshot (X_T) */
    float *H1, *sl1, *sl2, *tmp, *dP, *dH1; /* (N, L) */
} sgcn_dev;

static void union_free(dgnn_snapmodel_cuda *g, sgc_union *e) {
    dgnn_cuda_csr_free(g->c, &e->Au), dgnn_cuda_csr_free(g->c, &e->AuT);
    memset(e, 0, sizeof *e);
}

/* the host copies and the device unions (after a sync: no queued op may use them) */
static void free_inputs(dgnn_snapmodel_cuda *g) {
    sgcn_dev *d = g->impl;
    for (int64_t t = 0; t < d->nh; t++) {
        free(d->hmem[t]);
        union_free(g, &d->cache[t]);
    }
    free(d->hin), free(d->hmem), free(d->hsym), free(d->cache);
    d->hin = NULL, d->hmem = NULL, d->hsym = NULL, d->cache = NULL;
    d->nh = 0, d->cached = 0;
    union_free(g, &d->scratch);
    d->cur = NULL;
}

static void sgc_free(dgnn_snapmodel_cuda *g) {
    sgcn_dev *d = g->impl;
    if (!d) return;
    free_inputs(g);
    snapm_union_free(&d->u);
    void *p[] = {d->H1, d->sl1, d->sl2, d->tmp, d->dP, d->dH1};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(d);
    g->impl = NULL;
}

static int sgc_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    sgcn_dev *d = dgnn_xcalloc(1, sizeof *d);
    g->impl = d;
    const int64_t N = g->N, NL = N * g->L;
    d->oW1 = snapc_offset(g->m, "gcn.W1"), d->oW2 = snapc_offset(g->m, "gcn.W2");
    dgnn_alloc_set as = {0, 0};
    snapm_union_init(&d->u, N, &as);
    int rc = dgnn_alloc_done(&as, err, "the union graph's row arrays (%lld nodes)", (long long)N);
    float **nl[] = {&d->H1, &d->sl1, &d->sl2, &d->tmp, &d->dP, &d->dH1};
    for (size_t i = 0; i < sizeof nl / sizeof nl[0] && !rc; i++)
        rc = SNAPC_ALLOC_F(g, *nl[i], NL, "the window's node activations");
    return rc; /* the front frees a partial kind (sgc_free) */
}

/* host copies of the n snapshots' A_hat: the union's input at every window */
static int sgc_inputs(dgnn_snapmodel_cuda *g, const dgnn_snap_input *in, int64_t n, dgnn_err *err) {
    sgcn_dev *d = g->impl;
    int rc = dgnn_cuda_sync(g->c, err);
    if (rc) return rc;
    free_inputs(g);
    const int64_t N = g->N, n1 = n > 0 ? n : 1;
    d->hin = dgnn_xcalloc((size_t)n1, sizeof *d->hin);
    d->hmem = dgnn_xcalloc((size_t)n1, sizeof *d->hmem);
    d->hsym = dgnn_xcalloc((size_t)n1, 1);
    d->cache = dgnn_xcalloc((size_t)n1, sizeof *d->cache);
    d->nh = n;
    for (int64_t t = 0; t < n; t++) {
        const dgnn_csr *A = &in[t].A;
        const size_t rb = (size_t)(N + 1) * sizeof(int64_t), cb = (size_t)A->nnz * sizeof(int32_t);
        char *b = malloc(rb + cb + (size_t)A->nnz * sizeof(float) + 1);
        if (!b) return dgnn_err_set(err, DGNN_ENOMEM, "--device cuda: a host copy of snapshot %lld (%lld entries)",
                                    (long long)t, (long long)A->nnz);
        d->hmem[t] = b;
        memcpy(b, A->rowptr, rb);
        memcpy(b + rb, A->col, cb);
        memcpy(b + rb + cb, A->val, (size_t)A->nnz * sizeof(float));
        d->hin[t].A = dgnn_csr_view((const int64_t *)b, (const int32_t *)(b + rb), (const float *)(b + rb + cb), N, N);
        d->hsym[t] = in[t].At == NULL;
    }
    return DGNN_OK;
}

/* the union graph of the window [t0, t0 + T) on the device: the cached one, or built on the
 * host (static_gcn.c's builder) and uploaded */
static int window_union(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, sgc_union **out, dgnn_err *err) {
    sgcn_dev *d = g->impl;
    if (t0 + T > d->nh)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: the static GCN has no host copy of snapshot %lld",
                            (long long)(t0 + T - 1));
    sgc_union *e = &d->cache[t0];
    if (e->T == T) return *out = e, DGNN_OK;
    int sym = 1;
    for (int64_t t = t0; t < t0 + T; t++) sym &= d->hsym[t];
    int rc = snapm_union_build(&d->u, d->hin + t0, T, sym, err);
    if (rc) return rc;
    const dgnn_csr *Au = &d->u.Au;
    const size_t one = (size_t)(Au->rows + 1) * sizeof(int32_t) + (size_t)Au->nnz * (sizeof(int32_t) + sizeof(float));
    const size_t bytes = sym ? one : 2 * one;
    /* the cache's entry or the scratch slot, freed (after a sync: a queued op may read it) */
    if (e->T) d->cached -= e->bytes;
    sgc_union *to = d->cached + bytes <= SGCN_CACHE_BYTES ? e : &d->scratch;
    if (to->T || e->T) {
        if ((rc = dgnn_cuda_sync(g->c, err))) return rc;
        union_free(g, to);
        union_free(g, e);
    }
    if ((rc = dgnn_cuda_csr_init(g->c, &to->Au, Au, err))) return rc;
    if (!sym && (rc = dgnn_cuda_csr_init(g->c, &to->AuT, &d->u.AuT, err))) return rc;
    to->T = T, to->bytes = bytes;
    if (to == e) d->cached += bytes;
    *out = to;
    return DGNN_OK;
}

/* the window [t0, t0 + T): static_gcn.c's sgcn_forward, H (N, L) into g->H */
static int sgc_forward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    sgcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
    const float lo = m->cfg.rrelu_lower, hi = m->cfg.rrelu_upper;
    const float *W1 = g->param + d->oW1, *W2 = g->param + d->oW2;
    sgc_union *U = NULL;
    int rc = window_union(g, t0, T, &U, err);
    if (rc) return rc;
    d->cur = U, d->cur_last = t0 + T - 1;
    const snapc_snap *s = &g->s[t0 + T - 1];
    const int training = rng != NULL;
    /* layer 1: A_u X_T W1 (a one-hot X gathers W1's rows) */
    if (m->cfg.onehot) {
        rc = dgnn_cuda_gcn_onehot_forward(c, d->H1, d->tmp, &U->Au, s->idx, W1, NULL, N, V, L, err);
    } else {
        rc = dgnn_cuda_gemm(c, 0, 0, N, L, V, s->feat, V, W1, L, 0.0f, d->tmp, L, err);
        if (!rc) rc = dgnn_cuda_spmm(c, d->H1, &U->Au, d->tmp, L, 0, err);
    }
    uint64_t key = training ? dgnn_rng_u64(rng) : 0; /* one draw per RReLU, as the CPU's */
    if (!rc) rc = dgnn_cuda_rrelu_forward(c, d->H1, d->sl1, d->H1, NL, lo, hi, training, &key, err);
    /* layer 2: A_u (H1 W2) */
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, N, L, L, d->H1, L, W2, L, 0.0f, d->tmp, L, err);
    if (!rc) rc = dgnn_cuda_spmm(c, g->H, &U->Au, d->tmp, L, 0, err);
    key = training ? dgnn_rng_u64(rng) : 0;
    if (!rc) rc = dgnn_cuda_rrelu_forward(c, g->H, d->sl2, g->H, NL, lo, hi, training, &key, err);
    return rc;
}

/* static_gcn.c's sgcn_backward from g->dH, over the last forward's union */
static int sgc_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
    (void)t0, (void)T;
    sgcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const float *W2 = g->param + d->oW2;
    float *dW1 = g->grad + d->oW1, *dW2 = g->grad + d->oW2;
    DGNN_ASSERT(d->cur != NULL);
    dgnn_cuda_csr *At = d->cur->AuT.rows ? &d->cur->AuT : &d->cur->Au;
    const snapc_snap *s = &g->s[d->cur_last];
    /* layer 2: dP = dH * slope; U = A_u^T dP; dW2 += H1^T U; dH1 = U W2^T */
    int rc = dgnn_cuda_zero(c, d->dP, NLb, err);
    if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dP, g->dH, d->sl2, NL, err);
    if (!rc) rc = dgnn_cuda_spmm(c, d->tmp, At, d->dP, L, 0, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, L, L, N, d->H1, L, d->tmp, L, 1.0f, dW2, L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, N, L, L, d->tmp, L, W2, L, 0.0f, d->dH1, L, err);
    /* layer 1, the input without gradient */
    if (!rc) rc = dgnn_cuda_zero(c, d->dP, NLb, err);
    if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dP, d->dH1, d->sl1, NL, err);
    if (g->m->cfg.onehot) {
        if (!rc) rc = dgnn_cuda_gcn_onehot_backward(c, dW1, NULL, d->tmp, d->dP, At, s->idx, N, V, L, err);
    } else {
        if (!rc) rc = dgnn_cuda_spmm(c, d->tmp, At, d->dP, L, 0, err);
        if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, V, L, N, s->feat, V, d->tmp, L, 1.0f, dW1, L, err);
    }
    return rc;
}

const snapc_ops snapc_gcn_ops = {.rows = 0, .init = sgc_init, .forward = sgc_forward, .backward = sgc_backward,
                                  .free = sgc_free, .inputs = sgc_inputs};
#endif
