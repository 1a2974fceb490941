/* test_simulate_event.c: the event family of the simulator (simulate.h, issue 5): the
 * strict and DepBloom formulas by hand on tiny inputs (full and partial steps, refine K,
 * a truncated epoch, shared cores), one worker reproducing the measured time, strict's
 * all-gather growing with P as computed, the rows per slice and the window partition
 * against brute force, the measured-run reader's errors, and the cost fit; the step-time
 * curve (issue 18): its interpolation by hand, a straight curve giving the fitted line's
 * figures, a bent (GPU-like) one making refinement's bigger steps cheaper, its reader. */
#include "check.h"
#include "dgnn/partition.h"
#include "dgnn/simulate.h"

#define TMPDIR "/tmp"

static dgnn_sim_event_in tiny_in(void) {
    dgnn_sim_event_in in;
    memset(&in, 0, sizeof in);
    in.step_seconds = 0.5, in.event_seconds = 0.01, in.batch = 10, in.events = 100;
    in.row_bytes = 100, in.grad_bytes = 1000, in.rows_per_slice = 15, in.apply_seconds_per_byte = 1e-9;
    in.refine = 1;
    return in;
}

static void test_strict_by_hand(void) {
    dgnn_sim_event_in in = tiny_in();
    dgnn_net net = {"t", 1e-3, 1e-6, 0};
    dgnn_sim_event_point pt;
    dgnn_err e;
    /* one worker: 10 steps of 0.5 + 10 x 0.01, nothing to send */
    CHECK(dgnn_sim_event(&pt, &in, 1, NULL, 0, &net, &e) == DGNN_OK);
    CHECK(pt.strict_steps == 10 && pt.strict_events == 100);
    CHECK_NEAR(pt.strict_tp, 6.0, 1e-12);
    CHECK_NEAR(pt.t1, 6.0, 1e-12);
    CHECK_NEAR(pt.strict_eff, 1, 1e-12);
    CHECK(pt.strict_comm == 0 && pt.strict_gather == 0 && pt.strict_state_bytes == 0);
    CHECK(isnan(pt.db_tp)); /* no windows: depbloom not simulated */

    /* two workers: 5 steps of 20 events, 10 per rank */
    CHECK(dgnn_sim_event(&pt, &in, 2, NULL, 0, &net, &e) == DGNN_OK);
    const double A = 2 * 1e-3 + 1000 * 1e-6;              /* 2 (P-1) alpha + 2 (P-1)/P bytes beta */
    const double xbw = 1500 * 1e-6 + 1500 * 1e-9;         /* (P-1) x 15 rows x 100 B, sent + applied */
    const double X = 2 * 1e-3 + xbw;                      /* counts, then rows: 2 (P-1) alpha */
    const double E = X > A ? X : A;                       /* overlap; link share 1e-3 + xbw is smaller */
    CHECK(pt.strict_steps == 5 && pt.strict_events == 100);
    CHECK_NEAR(pt.strict_compute, 5 * 0.6, 1e-12);
    CHECK_NEAR(pt.strict_allreduce, 5 * A, 1e-12);
    CHECK_NEAR(pt.strict_gather, 5 * X, 1e-12);
    CHECK_NEAR(pt.strict_comm, 5 * E, 1e-12);
    CHECK_NEAR(pt.strict_tp, 3.0 + 5 * E, 1e-12);
    CHECK_NEAR(pt.strict_eff, 6.0 / (2 * (3.0 + 5 * E)), 1e-12);
    CHECK_NEAR(pt.strict_state_bytes, 5 * 2 * 15 * 100 * 1.0, 1e-9);

    /* the link is shared: a big gradient and a big exchange add up */
    dgnn_sim_event_in big = in;
    big.grad_bytes = 4e6, big.rows_per_slice = 20000;
    CHECK(dgnn_sim_event(&pt, &big, 2, NULL, 0, &net, &e) == DGNN_OK);
    const double Ab = 2e-3 + 4e6 * 1e-6, xb = 2e6 * 1e-6 + 2e6 * 1e-9;
    CHECK_NEAR(pt.strict_comm, 5 * (4e6 * 1e-6 + xb), 1e-9);
    CHECK(pt.strict_comm > 5 * Ab && pt.strict_comm > 5 * (2e-3 + xb));

    /* three workers: G = 30, steps 30, 30, 30, then a last one of 10 events (4 on the busiest rank) */
    CHECK(dgnn_sim_event(&pt, &in, 3, NULL, 0, &net, &e) == DGNN_OK);
    CHECK(pt.strict_steps == 4 && pt.strict_events == 100);
    CHECK_NEAR(pt.strict_compute, 3 * (0.5 + 0.1) + (0.5 + 0.04), 1e-12);
    const double r3 = 15.0 / 3; /* the last step's slices hold a third of a batch */
    const double g3 = 3 * (4e-3 + 2 * 15 * 100 * (1e-6 + 1e-9)) + (4e-3 + 2 * r3 * 100 * (1e-6 + 1e-9));
    CHECK_NEAR(pt.strict_gather, g3, 1e-12);

    /* --max-batches: only the first 2 steps */
    dgnn_sim_event_in tr = in;
    tr.max_steps = 2;
    CHECK(dgnn_sim_event(&pt, &tr, 2, NULL, 0, &net, &e) == DGNN_OK);
    CHECK(pt.strict_steps == 2 && pt.strict_events == 40);
    CHECK_NEAR(pt.strict_tp, 2 * (0.6 + E), 1e-12);
    CHECK_NEAR(pt.t1, 6.0, 1e-12); /* T1 stays the whole epoch */
    CHECK_NEAR(pt.strict_eff, 0.06 * 40 / (2 * pt.strict_tp), 1e-12);

    /* 4 workers on 2 cores: every rank computes at half speed */
    dgnn_sim_event_in sh = in;
    sh.cores = 2;
    CHECK(dgnn_sim_event(&pt, &sh, 4, NULL, 0, &net, &e) == DGNN_OK);
    const double cmp4 = 2 * 2 * (0.5 + 0.1) + 2 * (0.5 + 0.05); /* steps of 40, 40, 20 events */
    CHECK_NEAR(pt.strict_compute, cmp4, 1e-12);
    CHECK(dgnn_sim_event(&pt, &sh, 2, NULL, 0, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.strict_compute, 3.0, 1e-12); /* 2 ranks, 2 cores: no sharing */
    sh.background = 2; /* 2 other threads: one rank had 2/3 of a core, 2 ranks get 1/2 each */
    CHECK(dgnn_sim_event(&pt, &sh, 2, NULL, 0, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.strict_compute, 3.0 * (2.0 / 3) / 0.5, 1e-12);

    /* bad input */
    CHECK(dgnn_sim_event(&pt, &in, 0, NULL, 0, &net, &e) == DGNN_EINVAL);
    dgnn_sim_event_in bad = in;
    bad.batch = 0;
    CHECK(dgnn_sim_event(&pt, &bad, 2, NULL, 0, &net, &e) == DGNN_EINVAL);
    bad = in, bad.event_seconds = NAN;
    CHECK(dgnn_sim_event(&pt, &bad, 2, NULL, 0, &net, &e) == DGNN_EINVAL);
}

/* strict's per-step exchange: (P-1) slices received, 2 (P-1) latencies; grows with P */
static void test_strict_gather_grows(void) {
    dgnn_sim_event_in in = tiny_in();
    in.events = 64 * 10 * 4; /* 4 full steps at every P below */
    dgnn_net net = {"t", 1e-5, 1e-9, 0};
    double prev = 0;
    for (int64_t P = 2; P <= 64; P *= 2) {
        dgnn_sim_event_point pt;
        dgnn_err e;
        CHECK(dgnn_sim_event(&pt, &in, P, NULL, 0, &net, &e) == DGNN_OK);
        const int64_t steps = in.events / (P * in.batch);
        const double per = 2.0 * (double)(P - 1) * 1e-5 + (double)(P - 1) * 15 * 100 * (1e-9 + 1e-9);
        CHECK_MSG(pt.strict_steps == steps, "P %lld: %lld steps", (long long)P, (long long)pt.strict_steps);
        CHECK_NEAR(pt.strict_gather / (double)pt.strict_steps, per, 1e-15);
        CHECK(per > prev);
        prev = per;
    }
}

static void test_depbloom_by_hand(void) {
    dgnn_sim_event_in in = tiny_in();
    dgnn_net net = {"t", 1e-3, 1e-6, 0};
    dgnn_sim_window_part w[2] = {{100, 60, 50, 30, 5}, {40, 25, 20, 12, 0}};
    const double A = 2e-3 + 1000 * 1e-6;
    const double sync = (2e-3 + 30 * 100 * (1e-6 + 1e-9)) + (2e-3 + 12 * 100 * (1e-6 + 1e-9));
    dgnn_sim_event_point pt;
    dgnn_err e;
    /* K = 1: ceil(60 / 10) + ceil(25 / 10) = 6 + 3 steps */
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 2, &net, &e) == DGNN_OK);
    CHECK(pt.db_steps == 9 && pt.db_windows == 2 && pt.db_events == 140);
    CHECK_NEAR(pt.db_compute, 9 * 0.5 + 0.01 * 85, 1e-12);
    CHECK_NEAR(pt.db_allreduce, 9 * A, 1e-12);
    CHECK_NEAR(pt.db_sync, sync, 1e-12);
    CHECK_NEAR(pt.db_tp, 9 * 0.5 + 0.85 + 9 * A + sync, 1e-12);
    CHECK_NEAR(pt.db_imbalance, 85.0 * 2 / 140, 1e-12);
    CHECK_NEAR(pt.db_cut_fraction, 5.0 / 140, 1e-12);
    CHECK_NEAR(pt.db_state_bytes, (50 + 20) * 100.0, 1e-9);
    CHECK_NEAR(pt.speedup, pt.strict_tp / pt.db_tp, 1e-12);
    /* K = 2: ceil(60 / 20) + ceil(25 / 20) = 3 + 2 steps, same events; refinement costs 10% */
    in.refine = 2, in.refine_overhead = 0.1;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 2, &net, &e) == DGNN_OK);
    CHECK(pt.db_steps == 5);
    CHECK_NEAR(pt.db_compute, 5 * 0.5 + 0.011 * 85, 1e-12);
    CHECK_NEAR(pt.db_tp, 5 * 0.5 + 0.011 * 85 + 5 * A + sync, 1e-12);
    /* truncated at 7 steps (K = 1): all of window 0, 1 of window 1's 3 steps, both synced */
    in.refine = 1, in.refine_overhead = 0, in.max_steps = 7;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 2, &net, &e) == DGNN_OK);
    CHECK(pt.db_steps == 7);
    CHECK_NEAR(pt.db_compute, 7 * 0.5 + 0.01 * (60 + 25.0 / 3), 1e-12);
    CHECK_NEAR(pt.db_sync, sync, 1e-12);
    CHECK(pt.db_events == 113); /* 100 + 40 / 3 */
    /* the all-reduces are the steps taken, 7, not the windows' 9 */
    CHECK_NEAR(pt.db_allreduce, 7 * A, 1e-12);
    CHECK_NEAR(pt.db_tp, pt.db_compute + 7 * A + sync, 1e-12);
    /* critical path: sampling (4 ms of the 10) runs beside the other 6 ms */
    in.max_steps = 0, in.critical_path = 1, in.sample_seconds = 0.004;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 2, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.db_compute, 9 * 0.5 + 0.006 * 85, 1e-12);
    /* one worker, one window per batch multiple: depbloom = strict = T1 */
    dgnn_sim_window_part one[2] = {{60, 60, 30, 0, 0}, {40, 40, 25, 0, 0}};
    in = tiny_in();
    CHECK(dgnn_sim_event(&pt, &in, 1, one, 2, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.db_tp, 6.0, 1e-12);
    CHECK_NEAR(pt.db_eff, 1, 1e-12);
    CHECK(pt.db_sync == 0 && pt.db_allreduce == 0);
}

