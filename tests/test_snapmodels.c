/* test_snapmodels.c: the snapshot models beside EvolveGCN (snapmodel.h): T-GCN, GCRN-GRU,
 * WD-GCN and the static GCN on the window's union graph (EvolveGCN's thread check too).
 *  - central finite differences of the whole link-prediction loss (model over a window of
 *    small random snapshots, pair classifier, weighted cross-entropy; RReLU in training
 *    mode with its slopes held fixed) against the backward, for every parameter tensor,
 *    with one-hot and with dense node input, and on directed snapshots (A_hat^T given);
 *  - the forward against a plain dense double-precision reference written from the
 *    equations in snapmodel.h, on a hand-made 5-node window whose A_hat is built here from
 *    its edge lists (the static GCN's union graph too);
 *  - 1 and 2 threads give bit-identical outputs, logits, all-pairs scores and gradients,
 *    for every kind, EvolveGCN's too (sizes above the OpenMP and OpenBLAS thresholds),
 *    under the CPU's own OpenBLAS kernel and each other one it can run (kernels.h);
 *  - a window's output does not depend on the windows run before it;
 *  - groups of overlapping windows (group_begin/end): the same outputs, and gradients
 *    equal to the windows' own summed, for every kind (wdgcn shares its snapshots'
 *    GCN; the others must be unchanged bit for bit), and under wdgcn's memory budget;
 *  - kind names: parse, aliases, round trip, unknown names. */
#include "check.h"
#include "gradcheck.h"
#include "kernels.h"
#include "random_events.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snapshot.h"
#include "dgnn/snapshot_graph.h"

#include <omp.h>

static const dgnn_snapmodel_kind new_kinds[] = {DGNN_SNAPMODEL_TGCN, DGNN_SNAPMODEL_GCRN_GRU, DGNN_SNAPMODEL_WDGCN,
                                                DGNN_SNAPMODEL_GCN};
enum { NKIND = 4 };

/* ---- a window of random snapshots, a model and a pair batch ---- */

typedef struct {
    int64_t N, T, L, C, M, F;
    dgnn_events ev;
    dgnn_snapshots s;
    dgnn_snap_input *in;
    dgnn_csr *At;          /* (T) transposes when directed */
    int directed;
    int32_t *deg;          /* (T, N) */
    float *feat;           /* (T, N, F) dense input */
    dgnn_snapmodel *m;
    int32_t *src, *dst, *lab;
    float *H, *dH, *logits, *dlogits;
    float cw[2];
} ctx_t;

/* idx (N) = the node's entry count in the snapshot's A (its one-hot category); returns
 * the largest */
static int64_t degree_idx(int32_t *idx, const dgnn_snapshot *g) {
    int64_t mx = 0;
    for (int64_t u = 0; u < g->num_nodes; u++) {
        idx[u] = (int32_t)(g->rowptr[u + 1] - g->rowptr[u]);
        if (idx[u] > mx) mx = idx[u];
    }
    return mx;
}

/* cfg.group_bytes of the models setup builds (check_groups' memory budget) */
static int64_t g_group_bytes;
/* classifier width and pair count of setup's batch, when not 0 (default 5 and 40) */
static int64_t g_cls_hidden, g_pairs;

static const float *P(dgnn_snapmodel *m, const char *name) {
    dgnn_params *p = dgnn_snapmodel_params(m);
    int i = dgnn_params_find(p, name);
    DGNN_ASSERT(i >= 0);
    return dgnn_params_get(p, i);
}

