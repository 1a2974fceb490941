/* test_cuda_cls.c: the GPU's pair classifier of the snapshot models (snap_cls.cu) against
 * the CPU classifier, snapmodel.h's dgnn_snapmodel_edge_* (built only with -DDGNN_CUDA=ON;
 * without a device it checks that opening one is refused, then skips with 77). With one,
 * for a CPU EvolveGCN-O model of each size below (its classifier's parameters uploaded from
 * the model's slab), random H (N, L) and random pairs, some nodes repeated many times (a
 * hub source), some never a source and some never a destination:
 *  - P and Q (dgnn_cuda_cls_nodes) and hid against a double reference, the logits
 *    (dgnn_cuda_cls_pairs_forward) against dgnn_snapmodel_edge_forward; outputs the op must
 *    write whole start as NaN;
 *  - from random dlogits and random starting gradients (the ops accumulate): dH and the
 *    classifier's gradients (cls.W1, cls.b1, cls.W2, cls.b2, the model's last four
 *    tensors) against dgnn_snapmodel_edge_backward's, and dP, dQ (zero rows for the nodes
 *    without pairs) against a double reference;
 *  - the backward run twice, and prob_rows run twice: the same bits;
 *  - K = 2: dgnn_cuda_cls_prob_rows for rows u0 .. u0 + rows - 1 (u0 > 0, rows < N, across
 *    the kernel's 32-row and 64-destination tiles) against dgnn_snapmodel_edge_prob_rows;
 *  - K = 3 (the classifier is general in K; prob_rows is not);
 *  - M = 0: the forward and the backward touch nothing; the refusals (negative sizes, rows
 *    past N, pairs without nodes, missing or aliased gradients).
 * The ReLU's kink: where a pre-activation is within rounding of 0, the CPU and the GPU may
 * disagree on the mask, and the gradients then differ by a whole term. The test moves
 * each column's bias b1[c] (in the model's slab, so both sides use it) until every pair's
 * pre-activation in that column is at least KINK_MARGIN from 0 (exact arithmetic in
 * double), so a mismatch means a bug, not rounding.
 * Tolerances are relative (never exact float equality between CPU and GPU): the forward
 * values within tol (1 + |ref|); the gradients, sums over many pairs and nodes, within
 * tol (|ref| + 0.1 max |ref|) of the array. */
#include "cuda_check.h"

#include "dgnn/params.h"
#include "dgnn/snapmodel.h"

#define KINK_MARGIN 1e-5

typedef struct {
    int64_t N, L, C, K, M; /* nodes, hidden, classifier hidden, classes, pairs */
    int64_t u0, rows;      /* prob_rows' rows (K = 2) */
    uint64_t seed;
} cls_case;

/* ---- helpers ---- */

static float *upnanf(dgnn_cuda *c, int64_t n) { return upnan(c, (size_t)n * sizeof(float)); }
static int32_t *upi(dgnn_cuda *c, const int32_t *x, int64_t n) { return upb(c, x, (size_t)n * sizeof(int32_t)); }

static float *copyf(const float *x, int64_t n) {
    float *y = malloc((size_t)(n + 1) * sizeof(float));
    memcpy(y, x, (size_t)n * sizeof(float));
    return y;
}

static float *downf(dgnn_cuda *c, const float *d, int64_t n, const char *what) {
    float *h = malloc((size_t)(n + 1) * sizeof(float));
    down(c, h, d, (size_t)n * sizeof(float), what);
    return h;
}

/* host h against ref (n) within tol (|ref| + 0.1 max |ref|) */
static void near_scaled(const char *what, const float *h, const float *ref, int64_t n, double tol) {
    double mx = 0;
    for (int64_t i = 0; i < n; i++) mx = fmax(mx, fabs((double)ref[i]));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)h[i] - ref[i]) <= tol * (fabs((double)ref[i]) + 0.1 * mx) + 1e-30))
            bad++, first = first < 0 ? i : first;
    CHECK_MSG(bad == 0, "%s: %lld of %lld off (first %lld: %g vs %g; max |ref| %g)", what, (long long)bad,
              (long long)n, (long long)first, first >= 0 ? h[first] : 0.0, first >= 0 ? ref[first] : 0.0, mx);
}
static void near_scaled_d(dgnn_cuda *c, const char *what, const float *d, const float *ref, int64_t n, double tol) {
    float *h = downf(c, d, n, what);
    near_scaled(what, h, ref, n, tol);
    free(h);
}