static void test_curve_by_hand(void) {
    dgnn_sim_curve c;
    memset(&c, 0, sizeof c);
    CHECK(dgnn_sim_curve_seconds(&c, 100) == 0);
    c.n = 1, c.batch[0] = 200, c.seconds[0] = 0.01; /* one point: through the origin */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 100), 0.005, 1e-15);
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 600), 0.03, 1e-15);
    c.n = 3, c.batch[1] = 400, c.seconds[1] = 0.015, c.batch[2] = 800, c.seconds[2] = 0.02;
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 200), 0.01, 1e-15);
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 300), 0.0125, 1e-15);  /* between points: their line */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 600), 0.0175, 1e-15);
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 1600), 0.03, 1e-15);   /* beyond: the last segment's line */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 100), 0.0075, 1e-15);  /* below: the first segment's */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 0), 0.005, 1e-15);
    c.optimizer_seconds = 0.006; /* below the first batch: not below the line from (0, 0.006) */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 100), 0.008, 1e-15);
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 0), 0.006, 1e-15);
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 300), 0.0125, 1e-15); /* above it: unchanged */
    c.optimizer_seconds = 0.001;                                 /* a floor under the line: no effect */
    CHECK_NEAR(dgnn_sim_curve_seconds(&c, 100), 0.0075, 1e-15);
    c.optimizer_seconds = 0;
    c.n = 2, c.seconds[0] = 0.02, c.seconds[1] = 0.01;           /* falling: never below 0 */
    CHECK(dgnn_sim_curve_seconds(&c, 1000) == 0);
}