static double loss_fn(void *vp) {
    ctx_t *c = vp;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 77); /* the same RReLU slopes for every evaluation */
    dgnn_err err;
    if (dgnn_snapmodel_forward(c->m, c->H, c->in, c->T, &rng, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    CHECK(dgnn_snapmodel_edge_forward(c->m, c->logits, c->H, c->src, c->dst, c->M, NULL) == DGNN_OK);
    return dgnn_wce_forward(c->logits, c->lab, c->cw, c->M, 2);
}

static void analytic(ctx_t *c) {
    dgnn_params_zero_grad(dgnn_snapmodel_params(c->m));
    loss_fn(c);
    memset(c->dlogits, 0, (size_t)(2 * c->M) * sizeof(float));
    dgnn_wce_backward(c->dlogits, 1.0f, c->logits, c->lab, c->cw, c->M, 2);
    memset(c->dH, 0, (size_t)(c->N * c->L) * sizeof(float));
    dgnn_snapmodel_edge_backward(c->m, c->dH, c->dlogits);
    dgnn_snapmodel_backward(c->m, c->dH);
}

/* N nodes, T snapshots, hidden L; onehot or dense (F = 6) input; jitter: add noise of
 * this size to every parameter (so that no gradient is tiny or exactly zero) */
static void setup(ctx_t *c, dgnn_snapmodel_kind kind, int64_t N, int64_t T, int64_t L, int onehot, int directed,
                  uint64_t seed, double jitter) {
    memset(c, 0, sizeof *c);
    c->N = N, c->T = T, c->L = L, c->directed = directed;
    c->C = g_cls_hidden ? g_cls_hidden : 5, c->M = g_pairs ? g_pairs : 40;
    gen_events(&c->ev, seed, N, 5 * N, 40);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.count = T;
    o.symmetric = !directed;
    dgnn_err err;
    DGNN_ASSERT(dgnn_snapshots_build(&c->s, &c->ev, &o, &err) == DGNN_OK);
    c->in = calloc((size_t)T, sizeof *c->in);
    c->At = calloc((size_t)T, sizeof *c->At);
    c->deg = malloc((size_t)(T * N) * sizeof(int32_t));
    int64_t maxdeg = 0;
    for (int64_t t = 0; t < T; t++) {
        int64_t d = degree_idx(c->deg + t * N, &c->s.snaps[t]);
        if (d > maxdeg) maxdeg = d;
    }
    c->F = onehot ? maxdeg + 1 : 6;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed * 31 + 7);
    if (!onehot) {
        c->feat = malloc((size_t)(T * N * c->F) * sizeof(float));
        gradcheck_fill(c->feat, T * N * c->F, &r, -0.5, 0.5);
    }
    for (int64_t t = 0; t < T; t++) {
        c->in[t].A = dgnn_csr_of_hat(&c->s.snaps[t]);
        c->in[t].At = NULL;
        if (directed) {
            DGNN_ASSERT(dgnn_csr_transpose(&c->At[t], &c->in[t].A, &err) == DGNN_OK);
            c->in[t].At = &c->At[t];
        }
        c->in[t].feat_idx = c->deg + t * N;
        c->in[t].feat = onehot ? NULL : c->feat + t * N * c->F;
        c->in[t].mask = NULL;
    }
    dgnn_snapmodel_cfg cfg = dgnn_snapmodel_cfg_default(kind);
    cfg.num_nodes = N, cfg.in_dim = c->F, cfg.onehot = onehot, cfg.hidden = L, cfg.cls_hidden = c->C;
    cfg.seed = seed;
    cfg.group_bytes = g_group_bytes;
    DGNN_ASSERT(dgnn_snapmodel_init(&c->m, &cfg, &err) == DGNN_OK);
    dgnn_params *p = dgnn_snapmodel_params(c->m);
    for (int i = 0; i < p->ntensors; i++) {
        float *x = dgnn_params_get(p, i);
        for (int64_t j = 0; j < dgnn_params_numel(p, i); j++) x[j] += (float)(jitter * (2 * dgnn_rng_uniform(&r) - 1));
    }
    const int64_t M = c->M;
    c->src = malloc((size_t)M * sizeof(int32_t)), c->dst = malloc((size_t)M * sizeof(int32_t));
    c->lab = malloc((size_t)M * sizeof(int32_t));
    for (int64_t i = 0; i < M; i++) {
        c->src[i] = (int32_t)dgnn_rng_below(&r, (uint64_t)N);
        c->dst[i] = (int32_t)dgnn_rng_below(&r, (uint64_t)N);
        c->lab[i] = i % 3 == 0;
    }
    c->H = calloc((size_t)(N * L), sizeof(float)), c->dH = calloc((size_t)(N * L), sizeof(float));
    c->logits = calloc((size_t)(2 * M), sizeof(float)), c->dlogits = calloc((size_t)(2 * M), sizeof(float));
    c->cw[0] = 0.3f, c->cw[1] = 1.7f;
}

static void teardown(ctx_t *c) {
    dgnn_snapmodel_free(c->m);
    for (int64_t t = 0; t < c->T; t++) dgnn_csr_free(&c->At[t]);
    free(c->At), free(c->in), free(c->deg), free(c->feat);
    free(c->src), free(c->dst), free(c->lab), free(c->H), free(c->dH), free(c->logits), free(c->dlogits);
    dgnn_snapshots_free(&c->s);
    dgnn_events_free(&c->ev);
}

