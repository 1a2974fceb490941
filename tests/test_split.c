/* test_split.c: numpy-exact quantiles (hand-computed values, including a case where
 * numpy's upper-end interpolation differs from the naive formula in the last bit),
 * time and ext_roll splits and TGN's new-node masks on hand-made tables, the protocol's
 * invariants for random held-out samples, bad inputs, dgnn_split_check's refusal of
 * splits that leave a part empty, and the Wikipedia counts TGN prints (23,621
 * validation and test events), when the shared data is present. */
#include "check.h"
#include "dgnn/binfmt.h"
#include "dgnn/readers.h"
#include "dgnn/split.h"

/* The hand table:
 *   e0 0->1 t1   e1 2->3 t2   e2 0->3 t3   e3 4->5 t4   e4 1->2 t5
 *   e5 0->1 t6   e6 2->3 t7   e7 6->1 t8   e8 3->7 t9   e9 0->2 t10
 * N = 10 (nodes 8 and 9 never appear). */
static void hand_table(dgnn_events *ev) {
    dgnn_err err;
    dgnn_events_init(ev);
    if (dgnn_events_alloc(ev, 10, 0, 0, &err)) exit(2);
    ev->num_nodes = 10;
    int32_t s[10] = {0, 2, 0, 4, 1, 0, 2, 6, 3, 0}, d[10] = {1, 3, 3, 5, 2, 1, 3, 1, 7, 2};
    for (int e = 0; e < 10; e++) {
        ev->src[e] = s[e];
        ev->dst[e] = d[e];
        ev->t[e] = e + 1;
    }
}

static void test_quantile(void) {
    double a[4] = {1, 2, 3, 4};
    CHECK(dgnn_quantile_sorted(a, 4, 0.0) == 1.0);
    CHECK(dgnn_quantile_sorted(a, 4, 1.0) == 4.0);
    CHECK(dgnn_quantile_sorted(a, 4, 0.5) == 2.5);
    CHECK_NEAR(dgnn_quantile_sorted(a, 4, 0.70), 3.1, 1e-12);  /* index 2.1 */
    CHECK_NEAR(dgnn_quantile_sorted(a, 4, 0.85), 3.55, 1e-12); /* index 2.55 */
    double b[11];
    for (int i = 0; i < 11; i++) b[i] = 10.0 * i;
    CHECK(dgnn_quantile_sorted(b, 11, 0.70) == 70.0); /* 10 * 0.7 == 7.0 exactly in doubles */
    CHECK(dgnn_quantile_sorted(b, 11, 0.85) == 85.0); /* index 8.5: midpoint */
    double one[1] = {42};
    CHECK(dgnn_quantile_sorted(one, 1, 0.7) == 42);
    /* numpy.quantile([0, 7], 0.85): gamma 0.85 >= 0.5, so numpy computes
     * 7 - 7 * (1 - 0.85) = 5.949999999999999, where 0 + 7 * 0.85 gives 5.95. */
    double c[2] = {0, 7};
    volatile double g = 0.85;
    CHECK(dgnn_quantile_sorted(c, 2, 0.85) == 7.0 - 7.0 * (1.0 - g));
    CHECK(dgnn_quantile_sorted(c, 2, 0.85) != 7.0 * g);
    /* gamma exactly 0.5 also interpolates from the upper end (numpy: t >= 0.5):
     * 0.7 - 0.6 * 0.5 = 0.39999999999999997, where 0.1 + 0.6 * 0.5 gives 0.4 */
    double m[2] = {0.1, 0.7};
    volatile double lo = 0.1, hi = 0.7;
    CHECK(dgnn_quantile_sorted(m, 2, 0.5) == hi - (hi - lo) * 0.5);
    CHECK(dgnn_quantile_sorted(m, 2, 0.5) != lo + (hi - lo) * 0.5);
    /* ties */
    double t[10] = {1, 1, 1, 1, 2, 2, 2, 2, 2, 3};
    CHECK(dgnn_quantile_sorted(t, 10, 0.70) == 2.0 && dgnn_quantile_sorted(t, 10, 0.85) == 2.0);
}

