/* test_nn_attention.c: the multi-head attention core and the temporal attention layer
 * (TGN's and TGL's kinds).
 *  - core: finite-difference gradients of q, k, v for both score kinds, with and
 *    without a dropout mask, with empty key sets; a single key returns its value;
 *    huge logits stay finite (max subtraction);
 *  - layer: the fast (factored, BLAS) path against the plain reference, forward and
 *    every gradient, with repeated neighbour rows, deduplicated and per-pair edge rows,
 *    roots with zero neighbours and dropout; finite-difference gradients of the fast
 *    path for every input and parameter tensor; TGN's zero-neighbour semantics by hand;
 *    accumulation; independence from the thread count; roots that share their query
 *    input rows (root_row). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/nn.h"
#include "gradcheck.h"

static float *fa(int64_t n) { return dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

/* ---- core ------------------------------------------------------------------------ */

typedef struct {
    int64_t B, heads, E;
    const int64_t *off;
    float *q, *k, *v, *o, *logit, *att, *mask, *w;
    dgnn_score_kind kind;
} core_ctx;

static double core_loss(void *p) {
    core_ctx *c = p;
    dgnn_attn_core_forward(c->o, c->logit, c->att, c->mask, c->q, c->k, c->v, c->off, c->B,
                           c->heads, c->E, c->kind);
    return gradcheck_dot(c->o, c->w, c->B * c->E);
}

static void test_core(dgnn_score_kind kind, int with_mask) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 100 + (uint64_t)kind * 10 + (uint64_t)with_mask);
    const int64_t B = 6, heads = 2, E = 8;
    int64_t off[7] = {0, 3, 3, 4, 8, 8, 10}; /* roots 1 and 4 have no keys */
    const int64_t P = off[B];
    core_ctx c = {B, heads, E, off, fa(B * E), fa(P * E), fa(P * E), fa(B * E), fa(P * heads),
                  fa(P * heads), with_mask ? fa(P * heads) : NULL, fa(B * E), kind};
    gradcheck_fill(c.q, B * E, &r, -1, 1);
    gradcheck_fill(c.k, P * E, &r, -1, 1);
    gradcheck_fill(c.v, P * E, &r, -1, 1);
    gradcheck_fill(c.w, B * E, &r, -1, 1);
    if (c.mask) dgnn_dropout_mask(c.mask, P * heads, 0.4f, 5);
    core_loss(&c);
    /* empty key sets give 0; attention weights sum to 1 per (root, head) */
    int ok = 1;
    for (int64_t e = 0; e < E; e++) ok &= c.o[1 * E + e] == 0 && c.o[4 * E + e] == 0;
    CHECK(ok);
    for (int64_t i = 0; i < B; i++)
        for (int64_t h = 0; h < heads; h++) {
            if (off[i] == off[i + 1]) continue;
            double s = 0;
            for (int64_t p = off[i]; p < off[i + 1]; p++) s += c.att[p * heads + h];
            CHECK_NEAR(s, 1.0, 1e-6);
        }
    /* a single key: the output is its value (times its mask) */
    for (int64_t e = 0; e < E; e++) {
        float m = c.mask ? c.mask[3 * heads + e / (E / heads)] : 1.0f;
        CHECK_NEAR(c.o[2 * E + e], c.v[3 * E + e] * m, 1e-6);
    }
    float *dq = fa(B * E), *dk = fa(P * E), *dv = fa(P * E);
    dgnn_attn_core_backward(dq, dk, dv, c.w, c.logit, c.att, c.mask, c.q, c.k, c.v, off, B, heads,
                            E, kind);
    const char *nm = kind == DGNN_SCORE_SCALED_DOT ? "scaled" : "leaky";
    char buf[64];
    snprintf(buf, sizeof buf, "core %s%s dq", nm, with_mask ? "+mask" : "");
    CHECK(gradcheck(buf, core_loss, &c, c.q, dq, B * E) == 0);
    snprintf(buf, sizeof buf, "core %s%s dk", nm, with_mask ? "+mask" : "");
    CHECK(gradcheck(buf, core_loss, &c, c.k, dk, P * E) == 0);
    snprintf(buf, sizeof buf, "core %s%s dv", nm, with_mask ? "+mask" : "");
    CHECK(gradcheck(buf, core_loss, &c, c.v, dv, P * E) == 0);

    /* huge logits: max subtraction keeps the softmax finite (one-hot in the limit) */
    for (int64_t i = 0; i < B * E; i++) c.q[i] *= 1e4f;
    core_loss(&c);
    ok = 1;
    for (int64_t i = 0; i < B * E; i++) ok &= isfinite(c.o[i]);
    for (int64_t i = 0; i < P * heads; i++) ok &= isfinite(c.att[i]);
    CHECK_MSG(ok, "softmax overflowed for large logits");
    free(c.q); free(c.k); free(c.v); free(c.o); free(c.logit); free(c.att); free(c.mask); free(c.w);
    free(dq); free(dk); free(dv);
}