/* the stable counting sort of key (M) in [0, N): off (N + 1), perm (M) lists the pairs of
 * node u in ascending order in perm[off[u] .. off[u + 1]) */
static void group_by(int32_t *off, int32_t *perm, const int32_t *key, int64_t M, int64_t N) {
    memset(off, 0, (size_t)(N + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < M; i++) off[key[i] + 1]++;
    for (int64_t u = 0; u < N; u++) off[u + 1] += off[u];
    int32_t *pos = malloc((size_t)(N + 1) * sizeof(int32_t));
    memcpy(pos, off, (size_t)(N + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < M; i++) perm[pos[key[i]]++] = (int32_t)i;
    free(pos);
}

/* Pd, Qd (N, C) in double: H W1a^T + b1, H W1b^T */
static void nodes_ref(double *Pd, double *Qd, const float *H, const float *W1, const float *b1, int64_t N, int64_t L,
                      int64_t C) {
    for (int64_t u = 0; u < N; u++)
        for (int64_t c = 0; c < C; c++) {
            double p = b1[c], q = 0;
            for (int64_t j = 0; j < L; j++) {
                p += (double)W1[c * 2 * L + j] * H[u * L + j];
                q += (double)W1[c * 2 * L + L + j] * H[u * L + j];
            }
            Pd[u * C + c] = p, Qd[u * C + c] = q;
        }
}

/* moves b1[c] until every pair's pre-activation in column c is KINK_MARGIN from 0 */
static void clear_kinks(float *b1, const float *H, const float *W1, const int32_t *src, const int32_t *dst,
                        int64_t N, int64_t L, int64_t C, int64_t M, dgnn_rng *r) {
    double *Pd = malloc((size_t)(N * C + 1) * sizeof(double)), *Qd = malloc((size_t)(N * C + 1) * sizeof(double));
    nodes_ref(Pd, Qd, H, W1, b1, N, L, C);
    for (int64_t c = 0; c < C; c++) {
        int ok = 0;
        for (int tries = 0; tries < 1000 && !ok; tries++) {
            ok = 1;
            for (int64_t i = 0; i < M && ok; i++) {
                /* Pd holds the current b1[c]: the bias moves only after a failed pass */
                const double x = Pd[(int64_t)src[i] * C + c] + Qd[(int64_t)dst[i] * C + c];
                if (fabs(x) < KINK_MARGIN) ok = 0;
            }
            if (!ok) {
                const float old = b1[c];
                b1[c] = old + (float)(0.02 * (dgnn_rng_uniform(r) - 0.5));
                for (int64_t u = 0; u < N; u++) Pd[u * C + c] += (double)b1[c] - (double)old;
            }
        }
        CHECK_MSG(ok, "column %lld: no bias keeps the pairs off the ReLU's kink", (long long)c);
    }
    free(Pd), free(Qd);
}

/* the classifier's tensors in the model's slab */
typedef struct {
    int iW1, ib1, iW2, ib2;
} cls_idx;

static cls_idx cls_find(const dgnn_params *p) {
    cls_idx x = {dgnn_params_find(p, "cls.W1"), dgnn_params_find(p, "cls.b1"), dgnn_params_find(p, "cls.W2"),
                 dgnn_params_find(p, "cls.b2")};
    const int n = p->ntensors;
    CHECK(x.iW1 == n - 4 && x.ib1 == n - 3 && x.iW2 == n - 2 && x.ib2 == n - 1); /* the last four declared */
    return x;
}

/* ---- one size ---- */

/* the device arrays of one backward's outputs */
typedef struct {
    float *dH, *dW1, *db1, *dW2, *db2, *dP, *dQ, *scr;
} bwd_out;

static void bwd_upload(dgnn_cuda *c, bwd_out *o, const float *dH0, const float *g0[4], int64_t N, int64_t L,
                       int64_t C, int64_t K, int64_t M) {
    o->dH = up(c, dH0, N * L);
    o->dW1 = up(c, g0[0], C * 2 * L), o->db1 = up(c, g0[1], C);
    o->dW2 = up(c, g0[2], K * C), o->db2 = up(c, g0[3], K);
    o->dP = upnanf(c, N * C), o->dQ = upnanf(c, N * C), o->scr = upnanf(c, M * C);
}
static void bwd_release(dgnn_cuda *c, bwd_out *o) {
    RELEASE(c, o->dH, o->dW1, o->db1, o->dW2, o->db2, o->dP, o->dQ, o->scr);
}

/* bitwise equality of device arrays a and b (n floats) */
static void same_bits_d(dgnn_cuda *c, const char *what, const float *a, const float *b, int64_t n) {
    float *ha = downf(c, a, n, what), *hb = downf(c, b, n, what);
    CHECK_MSG(memcmp(ha, hb, (size_t)n * sizeof(float)) == 0, "%s: two runs differ", what);
    FREE(ha, hb);
}

static void test_case(dgnn_cuda *c, const cls_case *k) {
    const int64_t N = k->N, L = k->L, C = k->C, K = k->K, M = k->M;
    printf("  N=%lld L=%lld C=%lld K=%lld M=%lld\n", (long long)N, (long long)L, (long long)C, (long long)K,
           (long long)M);
    dgnn_snapmodel_cfg cfg = dgnn_snapmodel_cfg_default(DGNN_SNAPMODEL_EGCN_O);
    cfg.num_nodes = N, cfg.in_dim = 3, cfg.hidden = L, cfg.cls_hidden = C, cfg.num_classes = K;
    cfg.seed = k->seed;
    dgnn_snapmodel *m = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_snapmodel_init(&m, &cfg, &err) == DGNN_OK, "%s", err.msg);
    if (!m) return;
    dgnn_params *p = dgnn_snapmodel_params(m);
    const cls_idx ix = cls_find(p);
    float *W1 = dgnn_params_get(p, ix.iW1), *b1 = dgnn_params_get(p, ix.ib1);
    float *W2 = dgnn_params_get(p, ix.iW2), *b2 = dgnn_params_get(p, ix.ib2);
    float *gW1 = dgnn_params_grad(p, ix.iW1), *gb1 = dgnn_params_grad(p, ix.ib1);
    float *gW2 = dgnn_params_grad(p, ix.iW2), *gb2 = dgnn_params_grad(p, ix.ib2);

    dgnn_rng r;
    dgnn_rng_seed(&r, k->seed * 7919 + 1);
    float *H = rnd(N * L, -1, 1, &r);
    /* pairs: every 5th source the hub (node N/2), the others below N - N/4 (the top
     * quarter never a source); destinations at N/4 and above (the bottom quarter never one) */
    int32_t *src = malloc((size_t)(M + 1) * sizeof(int32_t)), *dst = malloc((size_t)(M + 1) * sizeof(int32_t));
    const int64_t sN = N - N / 4, d0 = N / 4;
    for (int64_t i = 0; i < M; i++) {
        src[i] = i % 5 == 0 ? (int32_t)(N / 2) : (int32_t)dgnn_rng_below(&r, (uint64_t)sN);
        dst[i] = (int32_t)(d0 + (int64_t)dgnn_rng_below(&r, (uint64_t)(N - d0)));
    }
    clear_kinks(b1, H, W1, src, dst, N, L, C, M, &r);
    int32_t *soff = malloc((size_t)(N + 1) * sizeof(int32_t)), *doff = malloc((size_t)(N + 1) * sizeof(int32_t));
    int32_t *sperm = malloc((size_t)(M + 1) * sizeof(int32_t)), *dperm = malloc((size_t)(M + 1) * sizeof(int32_t));
    group_by(soff, sperm, src, M, N);
    group_by(doff, dperm, dst, M, N);

    /* ---- forward ---- */
    float *logits = malloc((size_t)(M * K + 1) * sizeof(float));
    CHECK_MSG(dgnn_snapmodel_edge_forward(m, logits, H, src, dst, M, &err) == DGNN_OK, "%s", err.msg);
    double *Pd = malloc((size_t)(N * C + 1) * sizeof(double)), *Qd = malloc((size_t)(N * C + 1) * sizeof(double));
    nodes_ref(Pd, Qd, H, W1, b1, N, L, C);
    float *Pr = malloc((size_t)(N * C + 1) * sizeof(float)), *Qr = malloc((size_t)(N * C + 1) * sizeof(float));
    for (int64_t i = 0; i < N * C; i++) Pr[i] = (float)Pd[i], Qr[i] = (float)Qd[i];
    float *hidr = malloc((size_t)(M * C + 1) * sizeof(float));
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < C; j++) {
            const double x = Pd[(int64_t)src[i] * C + j] + Qd[(int64_t)dst[i] * C + j];
            hidr[i * C + j] = x > 0 ? (float)x : 0.0f;
        }

    float *d_H = up(c, H, N * L), *d_W1 = up(c, W1, C * 2 * L), *d_b1 = up(c, b1, C);
    float *d_W2 = up(c, W2, K * C), *d_b2 = up(c, b2, K);
    int32_t *d_src = upi(c, src, M), *d_dst = upi(c, dst, M);
    int32_t *d_soff = upi(c, soff, N + 1), *d_sperm = upi(c, sperm, M);
    int32_t *d_doff = upi(c, doff, N + 1), *d_dperm = upi(c, dperm, M);
    float *d_P = upnanf(c, N * C), *d_Q = upnanf(c, N * C), *d_hid = upnanf(c, M * C);
    float *d_logits = upnanf(c, M * K);
    CUDA_OK(dgnn_cuda_cls_nodes(c, d_P, d_Q, d_H, d_W1, d_b1, N, L, C, ERR));
    CUDA_OK(dgnn_cuda_cls_pairs_forward(c, d_logits, d_hid, d_P, d_Q, d_src, d_dst, d_W2, d_b2, M, C, K, ERR));
    same_keep(c, "P", d_P, Pr, N * C, 3e-5);
    same_keep(c, "Q", d_Q, Qr, N * C, 3e-5);
    same_keep(c, "hid", d_hid, hidr, M * C, 3e-5);
    same_keep(c, "logits", d_logits, logits, M * K, 1e-4);

    /* ---- backward ---- */
    float *dlogits = rnd(M * K, -1, 1, &r), *dH0 = rnd(N * L, -0.5f, 0.5f, &r);
    float *g0W1 = rnd(C * 2 * L, -0.5f, 0.5f, &r), *g0b1 = rnd(C, -0.5f, 0.5f, &r);
    float *g0W2 = rnd(K * C, -0.5f, 0.5f, &r), *g0b2 = rnd(K, -0.5f, 0.5f, &r);
    memcpy(gW1, g0W1, (size_t)(C * 2 * L) * sizeof(float)), memcpy(gb1, g0b1, (size_t)C * sizeof(float));
    memcpy(gW2, g0W2, (size_t)(K * C) * sizeof(float)), memcpy(gb2, g0b2, (size_t)K * sizeof(float));
    float *dHc = copyf(dH0, N * L);
    dgnn_snapmodel_edge_backward(m, dHc, dlogits);
    /* dP, dQ in double from the exact masks */
    double *dPd = calloc((size_t)(N * C + 1), sizeof(double)), *dQd = calloc((size_t)(N * C + 1), sizeof(double));
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < C; j++) {
            if (!(hidr[i * C + j] > 0)) continue;
            double g = 0;
            for (int64_t q = 0; q < K; q++) g += (double)W2[q * C + j] * dlogits[i * K + q];
            dPd[(int64_t)src[i] * C + j] += g, dQd[(int64_t)dst[i] * C + j] += g;
        }
    float *dPr = malloc((size_t)(N * C + 1) * sizeof(float)), *dQr = malloc((size_t)(N * C + 1) * sizeof(float));
    for (int64_t i = 0; i < N * C; i++) dPr[i] = (float)dPd[i], dQr[i] = (float)dQd[i];

    float *d_dlogits = up(c, dlogits, M * K);
    const float *g0[4] = {g0W1, g0b1, g0W2, g0b2};
    bwd_out o1, o2;
    bwd_upload(c, &o1, dH0, g0, N, L, C, K, M);
    bwd_upload(c, &o2, dH0, g0, N, L, C, K, M);
    CUDA_OK(dgnn_cuda_cls_pairs_backward(c, o1.dH, o1.dW1, o1.db1, o1.dW2, o1.db2, o1.dP, o1.dQ, o1.scr, d_dlogits,
                                         d_hid, d_H, d_W1, d_W2, d_soff, d_sperm, d_doff, d_dperm, N, M, L, C, K,
                                         ERR));
    CUDA_OK(dgnn_cuda_cls_pairs_backward(c, o2.dH, o2.dW1, o2.db1, o2.dW2, o2.db2, o2.dP, o2.dQ, o2.scr, d_dlogits,
                                         d_hid, d_H, d_W1, d_W2, d_soff, d_sperm, d_doff, d_dperm, N, M, L, C, K,
                                         ERR));
    near_scaled_d(c, "dP", o1.dP, dPr, N * C, 1e-4);
    near_scaled_d(c, "dQ", o1.dQ, dQr, N * C, 1e-4);
    near_scaled_d(c, "dH", o1.dH, dHc, N * L, 1e-4);
    near_scaled_d(c, "dW1", o1.dW1, gW1, C * 2 * L, 1e-4);
    near_scaled_d(c, "db1", o1.db1, gb1, C, 1e-4);
    near_scaled_d(c, "dW2", o1.dW2, gW2, K * C, 1e-4);
    near_scaled_d(c, "db2", o1.db2, gb2, K, 1e-4);
    {   /* the nodes without pairs get exact zero rows */
        float *hP = downf(c, o1.dP, N * C, "dP"), *hQ = downf(c, o1.dQ, N * C, "dQ");
        int64_t bad = 0;
        for (int64_t u = 0; u < N; u++)
            for (int64_t j = 0; j < C; j++) {
                if (soff[u] == soff[u + 1]) bad += hP[u * C + j] != 0.0f;
                if (doff[u] == doff[u + 1]) bad += hQ[u * C + j] != 0.0f;
            }
        CHECK_MSG(bad == 0, "dP / dQ: %lld entries of nodes without pairs are not 0", (long long)bad);
        FREE(hP, hQ);
    }
    same_bits_d(c, "backward dH", o1.dH, o2.dH, N * L);
    same_bits_d(c, "backward dW1", o1.dW1, o2.dW1, C * 2 * L);
    same_bits_d(c, "backward db1", o1.db1, o2.db1, C);
    same_bits_d(c, "backward dW2", o1.dW2, o2.dW2, K * C);
    same_bits_d(c, "backward db2", o1.db2, o2.db2, K);
    same_bits_d(c, "backward dP", o1.dP, o2.dP, N * C);
    same_bits_d(c, "backward dQ", o1.dQ, o2.dQ, N * C);
    same_bits_d(c, "backward scratch", o1.scr, o2.scr, M * C);
    /* dH NULL: the parameter gradients alone, the same bits as with it */
    bwd_out o3;
    bwd_upload(c, &o3, dH0, g0, N, L, C, K, M);
    CUDA_OK(dgnn_cuda_cls_pairs_backward(c, NULL, o3.dW1, o3.db1, o3.dW2, o3.db2, o3.dP, o3.dQ, o3.scr, d_dlogits,
                                         d_hid, d_H, d_W1, d_W2, d_soff, d_sperm, d_doff, d_dperm, N, M, L, C, K,
                                         ERR));
    same_bits_d(c, "backward without dH: dW1", o1.dW1, o3.dW1, C * 2 * L);
    {
        float *h = downf(c, o3.dH, N * L, "dH untouched");
        CHECK_MSG(memcmp(h, dH0, (size_t)(N * L) * sizeof(float)) == 0, "dH NULL: dH changed");
        free(h);
    }
    bwd_release(c, &o1), bwd_release(c, &o2), bwd_release(c, &o3);

    /* ---- all pairs ---- */
    if (K == 2 && k->rows > 0) {
        const int64_t u0 = k->u0, R = k->rows;
        float *prob = malloc((size_t)(R * N + 1) * sizeof(float));
        CHECK_MSG(dgnn_snapmodel_edge_prob_rows(m, prob, H, u0, R, &err) == DGNN_OK, "%s", err.msg);
        float *d_prob = upnanf(c, R * N), *d_prob2 = upnanf(c, R * N);
        CUDA_OK(dgnn_cuda_cls_prob_rows(c, d_prob, d_P, d_Q, d_W2, d_b2, u0, R, N, C, ERR));
        CUDA_OK(dgnn_cuda_cls_prob_rows(c, d_prob2, d_P, d_Q, d_W2, d_b2, u0, R, N, C, ERR));
        same_keep(c, "prob_rows", d_prob, prob, R * N, 1e-4);
        same_bits_d(c, "prob_rows", d_prob, d_prob2, R * N);
        RELEASE(c, d_prob, d_prob2);
        free(prob);
    }

    RELEASE(c, d_H, d_W1, d_b1, d_W2, d_b2, d_src, d_dst, d_soff, d_sperm, d_doff, d_dperm, d_P, d_Q, d_hid,
            d_logits, d_dlogits);
    FREE(H, src, dst, soff, doff, sperm, dperm, logits, Pd, Qd, Pr, Qr, hidr, dlogits, dH0, g0W1, g0b1, g0W2, g0b2,
         dHc, dPd, dQd, dPr, dQr);
    dgnn_snapmodel_free(m);
}

