/* test_costmodel.c: DyGNeX's cost model (costmodel.h): the fit recovers a known linear law
 * (exactly without noise, within the noise with it), keeps every coefficient >= 0,
 * survives collinear columns, reports a held-out error; the profile CSV reader on good
 * and bad files; the window sizes computed from hand-made snapshots. */
#include "check.h"
#include "dgnn/costmodel.h"
#include "dgnn/snapmodel.h"

static void make_rows(dgnn_window *w, int64_t n, const double *coef, double noise, int const_nodes, uint64_t seed) {
    dgnn_rng rng;
    dgnn_rng_seed(&rng, seed);
    for (int64_t i = 0; i < n; i++) {
        w[i].sample = 10 + i;
        w[i].nodes = const_nodes ? 3783 : 1000 + (int64_t)dgnn_rng_below(&rng, 5000);
        w[i].edges = 2 + (int64_t)dgnn_rng_below(&rng, 3000);
        w[i].edges_window = w[i].edges + (int64_t)dgnn_rng_below(&rng, 20000);
        w[i].label_pairs = 101 * (2 + (int64_t)dgnn_rng_below(&rng, 3000));
        w[i].in_dim = 67;
        w[i].hidden = 100;
        double f[DGNN_COST_NFEAT], y = 0;
        dgnn_cost_features(f, &w[i]);
        for (int k = 0; k < DGNN_COST_NFEAT; k++) y += coef[k] * f[k];
        w[i].seconds = y * (1 + noise * dgnn_rng_normal(&rng));
    }
}

static void test_fit_exact(void) {
    const double coef[DGNN_COST_NFEAT] = {2e-10, 1.5e-9, 3e-10, 4e-8, 0.02};
    dgnn_window w[200];
    make_rows(w, 200, coef, 0, 0, 1);
    dgnn_costmodel m;
    dgnn_err e;
    CHECK(dgnn_costmodel_fit(&m, w, 200, &e) == DGNN_OK);
    for (int k = 0; k < DGNN_COST_NFEAT; k++) CHECK_MSG(fabs(m.coef[k] - coef[k]) <= 1e-6 * coef[k], "coef %d: %g vs %g", k, m.coef[k], coef[k]);
    CHECK(m.fitted == 1 && m.rows == 200 && m.fit_mape < 1e-9);
}

static void test_fit_noisy_holdout(void) {
    const double coef[DGNN_COST_NFEAT] = {0, 1.5e-9, 3e-10, 4e-8, 0.02}; /* -O: no window term */
    dgnn_window w[500];
    make_rows(w, 500, coef, 0.05, 0, 2);
    dgnn_costmodel m;
    dgnn_err e;
    CHECK(dgnn_costmodel_fit_holdout(&m, w, 500, 0.2, 9, &e) == DGNN_OK);
    CHECK(m.holdout_rows == 100);
    /* 5% multiplicative noise: MAPE near 0.05 * sqrt(2/pi) = 4% */
    CHECK_MSG(m.holdout_mape > 0.02 && m.holdout_mape < 0.06, "held-out MAPE %g", m.holdout_mape);
    CHECK_MSG(m.fit_mape < 0.06, "fit MAPE %g", m.fit_mape);
    for (int k = 0; k < DGNN_COST_NFEAT; k++) CHECK(m.coef[k] >= 0);
    CHECK_NEAR(m.coef[3], 4e-8, 0.1 * 4e-8);
    CHECK_NEAR(m.coef[4], 0.02, 0.1 * 0.02);
    CHECK(m.coef[0] < 0.2 * 1.5e-9); /* the absent term stays small (or 0) */
}

static void test_fit_collinear_and_nonneg(void) {
    /* nodes constant: nodes*hidden is a multiple of the constant column; the fit still
     * predicts exactly */
    const double coef[DGNN_COST_NFEAT] = {2e-10, 1.5e-9, 3e-10, 4e-8, 0.02};
    dgnn_window w[100];
    make_rows(w, 100, coef, 0, 1, 3);
    dgnn_costmodel m;
    dgnn_err e;
    CHECK(dgnn_costmodel_fit(&m, w, 100, &e) == DGNN_OK);
    CHECK_MSG(m.fit_mape < 1e-6, "collinear fit MAPE %g", m.fit_mape);
    /* a law that decreases with label_pairs cannot be followed with c >= 0: c = 0 */
    for (int i = 0; i < 100; i++) w[i].seconds = 1.0 - 1e-7 * (double)w[i].label_pairs + 1e-9 * (double)w[i].edges * 100;
    CHECK(dgnn_costmodel_fit(&m, w, 100, &e) == DGNN_OK);
    for (int k = 0; k < DGNN_COST_NFEAT; k++) CHECK(m.coef[k] >= 0);
    CHECK(m.coef[3] == 0);
    for (int i = 0; i < 100; i++) CHECK(dgnn_costmodel_predict(&m, &w[i]) >= 0);
    /* bad input */
    w[5].seconds = 0;
    CHECK(dgnn_costmodel_fit(&m, w, 100, &e) == DGNN_EINVAL);
    CHECK(strstr(e.msg, "sample 15") != NULL);
    CHECK(dgnn_costmodel_fit(&m, w, 1, &e) == DGNN_EINVAL);
}