/* ---- layer ------------------------------------------------------------------------ */

typedef struct {
    dgnn_tattn_cfg cfg;
    int64_t B, P, Un, Ue, np, Ur;
    int64_t *off;
    int32_t *nbr_row, *edge_row; /* edge_row may be NULL */
    int32_t *root_row;           /* NULL: one h_root row per root */
    float *h_root, *te0, *h_nbr, *e_feat, *te;
    float *slab, *gslab;
    dgnn_tattn_params p, g;
    dgnn_tattn_input in;
    float *sslab, *out, *w;
    dgnn_tattn_saved s;
    uint64_t drop_seed;
} layer_ctx;

/* attention heads of the problems layer_setup builds (2; TGN's width is dn + dt = 10, so
 * 10 heads are 10 products per step: more than one group of dgnn_gemm_group) */
static int64_t g_heads = 2;
/* 1: layer_setup builds a problem large enough that every loop of the layer runs over the
 * threads (600 roots, about 3,000 pairs, dn = 128: above every 16384-element threshold) */
static int g_big = 0;

static double layer_loss(void *v) {
    layer_ctx *c = v;
    dgnn_rng r;
    dgnn_rng_seed(&r, c->drop_seed); /* same masks at every evaluation */
    dgnn_tattn_forward(c->out, &c->s, &c->in, &c->p, &c->cfg, &r);
    return gradcheck_dot(c->out, c->w, c->B * c->cfg.dout);
}

/* Builds a random problem: B roots with 0..kmax neighbours each (root 0 and root B-2
 * have none), Un distinct node rows reused by several pairs, edge rows either
 * deduplicated (Ue < P, with an index) or one per pair (edge_row NULL), and the roots'
 * query inputs either one row each or Ur = 4 rows that several roots share (root_row;
 * one root without neighbours shares its row with one that has some). */
