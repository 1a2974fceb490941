/* test_cuda_layers.c: the GPU's element-wise layers, losses and optimizer against their CPU
 * ops (built only with -DDGNN_CUDA=ON; without a device it checks that opening one is
 * refused, then skips with 77). With one, each forward and backward (gradients +=, from
 * random non-zero starting values) on awkward shapes (one row, sizes that are not
 * multiples of 32, empty inputs) and on the models' sizes:
 *  - the RNN cell (JODIE's and DyRep's updater), JODIE's time projection and dt;
 *  - the edge predictor (every model's link predictor), its ReLU kept away from its kink;
 *  - layer norm (affine and not), ReLU, dropout (the GPU mask equals the CPU's for a seed);
 *  - binary cross-entropy with logits (mean and per-term losses, the gradient);
 *  - Adam over several steps, with and without weight decay. */
#include "cuda_check.h"

#include "dgnn/adam.h"

static void test_rnn(dgnn_cuda *c, int64_t B, int64_t Din, int64_t H, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(B * Din, -1, 1, &r), *h = rnd(B * H, -1, 1, &r), *Wi = rnd(H * Din, -0.3f, 0.3f, &r);
    float *Wh = rnd(H * H, -0.3f, 0.3f, &r), *bi = rnd(H, -0.3f, 0.3f, &r), *bh = rnd(H, -0.3f, 0.3f, &r);
    float *g = rnd(B * H, -1, 1, &r), *dx = rnd(B * Din, -1, 1, &r), *dh = rnd(B * H, -1, 1, &r);
    float *dWi = rnd(H * Din, -1, 1, &r), *dWh = rnd(H * H, -1, 1, &r), *dbi = rnd(H, -1, 1, &r), *dbh = rnd(H, -1, 1, &r);
    float *hout = rnd(B * H, 0, 0, &r), *scratch = rnd(B * H, 0, 0, &r);
    float *d_x = up(c, x, B * Din), *d_h = up(c, h, B * H), *d_Wi = up(c, Wi, H * Din), *d_Wh = up(c, Wh, H * H);
    float *d_bi = up(c, bi, H), *d_bh = up(c, bh, H), *d_g = up(c, g, B * H), *d_dx = up(c, dx, B * Din);
    float *d_dh = up(c, dh, B * H), *d_dWi = up(c, dWi, H * Din), *d_dWh = up(c, dWh, H * H), *d_dbi = up(c, dbi, H);
    float *d_dbh = up(c, dbh, H), *d_hout = up(c, hout, B * H), *d_scratch = up(c, scratch, B * H);
    CUDA_OK(dgnn_cuda_rnn_forward(c, d_hout, d_x, d_h, d_Wi, d_Wh, d_bi, d_bh, B, Din, H, ERR));
    CUDA_OK(dgnn_cuda_rnn_backward(c, d_dx, d_dh, d_dWi, d_dWh, d_dbi, d_dbh, d_scratch, d_g, d_hout, d_x, d_h, d_Wi,
                                   d_Wh, B, Din, H, ERR));
    dgnn_rnn_forward(hout, x, h, Wi, Wh, bi, bh, B, Din, H);
    dgnn_rnn_backward(dx, dh, dWi, dWh, dbi, dbh, scratch, g, hout, x, h, Wi, Wh, B, Din, H);
    const double tol = 1e-6 * (double)(Din + B + H);
    same(c, "rnn hout", d_hout, hout, B * H, tol);
    same(c, "rnn dx", d_dx, dx, B * Din, tol);
    same(c, "rnn dh", d_dh, dh, B * H, tol);
    same(c, "rnn dW_ih", d_dWi, dWi, H * Din, tol);
    same(c, "rnn dW_hh", d_dWh, dWh, H * H, tol);
    same(c, "rnn db_ih", d_dbi, dbi, H, tol);
    same(c, "rnn db_hh", d_dbh, dbh, H, tol);
    RELEASE(c, d_x, d_h, d_Wi, d_Wh, d_bi, d_bh, d_g, d_scratch);
    FREE(x, h, Wi, Wh, bi, bh, g, dx, dh, dWi, dWh, dbi, dbh, hout, scratch);
}

