/* test_cuda_metric.c: the GPU's all-pairs link metrics (snap_metric.cu's
 * dgnn_cuda_link_metrics) against the CPU's dgnn_snap_link_metrics (built only with
 * -DDGNN_CUDA=ON; without a device it checks that opening one is refused, then skips with
 * 77). With one:
 *  - random snapshots: rows without an entry, rows with a few, and (the "special" rows) one
 *    with 17 entries, one with 16 (the CPU sorts a row above 16 label-1 cells and counts
 *    below: both paths), one with every column; repeated entries in a row (the CPU's dense
 *    labels make them one label);
 *  - scores continuous (with a bias towards the entries, so that AP is not trivial), or
 *    quantised to q levels (q = 1: every score tied; q = 2, 7, 64, 1000: many exact ties,
 *    -0 and +0 mixed, which tie), so that the tie rules (one AP threshold per distinct
 *    score; MRR ties by descending column) decide;
 *  - sizes that are not multiples of the kernels' blocks (256 threads, tiles of 4096 pairs,
 *    the 256-tile rounds of the tile scan), up to N = 3783 (bitcoin-alpha's node count, 14.3M
 *    pairs), timed;
 *  - NaN: in a row with entries (AP NaN; that row is not counted in MRR, as the CPU's), in a
 *    row without (AP NaN, MRR as usual), in every row with entries (both NaN);
 *  - no entry, or N = 0: both NaN (NULL arrays allowed); every pair an entry: AP 1;
 *  - the refusals: no result pointers, N too large, negative sizes, missing arrays, a
 *    malformed CSR (checked on the device), after each of which the context still works.
 * AP and MRR are compared with the CPU's within 1e-9 relative (the GPU sums in another
 * order: double rounding), NaN with NaN; every case runs twice and must give the same bits. */
#include "cuda_check.h"
#include "dgnn/metrics.h"
#include "dgnn/snapshot.h"

#include <limits.h>

typedef struct {
    int64_t N, nnz;
    int64_t *rowptr;   /* (N + 1) the CPU snapshot's CSR */
    int32_t *rowptr32; /* (N + 1) the device's */
    int32_t *col;      /* (nnz) */
    float *prob;       /* (N, N) */
} mcase;

static void mcase_free(mcase *k) { FREE(k->rowptr, k->rowptr32, k->col, k->prob); }

/* A random snapshot of N nodes: a row has entries with probability row_p, then each column
 * with probability per_row / N (at least one); special: rows 1, 2, 3 hold 17 entries, 16,
 * and all N (when N is large enough); dup: some entries repeated (adjacent, columns still
 * non-decreasing). Scores: q = 0 continuous in [0, 1) (entries the larger of two draws),
 * else (k - q/2) / q for k below q (entries the larger of two k), 0 drawn as -0 or +0. */