/* the same stream and workers, costs as a line a + b x or as a curve on that line */
static void test_curve_straight(void) {
    dgnn_net net = {"t", 1e-3, 1e-6, 0};
    dgnn_sim_window_part w[2] = {{100, 60, 50, 30, 5}, {40, 25, 20, 12, 0}};
    const int K[3] = {1, 2, 4};
    const double rho[3] = {0, 0.1, 0.5};
    for (int k = 0; k < 3; k++)
        for (int64_t P = 1; P <= 3; P++) {
            dgnn_sim_event_in line = tiny_in(), curve = tiny_in();
            line.refine = curve.refine = K[k], line.refine_overhead = curve.refine_overhead = rho[k];
            curve.step_seconds = curve.event_seconds = 0;
            curve.curve.n = 3, curve.curve.optimizer_seconds = 0.5; /* the line's a: all optimizer */
            const double xs[3] = {5, 10, 50};
            for (int i = 0; i < 3; i++) curve.curve.batch[i] = xs[i], curve.curve.seconds[i] = 0.5 + 0.01 * xs[i];
            dgnn_sim_event_point a, b;
            dgnn_err e;
            CHECK(dgnn_sim_event(&a, &line, P, w, 2, &net, &e) == DGNN_OK);
            CHECK(dgnn_sim_event(&b, &curve, P, w, 2, &net, &e) == DGNN_OK);
            CHECK(a.strict_steps == b.strict_steps && a.db_steps == b.db_steps);
            CHECK_NEAR(b.strict_tp / a.strict_tp, 1, 1e-12);
            CHECK_NEAR(b.db_tp / a.db_tp, 1, 1e-12);
            CHECK_NEAR(b.t1 / a.t1, 1, 1e-12);
            CHECK_NEAR(b.speedup / a.speedup, 1, 1e-12);
        }
}