static void gradcheck_model(dgnn_snapmodel_kind kind, int onehot, int directed) {
    ctx_t c;
    setup(&c, kind, 14, 4, 4, onehot, directed, 3 + (uint64_t)kind * 10 + (uint64_t)onehot, 0.3);
    analytic(&c);
    dgnn_params *p = dgnn_snapmodel_params(c.m);
    if (kind == DGNN_SNAPMODEL_GCN) {
        /* the union graph averages over many neighbours, so H is small and every pair's
         * classifier input sits near b1, within eps of ReLU's kink: larger weights */
        for (int l = 0; l < 2; l++) {
            int ti = dgnn_params_find(p, l ? "gcn.W2" : "gcn.W1");
            for (int64_t j = 0; j < dgnn_params_numel(p, ti); j++) dgnn_params_get(p, ti)[j] *= 4.0f;
        }
        analytic(&c);
    }
    gradcheck_opts o = gradcheck_defaults();
    o.eps = 1e-3, o.eps2 = 3e-4, o.atol = 5e-5, o.rtol = 2e-2, o.max_checks = 120;
    char name[128];
    for (int i = 0; i < p->ntensors; i++) {
        snprintf(name, sizeof name, "%s%s%s %s", dgnn_snapmodel_name(kind), onehot ? "" : " dense",
                 directed ? " directed" : "", p->t[i].name);
        double gmax = 0;
        const float *g = dgnn_params_grad(p, i);
        for (int64_t j = 0; j < dgnn_params_numel(p, i); j++) gmax = fmax(gmax, fabs(g[j]));
        CHECK_MSG(gmax > 1e-9, "%s: the gradient is all zero", name); /* every tensor is reached */
        CHECK(gradcheck_ex(name, loss_fn, &c, dgnn_params_get(p, i), g, dgnn_params_numel(p, i), &o) == 0);
    }
    /* windows are independent: the same window after another one gives the same output,
     * in evaluation and (same rng seed) in training */
    const size_t NLb = (size_t)(c.N * c.L) * sizeof(float);
    float *H1 = malloc(NLb), *H2 = malloc(NLb);
    dgnn_err err;
    CHECK(dgnn_snapmodel_forward(c.m, H1, c.in + 1, c.T - 1, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in, c.T, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in + 1, c.T - 1, NULL, &err) == DGNN_OK);
    CHECK_MSG(memcmp(H1, H2, NLb) == 0, "%s: window output depends on the previous window", dgnn_snapmodel_name(kind));
    dgnn_rng r1, r2;
    dgnn_rng_seed(&r1, 5), dgnn_rng_seed(&r2, 5);
    CHECK(dgnn_snapmodel_forward(c.m, H1, c.in, 2, &r1, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in + 1, c.T - 1, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in, 2, &r2, &err) == DGNN_OK);
    CHECK(memcmp(H1, H2, NLb) == 0);
    /* bad input is a user error, not a crash */
    if (onehot) {
        int32_t saved = c.deg[c.N + 3];
        c.deg[c.N + 3] = 1000;
        CHECK(dgnn_snapmodel_forward(c.m, H1, c.in, c.T, NULL, &err) == DGNN_EINVAL);
        c.deg[c.N + 3] = saved;
    }
    CHECK(dgnn_snapmodel_forward(c.m, H1, c.in, 0, NULL, &err) == DGNN_EINVAL);
    free(H1), free(H2);
    teardown(&c);
}

/* 1 and 2 threads: the same H, logits, all-pairs scores and gradients, bit for bit, for
 * every kind (EvolveGCN-O and -H included). The sizes are those where OpenBLAS splits a
 * plain sgemm over its threads (M N K above 2^18): N L = 1800 x 64 (the GCN products and
 * the element-wise loops' 65536 threshold), L = 64 for the matrix GRU's (3L, L) x (L, L)
 * products, a classifier of width 64 over 3000 pairs and over all N^2 pairs. main runs it
 * again under each OpenBLAS kernel the CPU has (kernels.h): before the fix, EvolveGCN's
 * classifier, GCN layers and matrix GRU were plain sgemm calls, bit-identical for 1 and 2
 * threads under SkylakeX and not under Haswell or Sandybridge. */
static void check_threads(dgnn_snapmodel_kind kind, int onehot) {
    ctx_t c;
    g_cls_hidden = 64, g_pairs = 3000;
    setup(&c, kind, 1800, 3, 64, onehot, 0, 41 + (uint64_t)kind, 0.05);
    g_cls_hidden = g_pairs = 0;
    dgnn_params *p = dgnn_snapmodel_params(c.m);
    const size_t NLb = (size_t)(c.N * c.L) * sizeof(float), Mb = (size_t)(2 * c.M) * sizeof(float);
    const size_t Rb = (size_t)(200 * c.N) * sizeof(float); /* 200 rows of all-pairs scores */
    float *H1 = malloc(NLb), *g1 = malloc((size_t)p->total * sizeof(float)), *l1 = malloc(Mb);
    float *pr1 = malloc(Rb), *pr2 = malloc(Rb);
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    analytic(&c);
    memcpy(H1, c.H, NLb), memcpy(l1, c.logits, Mb);
    memcpy(g1, p->grad, (size_t)p->total * sizeof(float));
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, pr1, c.H, 100, 200, NULL) == DGNN_OK);
    omp_set_num_threads(2);
    analytic(&c);
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, pr2, c.H, 100, 200, NULL) == DGNN_OK);
    const char *name = dgnn_snapmodel_name(kind), *in = onehot ? "" : " dense";
    CHECK_MSG(memcmp(H1, c.H, NLb) == 0, "%s%s: H differs between 1 and 2 threads", name, in);
    CHECK_MSG(memcmp(l1, c.logits, Mb) == 0, "%s%s: the pairs' logits differ between 1 and 2 threads", name, in);
    CHECK_MSG(memcmp(pr1, pr2, Rb) == 0, "%s%s: all-pairs scores differ between 1 and 2 threads", name, in);
    int same = 1;
    for (int i = 0; i < p->ntensors; i++) {
        int64_t off = p->t[i].offset, n = p->t[i].count;
        if (memcmp(g1 + off, p->grad + off, (size_t)n * sizeof(float)) != 0) {
            fprintf(stderr, "  %s%s: gradient of %s differs between 1 and 2 threads\n", name, in, p->t[i].name);
            same = 0;
        }
    }
    CHECK(same);
    double gmax = 0;
    for (int64_t j = 0; j < p->total; j++) gmax = fmax(gmax, fabs(g1[j]));
    CHECK(gmax > 0 && isfinite(gmax));
    omp_set_num_threads(nt);
    free(H1), free(g1), free(l1), free(pr1), free(pr2);
    teardown(&c);
}