static void layer_setup_ex(layer_ctx *c, dgnn_attn_kind kind, int64_t de, int dedup_edges,
                           float attn_drop, float drop, uint64_t seed, int shared_roots) {
    memset(c, 0, sizeof *c);
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    c->cfg = g_big ? (dgnn_tattn_cfg){kind, 128, de, 32, g_heads, kind == DGNN_ATTN_TGN ? 24 : 128, attn_drop, drop}
                   : (dgnn_tattn_cfg){kind, 6, de, 4, g_heads, kind == DGNN_ATTN_TGN ? 5 : 8, attn_drop, drop};
    dgnn_err err;
    DGNN_ASSERT(dgnn_tattn_check(&c->cfg, &err) == DGNN_OK);
    const int64_t B = g_big ? 600 : 7, kmax = g_big ? 10 : 4;
    c->B = B;
    c->off = dgnn_xcalloc((size_t)B + 1, sizeof(int64_t));
    for (int64_t i = 0; i < B; i++) {
        int64_t cnt = (i == 0 || i == B - 2) ? 0 : 1 + (int64_t)dgnn_rng_below(&r, kmax);
        c->off[i + 1] = c->off[i] + cnt;
    }
    c->P = c->off[B];
    c->Un = g_big ? 400 : 5;
    c->nbr_row = dgnn_xcalloc((size_t)c->P, sizeof(int32_t));
    for (int64_t p = 0; p < c->P; p++) c->nbr_row[p] = (int32_t)dgnn_rng_below(&r, (uint64_t)c->Un);
    if (de > 0 && dedup_edges) {
        c->Ue = g_big ? 300 : 4;
        c->edge_row = dgnn_xcalloc((size_t)c->P, sizeof(int32_t));
        for (int64_t p = 0; p < c->P; p++) c->edge_row[p] = (int32_t)dgnn_rng_below(&r, (uint64_t)c->Ue);
    } else {
        c->Ue = de > 0 ? c->P : 0;
    }
    const int64_t dn = c->cfg.dn, dt = c->cfg.dt;
    c->Ur = B;
    if (shared_roots && g_big) { /* 300 rows, each shared by two roots in random places */
        c->Ur = B / 2;
        c->root_row = dgnn_xcalloc((size_t)B, sizeof(int32_t));
        for (int64_t i = 0; i < B; i++) c->root_row[i] = (int32_t)(i % c->Ur);
        for (int64_t i = B - 1; i > 0; i--) {
            int64_t j = (int64_t)dgnn_rng_below(&r, (uint64_t)i + 1);
            int32_t t = c->root_row[i];
            c->root_row[i] = c->root_row[j];
            c->root_row[j] = t;
        }
    } else if (shared_roots) {
        static const int32_t rows[7] = {0, 1, 2, 1, 3, 0, 2};
        c->Ur = 4;
        c->root_row = dgnn_xcalloc((size_t)B, sizeof(int32_t));
        memcpy(c->root_row, rows, sizeof rows);
    }
    c->h_root = fa(c->Ur * dn);
    c->te0 = fa(dt);
    c->h_nbr = fa(c->Un * dn);
    c->e_feat = de > 0 ? fa(c->Ue * de) : NULL;
    c->te = fa(c->P * dt);
    gradcheck_fill(c->h_root, c->Ur * dn, &r, -1, 1);
    gradcheck_fill(c->te0, dt, &r, -1, 1);
    gradcheck_fill(c->h_nbr, c->Un * dn, &r, -1, 1);
    if (de > 0) gradcheck_fill(c->e_feat, c->Ue * de, &r, -1, 1);
    gradcheck_fill(c->te, c->P * dt, &r, -1, 1);
    c->np = dgnn_tattn_params_layout(NULL, NULL, &c->cfg);
    c->slab = fa(c->np);
    c->gslab = fa(c->np);
    dgnn_tattn_params_layout(&c->p, c->slab, &c->cfg);
    dgnn_tattn_params_layout(&c->g, c->gslab, &c->cfg);
    dgnn_tattn_init(&c->p, &c->cfg, &r);
    /* non-zero biases (TGN initialises some to 0) and non-trivial layer norm affine */
    float *biases[] = {c->p.bq, c->p.bk, c->p.bv, c->p.bo, c->p.ln_b};
    for (int j = 0; j < 5; j++)
        if (biases[j]) gradcheck_fill(biases[j], dgnn_tattn_E(&c->cfg), &r, -0.3, 0.3);
    if (c->p.ln_g) gradcheck_fill(c->p.ln_g, c->cfg.dout, &r, 0.5, 1.5);
    for (int64_t i = 0; i < c->np; i++) c->slab[i] *= 1.5f; /* attention far from uniform */
    c->in = (dgnn_tattn_input){.B = B, .h_root = c->h_root, .Ur = c->Ur, .root_row = c->root_row,
                               .te0 = c->te0, .off = c->off, .Un = c->Un, .h_nbr = c->h_nbr,
                               .nbr_row = c->nbr_row, .Ue = c->Ue, .e_feat = c->e_feat,
                               .edge_row = c->edge_row, .te = c->te};
    int64_t ns = dgnn_tattn_saved_layout(NULL, NULL, &c->cfg, B, c->P, c->Un, c->Ue);
    c->sslab = fa(ns);
    DGNN_ASSERT(dgnn_tattn_saved_layout(&c->s, c->sslab, &c->cfg, B, c->P, c->Un, c->Ue) == ns);
    c->out = fa(B * c->cfg.dout);
    c->w = fa(B * c->cfg.dout);
    gradcheck_fill(c->w, B * c->cfg.dout, &r, -1, 1);
    c->drop_seed = seed * 7 + 1;
    /* Keep the ReLU after W1 away from its kink: shift each column's bias so that no
     * root's pre-activation is within reach of a finite-difference perturbation (a
     * crossing makes the difference quotient meaningless, not the gradient wrong). */
    layer_loss(c);
    const int64_t Hd = dgnn_tattn_hidden(&c->cfg);
    for (int64_t h = 0; h < Hd; h++) {
        double best = -1, best_shift = 0;
        for (int step = -30; step <= 30; step++) {
            double shift = 0.01 * step, m = INFINITY;
            for (int64_t i = 0; i < B; i++) m = fmin(m, fabs(c->s.z[i * Hd + h] + shift));
            if (m > best) {
                best = m;
                best_shift = shift;
            }
        }
        c->p.b1[h] += (float)best_shift;
    }
}

