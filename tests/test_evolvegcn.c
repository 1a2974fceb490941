/* test_evolvegcn.c: EvolveGCN-O and -H (snapmodel.h) on a small window of small random
 * snapshots:
 *  - central finite differences of the whole link-prediction loss (model over the window,
 *    pair classifier, weighted cross-entropy, RReLU in training mode with its slopes held
 *    fixed) against the backward, for every parameter tensor, with one-hot and with dense
 *    node input;
 *  - the forward against the reference's definitions written out in plain loops on a
 *    hand window (check_reference);
 *  - the one-hot fast paths against the dense paths fed the one-hot matrices;
 *  - the split classifier against the plain concatenated one: logits of sampled pairs and
 *    the all-pairs probabilities;
 *  - a window's output does not depend on the windows before it (states restart);
 *  - MAP and MRR (dgnn_snap_link_metrics) on a hand case computed by hand, and on the model's
 *    all-pairs scores against dgnn_metric_ap / dgnn_evolvegcn_mrr over the explicit list of
 *    naively scored pairs (shuffled);
 *  - the smart negative sampler's rules: no self loops, no true edges, no repeats, sources
 *    among the label snapshot's rows, destinations from the pool, the reference's cap. */
#include "check.h"
#include "gradcheck.h"
#include "random_events.h"
#include "dgnn/metrics.h"
#include "dgnn/negative.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snapshot_graph.h"
#include "dgnn/split.h"
#include "dgnn/snap_train.h"

#include <omp.h>

enum { NN = 14, TT = 4, LL = 4, CC = 5, MP = 40 };

typedef struct {
    dgnn_snapmodel *m;
    dgnn_snap_input in[TT];
    int32_t deg[TT][NN];
    uint8_t mask[TT][NN];
    float *feat;            /* (TT, NN, F) dense input */
    int32_t src[MP], dst[MP], lab[MP];
    float H[NN * LL], dH[NN * LL], logits[2 * MP], dlogits[2 * MP];
    float cw[2];
    int training;
} ctx_t;