/* ---- M = 0 and the refusals ---- */

static void test_empty_and_refusals(dgnn_cuda *c) {
    const int64_t N = 5, L = 3, C = 4, K = 2;
    dgnn_rng r;
    dgnn_rng_seed(&r, 99);
    float *H = rnd(N * L, -1, 1, &r), *W1 = rnd(C * 2 * L, -1, 1, &r), *b1 = rnd(C, -1, 1, &r);
    float *W2 = rnd(K * C, -1, 1, &r), *b2 = rnd(K, -1, 1, &r), *s0 = rnd(64, -1, 1, &r);
    float *d_H = up(c, H, N * L), *d_W1 = up(c, W1, C * 2 * L), *d_b1 = up(c, b1, C), *d_W2 = up(c, W2, K * C);
    float *d_b2 = up(c, b2, K), *d_P = upnanf(c, N * C), *d_Q = upnanf(c, N * C);
    float *g[8];
    for (int i = 0; i < 8; i++) g[i] = up(c, s0, 64); /* dH, dW1, db1, dW2, db2, dP, dQ, scratch */
    int32_t off[6] = {0, 0, 0, 0, 0, 0};
    int32_t *d_off = upi(c, off, N + 1);
    CUDA_OK(dgnn_cuda_cls_nodes(c, d_P, d_Q, d_H, d_W1, d_b1, N, L, C, ERR));
    /* M = 0: nothing written (the arrays may be NULL) */
    CUDA_OK(dgnn_cuda_cls_pairs_forward(c, NULL, NULL, d_P, d_Q, NULL, NULL, d_W2, d_b2, 0, C, K, ERR));
    CUDA_OK(dgnn_cuda_cls_pairs_backward(c, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], NULL, NULL, d_H, d_W1,
                                         d_W2, d_off, NULL, d_off, NULL, N, 0, L, C, K, ERR));
    CUDA_OK(dgnn_cuda_cls_pairs_backward(c, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                         NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, ERR));
    for (int i = 0; i < 8; i++) {
        float *h = downf(c, g[i], 64, "M = 0");
        CHECK_MSG(memcmp(h, s0, 64 * sizeof(float)) == 0, "M = 0: array %d of the backward changed", i);
        free(h);
    }
    /* rows = 0, N = 0, nodes = 0: nothing to do */
    CUDA_OK(dgnn_cuda_cls_prob_rows(c, NULL, d_P, d_Q, d_W2, d_b2, 2, 0, N, C, ERR));
    CUDA_OK(dgnn_cuda_cls_prob_rows(c, NULL, NULL, NULL, d_W2, d_b2, 0, 0, 0, C, ERR));
    CUDA_OK(dgnn_cuda_cls_nodes(c, NULL, NULL, NULL, d_W1, d_b1, 0, L, C, ERR));
    /* refusals */
    float *d = g[7];
    const int32_t *di = d_off;
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_cls_nodes(c, d, d, d, d, d, -1, L, C, ERR) == DGNN_EINVAL);
    CHECK(strstr(ERR->msg, "dgnn_cuda_cls_nodes") != NULL);
    CHECK(dgnn_cuda_cls_nodes(c, d, d, d, d, d, N, -1, C, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_nodes(c, d, d, d, d, d, N, L, -1, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_pairs_forward(c, d, d, d, d, di, di, d, d, -1, C, K, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_pairs_forward(c, d, d, d, d, di, di, d, d, 1, -1, K, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_pairs_forward(c, d, d, d, d, di, di, d, d, 1, C, -2, ERR) == DGNN_EINVAL);
    const int64_t bad[5][5] = {{-1, 1, L, C, K}, {N, -1, L, C, K}, {N, 1, -1, C, K}, {N, 1, L, -1, K},
                               {N, 1, L, C, -1}};
    for (int i = 0; i < 5; i++)
        CHECK(dgnn_cuda_cls_pairs_backward(c, d, d, d, d, d, g[5], g[6], g[7], d, d, d, d, d, di, di, di, di,
                                           bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], ERR) == DGNN_EINVAL);
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_cls_pairs_backward(c, d, d, d, d, d, g[5], g[6], g[7], d, d, d, d, d, di, di, di, di, 0, 3, L, C,
                                       K, ERR) == DGNN_EINVAL); /* pairs without nodes */
    CHECK(strstr(ERR->msg, "dgnn_cuda_cls_pairs_backward") != NULL);
    CHECK(dgnn_cuda_cls_pairs_backward(c, d, NULL, d, d, d, g[5], g[6], g[7], d, d, d, d, d, di, di, di, di, N, 3, L,
                                       C, K, ERR) == DGNN_EINVAL); /* dW1 missing */
    CHECK(dgnn_cuda_cls_pairs_backward(c, d, d, d, d, d, g[5], g[5], g[7], d, d, d, d, d, di, di, di, di, N, 3, L, C,
                                       K, ERR) == DGNN_EINVAL); /* dP = dQ */
    CHECK(dgnn_cuda_cls_prob_rows(c, d, d_P, d_Q, d_W2, d_b2, 3, 3, N, C, ERR) == DGNN_EINVAL); /* past N */
    CHECK(dgnn_cuda_cls_prob_rows(c, d, d_P, d_Q, d_W2, d_b2, -1, 1, N, C, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_prob_rows(c, d, d_P, d_Q, d_W2, d_b2, 0, -1, N, C, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_prob_rows(c, d, d_P, d_Q, d_W2, d_b2, 0, 1, N, -1, ERR) == DGNN_EINVAL);
    CHECK(dgnn_cuda_cls_prob_rows(c, d, d_P, d_Q, d_W2, d_b2, 6, 0, N, C, ERR) == DGNN_EINVAL); /* u0 past N */
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    RELEASE(c, d_H, d_W1, d_b1, d_W2, d_b2, d_P, d_Q, d_off);
    for (int i = 0; i < 8; i++) dgnn_cuda_release(c, g[i]);
    FREE(H, W1, b1, W2, b2, s0);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_cls");
    const cls_case cases[] = {
        {37, 13, 29, 2, 200, 5, 20, 1},       /* small, prob rows within one tile */
        {131, 33, 65, 2, 1001, 3, 70, 2},     /* across the 32-row, 64-destination and 32-column tiles */
        {70, 7, 33, 3, 500, 0, 0, 3},         /* K = 3 */
        {1, 1, 1, 2, 3, 0, 1, 4},             /* one node: every pair (0, 0), prob of all rows */
        {4, 2, 3, 2, 1, 1, 3, 5},             /* one pair */
        {3783, 100, 400, 2, 12000, 1000, 64, 6}, /* EvolveGCN-O's bitcoin-alpha sizes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) test_case(c, &cases[i]);
    test_empty_and_refusals(c);
    dgnn_cuda_free(c);
    return check_done();
}