static void layer_setup(layer_ctx *c, dgnn_attn_kind kind, int64_t de, int dedup_edges, float attn_drop,
                        float drop, uint64_t seed) {
    layer_setup_ex(c, kind, de, dedup_edges, attn_drop, drop, seed, 0);
}

static void layer_free(layer_ctx *c) {
    free(c->root_row);
    free(c->off); free(c->nbr_row); free(c->edge_row); free(c->h_root); free(c->te0);
    free(c->h_nbr); free(c->e_feat); free(c->te); free(c->slab); free(c->gslab); free(c->sslab);
    free(c->out); free(c->w);
}

typedef struct {
    float *h_root, *te0, *h_nbr, *e_feat, *te;
    dgnn_tattn_dinput d;
} dins;

static void dins_alloc(dins *d, const layer_ctx *c) {
    d->h_root = fa(c->Ur * c->cfg.dn);
    d->te0 = fa(c->cfg.dt);
    d->h_nbr = fa(c->Un * c->cfg.dn);
    d->e_feat = fa(c->Ue * c->cfg.de);
    d->te = fa(c->P * c->cfg.dt);
    d->d = (dgnn_tattn_dinput){.h_root = d->h_root, .te0 = d->te0, .h_nbr = d->h_nbr, .e_feat = d->e_feat,
                               .te = d->te};
}

static void dins_free(dins *d) {
    free(d->h_root); free(d->te0); free(d->h_nbr); free(d->e_feat); free(d->te);
}

/* The largest relative difference of the input gradients a against b (the edge rows'
 * when the problem has edge features). */
static double dins_maxdiff(const dins *a, const dins *b, const layer_ctx *c) {
    double d = fmax(fmax(gradcheck_maxdiff(a->h_root, b->h_root, c->Ur * c->cfg.dn),
                         gradcheck_maxdiff(a->te0, b->te0, c->cfg.dt)),
                    fmax(gradcheck_maxdiff(a->h_nbr, b->h_nbr, c->Un * c->cfg.dn),
                         gradcheck_maxdiff(a->te, b->te, c->P * c->cfg.dt)));
    if (c->cfg.de > 0) d = fmax(d, gradcheck_maxdiff(a->e_feat, b->e_feat, c->Ue * c->cfg.de));
    return d;
}