static void test_time_split(void) {
    dgnn_err err;
    dgnn_events ev;
    hand_table(&ev);
    dgnn_split s;
    dgnn_split_opts o = dgnn_split_opts_default();
    CHECK(o.mode == DGNN_SPLIT_BY_TIME && o.val_q == 0.70 && o.test_q == 0.85 && o.new_node_frac == 0.1 && o.seed == 2020);

    /* transductive: val_time 7.3, test_time 8.65; new nodes {6, 7} */
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK_NEAR(s.val_time, 7.3, 1e-12);
    CHECK_NEAR(s.test_time, 8.65, 1e-12);
    uint8_t want0[10] = {1, 1, 1, 1, 1, 1, 1, DGNN_SPLIT_VAL | DGNN_SPLIT_NEW_VAL, DGNN_SPLIT_TEST | DGNN_SPLIT_NEW_TEST,
                         DGNN_SPLIT_TEST};
    CHECK(memcmp(s.mask, want0, 10) == 0);
    CHECK(s.n_train == 7 && s.n_val == 1 && s.n_test == 2 && s.n_new_val == 1 && s.n_new_test == 1);
    CHECK(s.n_nodes_seen == 8 && s.n_held_out == 0 && s.n_new_nodes == 2 && s.new_node[6] && s.new_node[7]);
    CHECK(!s.new_node[8] && !s.new_node[0]);
    CHECK(s.train_end == 7 && s.val_end == 8);
    int64_t *idx, n;
    CHECK(dgnn_split_indices(&idx, &n, &s, DGNN_SPLIT_VAL | DGNN_SPLIT_TEST, &err) == DGNN_OK);
    CHECK(n == 3 && idx[0] == 7 && idx[1] == 8 && idx[2] == 9);
    free(idx);
    CHECK(dgnn_split_indices(&idx, &n, &s, DGNN_SPLIT_NEW_TEST, &err) == DGNN_OK);
    CHECK(n == 1 && idx[0] == 8);
    free(idx);
    dgnn_split_free(&s);

    /* everything held out that can be: later nodes {0,1,2,3,6,7} (6 < floor(1 * 8));
     * training keeps only e3 (4->5); every val/test event touches a new node */
    o.new_node_frac = 1.0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    uint8_t want1[10] = {0, 0, 0, 1, 0, 0, 0, DGNN_SPLIT_VAL | DGNN_SPLIT_NEW_VAL, DGNN_SPLIT_TEST | DGNN_SPLIT_NEW_TEST,
                         DGNN_SPLIT_TEST | DGNN_SPLIT_NEW_TEST};
    CHECK(memcmp(s.mask, want1, 10) == 0);
    CHECK(s.n_held_out == 6 && s.n_new_nodes == 6 && s.n_train == 1 && s.n_new_test == 2);
    CHECK(s.held_out[0] && s.held_out[1] && s.held_out[2] && s.held_out[3] && s.held_out[6] && s.held_out[7]);
    CHECK(!s.held_out[4] && !s.held_out[5] && !s.held_out[8]);
    CHECK(s.train_end == 7 && s.val_end == 8); /* periods, not the reduced train set */
    dgnn_split_free(&s);

    /* 2 held-out nodes (floor(0.25 * 8)): check the protocol's invariants for many
     * seeds, against a direct recomputation; seeds must pick different sets */
    o.new_node_frac = 0.25;
    int later[10] = {1, 1, 1, 1, 0, 0, 1, 1, 0, 0};
    int picked[10] = {0}, distinct_sets = 0;
    unsigned seen_sets[64] = {0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        o.seed = seed;
        CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
        int ok = s.n_held_out == 2;
        unsigned set = 0;
        int cnt = 0;
        for (int v = 0; v < 10; v++) {
            if (s.held_out[v]) { ok &= later[v]; picked[v]++; set |= 1u << v; cnt++; }
        }
        ok &= cnt == 2;
        /* recompute train / new nodes / masks from held_out */
        int in_train[10] = {0};
        for (int e = 0; e < 10; e++) {
            int tr = e < 7 && !s.held_out[ev.src[e]] && !s.held_out[ev.dst[e]];
            ok &= ((s.mask[e] & DGNN_SPLIT_TRAIN) != 0) == tr;
            if (tr) in_train[ev.src[e]] = in_train[ev.dst[e]] = 1;
        }
        for (int v = 0; v < 10; v++) ok &= s.new_node[v] == (v < 8 && !in_train[v]);
        for (int e = 7; e < 10; e++) {
            int nn = s.new_node[ev.src[e]] || s.new_node[ev.dst[e]];
            ok &= e == 7 ? s.mask[e] == (DGNN_SPLIT_VAL | (nn ? DGNN_SPLIT_NEW_VAL : 0))
                         : s.mask[e] == (DGNN_SPLIT_TEST | (nn ? DGNN_SPLIT_NEW_TEST : 0));
        }
        CHECK_MSG(ok, "seed %llu", (unsigned long long)seed);
        int known = 0;
        for (int i = 0; i < distinct_sets; i++) known |= seen_sets[i] == set;
        if (!known && distinct_sets < 64) seen_sets[distinct_sets++] = set;
        /* same seed, same split */
        dgnn_split s2;
        CHECK(dgnn_split_make(&s2, &ev, &o, &err) == DGNN_OK);
        CHECK(memcmp(s.mask, s2.mask, 10) == 0 && memcmp(s.held_out, s2.held_out, 10) == 0);
        dgnn_split_free(&s2);
        dgnn_split_free(&s);
    }
    CHECK_MSG(distinct_sets >= 5, "%d distinct held-out sets over 40 seeds", distinct_sets);
    for (int v = 0; v < 10; v++) CHECK_MSG(later[v] ? picked[v] > 0 : picked[v] == 0, "node %d picked %d times", v, picked[v]);

    /* bad inputs */
    o = dgnn_split_opts_default();
    o.val_q = 0.9;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_EINVAL && s.mask == NULL);
    o = dgnn_split_opts_default();
    o.new_node_frac = 1.5;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_EINVAL);
    CHECK(dgnn_split_make(&s, &ev, NULL, &err) == DGNN_OK && s.n_held_out == 0); /* floor(0.1 * 8) = 0 */
    dgnn_split_free(&s);
    ev.t[4] = 0;
    CHECK(dgnn_split_make(&s, &ev, NULL, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "event 4") != NULL, "%s", err.msg);
    ev.t[4] = 5;
    o = dgnn_split_opts_default();
    o.mode = DGNN_SPLIT_BY_EXT_ROLL; /* the table has no ext_roll column */
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_EINVAL);
    ev.num_events = 0;
    CHECK(dgnn_split_make(&s, &ev, NULL, &err) == DGNN_EINVAL);
    ev.num_events = 10;
    dgnn_events_free(&ev);

    /* thresholds that are event times: t = 0..20 puts val_time at 14 and test_time at
     * 17 exactly; train is t <= 14, val 14 < t <= 17 (the event at 17 is validation),
     * test t > 17 */
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 21, 0, 0, &err) == DGNN_OK);
    ev.num_nodes = 2;
    for (int e = 0; e < 21; e++) { ev.src[e] = 0; ev.dst[e] = 1; ev.t[e] = e; }
    o = dgnn_split_opts_default();
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK_MSG(s.val_time == 14 && s.test_time == 17, "val_time %.17g test_time %.17g", s.val_time, s.test_time);
    CHECK(s.mask[14] == DGNN_SPLIT_TRAIN && s.mask[15] == DGNN_SPLIT_VAL && s.mask[17] == DGNN_SPLIT_VAL &&
          s.mask[18] == DGNN_SPLIT_TEST);
    CHECK(s.n_train == 15 && s.n_val == 3 && s.n_test == 3 && s.train_end == 15 && s.val_end == 18);
    dgnn_split_free(&s);
    dgnn_events_free(&ev);

    /* tie-heavy times: val_time == test_time == 2, so nothing in val */
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 10, 0, 0, &err) == DGNN_OK);
    ev.num_nodes = 2;
    double t[10] = {1, 1, 1, 1, 2, 2, 2, 2, 2, 3};
    for (int e = 0; e < 10; e++) { ev.src[e] = 0; ev.dst[e] = 1; ev.t[e] = t[e]; }
    o = dgnn_split_opts_default();
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK(s.val_time == 2 && s.test_time == 2 && s.n_train == 9 && s.n_val == 0 && s.n_test == 1);
    CHECK(s.train_end == 9 && s.val_end == 9 && s.n_new_test == 0);
    dgnn_split_free(&s);
    dgnn_events_free(&ev);
}

