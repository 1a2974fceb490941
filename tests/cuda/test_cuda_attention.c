/* test_cuda_attention.c: the GPU's attention core and temporal attention layer against the
 * CPU's (built only with -DDGNN_CUDA=ON; without a device it checks that opening one is
 * refused, then skips with 77). With one:
 *  - core (APAN's mailbox attention): both score kinds, with and without a dropout mask,
 *    queries without keys (o = 0), one key, and a query with more keys than a block has
 *    threads; o, logits, weights and every gradient (+=);
 *  - layer (TGN's and TGL's kinds): roots without neighbours (B = 1 with none, and a batch
 *    with no pairs at all), repeated neighbour rows, edge rows deduplicated or one per
 *    pair, roots sharing query rows (root_row), the roots' and the neighbours' inputs in
 *    one buffer (as TGN's model passes them), dropout from the same seeds as the CPU's
 *    rng; the output, every saved array and every gradient (+=).
 * ReLU and LeakyReLU kinks: the biases before the layer's ReLU are shifted off the kink,
 * and a problem whose CPU scores lie within 1e-5 of the LeakyReLU's kink is redrawn, so
 * that the two roundings cannot fall on two sides of one. */
#include "cuda_check.h"

/* ---- core ---- */

static void test_core(dgnn_cuda *c, int64_t B, int64_t heads, int64_t E, int64_t kmax, dgnn_score_kind kind,
                      int with_mask, uint64_t seed) {
    dgnn_rng r;
    int64_t *off = malloc((size_t)(B + 1) * sizeof(int64_t)), P = 0;
    float *q = NULL, *k = NULL, *v = NULL, *o = NULL, *logit = NULL, *att = NULL, *mask = NULL;
    for (int tries = 0; tries < 50; tries++) { /* redraw while a leaky score is near its kink */
        free(q), free(k), free(v), free(o), free(logit), free(att), free(mask);
        dgnn_rng_seed(&r, seed + 1000 * (uint64_t)tries);
        off[0] = 0;
        for (int64_t i = 0; i < B; i++) {
            int64_t n = (int64_t)dgnn_rng_below(&r, (uint64_t)kmax + 1);
            if (i % 5 == 1) n = 0; /* queries without keys */
            if (i == 2) n = 1;
            if (i == 3 && kmax >= 100) n = 300; /* more keys than the block's 128 threads */
            off[i + 1] = off[i] + n;
        }
        P = off[B];
        q = rnd(B * E, -1, 1, &r), k = rnd(P * E, -1, 1, &r), v = rnd(P * E, -1, 1, &r);
        o = rnd(B * E, 0, 0, &r), logit = rnd(P * heads, 0, 0, &r), att = rnd(P * heads, 0, 0, &r);
        mask = with_mask ? rnd(P * heads, 0, 0, &r) : NULL;
        if (mask) dgnn_dropout_mask(mask, P * heads, 0.3f, seed);
        dgnn_attn_core_forward(o, logit, att, mask, q, k, v, off, B, heads, E, kind);
        double m = INFINITY;
        for (int64_t p = 0; p < P * heads; p++) m = fmin(m, fabs(logit[p]));
        if (kind != DGNN_SCORE_LEAKY_DOT || m > 1e-5) break;
    }
    float *g = rnd(B * E, -1, 1, &r), *dq = rnd(B * E, -1, 1, &r), *dk = rnd(P * E, -1, 1, &r);
    float *dv = rnd(P * E, -1, 1, &r);
    float *d_q = up(c, q, B * E), *d_k = up(c, k, P * E), *d_v = up(c, v, P * E), *d_g = up(c, g, B * E);
    float *d_dq = up(c, dq, B * E), *d_dk = up(c, dk, P * E), *d_dv = up(c, dv, P * E);
    /* the forward's outputs start as NaN, not as the CPU's results above: an element the
     * GPU leaves unwritten must fail */
    float *d_o = upnan(c, (size_t)(B * E) * sizeof(float)), *d_logit = upnan(c, (size_t)(P * heads) * sizeof(float));
    float *d_att = upnan(c, (size_t)(P * heads) * sizeof(float));
    float *d_mask = mask ? up(c, mask, P * heads) : NULL;
    int64_t *d_off = upb(c, off, (size_t)(B + 1) * sizeof(int64_t));
    CUDA_OK(dgnn_cuda_attn_core_forward(c, d_o, d_logit, d_att, d_mask, d_q, d_k, d_v, d_off, B, heads, E, kind, ERR));
    CUDA_OK(dgnn_cuda_attn_core_backward(c, d_dq, d_dk, d_dv, d_g, d_logit, d_att, d_mask, d_q, d_k, d_v, d_off, B,
                                         heads, E, kind, ERR));
    dgnn_attn_core_backward(dq, dk, dv, g, logit, att, mask, q, k, v, off, B, heads, E, kind);
    const double tol = 1e-6 * (double)(E + 4 * kmax + 10);
    same(c, "core o", d_o, o, B * E, tol);
    same(c, "core logit", d_logit, logit, P * heads, tol);
    same(c, "core att", d_att, att, P * heads, tol);
    same(c, "core dq", d_dq, dq, B * E, tol);
    same(c, "core dk", d_dk, dk, P * E, tol);
    same(c, "core dv", d_dv, dv, P * E, tol);
    RELEASE(c, d_q, d_k, d_v, d_g, d_mask, d_off);
    FREE(off, q, k, v, o, logit, att, mask, g, dq, dk, dv);
}