static void test_layer_ex(dgnn_attn_kind kind, int64_t de, int dedup_edges, float attn_drop,
                          float drop, uint64_t seed, int shared_roots) {
    layer_ctx c;
    layer_setup_ex(&c, kind, de, dedup_edges, attn_drop, drop, seed, shared_roots);
    char tag[96];
    snprintf(tag, sizeof tag, "%s de=%lld%s%s%s", kind == DGNN_ATTN_TGN ? "tgn" : "tgl",
             (long long)de, dedup_edges && de ? " dedup" : "", attn_drop > 0 || drop > 0 ? " drop" : "",
             shared_roots ? " shared" : "");
    const int64_t B = c.B, dout = c.cfg.dout, Hd = dgnn_tattn_hidden(&c.cfg);

    /* fast forward + backward */
    layer_loss(&c);
    dins df;
    dins_alloc(&df, &c);
    dgnn_tattn_backward(&df.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);

    /* reference with the fast path's dropout masks */
    float *ref_out = fa(B * dout), *rg = fa(c.np);
    dgnn_tattn_params rgp;
    dgnn_tattn_params_layout(&rgp, rg, &c.cfg);
    dins dr;
    dins_alloc(&dr, &c);
    dgnn_tattn_reference(ref_out, &dr.d, &rgp, c.w, &c.in, &c.p, &c.cfg,
                         c.s.has_att_mask ? c.s.att_mask : NULL,
                         c.s.has_drop_mask ? c.s.drop_mask : NULL);
    double d_out = gradcheck_maxdiff(c.out, ref_out, B * dout);
    double d_par = gradcheck_maxdiff(c.gslab, rg, c.np);
    double d_in = dins_maxdiff(&df, &dr, &c);
    printf("%-24s fast vs reference: out %.2g, param grads %.2g, input grads %.2g\n", tag, d_out,
           d_par, d_in);
    CHECK_MSG(d_out < 1e-5, "%s: forward differs from the reference by %g", tag, d_out);
    CHECK_MSG(d_par < 1e-4, "%s: parameter gradients differ by %g", tag, d_par);
    CHECK_MSG(d_in < 1e-4, "%s: input gradients differ by %g", tag, d_in);
    if (attn_drop > 0) CHECK(c.s.has_att_mask);

    /* finite differences on the fast path: each input, each parameter tensor */
    char nm[128];
#define GC(label, x, gx, n)                                                        \
    do {                                                                           \
        snprintf(nm, sizeof nm, "%s %s", tag, label);                              \
        if ((n) > 0) CHECK(gradcheck(nm, layer_loss, &c, (x), (gx), (n)) == 0);    \
    } while (0)
    GC("h_root", c.h_root, df.h_root, c.Ur * c.cfg.dn);
    GC("te0", c.te0, df.te0, c.cfg.dt);
    GC("h_nbr", c.h_nbr, df.h_nbr, c.Un * c.cfg.dn);
    GC("te", c.te, df.te, c.P * c.cfg.dt);
    if (de > 0) GC("e_feat", c.e_feat, df.e_feat, c.Ue * de);
    const int64_t E = dgnn_tattn_E(&c.cfg), dq = c.cfg.dn + c.cfg.dt, dk = dq + de;
    struct { const char *n; float *x, *g; int64_t cnt; } t[] = {
        {"Wq", c.p.Wq, c.g.Wq, E * dq}, {"bq", c.p.bq, c.g.bq, E},
        {"Wk", c.p.Wk, c.g.Wk, E * dk}, {"bk", c.p.bk, c.g.bk, E},
        {"Wv", c.p.Wv, c.g.Wv, E * dk}, {"bv", c.p.bv, c.g.bv, E},
        {"Wo", c.p.Wo, c.g.Wo, c.p.Wo ? E * E : 0}, {"bo", c.p.bo, c.g.bo, c.p.bo ? E : 0},
        {"W1", c.p.W1, c.g.W1, Hd * (E + c.cfg.dn)}, {"b1", c.p.b1, c.g.b1, Hd},
        {"W2", c.p.W2, c.g.W2, c.p.W2 ? dout * c.cfg.dn : 0}, {"b2", c.p.b2, c.g.b2, c.p.b2 ? dout : 0},
        {"ln_g", c.p.ln_g, c.g.ln_g, c.p.ln_g ? dout : 0}, {"ln_b", c.p.ln_b, c.g.ln_b, c.p.ln_b ? dout : 0},
    };
    for (size_t j = 0; j < sizeof t / sizeof t[0]; j++) GC(t[j].n, t[j].x, t[j].g, t[j].cnt);
#undef GC

    /* backward accumulates and leaves the saved forward state intact */
    float *g1 = fa(c.np);
    memcpy(g1, c.gslab, (size_t)c.np * sizeof(float));
    layer_loss(&c);
    dgnn_tattn_backward(&df.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);
    dgnn_tattn_backward(&df.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);
    int acc = 1;
    for (int64_t i = 0; i < c.np; i++) acc &= fabsf(c.gslab[i] - 3 * g1[i]) <= 1e-4f * (1 + fabsf(g1[i]));
    CHECK_MSG(acc, "%s: backward must accumulate", tag);

    dins_free(&df);
    dins_free(&dr);
    free(ref_out); free(rg); free(g1);
    layer_free(&c);
}

static void test_layer(dgnn_attn_kind kind, int64_t de, int dedup_edges, float attn_drop, float drop,
                       uint64_t seed) {
    test_layer_ex(kind, de, dedup_edges, attn_drop, drop, seed, 0);
}