static mcase gen_case(int64_t N, double row_p, double per_row, int q, int special, int dup, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    mcase k = {N, 0, calloc((size_t)N + 1, sizeof(int64_t)), calloc((size_t)N + 1, sizeof(int32_t)), NULL, NULL};
    uint8_t *lab = calloc((size_t)(N * N) + 1, 1);
    int64_t cap = 16;
    k.col = malloc((size_t)cap * sizeof(int32_t));
    for (int64_t u = 0; u < N; u++) {
        int64_t want = 0; /* a special row's entry count */
        if (special) want = (u == 1 && N > 40) ? 17 : (u == 2 && N > 40) ? 16 : (u == 3 && N > 20) ? N : 0;
        if (want || dgnn_rng_uniform(&r) < row_p) {
            uint8_t *row = lab + u * N;
            if (want == N) memset(row, 1, (size_t)N);
            else if (want) /* want distinct columns */
                for (int64_t got = 0; got < want;) {
                    const int64_t v = (int64_t)dgnn_rng_below(&r, (uint64_t)N);
                    if (!row[v]) row[v] = 1, got++;
                }
            else {
                for (int64_t v = 0; v < N; v++) row[v] = dgnn_rng_uniform(&r) < per_row / (double)N;
                row[dgnn_rng_below(&r, (uint64_t)N)] = 1; /* at least one */
            }
            for (int64_t v = 0; v < N; v++) {
                if (!row[v]) continue;
                const int reps = dup && dgnn_rng_uniform(&r) < 0.3 ? 2 : 1;
                for (int i = 0; i < reps; i++) {
                    if (k.nnz == cap) k.col = realloc(k.col, (size_t)(cap *= 2) * sizeof(int32_t));
                    k.col[k.nnz++] = (int32_t)v;
                }
            }
        }
        k.rowptr[u + 1] = k.nnz;
    }
    for (int64_t u = 0; u <= N; u++) k.rowptr32[u] = (int32_t)k.rowptr[u];
    k.prob = malloc((size_t)(N * N + 1) * sizeof(float));
    for (int64_t i = 0; i < N * N; i++) {
        float x;
        if (q == 0) {
            x = (float)dgnn_rng_uniform(&r);
            if (lab[i]) x = fmaxf(x, (float)dgnn_rng_uniform(&r));
        } else {
            int64_t j = (int64_t)dgnn_rng_below(&r, (uint64_t)q);
            if (lab[i]) {
                const int64_t j2 = (int64_t)dgnn_rng_below(&r, (uint64_t)q);
                if (j2 > j) j = j2;
            }
            x = (float)(j - q / 2) / (float)q;
            if (x == 0.0f && dgnn_rng_below(&r, 2)) x = -0.0f;
        }
        k.prob[i] = x;
    }
    free(lab);
    return k;
}

static void cpu_metrics(const mcase *k, double *ap, double *mrr) {
    dgnn_snapshot g;
    memset(&g, 0, sizeof g);
    g.num_nodes = k->N, g.num_edges = k->nnz, g.rowptr = k->rowptr, g.col = k->col;
    int32_t *label = malloc((size_t)(k->N * k->N + 1) * sizeof(int32_t));
    dgnn_snap_link_metrics(ap, mrr, k->prob, &g, label);
    free(label);
}

typedef struct {
    float *prob;
    int32_t *rowptr, *col;
} dcase;

static dcase dcase_up(dgnn_cuda *c, const mcase *k) {
    dcase d = {up(c, k->prob, k->N * k->N), upb(c, k->rowptr32, (size_t)(k->N + 1) * sizeof(int32_t)),
               upb(c, k->col, (size_t)k->nnz * sizeof(int32_t))};
    return d;
}
static void dcase_free(dgnn_cuda *c, dcase *d) { RELEASE(c, d->prob, d->rowptr, d->col); }

/* within 1e-9 relative, or both NaN */
static int close_to(double g, double ref) { return isnan(ref) ? isnan(g) : fabs(g - ref) <= 1e-9 * fabs(ref); }

/* The CPU's and the GPU's metrics of k, twice on the GPU (the same bits); returns the
 * CPU's in ap, mrr (NULL: not wanted). */
static void check_case(dgnn_cuda *c, const char *what, const mcase *k, double *ap_out, double *mrr_out) {
    double ap, mrr, g_ap[2] = {0, 0}, g_mrr[2] = {0, 0};
    cpu_metrics(k, &ap, &mrr);
    dcase d = dcase_up(c, k);
    for (int run = 0; run < 2; run++)
        CUDA_OK(dgnn_cuda_link_metrics(c, &g_ap[run], &g_mrr[run], d.prob, d.rowptr, d.col, k->N, k->nnz, ERR));
    dcase_free(c, &d);
    CHECK_MSG(close_to(g_ap[0], ap), "%s: AP %.17g, the CPU's %.17g", what, g_ap[0], ap);
    CHECK_MSG(close_to(g_mrr[0], mrr), "%s: MRR %.17g, the CPU's %.17g", what, g_mrr[0], mrr);
    CHECK_MSG(memcmp(&g_ap[0], &g_ap[1], sizeof(double)) == 0 && memcmp(&g_mrr[0], &g_mrr[1], sizeof(double)) == 0,
              "%s: two runs differ (AP %.17g, %.17g; MRR %.17g, %.17g)", what, g_ap[0], g_ap[1], g_mrr[0], g_mrr[1]);
    if (ap_out) *ap_out = ap;
    if (mrr_out) *mrr_out = mrr;
}