/* ---- the temporal attention layer ---- */

typedef struct {
    int64_t B, kmax;
    int dedup_edges, shared_roots, alias, no_pairs, infer;
} shape;

typedef struct {
    dgnn_tattn_cfg cfg;
    shape sh;
    int64_t B, P, Un, Ue, Ur, np, ns;
    int64_t *off;
    int32_t *nbr_row, *edge_row, *root_row;
    float *h_nbr, *h_root, *te0, *e_feat, *te; /* with alias, h_root is h_nbr (its first Ur rows) */
    float *slab, *gslab, *sslab, *out, *w;
    dgnn_tattn_params p, g;
    dgnn_tattn_input in;
    dgnn_tattn_saved s;
    float *dh_nbr, *dh_root, *dte0, *de_feat, *dte; /* the inputs' gradients, random to start (+=) */
    uint64_t drop_seed;
} prob;

static void cpu_forward(prob *b) {
    dgnn_rng r;
    dgnn_rng_seed(&r, b->drop_seed);
    dgnn_tattn_forward(b->out, &b->s, &b->in, &b->p, &b->cfg, b->sh.infer ? NULL : &r);
}

static void prob_free(prob *b) {
    FREE(b->off, b->nbr_row, b->edge_row, b->root_row, b->h_nbr, b->te0, b->e_feat, b->te, b->slab, b->gslab,
         b->sslab, b->out, b->w, b->dh_nbr, b->dte0, b->de_feat, b->dte);
    if (!b->sh.alias) free(b->h_root), free(b->dh_root);
}

/* A random problem (see the file's comment); returns 0 when it lies too near a kink (the
 * caller draws another). */