static void test_jodie(dgnn_cuda *c, int64_t B, int64_t M, int with_b, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    double *t = malloc((size_t)(B + 1) * sizeof(double)), *tm = malloc((size_t)(B + 1) * sizeof(double));
    for (int64_t i = 0; i < B; i++) tm[i] = 1e6 * dgnn_rng_uniform(&r), t[i] = tm[i] + 1e5 * dgnn_rng_uniform(&r);
    float *dt = rnd(B, 0, 0, &r), *h = rnd(B * M, -1, 1, &r), *w = rnd(M, -1, 1, &r), *b = rnd(M, -1, 1, &r);
    float *g = rnd(B * M, -1, 1, &r), *dh = rnd(B * M, -1, 1, &r), *dw = rnd(M, -1, 1, &r), *db = rnd(M, -1, 1, &r);
    float *out = rnd(B * M, 0, 0, &r);
    double *d_t = upb(c, t, (size_t)B * sizeof(double)), *d_tm = upb(c, tm, (size_t)B * sizeof(double));
    float *d_dt = up(c, dt, B), *d_h = up(c, h, B * M), *d_w = up(c, w, M), *d_b = with_b ? up(c, b, M) : NULL;
    float *d_g = up(c, g, B * M), *d_dh = up(c, dh, B * M), *d_dw = up(c, dw, M), *d_db = up(c, db, M);
    float *d_out = up(c, out, B * M);
    CUDA_OK(dgnn_cuda_jodie_dt_tgl(c, d_dt, d_t, d_tm, B, ERR));
    dgnn_jodie_dt_tgl(dt, t, tm, B);
    same_keep(c, "jodie dt", d_dt, dt, B, 1e-6);
    /* the rest from the CPU's dt, so that one rounding of dt does not spread */
    CUDA_OK(dgnn_cuda_upload(c, d_dt, dt, (size_t)B * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_jodie_forward(c, d_out, d_h, d_dt, d_w, d_b, B, M, ERR));
    CUDA_OK(dgnn_cuda_jodie_backward(c, d_dh, d_dw, d_db, d_g, d_h, d_dt, d_w, d_b, B, M, ERR));
    dgnn_jodie_forward(out, h, dt, w, with_b ? b : NULL, B, M);
    dgnn_jodie_backward(dh, dw, db, g, h, dt, w, with_b ? b : NULL, B, M);
    same(c, "jodie out", d_out, out, B * M, 1e-6);
    same(c, "jodie dh", d_dh, dh, B * M, 1e-6);
    same(c, "jodie dw", d_dw, dw, M, 1e-6 * (double)(B + 1));
    same(c, "jodie db", d_db, db, M, 1e-6 * (double)(B + 1));
    RELEASE(c, d_t, d_tm, d_dt, d_h, d_w, d_b, d_g);
    FREE(t, tm, dt, h, w, b, g, dh, dw, db, out);
}

/* Shifts each bias bs[j] so that no pre-activation of the predictor's ReLU (column j of
 * h_dst Wd^T + bd + h_src Ws^T + bs, rows paired as the predictor pairs them) lies near 0:
 * there the GPU's and the CPU's roundings could fall on two sides of the kink. */
static void edgepred_off_kink(dgnn_edgepred_params *p, const float *hs, const float *hd, int64_t Be, int64_t R,
                              int64_t D, int64_t Hd) {
    float *a = malloc((size_t)(Be * Hd + 1) * sizeof(float)), *z = malloc((size_t)(R * Hd + 1) * sizeof(float));
    dgnn_linear_forward(a, hs, p->Ws, p->bs, Be, D, Hd);
    dgnn_linear_forward(z, hd, p->Wd, p->bd, R, D, Hd);
    for (int64_t j = 0; j < Hd; j++) {
        double best = -1, best_shift = 0;
        for (int step = -40; step <= 40; step++) {
            const double shift = 0.005 * step;
            double m = INFINITY;
            for (int64_t q = 0; q < R; q++) m = fmin(m, fabs(z[q * Hd + j] + a[(q % Be) * Hd + j] + shift));
            if (m > best) best = m, best_shift = shift;
        }
        p->bs[j] += (float)best_shift;
    }
    free(a), free(z);
}

static void test_edgepred(dgnn_cuda *c, int64_t Be, int64_t nneg, int64_t D, int64_t Hd, int with_bd, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t R = (1 + nneg) * Be, np = dgnn_edgepred_layout(NULL, NULL, D, Hd, with_bd);
    const int64_t ns = DGNN_EDGEPRED_SAVED(Be, nneg, Hd);
    float *slab = rnd(np, -1, 1, &r), *gslab = rnd(np, -1, 1, &r);
    dgnn_edgepred_params p, gp, dp, dgp;
    dgnn_edgepred_layout(&p, slab, D, Hd, with_bd);
    dgnn_edgepred_layout(&gp, gslab, D, Hd, with_bd);
    dgnn_edgepred_init(&p, D, Hd, &r);
    float *hs = rnd(Be * D, -1, 1, &r), *hd = rnd(R * D, -1, 1, &r), *dl = rnd(R, -1, 1, &r);
    float *dhs = rnd(Be * D, -1, 1, &r), *dhd = rnd(R * D, -1, 1, &r), *logits = rnd(R, 0, 0, &r);
    float *saved = rnd(ns, 0, 0, &r), *scratch = rnd(ns, 0, 0, &r);
    edgepred_off_kink(&p, hs, hd, Be, R, D, Hd);
    float *d_slab = up(c, slab, np), *d_gslab = up(c, gslab, np), *d_hs = up(c, hs, Be * D), *d_hd = up(c, hd, R * D);
    float *d_dl = up(c, dl, R), *d_dhs = up(c, dhs, Be * D), *d_dhd = up(c, dhd, R * D), *d_logits = up(c, logits, R);
    float *d_saved = up(c, saved, ns), *d_scratch = up(c, scratch, ns);
    dgnn_edgepred_layout(&dp, d_slab, D, Hd, with_bd); /* device pointers: the layout only adds offsets */
    dgnn_edgepred_layout(&dgp, d_gslab, D, Hd, with_bd);
    CUDA_OK(dgnn_cuda_edgepred_forward(c, d_logits, d_saved, d_hs, d_hd, &dp, Be, nneg, D, Hd, ERR));
    CUDA_OK(dgnn_cuda_edgepred_backward(c, d_dhs, d_dhd, &dgp, d_scratch, d_dl, d_saved, d_hs, d_hd, &dp, Be, nneg, D,
                                        Hd, ERR));
    dgnn_edgepred_forward(logits, saved, hs, hd, &p, Be, nneg, D, Hd);
    dgnn_edgepred_backward(dhs, dhd, &gp, scratch, dl, saved, hs, hd, &p, Be, nneg, D, Hd);
    const double tol = 1e-6 * (double)(D + Hd + R);
    same(c, "edgepred logits", d_logits, logits, R, tol);
    same(c, "edgepred saved", d_saved, saved, ns, tol);
    same(c, "edgepred dh_src", d_dhs, dhs, Be * D, tol);
    same(c, "edgepred dh_dst", d_dhd, dhd, R * D, tol);
    same(c, "edgepred dparams", d_gslab, gslab, np, tol);
    RELEASE(c, d_slab, d_hs, d_hd, d_dl, d_scratch);
    FREE(slab, gslab, hs, hd, dl, dhs, dhd, logits, saved, scratch);
}

static void test_layernorm(dgnn_cuda *c, int64_t N, int64_t C, int affine, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(N * C, -2, 3, &r), *g = rnd(C, 0.5f, 1.5f, &r), *b = rnd(C, -1, 1, &r), *dy = rnd(N * C, -1, 1, &r);
    float *dx = rnd(N * C, -1, 1, &r), *dg = rnd(C, -1, 1, &r), *db = rnd(C, -1, 1, &r), *out = rnd(N * C, 0, 0, &r);
    float *mean = rnd(N, 0, 0, &r), *rstd = rnd(N, 0, 0, &r);
    for (int64_t j = 0; j < C; j++) x[j] += 1000.0f; /* a row with a large mean: no cancellation */
    float *d_x = up(c, x, N * C), *d_g = affine ? up(c, g, C) : NULL, *d_b = affine ? up(c, b, C) : NULL;
    float *d_dy = up(c, dy, N * C), *d_dx = up(c, dx, N * C), *d_dg = up(c, dg, C), *d_db = up(c, db, C);
    float *d_out = up(c, out, N * C), *d_mean = up(c, mean, N), *d_rstd = up(c, rstd, N);
    CUDA_OK(dgnn_cuda_layernorm_forward(c, d_out, d_mean, d_rstd, d_x, d_g, d_b, N, C, ERR));
    CUDA_OK(dgnn_cuda_layernorm_backward(c, d_dx, d_dg, d_db, d_dy, d_x, d_g, d_mean, d_rstd, N, C, ERR));
    dgnn_layernorm_forward(out, mean, rstd, x, affine ? g : NULL, affine ? b : NULL, N, C);
    dgnn_layernorm_backward(dx, dg, db, dy, x, affine ? g : NULL, mean, rstd, N, C);
    same(c, "layernorm out", d_out, out, N * C, 1e-5);
    same(c, "layernorm mean", d_mean, mean, N, 1e-6);
    same(c, "layernorm rstd", d_rstd, rstd, N, 1e-5);
    same(c, "layernorm dx", d_dx, dx, N * C, 1e-5);
    same(c, "layernorm dg", d_dg, dg, C, 1e-6 * (double)(N + 10));
    same(c, "layernorm db", d_db, db, C, 1e-6 * (double)(N + 10));
    RELEASE(c, d_x, d_g, d_b, d_dy);
    FREE(x, g, b, dy, dx, dg, db, out, mean, rstd);
}

static void test_act(dgnn_cuda *c, int64_t n, float p, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(n, -1, 1, &r), *g = rnd(n, -1, 1, &r), *dx = rnd(n, -1, 1, &r), *out = rnd(n, 0, 0, &r);
    float *mask = rnd(n, 0, 0, &r), *dx2 = rnd(n, -1, 1, &r);
    float *d_x = up(c, x, n), *d_g = up(c, g, n), *d_dx = up(c, dx, n);
    float *d_out = upnan(c, (size_t)n * sizeof(float)); /* not 0: ReLU writes zeros too */
    CUDA_OK(dgnn_cuda_relu_forward(c, d_out, d_x, n, ERR));
    CUDA_OK(dgnn_cuda_relu_backward(c, d_dx, d_g, d_out, n, ERR));
    dgnn_relu_forward(out, x, n);
    dgnn_relu_backward(dx, g, out, n);
    same_keep(c, "relu out", d_out, out, n, 1e-7);
    same(c, "relu dx", d_dx, dx, n, 1e-7);
    /* in place, as the CPU allows */
    CUDA_OK(dgnn_cuda_relu_forward(c, d_x, d_x, n, ERR));
    same_keep(c, "relu in place", d_x, out, n, 1e-7);
    CUDA_OK(dgnn_cuda_upload(c, d_x, x, (size_t)n * sizeof(float), ERR));
    /* dropout: the GPU's mask for a seed is the CPU's, then forward and backward */
    float *d_mask = upnan(c, (size_t)n * sizeof(float)), *d_dx2 = up(c, dx2, n); /* not 0: dropped units are 0 */
    dgnn_rng r1, r2;
    dgnn_rng_seed(&r1, seed + 1), dgnn_rng_seed(&r2, seed + 1);
    const uint64_t s = dgnn_rng_u64(&r2);
    CUDA_OK(dgnn_cuda_dropout_forward(c, d_out, d_mask, d_x, n, p, &s, ERR));
    CUDA_OK(dgnn_cuda_dropout_backward(c, d_dx2, d_g, d_mask, n, ERR));
    dgnn_dropout_forward(out, mask, x, n, p, &r1);
    dgnn_dropout_backward(dx2, g, mask, n);
    same_keep(c, "dropout mask", d_mask, mask, n, 1e-7);
    same_keep(c, "dropout out", d_out, out, n, 1e-6);
    same(c, "dropout dx", d_dx2, dx2, n, 1e-6);
    CUDA_OK(dgnn_cuda_dropout_mask(c, d_mask, n, p, 12345, ERR));
    dgnn_dropout_mask(mask, n, p, 12345);
    same_keep(c, "dropout_mask", d_mask, mask, n, 1e-7);
    /* inference (no seed): mask 1, out = inp */
    CUDA_OK(dgnn_cuda_dropout_forward(c, d_out, d_mask, d_x, n, p, NULL, ERR));
    dgnn_dropout_forward(out, mask, x, n, p, NULL);
    same(c, "dropout inference mask", d_mask, mask, n, 1e-7);
    same(c, "dropout inference out", d_out, out, n, 1e-7);
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_dropout_mask(c, NULL, n, 1.0f, 1, ERR) == DGNN_EINVAL); /* p must be < 1 */
    RELEASE(c, d_x, d_g);
    FREE(x, g, dx, out, mask, dx2);
}