static void test_random(dgnn_cuda *c) {
    const int64_t sizes[] = {1, 2, 3, 33, 64, 65, 257, 700, 1031};
    const int quants[] = {0, 1, 2, 7, 64, 1000};
    uint64_t seed = 100;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t qi = 0; qi < sizeof quants / sizeof quants[0]; qi++)
            for (int dup = 0; dup < 2; dup++) {
                const int64_t N = sizes[si];
                mcase k = gen_case(N, 0.4, 3.0, quants[qi], 1, dup, seed++);
                char what[96];
                snprintf(what, sizeof what, "N %lld, q %d%s (%lld entries)", (long long)N, quants[qi],
                         dup ? ", repeated entries" : "", (long long)k.nnz);
                double ap, mrr;
                check_case(c, what, &k, &ap, &mrr);
                if (k.nnz > 0) /* no NaN score here: both defined */
                    CHECK_MSG(!isnan(ap) && !isnan(mrr), "%s: the CPU's AP %g, MRR %g", what, ap, mrr);
                mcase_free(&k);
            }
    /* the same with more entries per row (several warps per row) and rows of every kind */
    mcase k = gen_case(513, 0.9, 40.0, 64, 1, 0, 7);
    check_case(c, "N 513, ~40 entries a row", &k, NULL, NULL);
    mcase_free(&k);
}

static void test_nan(dgnn_cuda *c) {
    for (int q = 0; q <= 7; q += 7) {
        /* in a row with entries: AP NaN, the row not counted */
        mcase k = gen_case(77, 0.5, 3.0, q, 1, 0, 200 + q);
        int64_t u = 0;
        while (k.rowptr[u + 1] == k.rowptr[u]) u++; /* row 3 has entries (special) */
        k.prob[u * k.N + 5] = NAN;
        double ap, mrr;
        check_case(c, "a NaN in a row with entries", &k, &ap, &mrr);
        CHECK(isnan(ap) && !isnan(mrr));
        /* in a row without: AP NaN, MRR as usual */
        mcase_free(&k);
        k = gen_case(77, 0.5, 3.0, q, 1, 0, 300 + q);
        for (u = 0; u < k.N && k.rowptr[u + 1] > k.rowptr[u]; u++) {}
        CHECK(u < k.N); /* the seed gives a row without entries */
        if (u < k.N) k.prob[u * k.N + k.N - 1] = NAN;
        check_case(c, "a NaN in a row without entries", &k, &ap, &mrr);
        CHECK(isnan(ap) && !isnan(mrr));
        /* in every row with entries: both NaN */
        for (u = 0; u < k.N; u++)
            if (k.rowptr[u + 1] > k.rowptr[u]) k.prob[u * k.N + (u * 7) % k.N] = NAN;
        check_case(c, "a NaN in every row with entries", &k, &ap, &mrr);
        CHECK(isnan(ap) && isnan(mrr));
        mcase_free(&k);
    }
}

static void test_edges(dgnn_cuda *c) {
    /* no entry: both NaN, whatever was in ap and mrr before */
    mcase k = gen_case(10, 0.0, 0.0, 0, 0, 0, 400);
    CHECK(k.nnz == 0);
    double ap = 0, mrr = 0;
    check_case(c, "no entry", &k, &ap, &mrr);
    CHECK(isnan(ap) && isnan(mrr));
    ap = mrr = 0;
    CUDA_OK(dgnn_cuda_link_metrics(c, &ap, &mrr, NULL, NULL, NULL, 10, 0, ERR)); /* nothing read */
    CHECK(isnan(ap) && isnan(mrr));
    ap = mrr = 0;
    CUDA_OK(dgnn_cuda_link_metrics(c, &ap, &mrr, NULL, NULL, NULL, 0, 0, ERR));
    CHECK(isnan(ap) && isnan(mrr));
    mcase_free(&k);
    /* every pair an entry: AP 1 */
    k = gen_case(6, 1.0, 1e9, 7, 0, 0, 401);
    CHECK(k.nnz == 36);
    check_case(c, "every pair an entry", &k, &ap, &mrr);
    CHECK_MSG(fabs(ap - 1.0) <= 1e-12, "every pair an entry: the CPU's AP %.17g", ap); /* a telescoping sum */
    mcase_free(&k);
    /* one node with a self loop */
    k = gen_case(1, 1.0, 1.0, 0, 0, 0, 402);
    check_case(c, "one node, a self loop", &k, &ap, &mrr);
    CHECK(ap == 1.0 && mrr == 1.0);
    mcase_free(&k);
}

