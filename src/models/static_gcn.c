/* static_gcn.c: the static baseline "gcn": a 2-layer GCN that ignores time, run on the
 * union graph of the window's snapshots. The layers are the EvolveGCN reference code's
 * static GCN (models.py Sp_GCN: no bias, RReLU, weights (in, out) with utils.reset_param's
 * U(+-1/sqrt(out))); the reference runs it on the window's last snapshot only, this one on
 * every edge the window has seen, which is the baseline a dynamic model has to beat:
 *   A_u = D^-1/2 (B + I) D^-1/2,  B_uv = 1 if (u, v), u != v, is an entry of any A_hat_t of
 *                                 the window (weights and time dropped), D = row sums of B + I
 *   H1 = RReLU(A_u X_T W1),  H = RReLU(A_u H1 W2)      W1 (V, L), W2 (L, L)
 * X_T is the node input of the window's last snapshot (one-hot degree or features). For
 * symmetric snapshots (every At NULL) A_u is symmetric; otherwise D is the out-degree, as
 * snapshot.c's A_hat, and the backward uses A_u's transpose.
 *
 * The union is rebuilt at every forward, O(sum of the window's nnz) plus sorting each
 * row's columns, serially (deterministic and small beside the products), by
 * snapm_union_build (snapmodel_internal.h), which the GPU's static GCN (static_gcn_cuda.c)
 * calls too, so that both run on the same graph. */
#include "snapmodel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* the parameters (named pointers into the value or the gradient slab) */
typedef struct {
    float *W1; /* (V, L) */
    float *W2; /* (L, L) */
} sgcn_params;

typedef struct {
    int iW1, iW2;           /* the declared tensors' indices, to point w and dw */
    sgcn_params w, dw;      /* values, gradients */
    snapm_union u;          /* the union graph of the last forward */
    float *H1, *sl1, *sl2;  /* (N, L) */
    float *tmp, *dP, *dH1;  /* (N, L) */
} sgcn_t;

static void sgcn_free(dgnn_snapmodel *m) {
    sgcn_t *s = m->impl;
    if (!s) return;
    snapm_union_free(&s->u);
    void *ptrs[] = {s->H1, s->sl1, s->sl2, s->tmp, s->dP, s->dH1};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    free(s);
    m->impl = NULL;
}

static void sgcn_declare(dgnn_snapmodel *m) {
    sgcn_t *s = dgnn_xcalloc(1, sizeof *s);
    m->impl = s;
    s->iW1 = dgnn_params_add(&m->p, "gcn.W1", m->V, m->L);
    s->iW2 = dgnn_params_add(&m->p, "gcn.W2", m->L, m->L);
}

static void sgcn_point(sgcn_params *q, const dgnn_params *p, snapm_slab_fn at, const sgcn_t *s) {
    q->W1 = at(p, s->iW1), q->W2 = at(p, s->iW2);
}

static int sgcn_init_values(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err) {
    sgcn_t *s = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L;
    sgcn_point(&s->w, &m->p, dgnn_params_get, s);
    sgcn_point(&s->dw, &m->p, dgnn_params_grad, s);
    float b = (float)(1.0 / sqrt((double)L));
    dgnn_init_uniform(s->w.W1, V * L, -b, b, rng);
    dgnn_init_uniform(s->w.W2, L * L, -b, b, rng);
    dgnn_alloc_set as = {0, 0};
    snapm_union_init(&s->u, N, &as);
    const int64_t NL = MUL(N, L);
    float **bufs[] = {&s->H1, &s->sl1, &s->sl2, &s->tmp, &s->dP, &s->dH1};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) DGNN_GROW(&as, *bufs[i], NL);
    return snapm_alloc_done(m, &as, 0, err);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void snapm_union_init(snapm_union *u, int64_t N, dgnn_alloc_set *as) {
    memset(u, 0, sizeof *u);
    u->N = N, u->sym = 1;
    DGNN_GROW(as, u->rowptr, dgnn_size_add(N, 1));
    DGNN_GROW(as, u->mark, N);
}

void snapm_union_free(snapm_union *u) {
    if (!u->sym) dgnn_csr_free(&u->AuT);
    free(u->rowptr), free(u->col), free(u->val), free(u->mark);
    memset(u, 0, sizeof *u);
    u->sym = 1;
}

