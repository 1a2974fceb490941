/* test_cuda_rows.c: rows by index and the node state store on the GPU against the CPU
 * (built only with -DDGNN_CUDA=ON; without a device it checks that opening one is refused,
 * then skips with 77). With one:
 *  - gathers (a block of columns with strides, indices < 0 giving zero rows, the times);
 *  - ordered scatter-adds with repeated indices against the CPU's serial loop (attention.c's
 *    segment_acc), and last-writer scatters with repeats against a serial overwrite;
 *  - the state store: gather_mem and set_mem against state.c (repeats: the last row wins),
 *    push_mails with repeated nodes, "last" and "mean", enough pushes to wrap the ring,
 *    every array compared (mails, times, counts, heads); last_mail and clear_mails;
 *  - tgnn_memory.c's commit of memories (nodes named twice, nodes without a mail), against
 *    the CPU loop it mirrors, and the mails' time since their node's memory update.
 * One row, widths that are not multiples of 32, and empty batches included. */
#include "cuda_check.h"

#include "dgnn/state.h"

static int32_t *ints(int64_t n, int32_t lo, int32_t hi, dgnn_rng *r) {
    int32_t *x = malloc((size_t)(n + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < n; i++) x[i] = lo + (int32_t)dgnn_rng_below(r, (uint64_t)(hi - lo));
    return x;
}
static int32_t *upi(dgnn_cuda *c, const int32_t *x, int64_t n) { return upb(c, x, (size_t)n * sizeof(int32_t)); }
static double *upd(dgnn_cuda *c, const double *x, int64_t n) { return upb(c, x, (size_t)n * sizeof(double)); }

static void test_gather_scatter(dgnn_cuda *c, int64_t rows, int64_t n, int64_t width, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t lds = width + 3, ldo = width + 5; /* strides wider than the rows */
    float *src = rnd(rows * lds, -1, 1, &r), *out = rnd(n * ldo, -1, 1, &r), *ref = malloc((size_t)(n * ldo + 1) * 4);
    int32_t *idx = ints(n, -1, (int32_t)rows, &r); /* -1: zero rows */
    double *t = malloc((size_t)(rows + 1) * sizeof(double)), *tref = malloc((size_t)(n + 1) * sizeof(double));
    for (int64_t i = 0; i < rows; i++) t[i] = 1e9 * dgnn_rng_uniform(&r);
    memcpy(ref, out, (size_t)(n * ldo) * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < width; j++) ref[i * ldo + j] = idx[i] >= 0 ? src[idx[i] * lds + j] : 0.0f;
        tref[i] = idx[i] >= 0 ? t[idx[i]] : 0.0;
    }
    float *d_src = up(c, src, rows * lds), *d_out = up(c, out, n * ldo);
    int32_t *d_idx = upi(c, idx, n);
    double *d_t = upd(c, t, rows), *d_tout = upnan(c, (size_t)n * sizeof(double)); /* not 0: idx < 0 gives 0 */
    CUDA_OK(dgnn_cuda_gather_rows(c, d_out, ldo, d_src, lds, d_idx, n, width, ERR));
    CUDA_OK(dgnn_cuda_gather_times(c, d_tout, d_t, d_idx, n, ERR));
    same(c, "gather_rows", d_out, ref, n * ldo, 1e-7);
    same_f64(c, "gather_times", d_tout, tref, n, 1e-15);

    /* scatters: indices >= 0, many repeats (n values over a few rows) */
    for (int64_t i = 0; i < n; i++) idx[i] = (int32_t)dgnn_rng_below(&r, (uint64_t)rows);
    CUDA_OK(dgnn_cuda_upload(c, d_idx, idx, (size_t)n * sizeof(int32_t), ERR));
    float *vals = rnd(n * lds, -1, 1, &r), *dst = rnd(rows * ldo, -1, 1, &r);
    float *d_vals = up(c, vals, n * lds), *d_dst = up(c, dst, rows * ldo);
    CUDA_OK(dgnn_cuda_scatter_add_rows(c, d_dst, ldo, d_vals, lds, d_idx, n, width, ERR));
    for (int64_t i = 0; i < n; i++) /* segment_acc: in order of i */
        for (int64_t j = 0; j < width; j++) dst[idx[i] * ldo + j] += vals[i * lds + j];
    same_keep(c, "scatter_add_rows", d_dst, dst, rows * ldo, 1e-6 * (double)(n + 1));
    /* no index: row by row */
    CUDA_OK(dgnn_cuda_scatter_add_rows(c, d_dst, ldo, d_vals, lds, NULL, n < rows ? n : rows, width, ERR));
    for (int64_t i = 0; i < (n < rows ? n : rows); i++)
        for (int64_t j = 0; j < width; j++) dst[i * ldo + j] += vals[i * lds + j];
    same_keep(c, "scatter_add_rows (no index)", d_dst, dst, rows * ldo, 1e-6 * (double)(n + 1));
    /* last writer wins */
    double *vt = malloc((size_t)(n + 1) * sizeof(double));
    for (int64_t i = 0; i < n; i++) vt[i] = (double)i + 0.5;
    double *d_vt = upd(c, vt, n), *d_dt = upd(c, t, rows);
    CUDA_OK(dgnn_cuda_scatter_rows_last(c, d_dst, ldo, d_dt, d_vals, lds, d_vt, d_idx, n, width, ERR));
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < width; j++) dst[idx[i] * ldo + j] = vals[i * lds + j];
        t[idx[i]] = vt[i];
    }
    same(c, "scatter_rows_last", d_dst, dst, rows * ldo, 1e-7);
    same_f64(c, "scatter_rows_last times", d_dt, t, rows, 1e-15);
    RELEASE(c, d_src, d_idx, d_t, d_vals, d_vt);
    FREE(src, out, ref, idx, t, tref, vals, dst, vt);
}