/* a GPU-like curve: 4x the events in a step for 1.6x the time */
static void test_curve_bent(void) {
    dgnn_net net = {"t", 0, 0, 0};
    dgnn_sim_window_part w[1] = {{160, 80, 40, 0, 0}};
    dgnn_sim_event_in in = tiny_in();
    in.batch = 20, in.events = 160;
    in.step_seconds = in.event_seconds = 0;
    in.curve.n = 2, in.curve.batch[0] = 20, in.curve.seconds[0] = 0.01, in.curve.batch[1] = 80,
    in.curve.seconds[1] = 0.016;
    dgnn_sim_event_point pt;
    dgnn_err e;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_OK);
    CHECK(pt.db_steps == 4);
    CHECK_NEAR(pt.db_compute, 4 * 0.01, 1e-15);  /* 4 steps of 20 events */
    CHECK_NEAR(pt.t1, 8 * 0.01, 1e-15);          /* one worker: 8 steps of 20 */
    CHECK_NEAR(pt.strict_compute, 4 * 0.01, 1e-15);
    /* K = 4: one step of 80 events, as 4 micro-batches of 20 in order (the trainer's
     * refinement): each costs a 20-event step; without a measured optimizer part nothing
     * is shared, with one (2 ms) the optimizer runs once */
    in.refine = 4;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_OK);
    CHECK(pt.db_steps == 1);
    CHECK_NEAR(pt.db_compute, 4 * 0.01, 1e-15);
    in.curve.optimizer_seconds = 0.002;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.db_compute, 4 * 0.01 - 3 * 0.002, 1e-15);
    CHECK_NEAR(pt.strict_compute, 4 * 0.01, 1e-15); /* strict: no micro-batches */
    in.refine_overhead = 0.5; /* t(0) = 0.008: half of each micro-batch's 0.002 per-event part again */
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.db_compute, 4 * (0.01 + 0.5 * 0.002) - 3 * 0.002, 1e-15);
    in.refine = 1, in.refine_overhead = 0; /* K = 1: the optimizer part changes nothing */
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.db_compute, 4 * 0.01, 1e-15);
    in.refine = 4, in.curve.optimizer_seconds = -1;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_EINVAL && strstr(e.msg, "optimizer"));
    in.curve.optimizer_seconds = 0;
    /* refused: the prefetch model needs per-event costs; a curve out of order */
    in.critical_path = 1;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_EINVAL && strstr(e.msg, "curve"));
    in.critical_path = 0, in.curve.batch[1] = 20;
    CHECK(dgnn_sim_event(&pt, &in, 2, w, 1, &net, &e) == DGNN_EINVAL && strstr(e.msg, "ascend"));
}

static void test_rows_per_slice(void) {
    dgnn_builder b;
    dgnn_builder_init(&b, 0, 0, 0);
    int32_t s[] = {0, 0, 1, 3, 3}, d[] = {1, 2, 2, 4, 3};
    dgnn_err e;
    for (int i = 0; i < 5; i++) CHECK(dgnn_builder_push(&b, s[i], d[i], (double)i, NULL, 0, 0, &e) == DGNN_OK);
    dgnn_events ev;
    memset(&ev, 0, sizeof ev);
    CHECK(dgnn_builder_finish(&b, &ev, 5, &e) == DGNN_OK);
    /* B = 2: {0,1,2} {1,2,3,4} {3} */
    CHECK_NEAR(dgnn_sim_rows_per_slice(&ev, 2), 8.0 / 3, 1e-12);
    CHECK_NEAR(dgnn_sim_rows_per_slice(&ev, 5), 5, 1e-12);
    CHECK_NEAR(dgnn_sim_rows_per_slice(&ev, 1), 9.0 / 5, 1e-12);
    dgnn_events_free(&ev);
}

/* The partition summary against the rules, on a random stream: rows = distinct nodes of
 * the window, max_part >= the mean, P = 1 is one part with nothing to receive. */