static void check_threads_all(void) {
    for (int k = 0; k <= DGNN_SNAPMODEL_GCN; k++) {
        check_threads((dgnn_snapmodel_kind)k, 1);
        check_threads((dgnn_snapmodel_kind)k, 0);
    }
}

/* Four overlapping windows of 3 snapshots (starts 0..3 of 6) trained one by one and then
 * as one group: each window's H is the same, and the summed gradients agree (wdgcn: up
 * to float rounding, its GCN backward runs once per snapshot on summed gradients; the
 * other kinds do not share and must give the same bits). Evaluation slopes (rng NULL), so
 * that the shared snapshots' RReLU is the same whichever window computes it. */
static void check_groups(dgnn_snapmodel_kind kind, int64_t budget_slots, int distinct) {
    ctx_t c;
    g_group_bytes = budget_slots * 5 * 30 * 5 * (int64_t)sizeof(float); /* N 30, L 5 */
    setup(&c, kind, 30, 6, 5, 1, 0, 91 + (uint64_t)kind, 0.3);
    g_group_bytes = 0;
    dgnn_params *p = dgnn_snapmodel_params(c.m);
    const int shares = dgnn_snapmodel_shares_snapshots(c.m);
    CHECK(shares == (kind == DGNN_SNAPMODEL_WDGCN));
    const size_t NLb = (size_t)(c.N * c.L) * sizeof(float);
    float *Hs = malloc(4 * NLb), *g1 = malloc((size_t)p->total * sizeof(float));
    dgnn_err err;
    double flops[2] = {0, 0}; /* the dense products' work: a shared snapshot's GCN runs once */
    for (int grouped = 0; grouped < 2; grouped++) {
        dgnn_params_zero_grad(p);
        if (grouped) dgnn_snapmodel_group_begin(c.m);
        for (int w = 0; w < 4; w++) {
            CHECK(dgnn_snapmodel_forward(c.m, c.H, c.in + w, 3, NULL, &err) == DGNN_OK);
            if (!grouped) memcpy(Hs + w * c.N * c.L, c.H, NLb);
            else CHECK_MSG(memcmp(Hs + w * c.N * c.L, c.H, NLb) == 0, "%s: window %d's output changes in a group",
                           dgnn_snapmodel_name(kind), w);
            CHECK(dgnn_snapmodel_edge_forward(c.m, c.logits, c.H, c.src, c.dst, c.M, NULL) == DGNN_OK);
            dgnn_wce_forward(c.logits, c.lab, c.cw, c.M, 2);
            memset(c.dlogits, 0, (size_t)(2 * c.M) * sizeof(float));
            dgnn_wce_backward(c.dlogits, 1.0f, c.logits, c.lab, c.cw, c.M, 2);
            memset(c.dH, 0, NLb);
            dgnn_snapmodel_edge_backward(c.m, c.dH, c.dlogits);
            dgnn_snapmodel_backward(c.m, c.dH);
            if (w < 3 || !grouped) flops[grouped] += dgnn_snapmodel_last_flops(c.m);
        }
        if (grouped) {
            dgnn_snapmodel_group_end(c.m); /* the last window's count, with the group's GCN backward */
            flops[grouped] += dgnn_snapmodel_last_flops(c.m);
        }
        if (!grouped) memcpy(g1, p->grad, (size_t)p->total * sizeof(float));
    }
    for (int i = 0; i < p->ntensors; i++) {
        const float *a = g1 + p->t[i].offset, *b = p->grad + p->t[i].offset;
        double worst = 0, gmax = 0;
        for (int64_t j = 0; j < p->t[i].count; j++) {
            gmax = fmax(gmax, fabs(a[j]));
            worst = fmax(worst, fabs(a[j] - b[j]));
        }
        if (shares) CHECK_MSG(worst <= 1e-5 * gmax + 1e-9, "%s group: gradient of %s off by %g (max %g)",
                              dgnn_snapmodel_name(kind), p->t[i].name, worst, gmax);
        else CHECK_MSG(worst == 0, "%s group: gradient of %s changed (%g)", dgnn_snapmodel_name(kind), p->t[i].name,
                       worst);
        CHECK(gmax > 0);
    }
    /* 12 window snapshots, `distinct` GCNs run: 12 - distinct GCN forwards (one N L L
     * product) and backwards (two) fewer, one-hot input */
    const double saved = (12.0 - distinct) * 3.0 * 2.0 * (double)(c.N * c.L * c.L);
    if (shares) CHECK_MSG(flops[0] - flops[1] == saved, "%s group: %g flops, alone %g (expected %g fewer)",
                          dgnn_snapmodel_name(kind), flops[1], flops[0], saved);
    else CHECK(flops[1] == flops[0]);
    free(Hs), free(g1);
    teardown(&c);
}