/* TGN: a root without neighbours embeds as W2 relu(W1 [0; h_root] + b1) + b2. */
static void test_zero_neighbour_semantics(void) {
    layer_ctx c;
    layer_setup(&c, DGNN_ATTN_TGN, 3, 0, 0, 0, 11);
    layer_loss(&c);
    const int64_t dn = c.cfg.dn, E = dgnn_tattn_E(&c.cfg), Hd = dgnn_tattn_hidden(&c.cfg);
    double worst = 0;
    for (int64_t i = 0; i < c.B; i++) {
        if (c.off[i + 1] != c.off[i]) continue;
        for (int64_t o = 0; o < c.cfg.dout; o++) {
            double y = c.p.b2[o];
            for (int64_t h = 0; h < Hd; h++) {
                double z = c.p.b1[h];
                for (int64_t j = 0; j < dn; j++) z += (double)c.p.W1[h * (E + dn) + E + j] * c.h_root[i * dn + j];
                y += c.p.W2[o * Hd + h] * (z > 0 ? z : 0);
            }
            worst = fmax(worst, fabs(y - c.out[i * c.cfg.dout + o]));
        }
    }
    CHECK_MSG(worst < 1e-5, "zero-neighbour root: %g", worst);
    layer_free(&c);
}

/* The same forward and backward with 1 and 3 OpenMP threads give identical bits. Note
 * (issue 12): at this size (7 roots) every OpenMP loop of the layer is below its 16384
 * threshold and every sgemm below OpenBLAS's threading threshold, so this only checks that
 * setting the thread count changes nothing by itself. At real sizes the layer's plain
 * sgemm calls are split by OpenBLAS and the bits do depend on the thread count (the event
 * models are not thread-count independent: docs/determinism.md). */
static void test_threads(void) {
    layer_ctx c;
    layer_setup(&c, DGNN_ATTN_TGN, 3, 1, 0.2f, 0, 21);
    float *out1 = fa(c.B * c.cfg.dout), *g1 = fa(c.np);
    omp_set_num_threads(1);
    layer_loss(&c);
    dins d;
    dins_alloc(&d, &c);
    dgnn_tattn_backward(&d.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);
    memcpy(out1, c.out, (size_t)(c.B * c.cfg.dout) * sizeof(float));
    memcpy(g1, c.gslab, (size_t)c.np * sizeof(float));
    memset(c.gslab, 0, (size_t)c.np * sizeof(float));
    omp_set_num_threads(3);
    layer_loss(&c);
    dgnn_tattn_backward(&d.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);
    omp_set_num_threads(2);
    CHECK(memcmp(out1, c.out, (size_t)(c.B * c.cfg.dout) * sizeof(float)) == 0);
    CHECK(memcmp(g1, c.gslab, (size_t)c.np * sizeof(float)) == 0);
    dins_free(&d);
    free(out1);
    free(g1);
    layer_free(&c);
}

/* At a size where every loop of the layer is split over the threads (segment sums by
 * destination row, roots by their pairs' cost, column ranges: par.h), 1, 2 and 3
 * threads each agree with the plain reference, and with each other within float
 * rounding (the products may cut differently). */