static void test_windows(void) {
    dgnn_builder b;
    dgnn_builder_init(&b, 0, 0, 0);
    dgnn_rng r;
    dgnn_rng_seed(&r, 3);
    dgnn_err e;
    const int64_t n = 3000;
    int pushed = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t u = (int32_t)dgnn_rng_below(&r, 200), c = u / 50; /* 4 communities of 50 */
        int32_t v = dgnn_rng_uniform(&r) < 0.9 ? c * 50 + (int32_t)dgnn_rng_below(&r, 50) : (int32_t)dgnn_rng_below(&r, 200);
        pushed += dgnn_builder_push(&b, u, v, (double)i, NULL, 0, 0, &e) == DGNN_OK;
    }
    CHECK(pushed == n);
    dgnn_events ev;
    memset(&ev, 0, sizeof ev);
    CHECK(dgnn_builder_finish(&b, &ev, 200, &e) == DGNN_OK);
    dgnn_sim_window_part *w = NULL;
    int64_t nw = dgnn_sim_event_windows(&w, &ev, 1, 1000, 0, 0, &e);
    CHECK(nw == 3);
    uint8_t seen[200];
    for (int64_t k = 0; k < nw; k++) {
        memset(seen, 0, sizeof seen);
        int64_t rows = 0;
        for (int64_t i = k * 1000; i < (k + 1) * 1000; i++) {
            if (!seen[ev.src[i]]) seen[ev.src[i]] = 1, rows++;
            if (!seen[ev.dst[i]]) seen[ev.dst[i]] = 1, rows++;
        }
        CHECK(w[k].events == 1000 && w[k].max_part == 1000 && w[k].rows == rows && w[k].max_recv_rows == 0 &&
              w[k].cut == 0);
    }
    free(w);
    nw = dgnn_sim_event_windows(&w, &ev, 4, 1000, 0, 0, &e);
    CHECK(nw == 3);
    for (int64_t k = 0; k < nw; k++) {
        CHECK(w[k].events == 1000 && w[k].max_part >= 250 && w[k].max_part < 1000);
        CHECK(w[k].max_recv_rows > 0 && w[k].max_recv_rows < w[k].rows);
        CHECK(w[k].cut > 0 && w[k].cut < 500); /* communities: most events stay inside a part */
    }
    /* against the rules (simulate.h), recomputed here with partition.h as the trainer runs
     * it: fresh ownership, steering, METIS seed = seed + 1; a node's authoritative row is
     * the part of the last event touching it; the busiest receiver gets every row but the
     * fewest any one rank holds */
    {
        int64_t b[4];
        CHECK(dgnn_windows_make(b, &ev, 0, n, 1000, 0, &e) == 3);
        int32_t owner[200];
        dgnn_owner_init(owner, 200, 4, 1);
        dgnn_part_opts po = dgnn_part_opts_default();
        po.parts = 4, po.seed = 0 + 1;
        dgnn_window_part wp;
        memset(&wp, 0, sizeof wp);
        for (int64_t k = 0; k < 3; k++) {
            CHECK(dgnn_window_partition(&wp, &ev, b[k], b[k + 1], owner, &po, &e) == DGNN_OK);
            int64_t last[200], own[4] = {0}, mx = 0;
            for (int64_t i = b[k]; i < b[k + 1]; i++) last[ev.src[i]] = i, last[ev.dst[i]] = i;
            for (int64_t j = 0; j < wp.num_nodes; j++) own[wp.event_part[last[wp.nodes[j]] - b[k]]]++;
            int64_t fewest = own[0];
            for (int q = 0; q < 4; q++) {
                fewest = own[q] < fewest ? own[q] : fewest;
                mx = wp.part_events[q] > mx ? wp.part_events[q] : mx;
            }
            CHECK_MSG(w[k].max_recv_rows == wp.num_nodes - fewest && w[k].rows == wp.num_nodes && w[k].max_part == mx &&
                          w[k].cut == wp.num_cut,
                      "window %lld: max_recv_rows %lld, want %lld (rows %lld, ranks hold %lld %lld %lld %lld)",
                      (long long)k, (long long)w[k].max_recv_rows, (long long)(wp.num_nodes - fewest),
                      (long long)wp.num_nodes, (long long)own[0], (long long)own[1], (long long)own[2], (long long)own[3]);
            dgnn_owner_update(owner, &wp);
        }
        dgnn_window_part_free(&wp);
    }
    /* deterministic */
    dgnn_sim_window_part *w2 = NULL;
    CHECK(dgnn_sim_event_windows(&w2, &ev, 4, 1000, 0, 0, &e) == 3 && memcmp(w, w2, 3 * sizeof *w) == 0);
    free(w), free(w2);
    CHECK(dgnn_sim_event_windows(&w, &ev, 0, 1000, 0, 0, &e) == DGNN_EINVAL && w == NULL);
    CHECK(dgnn_sim_event_windows(&w, &ev, 2, 0, 0, 0, &e) < 0 && w == NULL);
    dgnn_events_free(&ev);
}