static void test_bce(dgnn_cuda *c, int64_t n, float dloss, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(n, -8, 8, &r), *y = rnd(n, 0, 0, &r), *dx = rnd(n, -1, 1, &r), *losses = rnd(n, 0, 0, &r);
    for (int64_t i = 0; i < n; i++) y[i] = i < n / 2 ? 1.0f : 0.0f;
    if (n > 2) x[0] = 60.0f, x[1] = -60.0f; /* far in the tails: no overflow */
    float *d_x = up(c, x, n), *d_y = up(c, y, n), *d_dx = up(c, dx, n), *d_losses = up(c, losses, n);
    float one = 7.0f, *d_loss = up(c, &one, 1);
    CUDA_OK(dgnn_cuda_bce_logits_forward(c, d_loss, d_losses, d_x, d_y, n, ERR));
    CUDA_OK(dgnn_cuda_bce_logits_backward(c, d_dx, d_x, d_y, n, dloss, ERR));
    const float loss = dgnn_bce_logits_forward(losses, x, y, n);
    dgnn_bce_logits_backward(dx, x, y, n, dloss);
    same(c, "bce mean", d_loss, &loss, 1, 1e-6);
    same(c, "bce losses", d_losses, losses, n, 1e-6);
    same(c, "bce dlogits", d_dx, dx, n, 1e-6);
    RELEASE(c, d_x, d_y);
    FREE(x, y, dx, losses);
}