/* ---- the plain reference on a hand-made window ------------------------------------- */

enum { HN = 5, HT = 3, HL = 3, HV = 4 };

/* dense matrices (HN x HN) of the hand window's snapshots: undirected edge lists */
static const int hand_edges[HT][4][2] = {
    {{0, 1}, {1, 2}, {-1, -1}, {-1, -1}},
    {{0, 1}, {2, 3}, {3, 4}, {-1, -1}},
    {{1, 4}, {0, 2}, {-1, -1}, {-1, -1}}, /* node 3 isolated here */
};

/* A_hat = D^-1/2 (A + I) D^-1/2 of edge list k, dense, binary A */
static void hand_hat(double *Ah, int k) {
    double A[HN * HN] = {0};
    for (int e = 0; e < 4 && hand_edges[k][e][0] >= 0; e++) {
        int u = hand_edges[k][e][0], v = hand_edges[k][e][1];
        A[u * HN + v] = A[v * HN + u] = 1;
    }
    for (int i = 0; i < HN; i++) A[i * HN + i] += 1;
    double d[HN];
    for (int i = 0; i < HN; i++) {
        d[i] = 0;
        for (int j = 0; j < HN; j++) d[i] += A[i * HN + j];
    }
    for (int i = 0; i < HN; i++)
        for (int j = 0; j < HN; j++) Ah[i * HN + j] = A[i * HN + j] / sqrt(d[i] * d[j]);
}

typedef struct {
    int64_t rowptr[HN + 1];
    int32_t col[HN * HN];
    float val[HN * HN];
} hand_csr;

static dgnn_csr csr_of_dense(hand_csr *h, const double *D) {
    int64_t q = 0;
    for (int i = 0; i < HN; i++) {
        h->rowptr[i] = q;
        for (int j = 0; j < HN; j++)
            if (D[i * HN + j] != 0) h->col[q] = j, h->val[q++] = (float)D[i * HN + j];
    }
    h->rowptr[HN] = q;
    return dgnn_csr_view(h->rowptr, h->col, h->val, HN, HN);
}

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Y (HN, D) = A X W (+ b): A (HN, HN), X (HN, Di), W (Di, D) float, b (D) or NULL */
static void ref_gcn(double *Y, const double *A, const double *X, const float *W, const float *b, int Di, int D) {
    double XW[HN * 64];
    for (int i = 0; i < HN; i++)
        for (int o = 0; o < D; o++) {
            double s = 0;
            for (int k = 0; k < Di; k++) s += X[i * Di + k] * W[k * D + o];
            XW[i * D + o] = s;
        }
    for (int i = 0; i < HN; i++)
        for (int o = 0; o < D; o++) {
            double s = b ? b[o] : 0;
            for (int j = 0; j < HN; j++) s += A[i * HN + j] * XW[j * D + o];
            Y[i * D + o] = s;
        }
}

/* torch Linear on the concatenation [a, b] (HN, 2L): W (L, 2L) */
static void ref_lin2(double *Y, const double *a, const double *b, const float *W, const float *bias) {
    for (int i = 0; i < HN; i++)
        for (int o = 0; o < HL; o++) {
            double s = bias[o];
            for (int k = 0; k < HL; k++) s += W[o * 2 * HL + k] * a[i * HL + k] + W[o * 2 * HL + HL + k] * b[i * HL + k];
            Y[i * HL + o] = s;
        }
}