static int prob_build(prob *b, dgnn_attn_kind kind, int64_t dn, int64_t de, int64_t dt, int64_t heads, int64_t dout,
                      float attn_drop, float drop, const shape *sh, uint64_t seed) {
    memset(b, 0, sizeof *b);
    b->sh = *sh;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    b->cfg = (dgnn_tattn_cfg){kind, dn, de, dt, heads, dout, attn_drop, drop};
    dgnn_err e;
    CHECK_MSG(dgnn_tattn_check(&b->cfg, &e) == DGNN_OK, "%s", e.msg);
    const int64_t B = sh->B;
    b->B = B;
    b->off = malloc((size_t)(B + 1) * sizeof(int64_t));
    b->off[0] = 0;
    for (int64_t i = 0; i < B; i++) {
        int64_t n = sh->no_pairs || i == 0 || (B > 2 && i == B - 2) ? 0 : 1 + (int64_t)dgnn_rng_below(&r, (uint64_t)sh->kmax);
        if (i == 1 && sh->kmax >= 100 && !sh->no_pairs) n = 200; /* more pairs than the block's threads */
        b->off[i + 1] = b->off[i] + n;
    }
    const int64_t P = b->P = b->off[B];
    b->Ur = B;
    if (sh->shared_roots && B >= 3) {
        b->Ur = B / 3;
        b->root_row = malloc((size_t)B * sizeof(int32_t));
        for (int64_t i = 0; i < B; i++)
            b->root_row[i] = i < b->Ur ? (int32_t)i : (int32_t)dgnn_rng_below(&r, (uint64_t)b->Ur);
    }
    b->Un = B / 2 + 3;
    if (sh->alias && b->Un < b->Ur) b->Un = b->Ur;
    b->nbr_row = malloc((size_t)(P + 1) * sizeof(int32_t));
    for (int64_t p = 0; p < P; p++) b->nbr_row[p] = (int32_t)dgnn_rng_below(&r, (uint64_t)b->Un);
    b->Ue = de > 0 ? P : 0;
    if (de > 0 && sh->dedup_edges) {
        b->Ue = P / 3 + 1;
        b->edge_row = malloc((size_t)(P + 1) * sizeof(int32_t));
        for (int64_t p = 0; p < P; p++) b->edge_row[p] = (int32_t)dgnn_rng_below(&r, (uint64_t)b->Ue);
    }
    b->h_nbr = rnd(b->Un * dn, -1, 1, &r);
    b->h_root = sh->alias ? b->h_nbr : rnd(b->Ur * dn, -1, 1, &r);
    b->te0 = rnd(dt, -1, 1, &r);
    b->e_feat = de > 0 ? rnd(b->Ue * de, -1, 1, &r) : NULL;
    b->te = rnd(P * dt, -1, 1, &r);
    b->np = dgnn_tattn_params_layout(NULL, NULL, &b->cfg);
    b->slab = rnd(b->np, -1, 1, &r);
    b->gslab = rnd(b->np, -1, 1, &r);
    dgnn_tattn_params_layout(&b->p, b->slab, &b->cfg);
    dgnn_tattn_params_layout(&b->g, b->gslab, &b->cfg);
    dgnn_tattn_init(&b->p, &b->cfg, &r);
    const int64_t E = dgnn_tattn_E(&b->cfg), Hd = dgnn_tattn_hidden(&b->cfg);
    float *biases[] = {b->p.bq, b->p.bk, b->p.bv, b->p.bo, b->p.ln_b}; /* TGN initialises some to 0 */
    for (int j = 0; j < 5; j++)
        if (biases[j]) dgnn_init_uniform(biases[j], j == 4 ? dout : E, -0.3f, 0.3f, &r);
    if (b->p.ln_g) dgnn_init_uniform(b->p.ln_g, dout, 0.5f, 1.5f, &r);
    for (int64_t i = 0; i < b->np; i++) b->slab[i] *= 1.5f; /* attention far from uniform */
    b->in = (dgnn_tattn_input){.B = B, .h_root = b->h_root, .Ur = b->Ur, .root_row = b->root_row, .te0 = b->te0,
                               .off = b->off, .Un = b->Un, .h_nbr = b->h_nbr, .nbr_row = b->nbr_row, .Ue = b->Ue,
                               .e_feat = b->e_feat, .edge_row = b->edge_row, .te = b->te};
    b->ns = dgnn_tattn_saved_layout(NULL, NULL, &b->cfg, B, P, b->Un, b->Ue);
    b->sslab = calloc((size_t)b->ns + 1, sizeof(float));
    dgnn_tattn_saved_layout(&b->s, b->sslab, &b->cfg, B, P, b->Un, b->Ue);
    b->out = rnd(B * dout, 0, 0, &r);
    b->w = rnd(B * dout, -1, 1, &r);
    b->dh_nbr = rnd(b->Un * dn, -1, 1, &r);
    b->dh_root = sh->alias ? b->dh_nbr : rnd(b->Ur * dn, -1, 1, &r);
    b->dte0 = rnd(dt, -1, 1, &r);
    b->de_feat = rnd(b->Ue * de, -1, 1, &r);
    b->dte = rnd(P * dt, -1, 1, &r);
    b->drop_seed = seed * 7 + 1;
    /* the ReLU after W1 off its kink: shift each column's bias away from every root's z */
    cpu_forward(b);
    for (int64_t j = 0; j < Hd; j++) {
        double best = -1, best_shift = 0;
        for (int step = -30; step <= 30; step++) {
            double shift = 0.01 * step, m = INFINITY;
            for (int64_t i = 0; i < B; i++) m = fmin(m, fabs(b->s.z[i * Hd + j] + shift));
            if (m > best) best = m, best_shift = shift;
        }
        b->p.b1[j] += (float)best_shift;
    }
    cpu_forward(b);
    double mz = INFINITY, ml = INFINITY;
    for (int64_t i = 0; i < B * Hd; i++) mz = fmin(mz, fabs(b->s.z[i]));
    if (kind == DGNN_ATTN_TGL)
        for (int64_t i = 0; i < P * heads; i++) ml = fmin(ml, fabs(b->s.logit[i]));
    return mz > 1e-4 && ml > 1e-5;
}

