/* test_simulate.c: DyGNeX's cluster simulator (simulate.h): the all-reduce formulas by
 * hand, one simulated point by hand, efficiency 1 on one worker, the synthetic sequences'
 * shapes and determinism, the windows of a synthetic sequence, and the SVG writers. */
#include "check.h"
#include "dgnn/simulate.h"
#include "dgnn/svg.h"

static void test_allreduce(void) {
    dgnn_net n = {"t", 1e-6, 1e-9, 0};
    CHECK_NEAR(dgnn_allreduce_seconds(&n, 4, 1e6), 6e-6 + 1.5e-3, 1e-15);
    CHECK(dgnn_allreduce_seconds(&n, 1, 1e6) == 0);
    n.allreduce = DGNN_ALLREDUCE_TREE;
    CHECK_NEAR(dgnn_allreduce_seconds(&n, 5, 1e6), 6e-6 + 2e-3, 1e-15);
    /* auto: the ring at 4 workers (1.506 ms against the tree's 2.004 ms), the tree at 4096
     * (ring 8.19 ms + 2 ms, tree 24 us + 2 ms) */
    n.allreduce = DGNN_ALLREDUCE_AUTO;
    CHECK_NEAR(dgnn_allreduce_seconds(&n, 4, 1e6), 6e-6 + 1.5e-3, 1e-15);
    CHECK(strcmp(dgnn_allreduce_name(&n, 4, 1e6), "auto: ring") == 0);
    CHECK_NEAR(dgnn_allreduce_seconds(&n, 4096, 1e6), 24e-6 + 2e-3, 1e-15);
    CHECK(strcmp(dgnn_allreduce_name(&n, 4096, 1e6), "auto: tree") == 0);
    dgnn_err e;
    CHECK(dgnn_allreduce_parse(&n, "ring", &e) == DGNN_OK && n.allreduce == DGNN_ALLREDUCE_RING);
    CHECK(dgnn_allreduce_parse(&n, "mesh", &e) == DGNN_EINVAL && strstr(e.msg, "'mesh'"));
    CHECK(dgnn_net_preset(&n, "ib", &e) == DGNN_OK && n.alpha == 5e-6 && n.allreduce == DGNN_ALLREDUCE_RING);
    CHECK(dgnn_net_preset(&n, "nvlink", &e) == DGNN_OK && n.beta < 1e-11);
    CHECK(dgnn_net_preset(&n, "carrier-pigeon", &e) == DGNN_EINVAL && strstr(e.msg, "carrier-pigeon"));
}

static void test_point(void) {
    /* even on [4, 1, 2, 3], 2 workers: makespan 7, 2 rounds; T1 = 10 */
    double c[4] = {4, 1, 2, 3};
    dgnn_net n = {"t", 0.01, 1e-6, 0};
    dgnn_sched_opts o = dgnn_sched_opts_default();
    o.kind = DGNN_SCHED_EVEN;
    dgnn_sim_point pt;
    dgnn_err e;
    CHECK(dgnn_sim_snapshot(&pt, c, 4, 2, &o, &n, 1000, &e) == DGNN_OK);
    double ar = 2 * 0.01 + 1000 * 1e-6; /* 2 (P-1) alpha + 2 (P-1)/P bytes beta */
    CHECK(pt.rounds == 2 && pt.workers == 2);
    CHECK_NEAR(pt.t1, 10, 1e-12);
    CHECK_NEAR(pt.makespan, 7, 1e-12);
    CHECK_NEAR(pt.comm, 2 * ar, 1e-12);
    CHECK_NEAR(pt.efficiency, 10 / (2 * (7 + 2 * ar)), 1e-12);
    CHECK_NEAR(pt.imbalance, 0.4, 1e-12);
    /* one worker: no communication, efficiency exactly 1 */
    CHECK(dgnn_sim_snapshot(&pt, c, 4, 1, &o, &n, 1000, &e) == DGNN_OK);
    CHECK_NEAR(pt.efficiency, 1, 1e-12);
    CHECK(pt.comm == 0);
}

static void test_synthetic(void) {
    enum { T = 4000 };
    int64_t *a = malloc(T * sizeof(int64_t)), *b = malloc(T * sizeof(int64_t));
    dgnn_err e;
    CHECK(dgnn_sim_synthetic_edges(a, T, "growing", 5, &e) == DGNN_OK);
    CHECK(dgnn_sim_synthetic_edges(b, T, "growing", 5, &e) == DGNN_OK);
    CHECK(memcmp(a, b, T * sizeof(int64_t)) == 0); /* one seed, one sequence */
    double first = 0, last = 0;
    for (int t = 0; t < T / 10; t++) first += (double)a[t], last += (double)a[T - 1 - t];
    CHECK_MSG(last > 50 * first, "growing: last tenth %g vs first %g", last, first);
    CHECK(dgnn_sim_synthetic_edges(b, T, "bursty", 5, &e) == DGNN_OK);
    int64_t big = 0;
    for (int t = 0; t < T; t++) big += b[t] > 8000;
    CHECK_MSG(big > T / 50 && big < T / 4, "bursty: %lld snapshots above 4x the base", (long long)big);
    CHECK(dgnn_sim_synthetic_edges(b, T, "flat", 5, &e) == DGNN_EINVAL);
    /* windows: W = 2 over edges 1..6 */
    int64_t ed[6] = {1, 2, 3, 4, 5, 6};
    dgnn_window w[3];
    dgnn_sim_windows(w, ed, 6, 2, 100, 10, 32, 7);
    CHECK(w[0].sample == 2 && w[0].edges == 3 && w[0].edges_window == 6 && w[0].label_pairs == 4 * 11);
    CHECK(w[2].sample == 4 && w[2].edges == 5 && w[2].edges_window == 12 && w[2].label_pairs == 6 * 11);
    CHECK(w[1].nodes == 100 && w[1].hidden == 32 && w[1].in_dim == 7);
    free(a), free(b);
}

static int file_has(const char *path, const char *s) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, s) != NULL;
}

static void test_svg(void) {
    char dir[] = "/tmp/dgnn_test_sim_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "%s/gantt.svg", dir);
    snprintf(p2, sizeof p2, "%s/scaling.svg", dir);
    double c[6] = {3, 1, 2, 2, 1, 1};
    dgnn_sched_opts o = dgnn_sched_opts_default();
    o.ranks = 2;
    dgnn_sched s;
    dgnn_err e;
    CHECK(dgnn_schedule(&s, c, NULL, 6, &o, NULL, &e) == DGNN_OK);
    CHECK(dgnn_sched_svg(&s, p1, "a <test> & more", 0, &e) == DGNN_OK);
    CHECK(file_has(p1, "<svg") && file_has(p1, "</svg>") && file_has(p1, "a &lt;test&gt; &amp; more"));
    CHECK(file_has(p1, "round 0 rank 0 sample"));
    dgnn_sched_free(&s);
    int64_t W[3] = {1, 4, 16};
    double eff[6] = {1, 0.9, 0.8, 1, 0.95, 0.93};
    const char *names[2] = {"even", "greedy"};
    CHECK(dgnn_sim_svg(p2, "scaling", W, 3, eff, names, 2, &e) == DGNN_OK);
    CHECK(file_has(p2, "<polyline") && file_has(p2, "greedy, 16 workers: 93.0%"));
    CHECK(dgnn_sim_svg("/nonexistent-dir/x.svg", "t", W, 3, eff, names, 2, &e) == DGNN_EIO);
    unlink(p1), unlink(p2), rmdir(dir);
}

int main(void) {
    test_allreduce();
    test_point();
    test_synthetic();
    test_svg();
    return check_done();
}