static void ref_forward(double *H, dgnn_snapmodel *m, double Ahat[HT][HN * HN], double X[HT][HN * HV]) {
    const dgnn_snapmodel_cfg *cf = dgnn_snapmodel_config(m);
    const double slope = 0.5 * ((double)cf->rrelu_lower + (double)cf->rrelu_upper); /* RReLU in evaluation */
    double h[HN * HL] = {0}, c[HN * HL] = {0};
    char nm[64];
    if (cf->kind == DGNN_SNAPMODEL_GCN) {
        double B[HN * HN] = {0}, d[HN] = {0}, Au[HN * HN], H1[HN * HL];
        for (int t = 0; t < HT; t++)
            for (int i = 0; i < HN * HN; i++) B[i] = B[i] || (Ahat[t][i] != 0 && i / HN != i % HN);
        for (int i = 0; i < HN; i++) B[i * HN + i] = 1;
        for (int i = 0; i < HN; i++)
            for (int j = 0; j < HN; j++) d[i] += B[i * HN + j];
        for (int i = 0; i < HN * HN; i++) Au[i] = B[i] / sqrt(d[i / HN] * d[i % HN]);
        ref_gcn(H1, Au, X[HT - 1], P(m, "gcn.W1"), NULL, HV, HL);
        for (int i = 0; i < HN * HL; i++) H1[i] = H1[i] > 0 ? H1[i] : slope * H1[i];
        ref_gcn(H, Au, H1, P(m, "gcn.W2"), NULL, HL, HL);
        for (int i = 0; i < HN * HL; i++) H[i] = H[i] > 0 ? H[i] : slope * H[i];
        return;
    }
    for (int t = 0; t < HT; t++) {
        double *A = Ahat[t];
        double Z[HN * HL], R[HN * HL], Ht[HN * HL], G[3][HN * HL], Q[HN * HL], HR[HN * HL];
        if (cf->kind == DGNN_SNAPMODEL_TGCN) {
            const char *g3 = "zrh";
            for (int g = 0; g < 3; g++) {
                char nb[64];
                snprintf(nm, sizeof nm, "tgcn.conv_%c.W", g3[g]), snprintf(nb, sizeof nb, "tgcn.conv_%c.b", g3[g]);
                ref_gcn(G[g], A, X[t], P(m, nm), P(m, nb), HV, HL);
            }
            ref_lin2(Z, G[0], h, P(m, "tgcn.lin_z.W"), P(m, "tgcn.lin_z.b"));
            ref_lin2(R, G[1], h, P(m, "tgcn.lin_r.W"), P(m, "tgcn.lin_r.b"));
            for (int i = 0; i < HN * HL; i++) Z[i] = sigm(Z[i]), R[i] = sigm(R[i]), HR[i] = h[i] * R[i];
            ref_lin2(Ht, G[2], HR, P(m, "tgcn.lin_h.W"), P(m, "tgcn.lin_h.b"));
            for (int i = 0; i < HN * HL; i++) h[i] = Z[i] * h[i] + (1 - Z[i]) * tanh(Ht[i]);
        } else if (cf->kind == DGNN_SNAPMODEL_GCRN_GRU) {
            ref_gcn(Z, A, X[t], P(m, "gcrn.conv_x_z.W"), P(m, "gcrn.conv_x_z.b"), HV, HL);
            ref_gcn(Q, A, h, P(m, "gcrn.conv_h_z.W"), P(m, "gcrn.conv_h_z.b"), HL, HL);
            for (int i = 0; i < HN * HL; i++) Z[i] = sigm(Z[i] + Q[i]);
            ref_gcn(R, A, X[t], P(m, "gcrn.conv_x_r.W"), P(m, "gcrn.conv_x_r.b"), HV, HL);
            ref_gcn(Q, A, h, P(m, "gcrn.conv_h_r.W"), P(m, "gcrn.conv_h_r.b"), HL, HL);
            for (int i = 0; i < HN * HL; i++) R[i] = sigm(R[i] + Q[i]), HR[i] = h[i] * R[i];
            ref_gcn(Ht, A, X[t], P(m, "gcrn.conv_x_h.W"), P(m, "gcrn.conv_x_h.b"), HV, HL);
            ref_gcn(Q, A, HR, P(m, "gcrn.conv_h_h.W"), P(m, "gcrn.conv_h_h.b"), HL, HL);
            for (int i = 0; i < HN * HL; i++) h[i] = Z[i] * h[i] + (1 - Z[i]) * tanh(Ht[i] + Q[i]);
        } else { /* WD-GCN */
            double E1[HN * HL], E2[HN * HL];
            ref_gcn(E1, A, X[t], P(m, "wdgcn.W1"), NULL, HV, HL);
            for (int i = 0; i < HN * HL; i++) E1[i] = E1[i] > 0 ? E1[i] : slope * E1[i];
            ref_gcn(E2, A, E1, P(m, "wdgcn.W2"), NULL, HL, HL);
            for (int i = 0; i < HN * HL; i++) E2[i] = E2[i] > 0 ? E2[i] : slope * E2[i];
            const float *Wih = P(m, "wdgcn.lstm.W_ih"), *Whh = P(m, "wdgcn.lstm.W_hh");
            const float *bih = P(m, "wdgcn.lstm.b_ih"), *bhh = P(m, "wdgcn.lstm.b_hh");
            double hn[HN * HL];
            for (int i = 0; i < HN; i++)
                for (int k = 0; k < HL; k++) {
                    double a[4];
                    for (int g = 0; g < 4; g++) {
                        int row = g * HL + k;
                        double s = (double)bih[row] + (double)bhh[row];
                        for (int j = 0; j < HL; j++)
                            s += Wih[row * HL + j] * E2[i * HL + j] + Whh[row * HL + j] * h[i * HL + j];
                        a[g] = s;
                    }
                    double ig = sigm(a[0]), fg = sigm(a[1]), gg = tanh(a[2]), og = sigm(a[3]);
                    c[i * HL + k] = fg * c[i * HL + k] + ig * gg;
                    hn[i * HL + k] = og * tanh(c[i * HL + k]);
                }
            memcpy(h, hn, sizeof h);
        }
    }
    memcpy(H, h, sizeof h);
}