static void test_adam(dgnn_cuda *c, int64_t n, double wd, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *w = rnd(n, -1, 1, &r), *m = rnd(n, 0, 0, &r), *v = rnd(n, 0, 0, &r), *g = rnd(n, -1, 1, &r);
    float *d_w = up(c, w, n), *d_m = up(c, m, n), *d_v = up(c, v, n), *d_g = up(c, g, n);
    dgnn_adam opt = dgnn_adam_default(1e-3);
    opt.weight_decay = wd;
    for (int step = 0; step < 3; step++) {
        for (int64_t i = 0; i < n; i++) g[i] = (float)(dgnn_rng_uniform(&r) * 2 - 1) * (step == 1 ? 1e-6f : 1.0f);
        CUDA_OK(dgnn_cuda_upload(c, d_g, g, (size_t)n * sizeof(float), ERR));
        dgnn_adam_step(&opt, w, g, m, v, n); /* opt.t is now this step's count */
        CUDA_OK(dgnn_cuda_adam_step(c, d_w, d_g, d_m, d_v, n, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay,
                                    opt.t, ERR));
    }
    same(c, "adam param", d_w, w, n, 1e-6);
    same(c, "adam m", d_m, m, n, 1e-6);
    same(c, "adam v", d_v, v, n, 1e-6);
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_adam_step(c, NULL, NULL, NULL, NULL, n, 1e-3, 0.9, 0.999, 1e-8, 0, 0, ERR) == DGNN_EINVAL);
    RELEASE(c, d_g);
    FREE(w, m, v, g);
}