/* device arrays of one problem */
typedef struct {
    int64_t *off;
    int32_t *nbr_row, *edge_row, *root_row;
    float *h_nbr, *h_root, *te0, *e_feat, *te, *slab, *gslab, *sslab, *out, *w;
    float *dh_nbr, *dh_root, *dte0, *de_feat, *dte;
} dev;

static void compare_saved(dgnn_cuda *c, const char *name, const dgnn_tattn_saved *ds, const prob *b, double tol) {
    const int64_t B = b->B, P = b->P, Ur = b->Ur, E = dgnn_tattn_E(&b->cfg), Hd = dgnn_tattn_hidden(&b->cfg);
    const int64_t H = b->cfg.heads, HK = H * (b->cfg.dn + b->cfg.de + b->cfg.dt), dc = E + b->cfg.dn;
    const dgnn_tattn_saved *s = &b->s;
    struct {
        const char *what;
        const float *d, *h;
        int64_t n;
    } f[] = {{"q", ds->q, s->q, Ur * E},           {"qt", ds->qt, s->qt, Ur * HK},
             {"qb", ds->qb, s->qb, Ur * H},         {"logit", ds->logit, s->logit, P * H},
             {"att", ds->att, s->att, P * H},       {"xbar", ds->xbar, s->xbar, B * HK},
             {"asum", ds->asum, s->asum, B * H},    {"o", ds->o, s->o, B * E},
             {"z", ds->z, s->z, B * Hd},            {"r", ds->r, s->r, B * Hd},
             {"wfold", ds->wfold, s->wfold, Hd * E}, {"zr", ds->zr, s->zr, Ur * Hd},
             {"cfold", ds->cfold, s->cfold, Hd},    {"cat", ds->cat, s->cat, B * dc},
             {"ln_mean", ds->ln_mean, s->ln_mean, B}, {"ln_rstd", ds->ln_rstd, s->ln_rstd, B},
             {"att_mask", s->has_att_mask ? ds->att_mask : NULL, s->att_mask, P * H},
             {"drop_mask", s->has_drop_mask ? ds->drop_mask : NULL, s->drop_mask, B * Hd}};
    CHECK_MSG(ds->has_att_mask == s->has_att_mask && ds->has_drop_mask == s->has_drop_mask, "%s: dropout flags", name);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!f[i].d || !f[i].h || f[i].n == 0) continue; /* not in this kind's layout */
        char buf[96];
        snprintf(buf, sizeof buf, "%s saved %s", name, f[i].what);
        same_keep(c, buf, f[i].d, f[i].h, f[i].n, tol);
    }
}