static void check_reference(dgnn_snapmodel_kind kind, int onehot) {
    double Ahat[HT][HN * HN], X[HT][HN * HV];
    hand_csr hc[HT];
    dgnn_snap_input in[HT];
    int32_t idx[HT][HN];
    float feat[HT][HN * HV];
    dgnn_rng r;
    dgnn_rng_seed(&r, 99);
    for (int t = 0; t < HT; t++) {
        hand_hat(Ahat[t], t);
        memset(&in[t], 0, sizeof in[t]);
        in[t].A = csr_of_dense(&hc[t], Ahat[t]);
        for (int i = 0; i < HN; i++) {
            idx[t][i] = (int32_t)((i + t) % (HV + 1)) - 1; /* -1: a zero input row */
            for (int f = 0; f < HV; f++) {
                feat[t][i * HV + f] = (float)(dgnn_rng_uniform(&r) - 0.5);
                X[t][i * HV + f] = onehot ? (idx[t][i] == f) : feat[t][i * HV + f];
            }
        }
        in[t].feat_idx = idx[t];
        in[t].feat = feat[t];
    }
    dgnn_snapmodel_cfg cfg = dgnn_snapmodel_cfg_default(kind);
    cfg.num_nodes = HN, cfg.in_dim = HV, cfg.onehot = onehot, cfg.hidden = HL, cfg.cls_hidden = 4, cfg.seed = 8;
    dgnn_snapmodel *m;
    dgnn_err err;
    CHECK(dgnn_snapmodel_init(&m, &cfg, &err) == DGNN_OK);
    dgnn_params *p = dgnn_snapmodel_params(m);
    for (int64_t j = 0; j < p->total; j++) p->value[j] += (float)(0.5 * (dgnn_rng_uniform(&r) - 0.5)); /* biases too */
    float H[HN * HL];
    double ref[HN * HL];
    CHECK(dgnn_snapmodel_forward(m, H, in, HT, NULL, &err) == DGNN_OK);
    ref_forward(ref, m, Ahat, X);
    double worst = 0, big = 0;
    for (int i = 0; i < HN * HL; i++) worst = fmax(worst, fabs(H[i] - ref[i])), big = fmax(big, fabs(ref[i]));
    CHECK_MSG(worst < 2e-6 && big > 1e-3, "%s%s vs the plain reference: max diff %g (max |H| %g)",
              dgnn_snapmodel_name(kind), onehot ? "" : " dense", worst, big);
    dgnn_snapmodel_free(m);
}

/* A node whose output went NaN (a model diverged) gives NaN logits and probabilities for
 * its pairs, so that the trainer's loss check stops the run: the classifier's ReLU turned
 * a NaN into 0, and the pairs were scored as if the model were fine (AP 0.5). Every pair
 * without that node stays finite. */