static const char *RUN_JSON =
    "{\"model\": \"tgn\", \"dataset\": \"x.csv\", \"config\": {\"batch\": %d, \"threads\": 1, \"max_batches\": 0,"
    " \"mem_dim\": 172, \"time_dim\": 100, \"mail_slots\": 10, \"new_node_frac\": 0.1, \"val_quantile\": 0.7,"
    " \"test_quantile\": 0.85, \"seed\": 0}, \"data\": {\"train_events\": 4000, \"edge_dim\": 0},"
    " \"num_params\": 1000, \"epochs\": [{\"train_seconds\": %s, \"train_events\": 4000}]%s}";

static void write_run(const char *path, int batch, const char *secs, const char *extra) {
    char buf[4096];
    int n = snprintf(buf, sizeof buf, RUN_JSON, batch, secs, extra);
    check_write_file(path, buf, (size_t)n);
}

static void test_measured(void) {
    dgnn_sim_measured m[2];
    dgnn_err e;
    const char *p1 = TMPDIR "/dgnn_simev_r1.json", *p2 = TMPDIR "/dgnn_simev_r2.json";
    write_run(p1, 200, "8.0", "");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_OK);
    CHECK(m[0].batch == 200 && m[0].ranks == 1 && m[0].steps == 20 && m[0].epoch_events == 4000);
    CHECK(strcmp(m[0].mode, "none") == 0 && m[0].train_seconds == 8.0 && isnan(m[0].compute_seconds));
    CHECK_NEAR(dgnn_sim_measured_row_bytes(&m[0]), 16 + 8 + 8 + 4 * 172 + 4 * 444, 0);
    /* one run: everything per event, and one worker reproduces it */
    dgnn_sim_event_in in;
    memset(&in, 0, sizeof in);
    CHECK(dgnn_sim_event_fit(&in, m, 1, &e) == DGNN_OK);
    CHECK(in.step_seconds == 0 && in.batch == 200 && in.grad_bytes == 4000);
    CHECK_NEAR(in.event_seconds, 8.0 / 4000, 1e-15);
    in.events = 4000;
    dgnn_net net = {"t", 1e-5, 1e-9, 0};
    dgnn_sim_event_point pt;
    CHECK(dgnn_sim_event(&pt, &in, 1, NULL, 0, &net, &e) == DGNN_OK);
    CHECK_NEAR(pt.strict_tp, 8.0, 1e-9);
    /* two batch sizes: the line through both; each reproduced at P = 1 */
    write_run(p2, 400, "6.0", "");
    CHECK(dgnn_sim_measured_read(&m[1], p2, &e) == DGNN_OK);
    CHECK(dgnn_sim_event_fit(&in, m, 2, &e) == DGNN_OK);
    /* per step: 0.4 s at 200 events, 0.6 s at 400: a = 0.2, b = 0.001 */
    CHECK_NEAR(in.step_seconds, 0.2, 1e-12);
    CHECK_NEAR(in.event_seconds, 0.001, 1e-15);
    in.events = 4000;
    for (int k = 0; k < 2; k++) {
        in.batch = m[k].batch;
        CHECK(dgnn_sim_event(&pt, &in, 1, NULL, 0, &net, &e) == DGNN_OK);
        CHECK_NEAR(pt.strict_tp, m[k].train_seconds, 1e-9);
    }
    /* APAN's row: S = mail_slots mails of 2 M + edge_dim (no time encoding in its mail) */
    {
        dgnn_sim_measured a = m[0];
        snprintf(a.model, sizeof a.model, "apan");
        CHECK_NEAR(dgnn_sim_measured_row_bytes(&a), 16 + 8 + 8 * 10 + 4 * 172 + 4 * 10 * 344, 0);
    }
    /* per-step seconds that fall with the batch (a slope < 0): the costs stay >= 0, so the
     * simulator takes them (the line through the origin) */
    {
        dgnn_sim_measured f[2] = {m[0], m[1]};
        f[1].train_seconds = 2.0; /* 0.4 s a step at 200 events, 0.2 s at 400 */
        CHECK(dgnn_sim_event_fit(&in, f, 2, &e) == DGNN_OK);
        CHECK_MSG(in.step_seconds >= 0 && in.event_seconds >= 0, "fitted costs %g s/step, %g s/event", in.step_seconds,
                  in.event_seconds);
        in.events = 4000;
        CHECK(dgnn_sim_event(&pt, &in, 1, NULL, 0, &net, &e) == DGNN_OK);
        CHECK(dgnn_sim_event_fit(&in, m, 2, &e) == DGNN_OK); /* back to the two runs above */
        in.events = 4000;
    }
    /* a dist run: per-rank figures, and refused as a single-rank calibration when P > 1 */
    write_run(p2, 200, "3.0",
              ", \"dist\": {\"mode\": \"strict\", \"ranks\": 2, \"partition\": false, \"window_events\": 10000,"
              " \"window_seconds\": 0, \"refine\": 0, \"steps\": 10, \"state_bytes_per_epoch\": 5e6,"
              " \"grad_bytes_per_epoch\": 1e5, \"per_rank\": [{\"compute_seconds\": 2.0, \"sample_seconds\": 0.1,"
              " \"comm_seconds\": 0.5}, {\"compute_seconds\": 2.5, \"sample_seconds\": 0.2, \"comm_seconds\": 0.3}]}");
    CHECK(dgnn_sim_measured_read(&m[1], p2, &e) == DGNN_OK);
    CHECK(m[1].ranks == 2 && m[1].steps == 10 && strcmp(m[1].mode, "strict") == 0);
    CHECK(m[1].compute_seconds == 2.5 && m[1].comm_seconds == 0.5 && m[1].sample_seconds == 0.1);
    CHECK(dgnn_sim_event_fit(&in, m, 2, &e) == DGNN_EINVAL && strstr(e.msg, p2) && strstr(e.msg, "2-rank"));

    /* errors name the file and the field */
    CHECK(dgnn_sim_measured_read(&m[0], TMPDIR "/dgnn_simev_absent.json", &e) == DGNN_EIO &&
          strstr(e.msg, "dgnn_simev_absent.json"));
    check_write_file(p1, "{\"model\": ", 10);
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, p1) && strstr(e.msg, "JSON"));
    write_run(p1, 200, "\"fast\"", "");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, p1) &&
          strstr(e.msg, "'epochs[0].train_seconds'") && strstr(e.msg, "not a number"));
    write_run(p1, 0, "1.0", "");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'config.batch'"));
    const char *empty = "{\"model\": \"tgn\", \"dataset\": \"x\", \"config\": {}, \"data\": {}}";
    check_write_file(p1, empty, strlen(empty));
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'config.batch': missing"));
    write_run(p1, 200, "1.0", ", \"dist\": {\"mode\": \"magic\", \"ranks\": 1}");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'dist.partition'"));

    /* a bench run's step curve: read, and taken by the fit */
    const char *curve = ", \"step_curve\": {\"device\": \"cuda:0\", \"apply_bytes_per_second\": 2e11, "
                        "\"optimizer_seconds\": 1e-4, \"points\": "
                        "[{\"batch\": 200, \"step_seconds\": 0.004}, {\"batch\": 800, \"step_seconds\": 0.006}]}";
    write_run(p1, 200, "1.0", curve);
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_OK);
    CHECK(m[0].curve.n == 2 && strcmp(m[0].curve.device, "cuda:0") == 0 && m[0].curve.batch[1] == 800);
    CHECK(m[0].curve.seconds[0] == 0.004 && m[0].curve.apply_bytes_per_second == 2e11);
    CHECK(m[0].curve.optimizer_seconds == 1e-4);
    CHECK(strcmp(m[0].device, "cpu") == 0); /* no config.device: an older run, on the CPU */
    write_run(p2, 400, "1.5", "");
    CHECK(dgnn_sim_measured_read(&m[1], p2, &e) == DGNN_OK && m[1].curve.n == 0);
    CHECK(dgnn_sim_event_fit(&in, m, 2, &e) == DGNN_OK && in.curve.n == 2 && in.curve.seconds[1] == 0.006);
    m[1] = m[0];
    CHECK(dgnn_sim_event_fit(&in, m, 2, &e) == DGNN_EINVAL && strstr(e.msg, "second step-time curve"));
    write_run(p1, 200, "1.0", ", \"step_curve\": {\"device\": \"cpu\", \"points\": [{\"batch\": 800, "
                              "\"step_seconds\": 0.006}, {\"batch\": 200, \"step_seconds\": 0.004}]}");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, p1) &&
          strstr(e.msg, "'step_curve.points[1].batch'") && strstr(e.msg, "ascend"));
    write_run(p1, 200, "1.0", ", \"step_curve\": {\"device\": \"cpu\", \"points\": [{\"batch\": 200, "
                              "\"step_seconds\": -1}]}");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'step_curve.points[0].step_seconds'"));
    write_run(p1, 200, "1.0", ", \"step_curve\": {\"points\": []}");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'step_curve.device': missing"));
    write_run(p1, 200, "1.0", ", \"step_curve\": {\"device\": \"cpu\", \"points\": []}");
    CHECK(dgnn_sim_measured_read(&m[0], p1, &e) == DGNN_EFORMAT && strstr(e.msg, "'step_curve.points': not an array"));
    unlink(p1), unlink(p2);
}