/* empty inputs: every op returns at once, launching nothing (a zero-sized grid fails) */
static void test_empty(dgnn_cuda *c) {
    float *d = NULL;
    CUDA_OK(dgnn_cuda_alloc(c, (void **)&d, 64 * sizeof(float), "a scratch array", ERR));
    dgnn_edgepred_params p;
    dgnn_edgepred_layout(&p, d, 4, 3, 1);
    CUDA_OK(dgnn_cuda_relu_forward(c, d, d, 0, ERR));
    CUDA_OK(dgnn_cuda_dropout_forward(c, d, d, d, 0, 0.5f, NULL, ERR));
    CUDA_OK(dgnn_cuda_layernorm_forward(c, d, d, d, d, NULL, NULL, 0, 5, ERR));
    CUDA_OK(dgnn_cuda_layernorm_backward(c, d, d, d, d, d, NULL, d, d, 0, 5, ERR));
    CUDA_OK(dgnn_cuda_jodie_forward(c, d, d, d, d, d, 0, 5, ERR));
    CUDA_OK(dgnn_cuda_edgepred_forward(c, d, d, d, d, &p, 0, 1, 4, 3, ERR));
    CUDA_OK(dgnn_cuda_edgepred_backward(c, d, d, &p, d, d, d, d, d, &p, 0, 1, 4, 3, ERR));
    CUDA_OK(dgnn_cuda_adam_step(c, d, d, d, d, 0, 1e-3, 0.9, 0.999, 1e-8, 0, 1, ERR));
    const float one = 1.0f, zero = 0.0f;
    CUDA_OK(dgnn_cuda_upload(c, d, &one, sizeof one, ERR));
    CUDA_OK(dgnn_cuda_bce_logits_forward(c, d, NULL, d, d, 0, ERR)); /* the CPU's 0 for no terms */
    same_keep(c, "bce of nothing", d, &zero, 1, 1e-7);
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_release(c, d);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_layers");
    test_rnn(c, 1, 5, 3, 1);
    test_rnn(c, 37, 272, 100, 2);
    test_jodie(c, 1, 1, 1, 3);
    test_jodie(c, 600, 100, 1, 4);
    test_jodie(c, 33, 17, 0, 5);
    test_edgepred(c, 1, 1, 7, 5, 0, 6);
    test_edgepred(c, 33, 3, 37, 19, 1, 7);
    test_edgepred(c, 200, 1, 100, 100, 0, 8);
    test_layernorm(c, 1, 1, 1, 9);
    test_layernorm(c, 1, 200, 1, 10);
    test_layernorm(c, 37, 100, 0, 11);
    test_layernorm(c, 600, 172, 1, 12);
    test_layernorm(c, 65539, 8, 1, 20); /* more rows than blocks (65535): the loop over rows goes round */
    test_act(c, 1, 0.5f, 13);
    test_act(c, 100003, 0.1f, 14);
    test_bce(c, 1, 1.0f, 15);
    test_bce(c, 1201, 2.0f * 600.0f / 1200.0f, 16);
    test_adam(c, 1, 0.0, 17);
    test_adam(c, 1000003, 0.0, 18);
    test_adam(c, 4097, 0.01, 19);
    /* past the element-wise grid's cap (65535 blocks of 256 threads): the grid-stride loop's second lap */
    test_act(c, 65535 * 256 + 1001, 0.1f, 21);
    test_adam(c, 65535 * 256 + 1001, 0.0, 22);
    test_empty(c);
    dgnn_cuda_free(c);
    return check_done();
}