/* ---- the state store ---- */

static void state_up(dgnn_cuda *c, dgnn_cuda_state *g, const dgnn_state *s) {
    const size_t N = (size_t)s->num_nodes, S = (size_t)s->slots;
    CUDA_OK(dgnn_cuda_upload(c, g->mem, s->mem, N * (size_t)s->mem_dim * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, g->mem_t, s->mem_t, N * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, g->mail, s->mail, N * S * (size_t)s->mail_dim * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, g->mail_t, s->mail_t, N * S * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, g->mail_n, s->mail_n, N * sizeof(int32_t), ERR));
    CUDA_OK(dgnn_cuda_upload(c, g->mail_head, s->mail_head, N * sizeof(int32_t), ERR));
}

/* every array of the device store against the CPU's */
static void state_same(dgnn_cuda *c, const char *what, const dgnn_cuda_state *g, const dgnn_state *s) {
    const int64_t N = s->num_nodes, S = s->slots, M = s->mem_dim, D = s->mail_dim;
    char buf[128];
    float *f = malloc((size_t)(N * S * (D > M ? D : M) + 1) * sizeof(float));
    double *t = malloc((size_t)(N * S + 1) * sizeof(double));
    int32_t *k = malloc((size_t)(N + 1) * sizeof(int32_t));
    snprintf(buf, sizeof buf, "%s: mem", what);
    down(c, f, g->mem, (size_t)(N * M) * sizeof(float), buf);
    near_ref(buf, f, s->mem, N * M, 1e-7);
    snprintf(buf, sizeof buf, "%s: mail", what);
    down(c, f, g->mail, (size_t)(N * S * D) * sizeof(float), buf);
    near_ref(buf, f, s->mail, N * S * D, 1e-6);
    int64_t bad = 0;
    down(c, t, g->mem_t, (size_t)N * sizeof(double), what);
    for (int64_t i = 0; i < N; i++) bad += !(fabs(t[i] - s->mem_t[i]) <= 1e-12 * (1 + fabs(s->mem_t[i])));
    down(c, t, g->mail_t, (size_t)(N * S) * sizeof(double), what);
    for (int64_t i = 0; i < N * S; i++) bad += !(fabs(t[i] - s->mail_t[i]) <= 1e-12 * (1 + fabs(s->mail_t[i])));
    down(c, k, g->mail_n, (size_t)N * sizeof(int32_t), what);
    for (int64_t i = 0; i < N; i++) bad += k[i] != s->mail_n[i];
    down(c, k, g->mail_head, (size_t)N * sizeof(int32_t), what);
    for (int64_t i = 0; i < N; i++) bad += k[i] != s->mail_head[i];
    CHECK_MSG(bad == 0, "%s: %lld times, counts or heads differ", what, (long long)bad);
    free(f), free(t), free(k);
}