/* what fuzz/fuzz_cli.c found the reader accepting: each refused naming the file and field */
static void test_measured_refused(void) {
    dgnn_sim_measured m;
    dgnn_err e;
    const char *p = TMPDIR "/dgnn_simev_bad.json";
    char buf[4096];
    /* a seed no uint64_t holds (the cast was undefined behaviour) */
    const char *run = "{\"model\": \"tgn\", \"dataset\": \"x\", \"config\": {\"batch\": 10, \"threads\": 1, \"max_batches\": 0,"
                      " \"mem_dim\": 4, \"time_dim\": 2, \"mail_slots\": 1, \"new_node_frac\": 0.1, \"val_quantile\": 0.7,"
                      " \"test_quantile\": 0.85, \"seed\": %s}, \"data\": {\"train_events\": 100, \"edge_dim\": 0},"
                      " \"num_params\": 50, \"epochs\": [%s]%s}";
    const char *ep = "{\"train_seconds\": 0.5, \"train_events\": 100}";
    int n = snprintf(buf, sizeof buf, run, "1e30", ep, "");
    check_write_file(p, buf, (size_t)n);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, p) && strstr(e.msg, "'config.seed'"));
    n = snprintf(buf, sizeof buf, run, "-1", ep, "");
    check_write_file(p, buf, (size_t)n);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, "'config.seed'"));
    n = snprintf(buf, sizeof buf, run, "12345", ep, "");
    check_write_file(p, buf, (size_t)n);
    CHECK_MSG(dgnn_sim_measured_read(&m, p, &e) == DGNN_OK && m.seed == 12345, "%s", e.msg);
    /* text after the object (two runs in one file): was read as the first; a NUL likewise */
    const size_t one = (size_t)n;
    memcpy(buf + one, "\n{\"model\": \"jodie\"}\n", 21);
    check_write_file(p, buf, one + 20);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, p) && strstr(e.msg, ":2:1:") &&
          strstr(e.msg, "text after the JSON value"));
    memcpy(buf + one, "\n\0junk", 6);
    check_write_file(p, buf, one + 6);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, ":2:1:") && strstr(e.msg, "NUL"));
    /* a syntax error: its line and column */
    check_write_file(p, "{\n  \"model\": tgn}", 17);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, ":2:") && strstr(e.msg, "not valid JSON"));
    /* seconds no run measures (two epochs of 1e308 s summed to inf; a step curve of 1e308 s
     * gave infinite step times): refused above 1e9 s */
    n = snprintf(buf, sizeof buf, run, "0",
                 "{\"train_seconds\": 1e308, \"train_events\": 100}, {\"train_seconds\": 1e308, \"train_events\": 100}", "");
    check_write_file(p, buf, (size_t)n);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, "'epochs[0].train_seconds': must be seconds"));
    n = snprintf(buf, sizeof buf, run, "0",
                 "{\"train_seconds\": 3, \"train_events\": 100}, {\"train_seconds\": 1e9, \"train_events\": 300}", "");
    check_write_file(p, buf, (size_t)n);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_OK && m.train_seconds == (3 + 1e9) / 2 && m.epoch_events == 200);
    n = snprintf(buf, sizeof buf, run, "0", ep,
                 ", \"step_curve\": {\"device\": \"cpu\", \"points\": [{\"batch\": 1, \"step_seconds\": 1e308}, "
                 "{\"batch\": 2, \"step_seconds\": 1.5e308}]}");
    check_write_file(p, buf, (size_t)n);
    CHECK_MSG(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, "'step_curve.points[0].step_seconds'"),
              "%s", e.msg);
    n = snprintf(buf, sizeof buf, run, "0", "{\"train_seconds\": 1, \"train_events\": 1e300}", "");
    check_write_file(p, buf, (size_t)n);
    CHECK(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, "'epochs[0].train_events'"));
    /* a dist run's negative seconds and bytes, and fewer steps than epochs */
    const char *dist = ", \"dist\": {\"mode\": \"strict\", \"ranks\": 1, \"partition\": false, \"window_events\": 0,"
                       " \"window_seconds\": %s, \"refine\": 0, \"steps\": %s, \"state_bytes_per_epoch\": %s,"
                       " \"grad_bytes_per_epoch\": 1, \"per_rank\": [{\"compute_seconds\": %s, \"sample_seconds\": 0,"
                       " \"comm_seconds\": 0}]}";
    const char *cases[][5] = {{"0", "10", "1", "-2", "'dist.per_rank[0].compute_seconds': must be seconds in [0, 1e+09]"},
                              {"0", "10", "-1", "2", "'dist.state_bytes_per_epoch': must be >= 0"},
                              {"-5", "10", "1", "2", "'dist.window_seconds': must be >= 0"},
                              {"0", "0", "1", "2", "'dist.steps'"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char d[1024];
        snprintf(d, sizeof d, dist, cases[k][0], cases[k][1], cases[k][2], cases[k][3]);
        n = snprintf(buf, sizeof buf, run, "0", ep, d);
        check_write_file(p, buf, (size_t)n);
        CHECK_MSG(dgnn_sim_measured_read(&m, p, &e) == DGNN_EFORMAT && strstr(e.msg, cases[k][4]), "case %zu: %s", k,
                  e.msg);
    }
    unlink(p);
}

int main(void) {
    test_strict_by_hand();
    test_strict_gather_grows();
    test_depbloom_by_hand();
    test_curve_by_hand();
    test_curve_straight();
    test_curve_bent();
    test_rows_per_slice();
    test_windows();
    test_measured();
    test_measured_refused();
    return check_done();
}