/* a refusal: DGNN_EINVAL with a message naming the call, ap and mrr NaN */
static void refused(dgnn_cuda *c, const char *what, double *ap, double *mrr, const float *dprob,
                    const int32_t *drowptr, const int32_t *dcol, int64_t N, int64_t nnz) {
    dgnn_err_clear(ERR);
    const int rc = dgnn_cuda_link_metrics(c, ap, mrr, dprob, drowptr, dcol, N, nnz, ERR);
    CHECK_MSG(rc == DGNN_EINVAL, "%s: status %d (%s)", what, rc, ERR->msg);
    CHECK_MSG(strstr(ERR->msg, "dgnn_cuda_link_metrics") != NULL, "%s: message '%s'", what, ERR->msg);
    if (ap && mrr) CHECK_MSG(isnan(*ap) && isnan(*mrr), "%s: the results are not NaN", what);
}

static void test_refusals(dgnn_cuda *c) {
    mcase k = gen_case(40, 0.5, 3.0, 7, 0, 0, 500);
    dcase d = dcase_up(c, &k);
    double ap = 0, mrr = 0;
    refused(c, "no ap", NULL, &mrr, d.prob, d.rowptr, d.col, k.N, k.nnz);
    refused(c, "no mrr", &ap, NULL, d.prob, d.rowptr, d.col, k.N, k.nnz);
    refused(c, "N 65536 (N^2 = 2^32)", &ap, &mrr, d.prob, d.rowptr, d.col, 65536, k.nnz);
    refused(c, "N -1", &ap, &mrr, d.prob, d.rowptr, d.col, -1, k.nnz);
    refused(c, "nnz -1", &ap, &mrr, d.prob, d.rowptr, d.col, k.N, -1);
    refused(c, "nnz beyond int32", &ap, &mrr, d.prob, d.rowptr, d.col, k.N, (int64_t)INT_MAX + 1);
    refused(c, "no prob", &ap, &mrr, NULL, d.rowptr, d.col, k.N, k.nnz);
    refused(c, "no col", &ap, &mrr, d.prob, d.rowptr, NULL, k.N, k.nnz);
    /* malformed CSRs, found on the device */
    refused(c, "rowptr[N] != nnz", &ap, &mrr, d.prob, d.rowptr, d.col, k.N, k.nnz + 1);
    int32_t *bad = malloc((size_t)(k.N + 1) * sizeof(int32_t));
    memcpy(bad, k.rowptr32, (size_t)(k.N + 1) * sizeof(int32_t));
    bad[0] = 1;
    int32_t *dbad = upb(c, bad, (size_t)(k.N + 1) * sizeof(int32_t));
    refused(c, "rowptr[0] != 0", &ap, &mrr, d.prob, dbad, d.col, k.N, k.nnz);
    dgnn_cuda_release(c, dbad);
    memcpy(bad, k.rowptr32, (size_t)(k.N + 1) * sizeof(int32_t));
    bad[k.N / 2] = bad[k.N / 2 + 1] + 1; /* decreasing */
    dbad = upb(c, bad, (size_t)(k.N + 1) * sizeof(int32_t));
    refused(c, "rowptr decreasing", &ap, &mrr, d.prob, dbad, d.col, k.N, k.nnz);
    dgnn_cuda_release(c, dbad);
    free(bad);
    int32_t *bcol = malloc((size_t)k.nnz * sizeof(int32_t));
    memcpy(bcol, k.col, (size_t)k.nnz * sizeof(int32_t));
    bcol[k.nnz - 1] = (int32_t)k.N; /* out of range */
    int32_t *dbcol = upb(c, bcol, (size_t)k.nnz * sizeof(int32_t));
    refused(c, "a column out of range", &ap, &mrr, d.prob, d.rowptr, dbcol, k.N, k.nnz);
    dgnn_cuda_release(c, dbcol);
    memcpy(bcol, k.col, (size_t)k.nnz * sizeof(int32_t));
    int64_t u = 0;
    while (u < k.N - 1 && k.rowptr[u + 1] - k.rowptr[u] < 2) u++; /* a row with two entries or more */
    CHECK(k.rowptr[u + 1] - k.rowptr[u] >= 2);
    const int64_t e = k.rowptr[u];
    const int32_t t = bcol[e];
    bcol[e] = bcol[e + 1], bcol[e + 1] = t; /* descending */
    dbcol = upb(c, bcol, (size_t)k.nnz * sizeof(int32_t));
    refused(c, "columns descending in a row", &ap, &mrr, d.prob, d.rowptr, dbcol, k.N, k.nnz);
    dgnn_cuda_release(c, dbcol);
    free(bcol);
    /* the context still works */
    double cap, cmrr;
    cpu_metrics(&k, &cap, &cmrr);
    CUDA_OK(dgnn_cuda_link_metrics(c, &ap, &mrr, d.prob, d.rowptr, d.col, k.N, k.nnz, ERR));
    CHECK_MSG(close_to(ap, cap) && close_to(mrr, cmrr), "after the refusals: AP %.17g vs %.17g, MRR %.17g vs %.17g",
              ap, cap, mrr, cmrr);
    dcase_free(c, &d);
    mcase_free(&k);
}