static void test_default_law(void) {
    /* -O, W 10, L 100, C 400, V 67 at 1e10 FLOP/s: d = 36 * 11 * (67^2 100 + 100^3) / 1e10 */
    dgnn_costmodel m = dgnn_costmodel_default(0, 10, 100, 400, 67, 1e10);
    CHECK(m.fitted == 0 && m.flops_per_second == 1e10);
    CHECK(dgnn_costmodel_default(0, 10, 100, 400, 67, 0).flops_per_second == DGNN_COST_DEFAULT_RATE);
    CHECK_NEAR(m.coef[4], 36.0 * 11 * (67.0 * 67 * 100 + 1e6) / 1e10, 1e-15);
    CHECK(m.coef[0] == 0 && m.coef[1] == 12 / 1e10);
    CHECK_NEAR(m.coef[3], 12.0 * 400 / 1e10, 1e-20);
    dgnn_costmodel h = dgnn_costmodel_default(1, 10, 50, 100, 67, 2e10);
    CHECK(h.coef[0] == 6 / 2e10 && h.coef[1] == 6 / 2e10);
    /* the node-state kinds: propagations over every snapshot, per-snapshot dense products
     * in the nodes term (T = 11, L = 100, C = 400), no weight evolution */
    const struct { dgnn_snapmodel_kind k; double a0, a2; } law[] = {
        {DGNN_SNAPMODEL_TGCN, 18, 36.0 * 11 * 100}, {DGNN_SNAPMODEL_GCRN_GRU, 36, 18.0 * 11 * 100},
        {DGNN_SNAPMODEL_WDGCN, 12, 54.0 * 11 * 100}, {DGNN_SNAPMODEL_GCN, 12, 6.0 * 100}};
    for (int i = 0; i < 4; i++) {
        dgnn_costmodel q = dgnn_costmodel_default((int)law[i].k, 10, 100, 400, 67, 1e10);
        CHECK_NEAR(q.coef[0], law[i].a0 / 1e10, 1e-20);
        CHECK(q.coef[1] == 0 && q.coef[4] == 0);
        CHECK_NEAR(q.coef[2], (law[i].a2 + 12.0 * 400) / 1e10, 1e-18);
        CHECK_NEAR(q.coef[3], 12.0 * 400 / 1e10, 1e-20);
    }
}