static void test_layer(dgnn_cuda *c, const char *name, dgnn_attn_kind kind, int64_t dn, int64_t de, int64_t dt,
                       int64_t heads, int64_t dout, float attn_drop, float drop, shape sh, uint64_t seed) {
    prob pb, *b = &pb;
    int tries = 0;
    while (!prob_build(b, kind, dn, de, dt, heads, dout, attn_drop, drop, &sh, seed + 1000 * (uint64_t)tries) &&
           tries < 50)
        prob_free(b), tries++;
    const int64_t B = b->B, P = b->P, Un = b->Un, Ue = b->Ue, Ur = b->Ur;
    dev d = {0};
    d.off = upb(c, b->off, (size_t)(B + 1) * sizeof(int64_t));
    d.nbr_row = upb(c, b->nbr_row, (size_t)P * sizeof(int32_t));
    d.edge_row = b->edge_row ? upb(c, b->edge_row, (size_t)P * sizeof(int32_t)) : NULL;
    d.root_row = b->root_row ? upb(c, b->root_row, (size_t)B * sizeof(int32_t)) : NULL;
    d.h_nbr = up(c, b->h_nbr, Un * dn);
    d.h_root = sh.alias ? d.h_nbr : up(c, b->h_root, Ur * dn);
    d.te0 = up(c, b->te0, dt);
    d.e_feat = de > 0 ? up(c, b->e_feat, Ue * de) : NULL;
    d.te = up(c, b->te, P * dt);
    d.slab = up(c, b->slab, b->np);
    d.gslab = up(c, b->gslab, b->np);
    /* the saved slab and the output start as NaN: b->sslab and b->out hold the CPU's
     * forward results already (prob_build ran it), and a device copy of them would let an
     * array the GPU forward leaves unwritten, or scratch its backward reads before writing,
     * pass the comparisons */
    d.sslab = upnan(c, (size_t)b->ns * sizeof(float));
    d.out = upnan(c, (size_t)(B * dout) * sizeof(float));
    d.w = up(c, b->w, B * dout);
    d.dh_nbr = up(c, b->dh_nbr, Un * dn);
    d.dh_root = sh.alias ? d.dh_nbr : up(c, b->dh_root, Ur * dn);
    d.dte0 = up(c, b->dte0, dt);
    d.de_feat = up(c, b->de_feat, Ue * de);
    d.dte = up(c, b->dte, P * dt);
    dgnn_tattn_params dp, dg;
    dgnn_tattn_params_layout(&dp, d.slab, &b->cfg); /* device pointers: the layouts only add offsets */
    dgnn_tattn_params_layout(&dg, d.gslab, &b->cfg);
    dgnn_tattn_saved ds;
    dgnn_tattn_saved_layout(&ds, d.sslab, &b->cfg, B, P, Un, Ue);
    dgnn_tattn_input in = {.B = B, .h_root = d.h_root, .Ur = Ur, .root_row = d.root_row, .te0 = d.te0, .off = d.off,
                           .Un = Un, .h_nbr = d.h_nbr, .nbr_row = d.nbr_row, .Ue = Ue, .e_feat = d.e_feat,
                           .edge_row = d.edge_row, .te = d.te};
    dgnn_tattn_dinput din = {.h_root = d.dh_root, .te0 = d.dte0, .h_nbr = d.dh_nbr, .e_feat = de > 0 ? d.de_feat : NULL,
                             .te = d.dte};
    /* the seeds the CPU layer draws from its rng: one per active dropout */
    dgnn_rng r;
    dgnn_rng_seed(&r, b->drop_seed);
    uint64_t seeds[2] = {0, 0};
    const int ns = (attn_drop > 0) + (kind == DGNN_ATTN_TGL && drop > 0);
    for (int k = 0; k < ns; k++) seeds[k] = dgnn_rng_u64(&r);
    CUDA_OK(dgnn_cuda_tattn_forward(c, d.out, &ds, &in, P, &dp, &b->cfg, sh.infer ? NULL : seeds, ERR));
    cpu_forward(b);
    /* relative to 1 + |ref|: products over dk + E terms forward, sums over the roots and
     * pairs as well backward (the GPU sums in other orders) */
    const double dk = (double)(dn + de + dt), E = (double)dgnn_tattn_E(&b->cfg);
    const double tolf = fmax(1e-4, 1e-6 * (dk + E)), tolb = fmax(1e-4, 2e-6 * ((double)(B + P) + dk + E));
    char buf[96];
    snprintf(buf, sizeof buf, "%s out", name);
    same_keep(c, buf, d.out, b->out, B * dout, tolf);
    compare_saved(c, name, &ds, b, tolf);

    CUDA_OK(dgnn_cuda_tattn_backward(c, &din, &dg, d.w, &ds, &in, P, &dp, &b->cfg, ERR));
    dgnn_tattn_dinput hin = {.h_root = b->dh_root, .te0 = b->dte0, .h_nbr = b->dh_nbr,
                             .e_feat = de > 0 ? b->de_feat : NULL, .te = b->dte};
    dgnn_tattn_backward(&hin, &b->g, b->w, &b->s, &b->in, &b->p, &b->cfg);
    snprintf(buf, sizeof buf, "%s dparams", name);
    same_keep(c, buf, d.gslab, b->gslab, b->np, tolb);
    snprintf(buf, sizeof buf, "%s dh_nbr", name);
    same_keep(c, buf, d.dh_nbr, b->dh_nbr, Un * dn, tolb);
    if (!sh.alias) {
        snprintf(buf, sizeof buf, "%s dh_root", name);
        same_keep(c, buf, d.dh_root, b->dh_root, Ur * dn, tolb);
    }
    snprintf(buf, sizeof buf, "%s dte0", name);
    same_keep(c, buf, d.dte0, b->dte0, dt, tolb);
    snprintf(buf, sizeof buf, "%s de_feat", name);
    same_keep(c, buf, d.de_feat, b->de_feat, Ue * de, tolb);
    snprintf(buf, sizeof buf, "%s dte", name);
    same_keep(c, buf, d.dte, b->dte, P * dt, tolb);
    RELEASE(c, d.off, d.nbr_row, d.edge_row, d.root_row, d.h_nbr, sh.alias ? NULL : d.h_root, d.te0, d.e_feat, d.te,
            d.slab, d.gslab, d.sslab, d.out, d.w, d.dh_nbr, sh.alias ? NULL : d.dh_root, d.dte0, d.de_feat, d.dte);
    prob_free(b);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_attention");
    /* core: B, heads, E, keys per query up to, kind, mask */
    test_core(c, 1, 1, 1, 0, DGNN_SCORE_SCALED_DOT, 0, 1);
    test_core(c, 1, 1, 4, 1, DGNN_SCORE_LEAKY_DOT, 0, 2);
    test_core(c, 37, 3, 33, 12, DGNN_SCORE_SCALED_DOT, 1, 3);
    test_core(c, 37, 3, 33, 12, DGNN_SCORE_LEAKY_DOT, 1, 4);
    test_core(c, 300, 2, 100, 10, DGNN_SCORE_LEAKY_DOT, 0, 5); /* APAN: 10 slots, width 100 */
    test_core(c, 9, 2, 172, 100, DGNN_SCORE_SCALED_DOT, 0, 6);
    /* layer: B, neighbours up to, dedup edges, shared roots, alias, no pairs, inference */
    const shape one_empty = {1, 5, 0, 0, 0, 0, 0}, small = {7, 4, 1, 0, 0, 0, 0}, none = {9, 4, 0, 0, 0, 1, 0};
    const shape shared = {40, 6, 1, 1, 1, 0, 0}, wide = {70, 10, 0, 1, 0, 0, 0}, big = {5, 100, 1, 0, 0, 0, 0};
    const shape infer = {20, 5, 0, 1, 0, 0, 1};
    for (int kind = 0; kind < 2; kind++) {
        const dgnn_attn_kind k = kind ? DGNN_ATTN_TGL : DGNN_ATTN_TGN;
        const char *nm = kind ? "tgl" : "tgn";
        char name[64];
        /* TGN's width is dn + dt (37 + 11 = 48, 3 heads); TGL's is dout (33, 3 heads) */
        const int64_t dout = kind ? 33 : 29;
        snprintf(name, sizeof name, "%s one root, no neighbours", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.0f, 0.0f, one_empty, 10 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s small, dedup edges, dropout", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.2f, 0.3f, small, 20 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s no pairs at all", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.2f, 0.3f, none, 30 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s shared roots in one buffer", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.1f, 0.1f, shared, 40 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s wide, no edge features", nm);
        test_layer(c, name, k, 37, 0, 11, 3, dout, 0.1f, 0.0f, wide, 50 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s 200 neighbours", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.0f, 0.0f, big, 60 + (uint64_t)kind);
        snprintf(name, sizeof name, "%s inference", nm);
        test_layer(c, name, k, 37, 5, 11, 3, dout, 0.2f, 0.3f, infer, 70 + (uint64_t)kind);
    }
    /* the models' sizes: TGN (memory 100, time 100, edge 172, 2 heads, 10 neighbours) */
    const shape model = {600, 10, 0, 1, 1, 0, 0};
    test_layer(c, "tgn model sizes", DGNN_ATTN_TGN, 100, 172, 100, 2, 100, 0.1f, 0.1f, model, 80);
    test_layer(c, "tgl model sizes", DGNN_ATTN_TGL, 100, 172, 100, 2, 100, 0.1f, 0.1f, model, 81);
    /* no time encoding (dt = 0) */
    test_layer(c, "tgl without time", DGNN_ATTN_TGL, 20, 3, 0, 2, 10, 0.0f, 0.0f, small, 90);
    dgnn_cuda_free(c);
    return check_done();
}