static void test_state(dgnn_cuda *c, int64_t N, int64_t M, int64_t D, int64_t S, int64_t n, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    dgnn_state s;
    dgnn_err e;
    CHECK(dgnn_state_init(&s, N, M, D, S, &e) == DGNN_OK);
    dgnn_init_uniform(s.mem, N * M, -1, 1, &r);
    for (int64_t i = 0; i < N; i++) s.mem_t[i] = 100.0 * dgnn_rng_uniform(&r);
    dgnn_cuda_state g;
    CUDA_OK(dgnn_cuda_state_init(c, &g, N, M, D, S, ERR));
    state_up(c, &g, &s);
    state_same(c, "state upload", &g, &s);

    /* mails: n per push, repeated nodes, both aggregators, S + 1 pushes (the ring wraps) */
    float *mails = rnd(n * D, -1, 1, &r);
    double *mt = malloc((size_t)(n + 1) * sizeof(double));
    int32_t *nodes = ints(n, 0, (int32_t)N, &r);
    float *d_mails = up(c, mails, n * D);
    double *d_mt = upd(c, mt, n);
    int32_t *d_nodes = upi(c, nodes, n);
    for (int64_t push = 0; push <= S; push++) {
        const int agg = push % 2 ? DGNN_CUDA_AGG_MEAN : DGNN_CUDA_AGG_LAST;
        for (int64_t i = 0; i < n; i++) nodes[i] = (int32_t)dgnn_rng_below(&r, (uint64_t)N);
        for (int64_t i = 0; i < n; i++) mt[i] = 1000.0 * (double)push + 10.0 * dgnn_rng_uniform(&r);
        dgnn_init_uniform(mails, n * D, -1, 1, &r);
        CUDA_OK(dgnn_cuda_upload(c, d_nodes, nodes, (size_t)n * sizeof(int32_t), ERR));
        CUDA_OK(dgnn_cuda_upload(c, d_mt, mt, (size_t)n * sizeof(double), ERR));
        CUDA_OK(dgnn_cuda_upload(c, d_mails, mails, (size_t)(n * D) * sizeof(float), ERR));
        CUDA_OK(dgnn_cuda_state_push_mails(c, &g, d_nodes, d_mails, d_mt, n, agg, ERR));
        dgnn_state_push_mails(&s, nodes, mails, mt, n, agg == DGNN_CUDA_AGG_MEAN ? DGNN_AGG_MEAN : DGNN_AGG_LAST);
        state_same(c, agg == DGNN_CUDA_AGG_MEAN ? "push_mails (mean)" : "push_mails (last)", &g, &s);
    }
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_state_push_mails(c, &g, d_nodes, d_mails, d_mt, n, 7, ERR) == DGNN_EINVAL);

    /* the newest mail of every node, and of a missing one (-1) */
    const int64_t q = N + 1;
    int32_t *all = malloc((size_t)(q + 1) * sizeof(int32_t)), *has = malloc((size_t)(q + 1) * sizeof(int32_t));
    float *lm = rnd(q * D, 0, 0, &r);
    double *lt = malloc((size_t)(q + 1) * sizeof(double));
    for (int64_t i = 0; i < N; i++) all[i] = (int32_t)(N - 1 - i);
    all[N] = -1;
    for (int64_t i = 0; i < q; i++) {
        double tt = 0;
        const float *m = all[i] >= 0 ? dgnn_state_last_mail(&s, all[i], &tt) : NULL;
        has[i] = m != NULL;
        lt[i] = m ? tt : 0.0;
        for (int64_t d = 0; d < D; d++) lm[i * D + d] = m ? m[d] : 0.0f;
    }
    /* the outputs start as NaN / -1, not as the CPU's answers (lm, lt) */
    int32_t *d_all = upi(c, all, q), *d_has = upnan(c, (size_t)q * sizeof(int32_t));
    float *d_lm = upnan(c, (size_t)(q * D) * sizeof(float));
    double *d_lt = upnan(c, (size_t)q * sizeof(double));
    CUDA_OK(dgnn_cuda_state_last_mail(c, d_lm, d_lt, d_has, &g, d_all, q, ERR));
    same(c, "last_mail", d_lm, lm, q * D, 1e-7);
    same_f64(c, "last_mail times", d_lt, lt, q, 1e-15);
    same_i32(c, "last_mail has", d_has, has, q);

    /* memory rows: gather, set (distinct nodes as the CPU wants), set with repeats */
    float *rows = rnd(n * M, -1, 1, &r), *gm = rnd(n * M, 0, 0, &r);
    double *rt = malloc((size_t)(n + 1) * sizeof(double));
    for (int64_t i = 0; i < n; i++) rt[i] = 5000.0 + (double)i;
    dgnn_state_gather_mem(gm, &s, nodes, n);
    float *d_gm = upnan(c, (size_t)(n * M) * sizeof(float)), *d_rows = up(c, rows, n * M); /* not gm: the answer */
    double *d_rt = upd(c, rt, n);
    CUDA_OK(dgnn_cuda_state_gather_mem(c, d_gm, &g, d_nodes, n, ERR));
    same(c, "state gather_mem", d_gm, gm, n * M, 1e-7);
    const int64_t nd = n < N ? n : N; /* distinct: the first nd of all (N-1, N-2, ...) */
    CUDA_OK(dgnn_cuda_state_set_mem(c, &g, d_all, d_rows, d_rt, nd, ERR));
    dgnn_state_set_mem(&s, all, rows, rt, nd);
    state_same(c, "set_mem", &g, &s);
    CUDA_OK(dgnn_cuda_state_set_mem(c, &g, d_nodes, d_rows, NULL, n, ERR)); /* repeats, times kept */
    for (int64_t i = 0; i < n; i++) memcpy(s.mem + (int64_t)nodes[i] * M, rows + i * M, (size_t)M * sizeof(float));
    state_same(c, "set_mem with repeats", &g, &s);

    /* tgnn_memory.c's commit: nodes (repeats, and some without a mail) store row[i] of h */
    const int64_t U = 7;
    float *h = rnd(U * M, -1, 1, &r);
    double *ht = malloc((size_t)U * sizeof(double));
    for (int64_t u = 0; u < U; u++) ht[u] = 9000.0 + (double)u;
    int32_t *row = ints(n, 0, (int32_t)U, &r);
    int32_t v0 = nodes[0];
    dgnn_state_clear_mails(&s, &v0, 1); /* one node surely without a mail */
    CUDA_OK(dgnn_cuda_state_clear_mails(c, &g, d_nodes, 1, ERR));
    state_same(c, "clear_mails", &g, &s);
    float *d_h = up(c, h, U * M);
    double *d_ht = upd(c, ht, U);
    int32_t *d_row = upi(c, row, n);
    CUDA_OK(dgnn_cuda_state_commit_mem(c, &g, d_nodes, d_row, d_h, d_ht, n, ERR));
    for (int64_t i = 0; i < n; i++) { /* tgnn_mem_commit, step 1 */
        int32_t v = nodes[i];
        if (s.mail_n[v] == 0) continue;
        memcpy(s.mem + (int64_t)v * M, h + (int64_t)row[i] * M, (size_t)M * sizeof(float));
        s.mem_t[v] = ht[row[i]];
        dgnn_state_clear_mails(&s, &v, 1);
    }
    state_same(c, "commit_mem", &g, &s);
    /* the mails' time since their node's (now updated) memory: tgnn_mem_commit's c_dt */
    float *cdt = rnd(n, 0, 0, &r), *d_cdt = up(c, cdt, n);
    for (int64_t i = 0; i < n; i++) mt[i] = 2e4 + 1e3 * dgnn_rng_uniform(&r);
    CUDA_OK(dgnn_cuda_upload(c, d_mt, mt, (size_t)n * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_state_time_since(c, d_cdt, d_mt, &g, d_nodes, n, ERR));
    for (int64_t i = 0; i < n; i++) cdt[i] = (float)(mt[i] - s.mem_t[nodes[i]]);
    same(c, "time_since", d_cdt, cdt, n, 1e-7);
    free(cdt);

    /* empty batches change nothing */
    CUDA_OK(dgnn_cuda_state_push_mails(c, &g, d_nodes, d_mails, d_mt, 0, DGNN_CUDA_AGG_LAST, ERR));
    CUDA_OK(dgnn_cuda_state_set_mem(c, &g, d_nodes, d_rows, d_rt, 0, ERR));
    CUDA_OK(dgnn_cuda_state_commit_mem(c, &g, d_nodes, d_row, d_h, d_ht, 0, ERR));
    CUDA_OK(dgnn_cuda_state_gather_mem(c, d_rows, &g, d_nodes, 0, ERR));
    state_same(c, "empty batches", &g, &s);
    CUDA_OK(dgnn_cuda_state_reset(c, &g, ERR));
    dgnn_state_reset(&s);
    state_same(c, "reset", &g, &s);

    RELEASE(c, d_mails, d_mt, d_nodes, d_all, d_rows, d_rt, d_h, d_ht, d_row);
    dgnn_cuda_state_free(c, &g);
    dgnn_state_free(&s);
    FREE(mails, mt, nodes, all, has, lm, lt, rows, gm, rt, h, ht, row);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_rows");
    test_gather_scatter(c, 1, 1, 1, 1);
    test_gather_scatter(c, 5, 300, 37, 2);
    test_gather_scatter(c, 1000, 4000, 100, 3);
    /* 70,000 rows of 256: past the element-wise grid's cap (65535 x 256), the loop's second lap */
    test_gather_scatter(c, 20000, 70000, 256, 8);
    test_state(c, 1, 1, 1, 1, 1, 4);
    test_state(c, 50, 37, 81, 3, 200, 5);
    test_state(c, 2000, 100, 272, 1, 1200, 6);
    test_state(c, 300, 100, 200, 10, 5000, 7);
    dgnn_cuda_free(c);
    return check_done();
}