static void test_profile_csv(void) {
    char path[] = "/tmp/dgnn_test_profile_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    const char *good = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                       "evolvegcn-o,10,3783,120,900,12120,67,100,0.0125\n"
                       "evolvegcn-h,10,3783,120,900,12120,67,50,0.5e-2\r\n"
                       "\n";
    check_write_file(path, good, strlen(good));
    dgnn_profile p;
    dgnn_err e;
    CHECK_MSG(dgnn_profile_read(&p, path, &e) == DGNN_OK, "%s", e.msg);
    CHECK(p.n == 2);
    if (p.n == 2) {
        CHECK(strcmp(p.model[0], "evolvegcn-o") == 0 && strcmp(p.model[1], "evolvegcn-h") == 0);
        CHECK(p.rows[0].sample == 10 && p.rows[0].nodes == 3783 && p.rows[0].edges == 120 &&
              p.rows[0].edges_window == 900 && p.rows[0].label_pairs == 12120 && p.rows[0].in_dim == 67 &&
              p.rows[0].hidden == 100);
        CHECK_NEAR(p.rows[0].seconds, 0.0125, 1e-15);
        CHECK_NEAR(p.rows[1].seconds, 0.005, 1e-15);
    }
    dgnn_profile_free(&p);
    const char *bad_header = "model,sample,nodes\nx,1,2\n";
    check_write_file(path, bad_header, strlen(bad_header));
    CHECK(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, ":1: header") != NULL);
    const char *bad_field = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                            "evolvegcn-o,10,3783,120,900,12120,67,100,0.1\n"
                            "evolvegcn-o,11,3783,abc,900,12120,67,100,0.1\n";
    check_write_file(path, bad_field, strlen(bad_field));
    CHECK(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, ":3: field 'edges'") != NULL && strstr(e.msg, "'abc'") != NULL, "%s", e.msg);
    const char *short_row = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                            "evolvegcn-o,10,3783,120\n";
    check_write_file(path, short_row, strlen(short_row));
    CHECK(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, ":2: field 'edges_window'") != NULL);
    const char *neg = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                      "evolvegcn-o,10,3783,120,900,12120,67,100,-1\n";
    check_write_file(path, neg, strlen(neg));
    CHECK(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, "seconds") != NULL);
    /* what fuzz/fuzz_cli.c found: seconds whose squares overflow (the fit then hit its
     * assert, an abort on user input) refused naming the line */
    const char *huge = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                       "gcn,0,3,2,5,4,2,8,1e200\ngcn,1,4,3,7,6,2,8,2e200\ngcn,2,5,4,9,8,2,8,3e200\n";
    check_write_file(path, huge, strlen(huge));
    CHECK_MSG(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, ":2: field 'seconds'"), "%s", e.msg);
    /* a line longer than 4095 bytes was read as two rows (here the second with 8 more
     * fields): one line, refused as one */
    char *lng = malloc(16384);
    int n = snprintf(lng, 16384, "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                                 "gcn,0,3,2,5,4,2,8,1.");
    while (n < 72 + 4095) lng[n++] = '0'; /* the header (72 bytes), then fgets's 4095 */
    n += snprintf(lng + n, 16384 - (size_t)n, "gcn,1,3,2,5,4,2,8,2\n");
    check_write_file(path, lng, (size_t)n);
    CHECK_MSG(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, ":2: more than 9 fields"), "%s", e.msg);
    /* a long line that is one good row is read */
    n = snprintf(lng, 16384, "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                             "gcn,0,3,2,5,4,2,8,1.");
    while (n < 8000) lng[n++] = '0';
    lng[n++] = '\n';
    check_write_file(path, lng, (size_t)n);
    CHECK_MSG(dgnn_profile_read(&p, path, &e) == DGNN_OK && p.n == 1 && p.rows[0].seconds == 1.0, "%s", e.msg);
    dgnn_profile_free(&p);
    free(lng);
    /* a NUL byte ended the line's string: the rest of the line was ignored */
    const char nul[] = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                       "gcn,0,3,2,5,4,2,8,1\0,junk\n";
    check_write_file(path, nul, sizeof nul - 1);
    CHECK_MSG(dgnn_profile_read(&p, path, &e) == DGNN_EFORMAT && strstr(e.msg, ":2: a NUL byte"), "%s", e.msg);
    unlink(path);
    CHECK(dgnn_profile_read(&p, path, &e) == DGNN_EIO);
}

static void test_windows_of_snapshots(void) {
    /* 6 snapshots of 10 s; snapshot k holds k+1 distinct undirected edges (2(k+1) entries) */
    dgnn_builder b;
    dgnn_err e;
    dgnn_builder_init(&b, 0, 0, 0);
    for (int k = 0; k < 6; k++)
        for (int j = 0; j <= k; j++) dgnn_builder_push(&b, j, 10 + j, 10.0 * k + 1, NULL, 0, 0, &e);
    dgnn_events ev;
    dgnn_events_init(&ev);
    CHECK(dgnn_builder_finish(&b, &ev, 0, &e) == DGNN_OK);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.seconds = 10, o.symmetric = 1;
    dgnn_snapshots s;
    CHECK_MSG(dgnn_snapshots_build(&s, &ev, &o, &e) == DGNN_OK, "%s", e.msg);
    CHECK(s.count == 6);
    dgnn_window w[3];
    /* W = 2: samples 2..4 read snapshots i-2..i and predict i+1 */
    CHECK(dgnn_windows_of_snapshots(w, &s, 2, 5, 2, 100, 64, &e) == DGNN_OK);
    for (int i = 0; i < 3; i++) {
        int64_t idx = 2 + i;
        CHECK(w[i].sample == idx);
        CHECK(w[i].edges == 2 * (idx + 1));
        CHECK(w[i].edges_window == 2 * ((idx - 1) + idx + (idx + 1)));
        CHECK(w[i].label_pairs == 2 * (idx + 2) * 101);
        CHECK(w[i].nodes == ev.num_nodes && w[i].hidden == 64);
        CHECK(w[i].in_dim == 2); /* every node has at most 1 neighbour: degrees 0..1 */
    }
    CHECK(dgnn_windows_of_snapshots(w, &s, 1, 3, 2, 100, 64, &e) == DGNN_EINVAL);
    CHECK(dgnn_windows_of_snapshots(w, &s, 2, 6, 2, 100, 64, &e) == DGNN_EINVAL);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

int main(void) {
    test_fit_exact();
    test_fit_noisy_holdout();
    test_fit_collinear_and_nonneg();
    test_default_law();
    test_profile_csv();
    test_windows_of_snapshots();
    return check_done();
}