static void test_ext_roll_split(void) {
    dgnn_err err;
    dgnn_events ev;
    hand_table(&ev);
    ev.ext_roll = malloc(10);
    int8_t roll[10] = {0, 0, 0, 0, 0, 1, 1, 2, 2, 2};
    memcpy(ev.ext_roll, roll, 10);
    dgnn_split_opts o = dgnn_split_opts_default();
    o.mode = DGNN_SPLIT_BY_EXT_ROLL;
    o.new_node_frac = 0;
    dgnn_split s;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    /* train e0..e4 covers nodes 0..5; new nodes {6, 7} appear only in test */
    uint8_t want[10] = {1, 1, 1, 1, 1, 2, 2, DGNN_SPLIT_TEST | DGNN_SPLIT_NEW_TEST, DGNN_SPLIT_TEST | DGNN_SPLIT_NEW_TEST,
                        DGNN_SPLIT_TEST};
    CHECK(memcmp(s.mask, want, 10) == 0);
    CHECK(isnan(s.val_time) && s.n_train == 5 && s.n_val == 2 && s.n_test == 3 && s.n_new_val == 0 && s.n_new_test == 2);
    CHECK(s.train_end == 5 && s.val_end == 7);
    dgnn_split_free(&s);
    ev.ext_roll[6] = 3;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "event 6") && strstr(err.msg, "ext_roll"), "%s", err.msg);
    dgnn_events_free(&ev);
}