static void test_threads_big(dgnn_attn_kind kind, int shared_roots, uint64_t seed) {
    g_big = 1;
    layer_ctx c;
    layer_setup_ex(&c, kind, 3, 1, 0.2f, kind == DGNN_ATTN_TGL ? 0.1f : 0.0f, seed, shared_roots);
    g_big = 0;
    const int64_t B = c.B, dout = c.cfg.dout;
    CHECK(c.P * 2 * (c.cfg.dn + 3 + c.cfg.dt) > 16384 && B * dgnn_tattn_hidden(&c.cfg) > 16384);
    float *ref_out = fa(B * dout), *rg = fa(c.np), *out1 = fa(B * dout), *g1 = fa(c.np);
    dgnn_tattn_params rgp;
    dgnn_tattn_params_layout(&rgp, rg, &c.cfg);
    dins dr, df, d1;
    dins_alloc(&dr, &c);
    dins_alloc(&d1, &c);
    for (int T = 1; T <= 3; T++) {
        omp_set_num_threads(T);
        memset(c.gslab, 0, (size_t)c.np * sizeof(float));
        dins_alloc(&df, &c);
        layer_loss(&c);
        dgnn_tattn_backward(&df.d, &c.g, c.w, &c.s, &c.in, &c.p, &c.cfg);
        if (T == 1) { /* the reference with the same dropout masks */
            dgnn_tattn_reference(ref_out, &dr.d, &rgp, c.w, &c.in, &c.p, &c.cfg,
                                 c.s.has_att_mask ? c.s.att_mask : NULL, c.s.has_drop_mask ? c.s.drop_mask : NULL);
            memcpy(out1, c.out, (size_t)(B * dout) * sizeof(float));
            memcpy(g1, c.gslab, (size_t)c.np * sizeof(float));
            memcpy(d1.h_nbr, df.h_nbr, (size_t)(c.Un * c.cfg.dn) * sizeof(float));
            memcpy(d1.h_root, df.h_root, (size_t)(c.Ur * c.cfg.dn) * sizeof(float));
            memcpy(d1.te0, df.te0, (size_t)c.cfg.dt * sizeof(float));
            memcpy(d1.te, df.te, (size_t)(c.P * c.cfg.dt) * sizeof(float));
            memcpy(d1.e_feat, df.e_feat, (size_t)(c.Ue * c.cfg.de) * sizeof(float));
        }
        double d_out = gradcheck_maxdiff(c.out, ref_out, B * dout);
        double d_par = gradcheck_maxdiff(c.gslab, rg, c.np);
        double d_in = dins_maxdiff(&df, &dr, &c);
        double d_t = fmax(fmax(gradcheck_maxdiff(c.out, out1, B * dout), gradcheck_maxdiff(c.gslab, g1, c.np)),
                          dins_maxdiff(&df, &d1, &c));
        printf("%s big%s, %d threads: vs reference out %.2g, param grads %.2g, input grads %.2g; vs 1 thread %.2g\n",
               kind == DGNN_ATTN_TGN ? "tgn" : "tgl", shared_roots ? " shared" : "", T, d_out, d_par, d_in, d_t);
        CHECK_MSG(d_out < 1e-4 && d_par < 1e-3 && d_in < 1e-3, "%d threads: the fast layer differs from the reference", T);
        CHECK_MSG(d_t < 1e-4, "%d threads: differs from 1 thread by %g", T, d_t);
        dins_free(&df);
    }
    omp_set_num_threads(2);
    dins_free(&dr);
    dins_free(&d1);
    free(ref_out); free(rg); free(out1); free(g1);
    layer_free(&c);
}

static void test_check_cfg(void) {
    dgnn_err err;
    dgnn_tattn_cfg c = {DGNN_ATTN_TGN, 172, 0, 100, 2, 172, 0.1f, 0.1f};
    CHECK(dgnn_tattn_check(&c, &err) == DGNN_OK);
    CHECK(dgnn_tattn_E(&c) == 272 && dgnn_tattn_hidden(&c) == 172);
    c.heads = 3; /* 272 % 3 != 0 */
    CHECK(dgnn_tattn_check(&c, &err) == DGNN_EINVAL && strstr(err.msg, "heads"));
    c.heads = 2;
    c.attn_dropout = 1.0f;
    CHECK(dgnn_tattn_check(&c, &err) == DGNN_EINVAL && strstr(err.msg, "dropout"));
    dgnn_tattn_cfg t = {DGNN_ATTN_TGL, 100, 172, 100, 2, 100, 0.1f, 0.2f};
    CHECK(dgnn_tattn_check(&t, &err) == DGNN_OK && dgnn_tattn_E(&t) == 100);
    /* parameter count of TGN's preset layer, as torch counts it (wikipedia, 172-dim
     * edge features): MHA (272*272 + 272*444*2 + 3*272 + 272*272 + 272) + MergeLayer
     * ((272 + 172) * 172 + 172 + 172 * 172 + 172) */
    c.de = 172;
    int64_t mha = 272 * 272 + 2 * 272 * 444 + 3 * 272 + 272 * 272 + 272;
    int64_t merge = 444 * 172 + 172 + 172 * 172 + 172;
    CHECK(dgnn_tattn_params_layout(NULL, NULL, &c) == mha + merge);
}