/* the loss with fixed RReLU slopes: the same generator state for every evaluation */
static double loss_fn(void *vp) {
    ctx_t *c = vp;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 77);
    dgnn_err err;
    if (dgnn_snapmodel_forward(c->m, c->H, c->in, TT, c->training ? &rng : NULL, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    CHECK(dgnn_snapmodel_edge_forward(c->m, c->logits, c->H, c->src, c->dst, MP, NULL) == DGNN_OK);
    return dgnn_wce_forward(c->logits, c->lab, c->cw, MP, 2);
}

static void analytic(ctx_t *c) {
    dgnn_params_zero_grad(dgnn_snapmodel_params(c->m));
    loss_fn(c);
    memset(c->dlogits, 0, sizeof c->dlogits);
    dgnn_wce_backward(c->dlogits, 1.0f, c->logits, c->lab, c->cw, MP, 2);
    memset(c->dH, 0, sizeof c->dH);
    dgnn_snapmodel_edge_backward(c->m, c->dH, c->dlogits);
    dgnn_snapmodel_backward(c->m, c->dH);
}

static void build_snapshots(dgnn_snapshots *s, dgnn_events *ev, uint64_t seed) {
    gen_events(ev, seed, NN, 70, 40);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.count = TT;
    o.symmetric = 1;
    dgnn_err err;
    DGNN_ASSERT(dgnn_snapshots_build(s, ev, &o, &err) == DGNN_OK);
}

static void setup(ctx_t *c, const dgnn_snapshots *s, dgnn_snapmodel_kind kind, int onehot, uint64_t seed) {
    memset(c, 0, sizeof *c);
    int64_t maxdeg = 0;
    for (int t = 0; t < TT; t++) {
        int64_t d = dgnn_snap_degree_onehot(c->deg[t], &s->snaps[t]);
        if (d > maxdeg) maxdeg = d;
        dgnn_topk_mask_of_snapshot(c->mask[t], &s->snaps[t]);
    }
    const int64_t F = onehot ? maxdeg + 1 : 6;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    if (!onehot) {
        c->feat = malloc((size_t)(TT * NN * F) * sizeof(float));
        gradcheck_fill(c->feat, TT * NN * F, &r, -0.5, 0.5);
    }
    for (int t = 0; t < TT; t++) {
        c->in[t].A = dgnn_csr_of_hat(&s->snaps[t]);
        c->in[t].At = NULL;
        c->in[t].feat_idx = c->deg[t];
        c->in[t].feat = onehot ? NULL : c->feat + t * NN * F;
        c->in[t].mask = c->mask[t];
    }
    dgnn_snapmodel_cfg cfg = dgnn_snapmodel_cfg_default(kind);
    cfg.num_nodes = NN, cfg.in_dim = F, cfg.onehot = onehot, cfg.hidden = LL, cfg.cls_hidden = CC;
    cfg.seed = seed;
    dgnn_err err;
    DGNN_ASSERT(dgnn_snapmodel_init(&c->m, &cfg, &err) == DGNN_OK);
    /* larger initial values than the reference's, so that the gradients are not tiny
     * relative to float noise, and no exact zeros (the mGRU biases start at 0) */
    dgnn_params *p = dgnn_snapmodel_params(c->m);
    for (int i = 0; i < p->ntensors; i++) {
        float *x = dgnn_params_get(p, i);
        for (int64_t j = 0; j < dgnn_params_numel(p, i); j++) x[j] += (float)(0.3 * (2 * dgnn_rng_uniform(&r) - 1));
    }
    for (int i = 0; i < MP; i++) {
        c->src[i] = (int32_t)dgnn_rng_below(&r, NN);
        c->dst[i] = (int32_t)dgnn_rng_below(&r, NN);
        c->lab[i] = i % 3 == 0;
    }
    c->src[1] = c->src[0]; /* a repeated source and a repeated pair */
    c->src[2] = c->src[0], c->dst[2] = c->dst[0];
    c->cw[0] = 0.3f, c->cw[1] = 1.7f;
    c->training = 1;
}

static void gradcheck_model(dgnn_snapmodel_kind kind, int onehot) {
    dgnn_events ev;
    dgnn_snapshots s;
    build_snapshots(&s, &ev, 3 + (uint64_t)kind);
    ctx_t c;
    setup(&c, &s, kind, onehot, 11 + (uint64_t)onehot);
    analytic(&c);
    dgnn_params *p = dgnn_snapmodel_params(c.m);
    gradcheck_opts o = gradcheck_defaults();
    o.eps = 1e-3, o.eps2 = 3e-4, o.atol = 5e-5, o.rtol = 2e-2, o.max_checks = 120;
    char name[128];
    for (int i = 0; i < p->ntensors; i++) {
        snprintf(name, sizeof name, "%s%s %s", dgnn_snapmodel_name(kind), onehot ? "" : " dense", p->t[i].name);
        double gmax = 0;
        const float *g = dgnn_params_grad(p, i);
        for (int64_t j = 0; j < dgnn_params_numel(p, i); j++) gmax = fmax(gmax, fabs(g[j]));
        CHECK_MSG(gmax > 1e-9, "%s: the gradient is all zero", name); /* every tensor is reached */
        CHECK(gradcheck_ex(name, loss_fn, &c, dgnn_params_get(p, i), g, dgnn_params_numel(p, i), &o) == 0);
    }
    /* windows are independent: the same window after another one gives the same output */
    float H1[NN * LL], H2[NN * LL];
    dgnn_err err;
    CHECK(dgnn_snapmodel_forward(c.m, H1, c.in + 1, TT - 1, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in, TT, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_forward(c.m, H2, c.in + 1, TT - 1, NULL, &err) == DGNN_OK);
    CHECK(memcmp(H1, H2, sizeof H1) == 0);
    /* a one-hot category out of range is a user error, not a crash */
    if (onehot) {
        int32_t saved = c.deg[1][3];
        c.deg[1][3] = 1000;
        CHECK(dgnn_snapmodel_forward(c.m, H1, c.in, TT, NULL, &err) == DGNN_EINVAL);
        c.deg[1][3] = saved;
    }
    dgnn_snapmodel_free(c.m);
    free(c.feat);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

/* the one-hot fast paths (gather GCN, TopK on gathered scores) against the dense paths fed
 * the materialized one-hot matrices: the same outputs and the same gradients */
static void check_onehot_vs_dense(dgnn_snapmodel_kind kind) {
    dgnn_events ev;
    dgnn_snapshots s;
    build_snapshots(&s, &ev, 13);
    ctx_t a, b;
    setup(&a, &s, kind, 1, 31);
    setup(&b, &s, kind, 1, 31); /* the same pairs and inputs; its model is replaced below */
    const dgnn_snapmodel_cfg *ca = dgnn_snapmodel_config(a.m);
    dgnn_snapmodel_cfg cb = *ca;
    cb.onehot = 0;
    dgnn_snapmodel_free(b.m);
    dgnn_err err;
    CHECK(dgnn_snapmodel_init(&b.m, &cb, &err) == DGNN_OK);
    dgnn_params *pa = dgnn_snapmodel_params(a.m), *pb = dgnn_snapmodel_params(b.m);
    CHECK(pa->total == pb->total && dgnn_params_layout_hash(pa) == dgnn_params_layout_hash(pb));
    memcpy(pb->value, pa->value, (size_t)pa->total * sizeof(float));
    const int64_t V = ca->in_dim;
    b.feat = calloc((size_t)(TT * NN * V), sizeof(float));
    for (int t = 0; t < TT; t++) {
        for (int i = 0; i < NN; i++) b.feat[(t * NN + i) * V + a.deg[t][i]] = 1.0f;
        b.in[t].feat = b.feat + t * NN * V;
    }
    analytic(&a);
    analytic(&b);
    CHECK_MSG(gradcheck_maxdiff(a.H, b.H, NN * LL) < 1e-5, "%s one-hot vs dense H: %g", dgnn_snapmodel_name(kind),
              gradcheck_maxdiff(a.H, b.H, NN * LL));
    for (int i = 0; i < pa->ntensors; i++) {
        const float *ga = dgnn_params_grad(pa, i), *gb = dgnn_params_grad(pb, i);
        double gmax = 1e-6;
        for (int64_t j = 0; j < dgnn_params_numel(pa, i); j++) gmax = fmax(gmax, fabs(gb[j]));
        double d = 0;
        for (int64_t j = 0; j < dgnn_params_numel(pa, i); j++) d = fmax(d, fabs(ga[j] - gb[j]) / gmax);
        CHECK_MSG(d < 1e-4, "%s one-hot vs dense gradient of %s: %g (max %g)", dgnn_snapmodel_name(kind),
                  pa->t[i].name, d, gmax);
    }
    dgnn_snapmodel_free(a.m);
    dgnn_snapmodel_free(b.m);
    free(b.feat);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

/* the split classifier against the plain one; all-pairs probabilities too */
static void check_classifier(void) {
    dgnn_events ev;
    dgnn_snapshots s;
    build_snapshots(&s, &ev, 5);
    ctx_t c;
    setup(&c, &s, DGNN_SNAPMODEL_EGCN_O, 1, 21);
    dgnn_err err;
    CHECK(dgnn_snapmodel_forward(c.m, c.H, c.in, TT, NULL, &err) == DGNN_OK);
    float ref[2 * MP];
    CHECK(dgnn_snapmodel_edge_forward(c.m, c.logits, c.H, c.src, c.dst, MP, NULL) == DGNN_OK);
    dgnn_snapmodel_edge_forward_ref(c.m, ref, c.H, c.src, c.dst, MP);
    CHECK_MSG(gradcheck_maxdiff(c.logits, ref, 2 * MP) < 1e-5, "split vs plain logits: %g",
              gradcheck_maxdiff(c.logits, ref, 2 * MP));
    /* every pair (u, v), in rows, against softmax of the plain logits */
    int32_t as[NN * NN], ad[NN * NN];
    for (int u = 0; u < NN; u++)
        for (int v = 0; v < NN; v++) as[u * NN + v] = u, ad[u * NN + v] = v;
    float lg[2 * NN * NN], prob[NN * NN], pref[NN * NN];
    dgnn_snapmodel_edge_forward_ref(c.m, lg, c.H, as, ad, NN * NN);
    for (int i = 0; i < NN * NN; i++) pref[i] = (float)(1.0 / (1.0 + exp((double)lg[2 * i] - (double)lg[2 * i + 1])));
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, prob, c.H, 0, NN, NULL) == DGNN_OK);
    CHECK_MSG(gradcheck_maxdiff(prob, pref, NN * NN) < 1e-5, "all pairs: %g", gradcheck_maxdiff(prob, pref, NN * NN));
    /* a band of rows gives the same rows, up to rounding: the band's rows sit in other
     * sgemm tiles than in the whole product (issue 12: rows of one product differ in the
     * last bit under Haswell's kernels); a probability is a sigmoid of sums of L + C terms,
     * each off by at most (terms) x 2^-24 of their magnitudes (~1): 1e-6 */
    float part[3 * NN];
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, part, c.H, 5, 3, NULL) == DGNN_OK);
    CHECK_MSG(gradcheck_maxdiff(part, prob + 5 * NN, 3 * NN) < 1e-6, "band of rows: %g",
              gradcheck_maxdiff(part, prob + 5 * NN, 3 * NN));
    /* the thread count does not change the scores or the gradients (the same products in
     * the same fixed blocks: bit for bit; test_snapmodels checks it at sizes OpenBLAS
     * would split, under each kernel) */
    float prob1[NN * NN];
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK(dgnn_snapmodel_edge_prob_rows(c.m, prob1, c.H, 0, NN, NULL) == DGNN_OK);
    analytic(&c);
    dgnn_params *p = dgnn_snapmodel_params(c.m);
    float *g1 = malloc((size_t)p->total * sizeof(float));
    memcpy(g1, p->grad, (size_t)p->total * sizeof(float));
    omp_set_num_threads(nt > 1 ? nt : 2);
    analytic(&c);
    CHECK(memcmp(prob1, prob, sizeof prob) == 0);
    CHECK(memcmp(g1, p->grad, (size_t)p->total * sizeof(float)) == 0);
    omp_set_num_threads(nt);
    free(g1);

    /* MAP and MRR: the cheap path (all-pairs rows, labels from the snapshot) against the
     * explicit list of pairs scored naively, shuffled, through the metrics themselves */
    const dgnn_snapshot *g = &s.snaps[TT - 1];
    double ap, mrr;
    int32_t label[NN * NN];
    dgnn_snap_link_metrics(&ap, &mrr, prob, g, label);
    int32_t ls[NN * NN], ld[NN * NN], ll[NN * NN];
    float lp[NN * NN];
    int32_t perm[NN * NN];
    for (int i = 0; i < NN * NN; i++) perm[i] = i;
    dgnn_rng r;
    dgnn_rng_seed(&r, 4);
    for (int i = NN * NN - 1; i > 0; i--) {
        int j = (int)dgnn_rng_below(&r, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < NN * NN; i++) {
        int k = perm[i], u = k / NN, v = k % NN;
        ls[i] = u, ld[i] = v, lp[i] = pref[k];
        ll[i] = 0;
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) ll[i] |= g->col[e] == v;
    }
    double ap_ref = dgnn_metric_ap(lp, ll, NN * NN), mrr_ref = dgnn_evolvegcn_mrr(lp, ll, ls, ld, NN * NN);
    CHECK_NEAR(ap, ap_ref, 1e-6);
    CHECK_NEAR(mrr, mrr_ref, 1e-6);
    CHECK(ap > 0 && ap <= 1 && mrr > 0 && mrr <= 1);
    dgnn_snapmodel_free(c.m);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

/* MAP and MRR by hand: 3 nodes, edges {0,1} and {1,2} (both directions) */
static void check_metrics_by_hand(void) {
    int64_t rowptr[4] = {0, 1, 3, 4};
    int32_t col[4] = {1, 0, 2, 1};
    dgnn_snapshot g;
    memset(&g, 0, sizeof g);
    g.num_nodes = 3, g.num_edges = 4, g.rowptr = rowptr, g.col = col;
    const float prob[9] = {0.1f, 0.9f, 0.5f, /* row 0: its edge (col 1) ranks 1st -> 1 */
                           0.8f, 0.2f, 0.3f, /* row 1: cols 0, 2 rank 1st and 2nd -> 0.75 */
                           0.4f, 0.6f, 0.7f}; /* row 2: col 1 ranks 2nd -> 0.5 */
    int32_t label[9];
    double ap, mrr;
    dgnn_snap_link_metrics(&ap, &mrr, prob, &g, label);
    /* descending: .9(+) .8(+) .7 .6(+) .5 .4 .3(+) .2 .1: precisions 1, 1, 3/4, 4/7 */
    CHECK_NEAR(ap, (1.0 + 1.0 + 0.75 + 4.0 / 7.0) / 4.0, 1e-12);
    CHECK_NEAR(mrr, (1.0 + 0.75 + 0.5) / 3.0, 1e-12);
    /* ties: in row 2 col 1 ties with col 2 at 0.7; the flipped stable argsort ranks the
     * larger column first, so col 1 is 2nd */
    const float tied[9] = {0.1f, 0.9f, 0.5f, 0.8f, 0.2f, 0.3f, 0.4f, 0.7f, 0.7f};
    dgnn_snap_link_metrics(&ap, &mrr, tied, &g, label);
    CHECK_NEAR(mrr, (1.0 + 0.75 + 0.5) / 3.0, 1e-12);
    g.num_edges = 0;
    rowptr[1] = rowptr[2] = rowptr[3] = 0;
    dgnn_snap_link_metrics(&ap, &mrr, prob, &g, label);
    CHECK(isnan(ap) && isnan(mrr));
}

static void check_negatives(void) {
    dgnn_events ev;
    dgnn_snapshots s;
    build_snapshots(&s, &ev, 9);
    const dgnn_snapshot *g = &s.snaps[2];
    int32_t pool[3 * NN];
    int64_t np = 0;
    for (int i = 0; i < NN; i += 2) pool[np++] = i, pool[np++] = i; /* repeats, as concatenated snapshots */
    enum { WANT = 60 };
    int32_t src[WANT], dst[WANT];
    dgnn_rng r;
    dgnn_rng_seed(&r, 8);
    int64_t n = dgnn_snap_link_negatives(src, dst, WANT, g, pool, np, &r);
    CHECK(n > 10 && n <= WANT);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        int is_edge = 0, in_pool = 0, is_src = g->rowptr[src[i] + 1] > g->rowptr[src[i]];
        for (int64_t e = g->rowptr[src[i]]; e < g->rowptr[src[i] + 1]; e++) is_edge |= g->col[e] == dst[i];
        for (int64_t j = 0; j < np; j++) in_pool |= pool[j] == dst[i];
        for (int64_t j = 0; j < i; j++) ok &= !(src[j] == src[i] && dst[j] == dst[i]);
        ok &= src[i] != dst[i] && !is_edge && in_pool && is_src;
    }
    CHECK(ok);
    /* one seed, one draw */
    int32_t src2[WANT], dst2[WANT];
    dgnn_rng_seed(&r, 8);
    CHECK(dgnn_snap_link_negatives(src2, dst2, WANT, g, pool, np, &r) == n);
    CHECK(memcmp(src, src2, (size_t)n * sizeof(int32_t)) == 0 && memcmp(dst, dst2, (size_t)n * sizeof(int32_t)) == 0);
    /* the reference's cap E (E - 1) - E: 3 entries allow 3 pairs */
    int64_t rp[4] = {0, 1, 2, 3};
    int32_t cl[3] = {1, 2, 0};
    dgnn_snapshot tiny;
    memset(&tiny, 0, sizeof tiny);
    tiny.num_nodes = 3, tiny.num_edges = 3, tiny.rowptr = rp, tiny.col = cl;
    int32_t p3[3] = {0, 1, 2};
    CHECK(dgnn_snap_link_negatives(src, dst, WANT, &tiny, p3, 3, &r) <= 3);
    /* the destination pool: active nodes per snapshot (by activity), or every node once */
    {
        const uint8_t mk[3 * 4] = {1, 0, 1, 0, /* snapshot 0 */ 0, 0, 0, 1, /* 1 */ 1, 1, 0, 0 /* 2 */};
        int32_t pl[12];
        CHECK(dgnn_snap_neg_pool(pl, mk, 4, 1, 2, 0) == 3 && pl[0] == 3 && pl[1] == 0 && pl[2] == 1);
        CHECK(dgnn_snap_neg_pool(pl, mk, 4, 0, 2, 1) == 4 && pl[0] == 0 && pl[3] == 3);
    }
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

static void check_split(void) {
    int64_t a, b, c, d;
    /* bitcoin-alpha: 137 snapshots, W 10 -> train 10..94, validation 95..107, test 108..135 */
    dgnn_snap_split(137, 10, 0.7, 0.1, &a, &b, &c, &d);
    CHECK(a == 10 && b == 95 && c == 108 && d == 136);
    /* UCI: 89 snapshots, 0.71 / 0.1 -> 62, 71, 88 */
    dgnn_snap_split(89, 10, 0.71, 0.1, &a, &b, &c, &d);
    CHECK(a == 10 && b == 62 && c == 71 && d == 88);
}

/* ---- the forward against the reference's definitions, in plain loops ---------------
 * snapmodel.h's EvolveGCN, written out from egcn_o.py / egcn_h.py in double on a hand
 * window (6 nodes, dense input of width 4, L = 3, 3 snapshots): mat_GRU_cell (update,
 * reset, h_cap; new_Q = (1 - update) Q + update h_cap), TopK (scores X p / |p| over the
 * snapshot's nodes only, the k = L best, pad_with_last_val, X[idx] * tanh(score),
 * transposed), and GRCU layers H = RReLU(A_hat H_prev Q) with RReLU's evaluation slope.
 * The gradient checks cannot see a forward that is wrong the same way in both
 * directions (the -O cell fed the initial weights, TopK ignoring the mask). Snapshot 3
 * has 2 nodes with an edge, fewer than k: the padding and the mask both matter there. */
enum { RN = 6, RV = 4, RL = 3, RT = 3 };

static double rsig(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Q' (R, C) = mat_GRU_cell(x, q) with block [W (3R, R); U (3R, R); B (3R, C)] */
static void ref_mgru(double *qn, const double *x, const double *q, const float *G, int R, int C) {
    const float *W = G, *U = G + 3 * R * R, *Bb = G + 6 * R * R;
    double Z[RV * RL], Rs[RV * RL], RQ[RV * RL];
    for (int i = 0; i < R; i++)
        for (int c = 0; c < C; c++) {
            double z = Bb[i * C + c], r = Bb[(R + i) * C + c];
            for (int j = 0; j < R; j++) {
                z += (double)W[i * R + j] * x[j * C + c] + (double)U[i * R + j] * q[j * C + c];
                r += (double)W[(R + i) * R + j] * x[j * C + c] + (double)U[(R + i) * R + j] * q[j * C + c];
            }
            Z[i * C + c] = rsig(z), Rs[i * C + c] = rsig(r), RQ[i * C + c] = Rs[i * C + c] * q[i * C + c];
        }
    for (int i = 0; i < R; i++)
        for (int c = 0; c < C; c++) {
            double h = Bb[(2 * R + i) * C + c];
            for (int j = 0; j < R; j++)
                h += (double)W[(2 * R + i) * R + j] * x[j * C + c] + (double)U[(2 * R + i) * R + j] * RQ[j * C + c];
            h = tanh(h);
            qn[i * C + c] = (1 - Z[i * C + c]) * q[i * C + c] + Z[i * C + c] * h;
        }
}

/* out (F, k) = TopK(X (RN, F), p (F), mask): X[idx_j] * tanh(s_idx_j) in column j */
static void ref_topk(double *out, const double *X, const float *p, const uint8_t *mask, int F, int k) {
    double np = 0, s[RN];
    for (int f = 0; f < F; f++) np += (double)p[f] * p[f];
    np = sqrt(np);
    for (int i = 0; i < RN; i++) {
        s[i] = 0;
        for (int f = 0; f < F; f++) s[i] += X[i * F + f] * p[f];
        s[i] /= np;
    }
    int idx[RN], n = 0, used[RN] = {0};
    for (int j = 0; j < k; j++) { /* the best valid row not taken yet */
        int b = -1;
        for (int i = 0; i < RN; i++)
            if (mask[i] && !used[i] && (b < 0 || s[i] > s[b])) b = i;
        if (b < 0) break;
        used[b] = 1, idx[n++] = b;
    }
    CHECK(n > 0);
    for (int j = n; j < k; j++) idx[j] = idx[n - 1]; /* pad_with_last_val */
    for (int j = 0; j < k; j++)
        for (int f = 0; f < F; f++) out[f * k + j] = X[idx[j] * F + f] * tanh(s[idx[j]]);
}

/* Y (RN, C) = RReLU_eval(A (RN, RN) X (RN, R) Q (R, C)) */
static void ref_grcu_gcn(double *Y, const double *A, const double *X, const double *Q, int R, int C, double slope) {
    double XQ[RN * RL];
    for (int i = 0; i < RN; i++)
        for (int c = 0; c < C; c++) {
            XQ[i * C + c] = 0;
            for (int j = 0; j < R; j++) XQ[i * C + c] += X[i * R + j] * Q[j * C + c];
        }
    for (int i = 0; i < RN; i++)
        for (int c = 0; c < C; c++) {
            double y = 0;
            for (int j = 0; j < RN; j++) y += A[i * RN + j] * XQ[j * C + c];
            Y[i * C + c] = y > 0 ? y : slope * y;
        }
}

static void check_reference(dgnn_snapmodel_kind kind) {
    static const int edges[RT][4][2] = {
        {{0, 1}, {1, 2}, {3, 4}, {-1, -1}},
        {{0, 2}, {2, 5}, {-1, -1}, {-1, -1}},
        {{1, 4}, {-1, -1}, {-1, -1}, {-1, -1}}, /* 2 nodes: fewer than k = 3 */
    };
    double Ah[RT][RN * RN], X[RT][RN * RV];
    int64_t rowptr[RT][RN + 1];
    int32_t col[RT][RN * RN];
    float val[RT][RN * RN], feat[RT][RN * RV];
    uint8_t mask[RT][RN];
    dgnn_snap_input in[RT];
    dgnn_rng r;
    dgnn_rng_seed(&r, 41);
    for (int t = 0; t < RT; t++) {
        double A[RN * RN] = {0}, d[RN] = {0};
        memset(mask[t], 0, RN);
        for (int e = 0; e < 4 && edges[t][e][0] >= 0; e++) {
            int u = edges[t][e][0], v = edges[t][e][1];
            A[u * RN + v] = A[v * RN + u] = 1, mask[t][u] = mask[t][v] = 1;
        }
        for (int i = 0; i < RN; i++) A[i * RN + i] += 1;
        for (int i = 0; i < RN * RN; i++) d[i / RN] += A[i];
        int64_t q = 0;
        for (int i = 0; i < RN; i++) {
            rowptr[t][i] = q;
            for (int j = 0; j < RN; j++) {
                Ah[t][i * RN + j] = A[i * RN + j] / sqrt(d[i] * d[j]);
                if (Ah[t][i * RN + j] != 0) col[t][q] = j, val[t][q++] = (float)Ah[t][i * RN + j];
            }
        }
        rowptr[t][RN] = q;
        for (int i = 0; i < RN * RV; i++) feat[t][i] = (float)(dgnn_rng_uniform(&r) * 2 - 1), X[t][i] = feat[t][i];
        memset(&in[t], 0, sizeof in[t]);
        in[t].A = dgnn_csr_view(rowptr[t], col[t], val[t], RN, RN);
        in[t].feat = feat[t];
        in[t].mask = mask[t];
    }
    dgnn_snapmodel_cfg cfg = dgnn_snapmodel_cfg_default(kind);
    cfg.num_nodes = RN, cfg.in_dim = RV, cfg.onehot = 0, cfg.hidden = RL, cfg.cls_hidden = 4, cfg.seed = 12;
    dgnn_snapmodel *m;
    dgnn_err err;
    CHECK(dgnn_snapmodel_init(&m, &cfg, &err) == DGNN_OK);
    dgnn_params *p = dgnn_snapmodel_params(m);
    /* every value moved off its init (B starts at zero): no term hides behind a zero */
    for (int64_t j = 0; j < p->total; j++) p->value[j] += (float)(0.6 * (dgnn_rng_uniform(&r) - 0.5));
    const int hmode = kind == DGNN_SNAPMODEL_EGCN_H;
    const double slope = 0.5 * ((double)cfg.rrelu_lower + (double)cfg.rrelu_upper);
    const float *G[2], *tp[2] = {NULL, NULL};
    double Q[2][RV * RL], H1[RN * RL], ref[RN * RL], xin[RV * RL], qn[RV * RL];
    const int Rw[2] = {RV, RL};
    for (int l = 0; l < 2; l++) {
        char nm[64];
        snprintf(nm, sizeof nm, "grcu%d.Q0", l + 1);
        const float *q0 = dgnn_params_get(p, dgnn_params_find(p, nm));
        for (int i = 0; i < Rw[l] * RL; i++) Q[l][i] = q0[i];
        snprintf(nm, sizeof nm, "grcu%d.mgru[W;U;B]", l + 1);
        G[l] = dgnn_params_get(p, dgnn_params_find(p, nm));
        if (hmode) {
            snprintf(nm, sizeof nm, "grcu%d.topk_p", l + 1);
            tp[l] = dgnn_params_get(p, dgnn_params_find(p, nm));
        }
    }
    for (int t = 0; t < RT; t++) {
        if (hmode) ref_topk(xin, X[t], tp[0], mask[t], RV, RL);
        else memcpy(xin, Q[0], sizeof(double) * RV * RL);
        ref_mgru(qn, xin, Q[0], G[0], RV, RL);
        memcpy(Q[0], qn, sizeof(double) * RV * RL);
        ref_grcu_gcn(H1, Ah[t], X[t], Q[0], RV, RL, slope);
        if (hmode) ref_topk(xin, H1, tp[1], mask[t], RL, RL);
        else memcpy(xin, Q[1], sizeof(double) * RL * RL);
        ref_mgru(qn, xin, Q[1], G[1], RL, RL);
        memcpy(Q[1], qn, sizeof(double) * RL * RL);
        if (t == RT - 1) ref_grcu_gcn(ref, Ah[t], H1, Q[1], RL, RL, slope);
    }
    float H[RN * RL];
    CHECK(dgnn_snapmodel_forward(m, H, in, RT, NULL, &err) == DGNN_OK);
    double worst = 0, big = 0;
    for (int i = 0; i < RN * RL; i++) worst = fmax(worst, fabs(H[i] - ref[i])), big = fmax(big, fabs(ref[i]));
    CHECK_MSG(worst < 1e-5 * (1 + big) && big > 1e-2, "%s vs the reference's definitions: max diff %g (max |H| %g)",
              dgnn_snapmodel_name(kind), worst, big);
    dgnn_snapmodel_free(m);
}

int main(void) {
    check_reference(DGNN_SNAPMODEL_EGCN_O);
    check_reference(DGNN_SNAPMODEL_EGCN_H);
    gradcheck_model(DGNN_SNAPMODEL_EGCN_O, 1);
    gradcheck_model(DGNN_SNAPMODEL_EGCN_H, 1);
    gradcheck_model(DGNN_SNAPMODEL_EGCN_O, 0);
    gradcheck_model(DGNN_SNAPMODEL_EGCN_H, 0);
    check_onehot_vs_dense(DGNN_SNAPMODEL_EGCN_O);
    check_onehot_vs_dense(DGNN_SNAPMODEL_EGCN_H);
    check_classifier();
    check_metrics_by_hand();
    check_negatives();
    check_split();
    return check_done();
}