/* dgnn_split_check: a part left empty is refused, saying why; without evaluation only
 * training must be left. */
static void test_split_check(void) {
    dgnn_err err;
    dgnn_events ev;
    dgnn_split s;
    dgnn_split_opts o = dgnn_split_opts_default();
    /* the hand table splits into 7 training, 1 validation and 2 test events */
    hand_table(&ev);
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK(dgnn_split_check(&s, &ev, 1, &err) == DGNN_OK);
    dgnn_split_free(&s);
    /* every event at one timestamp: all training */
    for (int e = 0; e < 10; e++) ev.t[e] = 5;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK && s.n_train == 10 && s.n_val == 0 && s.n_test == 0);
    CHECK(dgnn_split_check(&s, &ev, 1, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "no validation events") && strstr(err.msg, "share the timestamp 5") &&
              strstr(err.msg, "10 training, 0 validation, 0 test"), "%s", err.msg);
    CHECK(dgnn_split_check(&s, &ev, 0, &err) == DGNN_OK); /* no evaluation: training is enough */
    dgnn_split_free(&s);
    /* two distinct times: validation (t in (1.7, 1.85]) is empty, test is not */
    for (int e = 0; e < 10; e++) ev.t[e] = e < 7 ? 1 : 2;
    ev.num_events = 8; /* 7 at t 1, 1 at t 2: val_time = test_time = 1.something */
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK(dgnn_split_check(&s, &ev, 1, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "no validation events") != NULL, "%s", err.msg);
    dgnn_split_free(&s);
    ev.num_events = 10;
    dgnn_events_free(&ev);
    /* every training event touches a held-out node: nodes 0 and 1 only, both later */
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 10, 0, 0, &err) == DGNN_OK);
    ev.num_nodes = 2;
    for (int e = 0; e < 10; e++) ev.src[e] = 0, ev.dst[e] = 1, ev.t[e] = e;
    o.new_node_frac = 0.5; /* floor(0.5 * 2) = 1 node held out: every event touches it */
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK && s.n_train == 0 && s.n_held_out == 1);
    CHECK(dgnn_split_check(&s, &ev, 0, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "no training events") && strstr(err.msg, "--new-node-frac"), "%s", err.msg);
    dgnn_split_free(&s);
    /* by ext_roll: no event of roll 2 leaves the test empty */
    ev.ext_roll = calloc(10, 1);
    for (int e = 5; e < 10; e++) ev.ext_roll[e] = 1;
    o = dgnn_split_opts_default();
    o.mode = DGNN_SPLIT_BY_EXT_ROLL;
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&s, &ev, &o, &err) == DGNN_OK);
    CHECK(dgnn_split_check(&s, &ev, 1, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "no test events") && strstr(err.msg, "ext_roll is 2"), "%s", err.msg);
    dgnn_split_free(&s);
    dgnn_events_free(&ev);
}

/* dgnn_events_subset over a split's mask: the events with any of the bits, in order,
 * each with its own edge features (the table's rows, not a copy) and label; the node
 * count is kept. */
