/* test_costmodel.c: DyGNeX's cost model (costmodel.h): the fit recovers a known linear law
 * (exactly without noise, within the noise with it), keeps every coefficient >= 0,
 * survives collinear columns, reports a held-out error; the profile CSV reader on good
 * and bad files; the window sizes computed from hand-made snapshots. */
#include "check.h"
#include "dgnn/costmodel.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snap_train.h"

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
    /* EvolveGCN's dense per-node work runs on the last snapshot only (not x T): layer 2's
     * product 6 L, plus the classifier's 12 C */
    CHECK_NEAR(m.coef[2], (6.0 * 100 + 12.0 * 400) / 1e10, 1e-18);
    CHECK_NEAR(h.coef[2], (6.0 * 50 + 12.0 * 100) / 2e10, 1e-18);
    CHECK_NEAR(h.coef[4], 36.0 * 11 * (67.0 * 67 * 50 + 50.0 * 50 * 50) / 2e10, 1e-15);
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

/* The held-out error is measured on the rows set aside, with the model fitted on the rest
 * (costmodel.h). Three rows whose only feature is the constant (all sizes 0): the fit on
 * two rows is their mean, so holding out row j gives |mean(others) - y_j| / y_j, one of
 * 2, 0.25, 0.625 for y = 1, 2, 4 (the fitted rows' own errors would be 0.375 or 0.9375). */
static void test_holdout_rows(void) {
    dgnn_window w[3];
    memset(w, 0, sizeof w);
    const double y[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) w[i].sample = i, w[i].seconds = y[i];
    for (uint64_t seed = 1; seed <= 6; seed++) {
        dgnn_costmodel m;
        dgnn_err e;
        CHECK(dgnn_costmodel_fit_holdout(&m, w, 3, 0.2, seed, &e) == DGNN_OK);
        CHECK(m.holdout_rows == 1);
        int match = 0;
        for (int j = 0; j < 3; j++) {
            const double others = (y[0] + y[1] + y[2] - y[j]) / 2;
            match += fabs(m.holdout_mape - fabs(others - y[j]) / y[j]) < 1e-9;
        }
        CHECK_MSG(match == 1, "seed %llu: held-out MAPE %g is no held-out row's error", (unsigned long long)seed,
                  m.holdout_mape);
        CHECK_NEAR(m.coef[4], 7.0 / 3, 1e-9); /* the model kept: fitted on all rows */
    }
}

/* The one-hot width is 1 + the largest degree over the snapshots but the last (the last is
 * only ever a label): 4 snapshots with single edges, then a star of 3 in the last */
static void test_in_dim_not_last(void) {
    dgnn_builder b;
    dgnn_err e;
    dgnn_builder_init(&b, 0, 0, 0);
    for (int k = 0; k < 3; k++) dgnn_builder_push(&b, 0, 1 + k, 10.0 * k + 1, NULL, 0, 0, &e);
    for (int j = 1; j <= 3; j++) dgnn_builder_push(&b, 0, j, 31, NULL, 0, 0, &e);
    dgnn_events ev;
    dgnn_events_init(&ev);
    CHECK(dgnn_builder_finish(&b, &ev, 0, &e) == DGNN_OK);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.seconds = 10, o.symmetric = 1;
    dgnn_snapshots s;
    CHECK_MSG(dgnn_snapshots_build(&s, &ev, &o, &e) == DGNN_OK, "%s", e.msg);
    CHECK(s.count == 4);
    dgnn_window w[2];
    CHECK(dgnn_windows_of_snapshots(w, &s, 1, 3, 1, 1, 8, &e) == DGNN_OK);
    CHECK_MSG(w[0].in_dim == 2 && w[1].in_dim == 2, "in_dim %lld (degree 3 is only in the last snapshot)",
              (long long)w[0].in_dim);
    CHECK(w[1].label_pairs == 2 * 3 * 2); /* the star's 3 edges, symmetric, x (1 + 1) */
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

/* dgnn_snap_cost_model with a profile (snap_train.h): fitted on the profile's rows of the
 * model (another model's rows left out), and every window the profile measured takes the
 * profile's sizes; a window it did not measure keeps its own */
static void test_snap_cost_model_profile(void) {
    char path[] = "/tmp/dgnn_test_profile2_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    const char *csv = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\n"
                      "evolvegcn-o,10,999,120,900,12120,67,100,0.0125\n"
                      "evolvegcn-o,11,999,130,950,13130,67,100,0.0131\n"
                      "evolvegcn-o,13,999,150,990,15150,67,100,0.0144\n"
                      "evolvegcn-o,14,999,160,999,16160,67,100,0.0152\n"
                      "tgcn,12,5,5,5,5,5,5,9.0\n";
    check_write_file(path, csv, strlen(csv));
    dgnn_window win[3];
    memset(win, 0, sizeof win);
    for (int i = 0; i < 3; i++) win[i].sample = 10 + i, win[i].nodes = 50, win[i].edges = 7, win[i].hidden = 100;
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(DGNN_SNAPMODEL_EGCN_O);
    dgnn_costmodel cm;
    dgnn_snap_cost_fit fit;
    dgnn_err e;
    CHECK_MSG(dgnn_snap_cost_model(&cm, &fit, win, 3, DGNN_SNAPMODEL_EGCN_O, &c, path, 0, &e) == DGNN_OK, "%s", e.msg);
    CHECK(cm.fitted == 1 && fit.rows == 4 && fit.matched == 2);
    CHECK_MSG(win[0].nodes == 999 && win[0].edges == 120 && win[1].edges == 130 && win[1].label_pairs == 13130,
              "measured windows keep the profile's sizes: nodes %lld, edges %lld", (long long)win[0].nodes,
              (long long)win[0].edges);
    CHECK(win[2].nodes == 50 && win[2].edges == 7); /* sample 12: only the tgcn row, not this model's */
    unlink(path);
}

int main(void) {
    test_fit_exact();
    test_fit_noisy_holdout();
    test_fit_collinear_and_nonneg();
    test_default_law();
    test_profile_csv();
    test_windows_of_snapshots();
    test_holdout_rows();
    test_in_dim_not_last();
    test_snap_cost_model_profile();
    return check_done();
}