/* bitcoin-alpha's size (EvolveGCN's link task): N = 3783, a snapshot's few hundred entries,
 * scores continuous (all distinct nearly) or on 1000 levels; timed (printed, not checked) */
static void test_large(dgnn_cuda *c) {
    for (int q = 0; q <= 1000; q += 1000) {
        mcase k = gen_case(3783, 0.1, 2.0, q, 0, 0, 600 + q);
        char what[64];
        snprintf(what, sizeof what, "N 3783, q %d (%lld entries)", q, (long long)k.nnz);
        double t0 = dgnn_now();
        double ap, mrr;
        cpu_metrics(&k, &ap, &mrr);
        const double t_cpu = dgnn_now() - t0;
        dcase d = dcase_up(c, &k);
        CUDA_OK(dgnn_cuda_sync(c, ERR));
        double g_ap[3], g_mrr[3], t_gpu[3];
        for (int run = 0; run < 3; run++) {
            t0 = dgnn_now();
            CUDA_OK(dgnn_cuda_link_metrics(c, &g_ap[run], &g_mrr[run], d.prob, d.rowptr, d.col, k.N, k.nnz, ERR));
            t_gpu[run] = dgnn_now() - t0;
        }
        CHECK_MSG(close_to(g_ap[0], ap), "%s: AP %.17g, the CPU's %.17g", what, g_ap[0], ap);
        CHECK_MSG(close_to(g_mrr[0], mrr), "%s: MRR %.17g, the CPU's %.17g", what, g_mrr[0], mrr);
        for (int run = 1; run < 3; run++)
            CHECK_MSG(memcmp(&g_ap[0], &g_ap[run], sizeof(double)) == 0 &&
                          memcmp(&g_mrr[0], &g_mrr[run], sizeof(double)) == 0,
                      "%s: runs differ", what);
        printf("%s: AP %.6f, MRR %.6f; CPU %.1f ms, GPU %.2f / %.2f / %.2f ms\n", what, ap, mrr, 1e3 * t_cpu,
               1e3 * t_gpu[0], 1e3 * t_gpu[1], 1e3 * t_gpu[2]);
        dcase_free(c, &d);
        mcase_free(&k);
    }
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_metric");
    test_random(c);
    test_nan(c);
    test_edges(c);
    test_refusals(c);
    test_large(c);
    dgnn_cuda_free(c);
    return check_done();
}