static void test_subset(void) {
    dgnn_err err;
    dgnn_events ev;
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 10, 2, 1, &err) == DGNN_OK);
    ev.num_nodes = 10;
    int32_t s[10] = {0, 2, 0, 4, 1, 0, 2, 6, 3, 0}, d[10] = {1, 3, 3, 5, 2, 1, 3, 1, 7, 2};
    for (int e = 0; e < 10; e++) {
        ev.src[e] = s[e], ev.dst[e] = d[e], ev.t[e] = e + 1;
        ev.efeat[2 * e] = (float)(10 * e), ev.efeat[2 * e + 1] = (float)(10 * e + 1);
        ev.label[e] = e % 3 == 1;
    }
    dgnn_split sp;
    dgnn_split_opts o = dgnn_split_opts_default();
    o.new_node_frac = 0;
    CHECK(dgnn_split_make(&sp, &ev, &o, &err) == DGNN_OK && sp.n_val == 1 && sp.n_test == 2);
    dgnn_events sub;
    CHECK(dgnn_events_subset(&sub, &ev, sp.mask, DGNN_SPLIT_VAL | DGNN_SPLIT_TEST, &err) == DGNN_OK);
    int ok = sub.num_events == 3 && sub.num_nodes == 10 && sub.edge_dim == 2 && sub.label != NULL;
    for (int k = 0; ok && k < 3; k++) {
        int e = 7 + k;
        ok &= sub.src[k] == s[e] && sub.dst[k] == d[e] && sub.t[k] == e + 1 && sub.label[k] == (e % 3 == 1) &&
              dgnn_events_efeat(&sub, k)[0] == (float)(10 * e) && dgnn_events_efeat(&sub, k)[1] == (float)(10 * e + 1);
    }
    CHECK(ok);
    CHECK(sub.efeat == ev.efeat && sub.efeat_row != NULL); /* shared: no second copy of the features */
    dgnn_events_free(&sub);
    CHECK(dgnn_events_subset(&sub, &ev, sp.mask, DGNN_SPLIT_NEW_TEST, &err) == DGNN_OK);
    CHECK(sub.num_events == 1 && sub.src[0] == 3 && sub.dst[0] == 7 && sub.label[0] == 0 &&
          dgnn_events_efeat(&sub, 0)[0] == 80.0f);
    dgnn_events_free(&sub);
    dgnn_split_free(&sp);
    dgnn_events_free(&ev);
}

/* A subset of a subset points at the first table's rows; a range of a subset's events
 * comes as one block, a pointer into the table where its rows follow each other and
 * gathered where they do not; a slice keeps the rows of its events; a subset hashes and
 * saves as a table holding a copy of its features would. */
static void test_subset_views(void) {
    dgnn_err err;
    dgnn_events ev, s1, s2, copy;
    dgnn_events_init(&ev), dgnn_events_init(&copy);
    CHECK(dgnn_events_alloc(&ev, 10, 3, 1, &err) == DGNN_OK);
    ev.num_nodes = 4;
    for (int e = 0; e < 10; e++) {
        ev.src[e] = e % 4, ev.dst[e] = (e + 1) % 4, ev.t[e] = e, ev.label[e] = e % 2;
        for (int j = 0; j < 3; j++) ev.efeat[3 * e + j] = (float)(100 * e + j);
    }
    const uint8_t m1[10] = {0, 1, 1, 1, 0, 1, 1, 1, 0, 1}; /* s1 = events 1 2 3 5 6 7 9 */
    const uint8_t m2[7] = {0, 1, 1, 0, 1, 1, 0};          /* s2 = s1's 1 2 4 5 = events 2 3 6 7 */
    CHECK(dgnn_events_subset(&s1, &ev, m1, 1, &err) == DGNN_OK);
    CHECK(dgnn_events_subset(&s2, &s1, m2, 1, &err) == DGNN_OK);
    const int64_t rows[4] = {2, 3, 6, 7};
    int ok = s2.num_events == 4 && s2.efeat == ev.efeat && s2.edge_dim == 3;
    for (int k = 0; ok && k < 4; k++)
        ok = s2.efeat_row[k] == rows[k] && s2.src[k] == ev.src[rows[k]] && s2.t[k] == (double)rows[k] &&
             dgnn_events_efeat(&s2, k) == ev.efeat + 3 * rows[k];
    CHECK(ok);
    float *buf = NULL;
    int64_t cap = 0;
    const float *blk = NULL;
    CHECK(dgnn_events_efeat_block(&blk, &s2, 0, 2, &buf, &cap, &err) == DGNN_OK && blk == ev.efeat + 6 && !buf);
    CHECK(dgnn_events_efeat_block(&blk, &ev, 4, 3, &buf, &cap, &err) == DGNN_OK && blk == ev.efeat + 12 && !buf);
    CHECK(dgnn_events_efeat_block(&blk, &s2, 1, 3, &buf, &cap, &err) == DGNN_OK && blk == buf && cap >= 9);
    ok = blk == buf;
    for (int i = 0; ok && i < 3; i++)
        for (int j = 0; j < 3; j++) ok &= blk[3 * i + j] == (float)(100 * rows[1 + i] + j);
    CHECK(ok);
    free(buf);
    const dgnn_events v = dgnn_events_slice(&s2, 2, 2);
    CHECK(v.num_events == 2 && v.src == s2.src + 2 && v.label == s2.label + 2 && v.efeat == ev.efeat &&
          dgnn_events_efeat(&v, 1) == ev.efeat + 21 && v.map == NULL);
    const dgnn_events w = dgnn_events_slice(&ev, 3, 2);
    CHECK(w.efeat == ev.efeat + 9 && !w.efeat_row && dgnn_events_efeat(&w, 1)[2] == 402.0f);
    /* the same events with their features copied */
    CHECK(dgnn_events_alloc(&copy, 4, 3, 1, &err) == DGNN_OK);
    copy.num_nodes = 4, copy.bipartite = s2.bipartite;
    for (int k = 0; k < 4; k++) {
        copy.src[k] = s2.src[k], copy.dst[k] = s2.dst[k], copy.t[k] = s2.t[k], copy.label[k] = s2.label[k];
        memcpy(copy.efeat + 3 * k, dgnn_events_efeat(&s2, k), 3 * sizeof(float));
    }
    CHECK(dgnn_events_hash(&s2) == dgnn_events_hash(&copy));
    ev.efeat[3 * 6 + 1] += 1; /* a feature of one of s2's events */
    CHECK(dgnn_events_hash(&s2) != dgnn_events_hash(&copy));
    ev.efeat[3 * 6 + 1] -= 1;
    char path[] = "/tmp/dgnn_test_subset_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    dgnn_events back;
    CHECK(dgnn_save_binary(&s2, path, &err) == DGNN_OK && dgnn_load_binary(&back, path, 1, &err) == DGNN_OK);
    CHECK(back.num_events == 4 && back.edge_dim == 3 && !back.efeat_row &&
          memcmp(back.efeat, copy.efeat, 12 * sizeof(float)) == 0 && dgnn_events_hash(&back) == dgnn_events_hash(&copy));
    dgnn_events_free(&back);
    unlink(path);
    dgnn_events_free(&copy), dgnn_events_free(&s2), dgnn_events_free(&s1);
    CHECK(ev.efeat[3 * 7 + 2] == 702.0f); /* the subsets' frees left the table's features */
    dgnn_events_free(&ev);
}