static void test_pairs(void) {
    /* 3 roots, k = 3: padding at the end (most-recent sampler), in the middle, all. */
    const int32_t nbr[9] = {5, 2, -1, -1, 5, 7, -1, -1, -1};
    int64_t off[4], Un = -1;
    int32_t slot[9], row[9], uniq[9], map[8];
    for (int i = 0; i < 8; i++) map[i] = -1;
    int64_t P = dgnn_tattn_pairs(off, slot, row, uniq, &Un, map, nbr, 3, 3);
    CHECK(P == 4 && Un == 3);
    CHECK(off[0] == 0 && off[1] == 2 && off[2] == 4 && off[3] == 4);
    CHECK(slot[0] == 0 && slot[1] == 1 && slot[2] == 4 && slot[3] == 5);
    CHECK(uniq[0] == 5 && uniq[1] == 2 && uniq[2] == 7);
    CHECK(row[0] == 0 && row[1] == 1 && row[2] == 0 && row[3] == 2);
    int clean = 1;
    for (int i = 0; i < 8; i++) clean &= map[i] == -1;
    CHECK(clean);
}

/* the layout's sizes saturate (base.h's dgnn_size_mul) for dims from the user's settings:
 * a memory or time dim of 2^40 overflowed int64_t in TGN's E * dq (E = dn + dt); TGL's
 * width is dout, so there a dim of 2^62 overflows */
static void test_layout_overflow(void) {
    for (int kind = 0; kind < 2; kind++)
        for (int which = 0; which < 2; which++) {
            const int64_t big = (int64_t)1 << (kind ? 62 : 40);
            dgnn_tattn_cfg c;
            memset(&c, 0, sizeof c);
            c.kind = kind ? DGNN_ATTN_TGL : DGNN_ATTN_TGN;
            c.heads = 2, c.dn = 16, c.de = 4, c.dt = 8, c.dout = 16;
            if (which) c.dt = big;
            else c.dn = big;
            const int64_t n = dgnn_tattn_params_layout(NULL, NULL, &c);
            CHECK_MSG(n == INT64_MAX, "kind %d, %s 2^%d: %lld floats", kind, which ? "dt" : "dn", kind ? 62 : 40,
                      (long long)n);
        }
    dgnn_tattn_cfg c;
    memset(&c, 0, sizeof c);
    c.kind = DGNN_ATTN_TGN, c.heads = 2, c.dn = 16, c.de = 4, c.dt = 8, c.dout = 16;
    /* E = 24, dq = 24, dk = 28: Wq, bq, Wk, bk, Wv, bv, Wo, bo, W1 (16 x 40), b1, W2 (16 x 16), b2 */
    CHECK(dgnn_tattn_params_layout(NULL, NULL, &c) ==
          24 * 24 + 24 + 24 * 28 + 24 + 24 * 28 + 24 + 24 * 24 + 24 + 16 * 40 + 16 + 16 * 16 + 16);
}

int main(void) {
    test_layout_overflow();
    test_pairs();
    test_core(DGNN_SCORE_SCALED_DOT, 0);
    test_core(DGNN_SCORE_SCALED_DOT, 1);
    test_core(DGNN_SCORE_LEAKY_DOT, 0);
    test_core(DGNN_SCORE_LEAKY_DOT, 1);
    test_check_cfg();
    test_layer(DGNN_ATTN_TGN, 0, 0, 0, 0, 1);
    test_layer(DGNN_ATTN_TGN, 3, 1, 0, 0, 2);
    test_layer(DGNN_ATTN_TGN, 3, 0, 0.3f, 0, 3);
    test_layer(DGNN_ATTN_TGL, 0, 0, 0, 0, 4);
    test_layer(DGNN_ATTN_TGL, 3, 1, 0.3f, 0.25f, 5);
    test_layer_ex(DGNN_ATTN_TGN, 3, 1, 0.3f, 0, 6, 1); /* roots sharing query rows */
    test_layer_ex(DGNN_ATTN_TGN, 0, 0, 0, 0, 7, 1);
    test_layer_ex(DGNN_ATTN_TGL, 3, 0, 0.3f, 0.25f, 8, 1);
    g_heads = 10; /* more heads than one product group holds */
    test_layer_ex(DGNN_ATTN_TGN, 3, 1, 0.3f, 0, 9, 1);
    g_heads = 2;
    test_zero_neighbour_semantics();
    test_threads();
    test_threads_big(DGNN_ATTN_TGN, 1, 31);
    test_threads_big(DGNN_ATTN_TGN, 0, 32);
    test_threads_big(DGNN_ATTN_TGL, 1, 33);
    return check_done();
}