static void check_nan_passes(void) {
    ctx_t c;
    setup(&c, DGNN_SNAPMODEL_GCN, 14, 3, 4, 0, 0, 5, 0.3);
    dgnn_rng r;
    dgnn_rng_seed(&r, 12);
    gradcheck_fill(c.H, c.N * c.L, &r, -1.0, 1.0);
    const int32_t bad = 3;
    for (int64_t j = 0; j < c.L; j++) c.H[bad * c.L + j] = NAN;
    c.src[0] = bad, c.dst[1] = bad;
    for (int64_t i = 2; i < c.M; i++) c.src[i] = c.src[i] == bad ? 0 : c.src[i], c.dst[i] = c.dst[i] == bad ? 0 : c.dst[i];
    CHECK(dgnn_snapmodel_edge_forward(c.m, c.logits, c.H, c.src, c.dst, c.M, NULL) == DGNN_OK);
    float *ref = malloc((size_t)(2 * c.M) * sizeof(float));
    dgnn_snapmodel_edge_forward_ref(c.m, ref, c.H, c.src, c.dst, c.M);
    int nan_ok = 1, finite_ok = 1;
    for (int64_t i = 0; i < c.M; i++)
        for (int k = 0; k < 2; k++) {
            const int want_nan = i < 2;
            nan_ok &= !want_nan || (isnan(c.logits[2 * i + k]) && isnan(ref[2 * i + k]));
            finite_ok &= want_nan || (isfinite(c.logits[2 * i + k]) && isfinite(ref[2 * i + k]));
        }
    CHECK_MSG(nan_ok, "a NaN node's pairs: logits not NaN (fast %g, reference %g)", c.logits[0], ref[0]);
    CHECK(finite_ok);
    float *prob = malloc((size_t)(c.N * c.N) * sizeof(float));
    dgnn_err err;
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, prob, c.H, 0, c.N, &err) == DGNN_OK);
    int rows_ok = 1;
    for (int64_t u = 0; u < c.N; u++)
        for (int64_t v = 0; v < c.N; v++)
            rows_ok &= (u == bad || v == bad) ? isnan(prob[u * c.N + v]) : isfinite(prob[u * c.N + v]);
    CHECK_MSG(rows_ok, "all-pairs scores: NaN exactly on the NaN node's row and column");
    free(prob), free(ref);
    teardown(&c);
}

static void check_names(void) {
    const char *canon[] = {"evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn", "gcn"};
    for (int k = 0; k < 6; k++) {
        dgnn_snapmodel_kind kd = (dgnn_snapmodel_kind)99;
        CHECK(dgnn_snapmodel_kind_parse(canon[k], &kd) == DGNN_OK && (int)kd == k);
        CHECK(strcmp(dgnn_snapmodel_name((dgnn_snapmodel_kind)k), canon[k]) == 0);
    }
    dgnn_snapmodel_kind kd = DGNN_SNAPMODEL_GCN;
    CHECK(dgnn_snapmodel_kind_parse("egcn-o", &kd) == DGNN_OK && kd == DGNN_SNAPMODEL_EGCN_O);
    CHECK(dgnn_snapmodel_kind_parse("egcn-h", &kd) == DGNN_OK && kd == DGNN_SNAPMODEL_EGCN_H);
    kd = DGNN_SNAPMODEL_TGCN;
    CHECK(dgnn_snapmodel_kind_parse("TGCN", &kd) == DGNN_EINVAL && kd == DGNN_SNAPMODEL_TGCN);
    CHECK(dgnn_snapmodel_kind_parse("gcrn", &kd) == DGNN_EINVAL);
    CHECK(dgnn_snapmodel_kind_parse("", &kd) == DGNN_EINVAL);
    CHECK(DGNN_SNAPMODEL_EGCN_O == 0 && DGNN_SNAPMODEL_EGCN_H == 1);
    for (int k = 2; k < 6; k++) {
        dgnn_snapmodel_cfg c = dgnn_snapmodel_cfg_default((dgnn_snapmodel_kind)k);
        CHECK(c.hidden == 100 && c.cls_hidden == 400 && c.num_classes == 2 && c.onehot == 1);
    }
    dgnn_snapmodel_cfg c = dgnn_snapmodel_cfg_default((dgnn_snapmodel_kind)17);
    c.num_nodes = 4, c.in_dim = 3;
    dgnn_snapmodel *m;
    dgnn_err err;
    CHECK(dgnn_snapmodel_init(&m, &c, &err) == DGNN_EINVAL && m == NULL);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--threads") == 0) { /* kernels.h's run under one kernel */
        check_threads_all();
        return check_done();
    }
    check_names();
    check_nan_passes();
    for (int k = 0; k < NKIND; k++) {
        check_reference(new_kinds[k], 1);
        check_reference(new_kinds[k], 0);
    }
    for (int k = 0; k < NKIND; k++) {
        gradcheck_model(new_kinds[k], 1, 0);
        gradcheck_model(new_kinds[k], 0, 0);
        gradcheck_model(new_kinds[k], 1, 1);
    }
    for (int k = 0; k < NKIND; k++) check_groups(new_kinds[k], 0, 6);
    /* a budget of 6 snapshots' outputs: a window may add 3, so the group restarts before
     * windows 2 (4 slots + 3 > 6): windows 0-1 and 2-3 share, 4 + 4 GCNs */
    check_groups(DGNN_SNAPMODEL_WDGCN, 6, 8);
    check_threads_all();
    CHECK_MSG(kernels_rerun("--threads") == 0, "1 vs 2 threads under another OpenBLAS kernel (above)");
    return check_done();
}