int snapm_union_build(snapm_union *u, const dgnn_snap_input *win, int64_t T, int sym, dgnn_err *err) {
    const int64_t N = u->N;
    int64_t bound = N;
    for (int64_t t = 0; t < T; t++) bound += win[t].A.nnz;
    if (bound > u->ccap) {
        dgnn_alloc_set as = {0, 0};
        DGNN_GROW(&as, u->col, bound);
        DGNN_GROW(&as, u->val, bound);
        int rc = dgnn_alloc_done(&as, err, "the union graph of a window of %lld snapshots (%lld entries)", (long long)T,
                                 (long long)bound);
        if (rc) return rc;
        u->ccap = bound;
    }
    for (int64_t v = 0; v < N; v++) u->mark[v] = -1;
    int64_t nnz = 0;
    for (int64_t r = 0; r < N; r++) {
        u->rowptr[r] = nnz;
        u->col[nnz++] = (int32_t)r, u->mark[r] = (int32_t)r; /* + I */
        for (int64_t t = 0; t < T; t++) {
            const dgnn_csr *A = &win[t].A;
            for (int64_t e = A->rowptr[r]; e < A->rowptr[r + 1]; e++) {
                int32_t v = A->col[e];
                if (u->mark[v] == (int32_t)r || A->val[e] == 0.0f) continue;
                u->mark[v] = (int32_t)r;
                u->col[nnz++] = v;
            }
        }
        qsort(u->col + u->rowptr[r], (size_t)(nnz - u->rowptr[r]), sizeof(int32_t), cmp_i32);
    }
    u->rowptr[N] = nnz;
    /* D^-1/2 (B + I) D^-1/2, D = the row counts (self loop included) */
    for (int64_t r = 0; r < N; r++) {
        double dr = (double)(u->rowptr[r + 1] - u->rowptr[r]);
        for (int64_t e = u->rowptr[r]; e < u->rowptr[r + 1]; e++) {
            int32_t v = u->col[e];
            double dv = (double)(u->rowptr[v + 1] - u->rowptr[v]);
            u->val[e] = (float)(1.0 / sqrt(dr * dv));
        }
    }
    u->Au = dgnn_csr_view(u->rowptr, u->col, u->val, N, N);
    if (!u->sym) dgnn_csr_free(&u->AuT);
    memset(&u->AuT, 0, sizeof u->AuT);
    u->sym = sym;
    if (sym) {
        u->AuT = u->Au;
        return DGNN_OK;
    }
    int rc = dgnn_csr_transpose(&u->AuT, &u->Au, err);
    if (rc) u->sym = 1, u->AuT = u->Au; /* nothing owned; the forward fails */
    return rc;
}

/* the window's last snapshot's input over the union graph */
static dgnn_snap_input union_input(const dgnn_snapmodel *m) {
    const sgcn_t *s = m->impl;
    dgnn_snap_input in = m->win[m->T - 1];
    in.A = s->u.Au;
    in.At = &s->u.AuT;
    return in;
}

static int sgcn_forward(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err) {
    sgcn_t *s = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L, NL = N * L;
    int sym = 1;
    for (int64_t t = 0; t < m->T; t++) sym &= m->win[t].At == NULL;
    int rc = snapm_union_build(&s->u, m->win, m->T, sym, err);
    if (rc) return rc;
    dgnn_snap_input in = union_input(m);
    snapm_in_gcn_forward(m, s->H1, s->tmp, &in, s->w.W1, NULL, L);
    dgnn_rrelu_forward(s->H1, s->sl1, s->H1, NL, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
    snapm_h_gcn_forward(H, s->tmp, &s->u.Au, s->H1, s->w.W2, NULL, N, L, L);
    dgnn_rrelu_forward(H, s->sl2, H, NL, m->cfg.rrelu_lower, m->cfg.rrelu_upper, rng != NULL, rng);
    m->flops = 2.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 2.0 * (double)NL * (double)V);
    return DGNN_OK;
}

static void sgcn_backward(dgnn_snapmodel *m, const float *dH) {
    sgcn_t *s = m->impl;
    const int64_t N = m->N, V = m->V, L = m->L, NL = N * L;
#pragma omp parallel for schedule(static) if (NL > 65536)
    for (int64_t i = 0; i < NL; i++) s->dP[i] = dH[i] * s->sl2[i], s->dH1[i] = 0.0f;
    snapm_h_gcn_backward(s->dH1, s->dw.W2, NULL, s->tmp, &s->u.AuT, s->H1, s->w.W2, s->dP, N, L, L);
#pragma omp parallel for schedule(static) if (NL > 65536)
    for (int64_t i = 0; i < NL; i++) s->dH1[i] *= s->sl1[i];
    dgnn_snap_input in = union_input(m);
    snapm_in_gcn_backward(m, s->dw.W1, NULL, s->tmp, &in, s->dH1, L);
    m->flops += 4.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 2.0 * (double)NL * (double)V);
}

const snapm_ops snapm_gcn_ops = {sgcn_declare, sgcn_init_values, sgcn_forward, sgcn_backward, sgcn_free, NULL};