/* TGN on Wikipedia prints 23,621 validation and 23,621 test interactions (they only
 * depend on the quantiles) and holds out int(0.1 * 9227) = 922 nodes. */
static void test_wikipedia(void) {
    char buf[512];
    const char *path = check_data(buf, sizeof buf, "wikipedia/wikipedia.csv");
    if (!path) return;
    dgnn_err err;
    dgnn_events ev;
    dgnn_events_init(&ev);
    if (dgnn_read_jodie(&ev, path, &err) != DGNN_OK) {
        CHECK_MSG(0, "reading %s: %s", path, err.msg);
        return;
    }
    dgnn_split s;
    CHECK(dgnn_split_make(&s, &ev, NULL, &err) == DGNN_OK);
    CHECK_MSG(s.n_val == 23621 && s.n_test == 23621, "val %lld test %lld", (long long)s.n_val, (long long)s.n_test);
    CHECK(s.train_end == 157474 - 2 * 23621 && s.val_end == 157474 - 23621);
    CHECK(s.n_nodes_seen == 9227 && s.n_held_out == 922);
    /* training loses the held-out nodes' edges (TGN prints 81,029 with Python's rng) */
    CHECK_MSG(s.n_train > 70000 && s.n_train < 95000, "train %lld", (long long)s.n_train);
    CHECK(s.n_new_val > 0 && s.n_new_val < s.n_val && s.n_new_test > 0 && s.n_new_test < s.n_test);
    printf("wikipedia: val_time %.17g test_time %.17g train %lld val %lld test %lld new_val %lld new_test %lld "
           "new nodes %lld\n",
           s.val_time, s.test_time, (long long)s.n_train, (long long)s.n_val, (long long)s.n_test,
           (long long)s.n_new_val, (long long)s.n_new_test, (long long)s.n_new_nodes);
    dgnn_split_free(&s);
    dgnn_events_free(&ev);
}

int main(void) {
    test_quantile();
    test_time_split();
    test_ext_roll_split();
    test_split_check();
    test_subset();
    test_subset_views();
    test_wikipedia();
    return check_done();
}
