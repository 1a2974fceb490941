/* test_partition.c: DepBloom technique 1 (partition.h): windows, the per-window METIS
 * partition and event assignment, ownership and the boundary exchange plan, checked on
 * hand-made windows with hand-computed answers and against brute force on random ones.
 *
 * Run with arguments it is also the measuring tool behind docs/depbloom.md:
 *   test_partition --report PATH|gen:EVENTS:NODES --parts P --window N [--row-bytes B]
 *                  [--ufactor U] [--seed S] [--batch B] [--no-steer] [--quiet]
 * prints one line per window (cut fraction, events per part, rows and bytes exchanged
 * at the boundary before it, time) and a summary against the strict baseline. */
#include <string.h>

#include "check.h"
#include "dgnn/gen.h"
#include "dgnn/readers.h"
#include "dgnn/partition.h"
#include "random_events.h"

static void make_events(dgnn_events *ev, int64_t N, int64_t E, const int32_t *src, const int32_t *dst,
                        const double *t) {
    dgnn_err err;
    dgnn_events_init(ev);
    if (dgnn_events_alloc(ev, E, 0, 0, &err) != DGNN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    ev->num_nodes = N;
    for (int64_t e = 0; e < E; e++) {
        ev->src[e] = src[e];
        ev->dst[e] = dst[e];
        ev->t[e] = t ? t[e] : (double)e;
    }
}

/* Every structural invariant of a window partition, from its definition. */
static void check_invariants(const dgnn_events *ev, const dgnn_window_part *wp) {
    const int P = wp->parts;
    const int64_t E = wp->end - wp->begin;
    int64_t *cnt = calloc((size_t)P, sizeof *cnt);
    int64_t cut = 0, bad_part = 0, bad_rule = 0, bad_cut = 0;
    for (int64_t i = 0; i < E; i++) {
        int p = wp->event_part[i];
        if (p < 0 || p >= P) {
            bad_part++;
            continue;
        }
        cnt[p]++;
        int pa = dgnn_window_part_of(wp, ev->src[wp->begin + i]);
        int pb = dgnn_window_part_of(wp, ev->dst[wp->begin + i]);
        if (wp->event_cut[i] != (pa != pb)) bad_cut++;
        if (p != pa && p != pb) bad_rule++;
        cut += wp->event_cut[i];
    }
    CHECK_MSG(bad_part == 0, "%lld events outside [0, %d)", (long long)bad_part, P);
    CHECK(bad_rule == 0);
    CHECK(bad_cut == 0);
    CHECK(cut == wp->num_cut);
    CHECK_NEAR(wp->cut_fraction, E ? (double)cut / E : 0.0, 1e-12);
    int64_t sum = 0, bad_cnt = 0;
    for (int p = 0; p < P; p++) {
        sum += wp->part_events[p];
        bad_cnt += wp->part_events[p] != cnt[p];
        bad_cnt += wp->part_event_offset[p + 1] - wp->part_event_offset[p] != cnt[p];
    }
    CHECK(sum == E && bad_cnt == 0);
    /* the cut events' rule from its definition (partition.h): the non-cut events counted
     * first, then each cut event in time order to the part of its two endpoints with fewer
     * events so far, ties to the part of src */
    int64_t *run = calloc((size_t)P, sizeof *run), bad_tie = 0;
    for (int64_t i = 0; i < E; i++)
        if (!wp->event_cut[i] && wp->event_part[i] >= 0 && wp->event_part[i] < P) run[wp->event_part[i]]++;
    for (int64_t i = 0; i < E; i++) {
        if (!wp->event_cut[i]) continue;
        int pa = dgnn_window_part_of(wp, ev->src[wp->begin + i]), pb = dgnn_window_part_of(wp, ev->dst[wp->begin + i]);
        if (pa < 0 || pb < 0) { bad_tie++; continue; }
        int want = run[pb] < run[pa] ? pb : pa;
        if (wp->event_part[i] != want) bad_tie++;
        run[want]++;
    }
    CHECK_MSG(bad_tie == 0, "%lld cut events not in the part of fewer events (ties: src's)", (long long)bad_tie);
    free(run);
    /* grouped lists: each part's events in time order and of that part */
    int64_t bad_list = 0;
    for (int p = 0; p < P; p++)
        for (int64_t j = wp->part_event_offset[p]; j < wp->part_event_offset[p + 1]; j++) {
            int64_t e = wp->part_event_list[j];
            if (e < wp->begin || e >= wp->end || wp->event_part[e - wp->begin] != p) bad_list++;
            if (j > wp->part_event_offset[p] && wp->part_event_list[j - 1] >= e) bad_list++;
        }
    CHECK(bad_list == 0);
    /* nodes: exactly the endpoints, ascending, each listed once under its part */
    uint8_t *seen = calloc((size_t)ev->num_nodes + 1, 1);
    for (int64_t e = wp->begin; e < wp->end; e++) seen[ev->src[e]] = seen[ev->dst[e]] = 1;
    int64_t n = 0, bad_nodes = 0;
    for (int64_t v = 0; v < ev->num_nodes; v++) n += seen[v];
    CHECK(n == wp->num_nodes);
    for (int64_t i = 0; i < wp->num_nodes; i++) {
        if (!seen[wp->nodes[i]]) bad_nodes++;
        if (i > 0 && wp->nodes[i - 1] >= wp->nodes[i]) bad_nodes++;
    }
    CHECK(bad_nodes == 0);
    CHECK(wp->part_node_offset[P] == wp->num_nodes);
    for (int p = 0; p < P; p++)
        for (int64_t j = wp->part_node_offset[p]; j < wp->part_node_offset[p + 1]; j++)
            if (dgnn_window_part_of(wp, wp->part_node_list[j]) != p) bad_nodes++;
    CHECK(bad_nodes == 0);
    free(seen);
    free(cnt);
}

static void test_windows(void) {
    dgnn_err err;
    dgnn_events ev;
    int32_t s[10] = {0}, d[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    double t[10] = {0, 1, 2, 10, 11, 25, 25, 25, 26, 40};
    make_events(&ev, 2, 10, s, d, t);
    int64_t b[16];
    CHECK(dgnn_windows_make(NULL, &ev, 0, 10, 4, 0, &err) == 3);
    CHECK(dgnn_windows_make(b, &ev, 0, 10, 4, 0, &err) == 3);
    CHECK(b[0] == 0 && b[1] == 4 && b[2] == 8 && b[3] == 10);
    CHECK(dgnn_windows_make(b, &ev, 2, 7, 5, 0, &err) == 1 && b[0] == 2 && b[1] == 7);
    /* 5-second windows from t0 = 0: [0,5) holds 0,1,2; [10,15) holds 10,11; [25,30)
     * holds 25,25,25,26; [40,45) holds 40; the empty ones are skipped */
    CHECK(dgnn_windows_make(b, &ev, 0, 10, 0, 5.0, &err) == 4);
    CHECK(b[0] == 0 && b[1] == 3 && b[2] == 5 && b[3] == 9 && b[4] == 10);
    /* from event 3 (t0 = 10): [10,15) [25,30) [40,45) */
    CHECK(dgnn_windows_make(b, &ev, 3, 10, 0, 5.0, &err) == 3);
    CHECK(b[0] == 3 && b[1] == 5 && b[2] == 9 && b[3] == 10);
    CHECK(dgnn_windows_make(b, &ev, 4, 4, 3, 0, &err) == 0 && b[0] == 4);
    /* an event at t0 + k S exactly begins window k (windows are [t0 + k S, t0 + (k+1) S)),
     * and an event after an empty window lies in the window of floor((t - t0) / S):
     * t = 0 1 | 5 7 8 | 12 | 16 with S = 5 */
    {
        dgnn_events e2;
        int32_t s2[7] = {0}, d2[7] = {1, 1, 1, 1, 1, 1, 1};
        double t2[7] = {0, 1, 5, 7, 8, 12, 16};
        make_events(&e2, 2, 7, s2, d2, t2);
        int64_t b2[8];
        CHECK(dgnn_windows_make(b2, &e2, 0, 7, 0, 5.0, &err) == 4);
        CHECK_MSG(b2[0] == 0 && b2[1] == 2 && b2[2] == 5 && b2[3] == 6 && b2[4] == 7, "bounds %lld %lld %lld %lld %lld",
                  (long long)b2[0], (long long)b2[1], (long long)b2[2], (long long)b2[3], (long long)b2[4]);
        dgnn_events_free(&e2);
    }
    CHECK(dgnn_windows_make(b, &ev, 0, 10, 0, 0, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "window_events") != NULL);
    CHECK(dgnn_windows_make(b, &ev, 0, 10, 3, 5.0, &err) == 4 && b[1] == 3); /* seconds win */
    CHECK(dgnn_windows_make(b, &ev, 0, 11, 3, 0, &err) == DGNN_EINVAL);
    CHECK(dgnn_windows_make(b, &ev, 5, 4, 3, 0, &err) == DGNN_EINVAL);
    dgnn_events_free(&ev);
}

/* Two 6-node cliques (each pair twice, 30 events a clique), joined by one event 5-6,
 * shuffled in time: with P = 2 the cut is exactly that one event. */
static void test_two_cliques(void) {
    int32_t s[64], d[64];
    int64_t E = 0;
    for (int rep = 0; rep < 2; rep++)
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 6; i++)
                for (int j = i + 1; j < 6; j++) {
                    s[E] = c * 6 + (rep ? j : i);
                    d[E] = c * 6 + (rep ? i : j);
                    E++;
                }
    s[E] = 5;
    d[E] = 6;
    E++;
    /* interleave deterministically: the bridge lands mid-window */
    dgnn_rng r;
    dgnn_rng_seed(&r, 7);
    for (int64_t i = E - 1; i > 0; i--) {
        int64_t j = (int64_t)dgnn_rng_below(&r, (uint64_t)i + 1);
        int32_t a = s[i], b = d[i];
        s[i] = s[j], d[i] = d[j];
        s[j] = a, d[j] = b;
    }
    dgnn_events ev;
    make_events(&ev, 12, E, s, d, NULL);
    dgnn_err err;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 2;
    o.min_metis_nodes = 0; /* force METIS on this tiny graph */
    CHECK(dgnn_window_partition(&wp, &ev, 0, E, NULL, &o, &err) == DGNN_OK);
    CHECK(wp.method == DGNN_PART_METIS);
    CHECK(wp.num_nodes == 12 && wp.num_edges == 31);
    CHECK_MSG(wp.num_cut == 1, "cut %lld", (long long)wp.num_cut);
    CHECK_NEAR(wp.cut_fraction, 1.0 / 61.0, 1e-12);
    for (int64_t i = 0; i < E; i++)
        if (wp.event_cut[i]) CHECK((s[i] == 5 && d[i] == 6));
    int pa = dgnn_window_part_of(&wp, 0), pb = dgnn_window_part_of(&wp, 6);
    CHECK(pa != pb);
    for (int v = 0; v < 12; v++) CHECK(dgnn_window_part_of(&wp, v) == (v < 6 ? pa : pb));
    /* 30 + 30 + the bridge: balanced to 30 / 31 */
    CHECK((wp.part_events[0] == 30 && wp.part_events[1] == 31) || (wp.part_events[0] == 31 && wp.part_events[1] == 30));
    check_invariants(&ev, &wp);

    /* ownership steering: the previous window left clique 0 on part pb and clique 1 on
     * pa; without an owner every node migrates, with it the labels swap and only the
     * bridge's foreign endpoint crosses the boundary, for the same cut */
    int32_t owner[12];
    for (int v = 0; v < 12; v++) owner[v] = v < 6 ? pb : pa;
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 10, &err) == DGNN_OK);
    CHECK_MSG(plan.total_rows == 12, "%lld rows", (long long)plan.total_rows);
    CHECK(dgnn_window_partition(&wp, &ev, 0, E, owner, &o, &err) == DGNN_OK);
    CHECK(dgnn_window_part_of(&wp, 0) == pb && dgnn_window_part_of(&wp, 6) == pa);
    CHECK(wp.num_cut == 1);
    check_invariants(&ev, &wp);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 10, &err) == DGNN_OK);
    CHECK_MSG(plan.total_rows == 1 && plan.total_bytes == 10, "%lld rows", (long long)plan.total_rows);
    dgnn_exchange_plan_free(&plan);
    dgnn_window_part_free(&wp);
    dgnn_events_free(&ev);
}

/* A cut event goes to the part with fewer events (counted after the same-part events),
 * ties to the part of src. Hand-made: triangle 0-1-2 (3 events, twice = 6) and edge 3-4
 * (x2 = 2), bridge 2-3 once: P = 2 puts {0,1,2} and {3,4} apart; the bridge goes to the
 * part of {3,4} (2 events < 6). */
static void test_cut_rule(void) {
    int32_t s[] = {0, 1, 2, 0, 1, 2, 3, 4, 2};
    int32_t d[] = {1, 2, 0, 1, 2, 0, 4, 3, 3};
    dgnn_events ev;
    make_events(&ev, 5, 9, s, d, NULL);
    dgnn_err err;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 2;
    o.min_metis_nodes = 0;
    o.ufactor = 1.5; /* vertex weights 13 vs 5: allow it, so METIS keeps the triangle whole */
    CHECK(dgnn_window_partition(&wp, &ev, 0, 9, NULL, &o, &err) == DGNN_OK);
    int p012 = dgnn_window_part_of(&wp, 0), p34 = dgnn_window_part_of(&wp, 3);
    CHECK(p012 != p34);
    CHECK(dgnn_window_part_of(&wp, 1) == p012 && dgnn_window_part_of(&wp, 2) == p012 &&
          dgnn_window_part_of(&wp, 4) == p34);
    CHECK(wp.num_cut == 1 && wp.event_cut[8] == 1);
    CHECK(wp.event_part[8] == p34);
    CHECK(wp.part_events[p012] == 6 && wp.part_events[p34] == 3);
    CHECK_NEAR(wp.cut_fraction, 1.0 / 9.0, 1e-12);
    check_invariants(&ev, &wp);
    dgnn_window_part_free(&wp);
    dgnn_events_free(&ev);
}

/* Whole components follow their owners: four disjoint pairs (2 events each), P = 2,
 * owners {0,1} -> 1, {2,3} -> 0, {4,5} -> 1, {6,7} -> 0: whatever METIS did, the
 * steered partition must match the owners exactly (no row to send), with no cut, and
 * stay balanced; an owner that would unbalance the parts is overridden. */
static void test_sticky(void) {
    int32_t s[] = {0, 2, 4, 6, 1, 3, 5, 7}, d[] = {1, 3, 5, 7, 0, 2, 4, 6};
    dgnn_events ev;
    make_events(&ev, 8, 8, s, d, NULL);
    dgnn_err err;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 2;
    o.min_metis_nodes = 0;
    int32_t owner[8] = {1, 1, 0, 0, 1, 1, 0, 0};
    CHECK(dgnn_window_partition(&wp, &ev, 0, 8, owner, &o, &err) == DGNN_OK);
    CHECK(wp.method == DGNN_PART_METIS);
    for (int v = 0; v < 8; v++) CHECK(dgnn_window_part_of(&wp, v) == owner[v]);
    CHECK(wp.num_cut == 0 && wp.part_events[0] == 4 && wp.part_events[1] == 4);
    check_invariants(&ev, &wp);
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 10, &err) == DGNN_OK);
    CHECK(plan.total_rows == 0);
    /* all owned by part 1: balance wins, two pairs must move to part 0 (2 rows each) */
    for (int v = 0; v < 8; v++) owner[v] = 1;
    CHECK(dgnn_window_partition(&wp, &ev, 0, 8, owner, &o, &err) == DGNN_OK);
    CHECK(wp.part_events[0] == 4 && wp.part_events[1] == 4 && wp.num_cut == 0);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 10, &err) == DGNN_OK);
    CHECK(plan.total_rows == 4 && plan.count[1 * 2 + 0] == 4);
    check_invariants(&ev, &wp);
    dgnn_exchange_plan_free(&plan);
    dgnn_window_part_free(&wp);
    dgnn_events_free(&ev);
}

/* P = 1, the empty window, self loops. */
static void test_trivial(void) {
    dgnn_events ev;
    gen_events(&ev, 3, 200, 3000, 50);
    dgnn_err err;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_part_opts o = dgnn_part_opts_default();
    CHECK(dgnn_window_partition(&wp, &ev, 0, 3000, NULL, &o, &err) == DGNN_OK);
    CHECK(wp.method == DGNN_PART_SINGLE && wp.num_cut == 0 && wp.cut_fraction == 0.0);
    CHECK(wp.part_events[0] == 3000);
    check_invariants(&ev, &wp);

    o.parts = 4;
    int32_t *owner = malloc((size_t)ev.num_nodes * sizeof *owner);
    dgnn_owner_init(owner, ev.num_nodes, 4, 0);
    CHECK(dgnn_window_partition(&wp, &ev, 1000, 1000, owner, &o, &err) == DGNN_OK);
    CHECK(wp.num_nodes == 0 && wp.num_cut == 0 && wp.cut_fraction == 0.0);
    for (int p = 0; p < 4; p++) CHECK(wp.part_events[p] == 0);
    check_invariants(&ev, &wp);
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 64, &err) == DGNN_OK);
    CHECK(plan.total_rows == 0 && plan.total_bytes == 0 && plan.offset[16] == 0);
    dgnn_exchange_plan_free(&plan);

    /* self loops only: never cut */
    int32_t s[] = {1, 1, 2, 3, 3, 3};
    dgnn_events ev2;
    make_events(&ev2, 4, 6, s, s, NULL);
    o.parts = 2;
    o.min_metis_nodes = 0;
    CHECK(dgnn_window_partition(&wp, &ev2, 0, 6, NULL, &o, &err) == DGNN_OK);
    CHECK(wp.method == DGNN_PART_GREEDY); /* no edges: nothing for METIS to cut */
    CHECK(wp.num_cut == 0 && wp.num_edges == 0);
    CHECK(wp.node_events[0] == 2 && wp.node_events[2] == 3); /* nodes 1 and 3 */
    check_invariants(&ev2, &wp);
    /* greedy LPT: node 3 (3 events) alone, nodes 1 + 2 (3 events) together */
    CHECK(wp.part_events[0] == 3 && wp.part_events[1] == 3);

    /* bad arguments */
    o.parts = 0;
    CHECK(dgnn_window_partition(&wp, &ev2, 0, 6, NULL, &o, &err) == DGNN_EINVAL);
    o.parts = 2;
    o.ufactor = 0.5;
    CHECK(dgnn_window_partition(&wp, &ev2, 0, 6, NULL, &o, &err) == DGNN_EINVAL);
    o.ufactor = 1.03;
    CHECK(dgnn_window_partition(&wp, &ev2, 0, 7, NULL, &o, &err) == DGNN_EINVAL);
    ev2.dst[2] = 9; /* node id past num_nodes */
    CHECK(dgnn_window_partition(&wp, &ev2, 0, 6, NULL, &o, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "event 2") != NULL);
    dgnn_window_part_free(&wp);
    free(owner);
    dgnn_events_free(&ev);
    dgnn_events_free(&ev2);
}

/* The exchange plan on a hand-made boundary. N = 6, P = 2, ownership after the
 * previous window {0,0,0,1,1,1}. Next window (event: part):
 *   0-1: 0   1-3: 0 (reads 3, owned by 1)   4-5: 1   2-4: 1 (reads 2)   0-2: 1 (reads 0, 2)
 * so 1 sends {3} to 0 and 0 sends {0, 2} to 1 (2 once, although read twice). */
static void test_plan_hand(void) {
    int32_t s[] = {0, 1, 4, 2, 0}, d[] = {1, 3, 5, 4, 2};
    int32_t ep[] = {0, 0, 1, 1, 1};
    dgnn_events ev;
    make_events(&ev, 6, 5, s, d, NULL);
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    wp.begin = 0;
    wp.end = 5;
    wp.parts = 2;
    wp.event_part = ep;
    int32_t owner[6] = {0, 0, 0, 1, 1, 1};
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    dgnn_err err;
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 100, &err) == DGNN_OK);
    CHECK(plan.count[0] == 0 && plan.count[1] == 2 && plan.count[2] == 1 && plan.count[3] == 0);
    CHECK(plan.offset[1] == 0 && plan.offset[2] == 2 && plan.offset[3] == 3 && plan.offset[4] == 3);
    CHECK(plan.nodes[0] == 0 && plan.nodes[1] == 2 && plan.nodes[2] == 3);
    CHECK(plan.total_rows == 3 && plan.total_bytes == 300);
    CHECK(plan.max_send_bytes == 200 && plan.max_recv_bytes == 200);
    /* a node never written (owner -1) is never sent: node 0 drops out */
    owner[0] = -1;
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 100, &err) == DGNN_OK);
    CHECK(plan.count[1] == 1 && plan.count[2] == 1 && plan.nodes[0] == 2 && plan.nodes[1] == 3);
    CHECK(plan.total_rows == 2 && plan.total_bytes == 200);
    /* a bad owner is an error, not a crash */
    owner[4] = -2;
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 100, &err) == DGNN_EINVAL);
    owner[4] = 2;
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 100, &err) == DGNN_EINVAL);
    dgnn_exchange_plan_free(&plan);
    dgnn_events_free(&ev);
}

/* Steering prefers, for a whole component, the part owning MOST of its nodes (partition.h):
 * two triangles {0,1,2} and {3,4,5}, each edge once (weight 6 a triangle, one per part
 * fits under ufactor 1.03), owners 0 -> 1, 1 -> 0, 2 -> 0 (part 0 owns two) and 3 -> 1,
 * 4 -> 1, 5 -> 0 (part 1 owns two): {0,1,2} on part 0, {3,4,5} on part 1, and only the
 * two minority rows (0 and 5) cross the boundary. */
static void test_sticky_majority(void) {
    int32_t s[] = {0, 1, 2, 3, 4, 5}, d[] = {1, 2, 0, 4, 5, 3};
    dgnn_events ev;
    make_events(&ev, 6, 6, s, d, NULL);
    dgnn_err err;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 2;
    o.min_metis_nodes = 0;
    int32_t owner[6] = {1, 0, 0, 1, 1, 0};
    CHECK(dgnn_window_partition(&wp, &ev, 0, 6, owner, &o, &err) == DGNN_OK);
    CHECK(wp.num_cut == 0);
    for (int v = 0; v < 6; v++)
        CHECK_MSG(dgnn_window_part_of(&wp, v) == (v < 3 ? 0 : 1), "node %d in part %d", v, dgnn_window_part_of(&wp, v));
    check_invariants(&ev, &wp);
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 10, &err) == DGNN_OK);
    CHECK_MSG(plan.total_rows == 2 && plan.count[1 * 2 + 0] == 1 && plan.count[0 * 2 + 1] == 1, "%lld rows",
              (long long)plan.total_rows);
    dgnn_exchange_plan_free(&plan);
    dgnn_window_part_free(&wp);
    dgnn_events_free(&ev);
}

/* The busiest sender and the busiest receiver differ: P = 3, one event 0-1 trained by part
 * 2, node 0 owned by part 0 and node 1 by part 1: each of 0 and 1 sends one row, part 2
 * receives two. */
static void test_plan_send_recv(void) {
    int32_t s[] = {0}, d[] = {1}, ep[] = {2};
    dgnn_events ev;
    make_events(&ev, 3, 1, s, d, NULL);
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    wp.begin = 0, wp.end = 1, wp.parts = 3, wp.event_part = ep;
    int32_t owner[3] = {0, 1, 2};
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    dgnn_err err;
    CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 100, &err) == DGNN_OK);
    CHECK(plan.total_rows == 2 && plan.count[0 * 3 + 2] == 1 && plan.count[1 * 3 + 2] == 1);
    CHECK_MSG(plan.max_send_bytes == 100 && plan.max_recv_bytes == 200, "send %lld, recv %lld",
              (long long)plan.max_send_bytes, (long long)plan.max_recv_bytes);
    dgnn_exchange_plan_free(&plan);
    dgnn_events_free(&ev);
}

/* Ownership and the plan over a random stream, against brute force; determinism. */
static void test_random_stream(void) {
    dgnn_events ev;
    const int64_t N = 3000, E = 40000;
    gen_events(&ev, 11, N, E, 400);
    dgnn_err err;
    int64_t W = dgnn_windows_make(NULL, &ev, 0, E, 7000, 0, &err);
    CHECK(W == 6);
    int64_t b[8];
    dgnn_windows_make(b, &ev, 0, E, 7000, 0, &err);
    const int P = 3;
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = P;
    o.seed = 5;
    int32_t *owner = malloc((size_t)N * sizeof *owner), *prev = malloc((size_t)N * sizeof *prev);
    dgnn_owner_init(owner, N, P, 1);
    int64_t bad_init = 0;
    for (int64_t v = 0; v < N; v++) bad_init += owner[v] != -1;
    dgnn_owner_init(owner, N, P, 0);
    for (int64_t v = 0; v < N; v++) bad_init += owner[v] != (int32_t)(dgnn_hash64((uint64_t)v) % P);
    CHECK(bad_init == 0);
    for (int64_t v = 0; v < N; v += 5) owner[v] = -1; /* some nodes never written */
    uint8_t *need = malloc((size_t)N * P);
    dgnn_window_part wp, wp2;
    memset(&wp, 0, sizeof wp);
    memset(&wp2, 0, sizeof wp2);
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    for (int64_t w = 0; w < W; w++) {
        /* windows 2 and 4 touch only nodes < 1500 (shows "absent nodes keep their owner") */
        if (w == 2 || w == 4)
            for (int64_t e = b[w]; e < b[w + 1]; e++) {
                ev.src[e] %= 1500;
                ev.dst[e] %= 1500;
            }
        /* odd windows are steered by the ownership: same cut, every invariant */
        const int32_t *steer = w % 2 ? owner : NULL;
        CHECK(dgnn_window_partition(&wp, &ev, b[w], b[w + 1], steer, &o, &err) == DGNN_OK);
        CHECK(wp.method == DGNN_PART_METIS);
        check_invariants(&ev, &wp);
        /* determinism: same input and seed, same answer */
        CHECK(dgnn_window_partition(&wp2, &ev, b[w], b[w + 1], steer, &o, &err) == DGNN_OK);
        CHECK(wp2.num_nodes == wp.num_nodes &&
              memcmp(wp2.node_part, wp.node_part, (size_t)wp.num_nodes * sizeof(int32_t)) == 0 &&
              memcmp(wp2.event_part, wp.event_part, (size_t)(b[w + 1] - b[w]) * sizeof(int32_t)) == 0);
        if (steer) {
            CHECK(dgnn_window_partition(&wp2, &ev, b[w], b[w + 1], NULL, &o, &err) == DGNN_OK);
            CHECK_MSG(wp2.num_cut == wp.num_cut, "cut %lld steered vs %lld", (long long)wp.num_cut,
                      (long long)wp2.num_cut);
        }
        /* plan vs brute force: need[v][r] = r reads v and does not own it */
        CHECK(dgnn_exchange_plan_make(&plan, &ev, &wp, owner, 7, &err) == DGNN_OK);
        memset(need, 0, (size_t)N * P);
        for (int64_t e = b[w]; e < b[w + 1]; e++) {
            int r = wp.event_part[e - b[w]];
            if (owner[ev.src[e]] >= 0 && owner[ev.src[e]] != r) need[(int64_t)ev.src[e] * P + r] = 1;
            if (owner[ev.dst[e]] >= 0 && owner[ev.dst[e]] != r) need[(int64_t)ev.dst[e] * P + r] = 1;
        }
        int64_t rows = 0, bad = 0;
        for (int64_t v = 0; v < N; v++)
            for (int r = 0; r < P; r++) rows += need[v * P + r];
        for (int sp = 0; sp < P; sp++)
            for (int r = 0; r < P; r++)
                for (int64_t j = plan.offset[sp * P + r]; j < plan.offset[sp * P + r + 1]; j++) {
                    int32_t v = plan.nodes[j];
                    if (owner[v] != sp || !need[(int64_t)v * P + r]) bad++;
                    need[(int64_t)v * P + r] = 0; /* a second listing would be caught */
                    if (j > plan.offset[sp * P + r] && plan.nodes[j - 1] >= v) bad++;
                }
        CHECK_MSG(plan.total_rows == rows && bad == 0, "rows %lld vs %lld, %lld bad", (long long)plan.total_rows,
                  (long long)rows, (long long)bad);
        CHECK(plan.total_bytes == 7 * rows);
        /* ownership: touched nodes take their part, the others keep theirs */
        memcpy(prev, owner, (size_t)N * sizeof *owner);
        dgnn_owner_update(owner, &wp);
        int64_t bad_owner = 0, kept = 0;
        for (int64_t v = 0; v < N; v++) {
            int p = dgnn_window_part_of(&wp, (int32_t)v);
            if (p >= 0) bad_owner += owner[v] != p;
            else {
                bad_owner += owner[v] != prev[v];
                kept++;
            }
        }
        CHECK(bad_owner == 0);
        if (w == 2) CHECK(kept >= 1500);
    }
    /* the greedy fallback on a real-sized window: valid and balanced */
    o.min_metis_nodes = INT64_MAX;
    CHECK(dgnn_window_partition(&wp2, &ev, b[0], b[1], owner, &o, &err) == DGNN_OK);
    CHECK(wp2.method == DGNN_PART_GREEDY);
    check_invariants(&ev, &wp2);
    int64_t gmax = 0;
    for (int p = 0; p < P; p++) gmax = wp2.part_events[p] > gmax ? wp2.part_events[p] : gmax;
    CHECK_MSG(gmax <= 1.10 * (b[1] - b[0]) / P, "greedy max part %lld of %lld", (long long)gmax, (long long)(b[1] - b[0]));
    o.min_metis_nodes = 64;
    /* another seed may give another (equally valid) partition; check it is valid */
    o.seed = 6;
    CHECK(dgnn_window_partition(&wp2, &ev, b[0], b[1], NULL, &o, &err) == DGNN_OK);
    check_invariants(&ev, &wp2);
    dgnn_window_part_free(&wp);
    dgnn_window_part_free(&wp2);
    dgnn_exchange_plan_free(&plan);
    free(need);
    free(owner);
    free(prev);
    dgnn_events_free(&ev);
}

/* Quality on the synthetic community stream: METIS must cut far less than hashing nodes
 * (which cuts about (P-1)/P of the events) and balance events within a few percent; the
 * time a 100k-event window takes is printed (a figure to read, not a check). */
static void test_quality_speed(void) {
    dgnn_gen_opts g = dgnn_gen_opts_default();
    g.num_events = 100000;
    g.num_nodes = 10000;
    g.seed = 3;
    dgnn_events ev;
    dgnn_err err;
    if (dgnn_gen_events(&ev, &g, &err) != DGNN_OK) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 4;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    CHECK(dgnn_window_partition(&wp, &ev, 0, g.num_events, NULL, &o, &err) == DGNN_OK);
    CHECK(wp.method == DGNN_PART_METIS);
    check_invariants(&ev, &wp);
    int64_t mx = 0;
    for (int p = 0; p < 4; p++) mx = wp.part_events[p] > mx ? wp.part_events[p] : mx;
    double imb = (double)mx / (g.num_events / 4.0);
    printf("gen 100k events / 10k nodes, P=4: cut %.4f, max/mean events %.3f, %.1f ms\n", wp.cut_fraction, imb,
           wp.seconds * 1e3);
    CHECK_MSG(wp.cut_fraction < 0.375, "cut %.3f vs hash ~0.75", wp.cut_fraction);
    CHECK_MSG(imb < 1.10, "imbalance %.3f", imb);
    CHECK(wp.seconds >= 0.0); /* the time is printed above, not bounded: no timed unit tests */
    dgnn_window_part_free(&wp);
    dgnn_events_free(&ev);
}

/* ---- the report mode -------------------------------------------------------------- */

typedef struct {
    double sum, mn, mx;
    int64_t n;
} stat;
static void stat_add(stat *s, double x) {
    if (s->n == 0 || x < s->mn) s->mn = x;
    if (s->n == 0 || x > s->mx) s->mx = x;
    s->sum += x;
    s->n++;
}
static double stat_mean(const stat *s) { return s->n ? s->sum / s->n : 0.0; }

static int report(int argc, char **argv) {
    const char *data = NULL;
    int P = 2, quiet = 0, steer = 1;
    int64_t window = 10000, row_bytes = 2080, batch = 0;
    double ufactor = 1.03;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!strcmp(a, "--no-steer")) { steer = 0; continue; }
        if (!v) { fprintf(stderr, "%s needs a value\n", a); return 2; }
        if (!strcmp(a, "--report")) data = v;
        else if (!strcmp(a, "--parts")) P = atoi(v);
        else if (!strcmp(a, "--window")) window = atoll(v);
        else if (!strcmp(a, "--row-bytes")) row_bytes = atoll(v);
        else if (!strcmp(a, "--ufactor")) ufactor = atof(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--batch")) batch = atoll(v);
        else { fprintf(stderr, "unknown option %s\n", a); return 2; }
        i++;
    }
    dgnn_events ev;
    dgnn_err err;
    double t0 = dgnn_now();
    if (!strncmp(data, "gen:", 4)) {
        dgnn_gen_opts g = dgnn_gen_opts_default();
        char buf[128];
        snprintf(buf, sizeof buf, "%s", data + 4);
        char *colon = strchr(buf, ':');
        if (colon) *colon = 0;
        if (dgnn_gen_set(&g, "events", buf, &err) || (colon && dgnn_gen_set(&g, "nodes", colon + 1, &err))) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        if (dgnn_gen_events(&ev, &g, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    } else {
        dgnn_load_opts lo = dgnn_load_opts_default();
        if (dgnn_load(&ev, data, &lo, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    }
    printf("data %s: %lld events, %lld nodes (%.1f s to load)\n", data, (long long)ev.num_events,
           (long long)ev.num_nodes, dgnn_now() - t0);
    const int64_t E = ev.num_events;
    int64_t W = dgnn_windows_make(NULL, &ev, 0, E, window, 0, &err);
    int64_t *b = malloc((size_t)(W + 1) * sizeof *b);
    dgnn_windows_make(b, &ev, 0, E, window, 0, &err);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = P;
    o.ufactor = ufactor;
    o.seed = seed;
    int32_t *owner = malloc((size_t)ev.num_nodes * sizeof *owner);
    dgnn_owner_init(owner, ev.num_nodes, P, 1);
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    dgnn_exchange_plan plan;
    memset(&plan, 0, sizeof plan);
    stat cut = {0}, imb = {0}, rows = {0}, bytes = {0}, maxsend = {0}, secs = {0}, plan_secs = {0};
    int64_t total_bytes = 0, greedy = 0;
    /* strict, per window: every event writes 2 rows (src, dst) that go to the P-1 other
     * ranks. With --batch B (each rank's slice of the global batch P*B), the rows a rank
     * writes are deduplicated per slice (a node written twice in one slice is sent
     * once), as an all-gather of each rank's final rows of the step would. */
    int64_t strict_total = 0;
    stat strict_w = {0};
    uint32_t *stamp = calloc((size_t)ev.num_nodes, sizeof *stamp);
    uint32_t stamp_id = 0;
    if (!quiet) printf("window  events  nodes  method  cut_frac  events_per_part(max/mean)  rows_in  MB_in  ms_part\n");
    for (int64_t w = 0; w < W; w++) {
        dgnn_window_partition(&wp, &ev, b[w], b[w + 1], steer ? owner : NULL, &o, &err);
        double tp = dgnn_now();
        dgnn_exchange_plan_make(&plan, &ev, &wp, owner, row_bytes, &err);
        stat_add(&plan_secs, dgnn_now() - tp);
        int64_t n = b[w + 1] - b[w], mx = 0;
        for (int p = 0; p < P; p++) mx = wp.part_events[p] > mx ? wp.part_events[p] : mx;
        double ib = (double)mx / ((double)n / P);
        int64_t sw = 0;
        if (batch > 0) {
            for (int64_t s = b[w]; s < b[w + 1]; s += batch) {
                stamp_id++;
                int64_t s_end = s + batch < b[w + 1] ? s + batch : b[w + 1];
                for (int64_t e = s; e < s_end; e++) {
                    if (stamp[ev.src[e]] != stamp_id) { stamp[ev.src[e]] = stamp_id; sw++; }
                    if (stamp[ev.dst[e]] != stamp_id) { stamp[ev.dst[e]] = stamp_id; sw++; }
                }
            }
        } else sw = 2 * n;
        int64_t strict_bytes = sw * (P - 1) * row_bytes;
        strict_total += strict_bytes;
        stat_add(&strict_w, (double)strict_bytes);
        if (!quiet)
            printf("%6lld  %6lld  %5lld  %-6s  %8.4f  %10.3f  %7lld  %6.2f  %7.2f\n", (long long)w, (long long)n,
                   (long long)wp.num_nodes, wp.method == DGNN_PART_METIS ? "metis" : wp.method == DGNN_PART_GREEDY ? "greedy" : "single",
                   wp.cut_fraction, ib, (long long)plan.total_rows, plan.total_bytes / 1e6, wp.seconds * 1e3);
        greedy += wp.method == DGNN_PART_GREEDY;
        stat_add(&cut, wp.cut_fraction);
        stat_add(&imb, ib);
        stat_add(&secs, wp.seconds);
        /* fresh ownership: nothing to send before window 0, which is left out of the
         * per-boundary figures */
        if (w > 0) {
            stat_add(&rows, (double)plan.total_rows);
            stat_add(&bytes, (double)plan.total_bytes);
            stat_add(&maxsend, (double)plan.max_send_bytes);
            total_bytes += plan.total_bytes;
        }
        dgnn_owner_update(owner, &wp);
    }
    printf("summary: P=%d window=%lld events, %lld windows (%lld greedy), row %lld bytes, steer %s\n", P,
           (long long)window, (long long)W, (long long)greedy, (long long)row_bytes, steer ? "on" : "off");
    printf("  cut fraction      mean %.4f  min %.4f  max %.4f\n", stat_mean(&cut), cut.mn, cut.mx);
    printf("  max/mean events   mean %.4f  max %.4f\n", stat_mean(&imb), imb.mx);
    printf("  rows per boundary mean %.0f  min %.0f  max %.0f\n", stat_mean(&rows), rows.mn, rows.mx);
    printf("  MB per boundary   mean %.2f  max %.2f (busiest sender mean %.2f)\n", stat_mean(&bytes) / 1e6,
           bytes.mx / 1e6, stat_mean(&maxsend) / 1e6);
    printf("  strict per window mean %.2f MB (%s)\n", stat_mean(&strict_w) / 1e6,
           batch > 0 ? "rows deduplicated per rank slice of --batch events" : "2 rows per event to P-1 ranks");
    printf("  total: partition %.1f MB vs strict %.1f MB = %.1fx less\n", total_bytes / 1e6, strict_total / 1e6,
           total_bytes > 0 ? (double)strict_total / total_bytes : 0.0);
    printf("  time per window: partition mean %.1f ms max %.1f ms, plan mean %.1f ms\n", stat_mean(&secs) * 1e3,
           secs.mx * 1e3, stat_mean(&plan_secs) * 1e3);
    dgnn_window_part_free(&wp);
    dgnn_exchange_plan_free(&plan);
    free(stamp);
    free(owner);
    free(b);
    dgnn_events_free(&ev);
    return 0;
}

/* Wikipedia, if the shared data is there: every window valid, and the time per window. */
static void test_wikipedia(void) {
    char buf[512];
    const char *path = check_data(buf, sizeof buf, "wikipedia/wikipedia.csv");
    if (!path) return;
    dgnn_events ev;
    dgnn_err err;
    if (dgnn_read_jodie(&ev, path, &err) != DGNN_OK) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    int64_t W = dgnn_windows_make(NULL, &ev, 0, ev.num_events, 10000, 0, &err);
    int64_t *b = malloc((size_t)(W + 1) * sizeof *b);
    dgnn_windows_make(b, &ev, 0, ev.num_events, 10000, 0, &err);
    dgnn_part_opts o = dgnn_part_opts_default();
    o.parts = 4;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    double cut = 0, secs = 0;
    for (int64_t w = 0; w < W; w++) {
        CHECK(dgnn_window_partition(&wp, &ev, b[w], b[w + 1], NULL, &o, &err) == DGNN_OK);
        check_invariants(&ev, &wp);
        cut += wp.cut_fraction;
        secs += wp.seconds;
    }
    printf("wikipedia, P=4, 10k-event windows: %lld windows, mean cut %.4f, %.1f ms per window\n", (long long)W,
           cut / W, secs / W * 1e3);
    CHECK(cut / W < 0.75); /* hashing nodes would cut about 3/4 */
    dgnn_window_part_free(&wp);
    free(b);
    dgnn_events_free(&ev);
}

int main(int argc, char **argv) {
    if (argc > 1) return report(argc, argv);
    test_windows();
    test_two_cliques();
    test_cut_rule();
    test_sticky();
    test_trivial();
    test_plan_hand();
    test_sticky_majority();
    test_plan_send_recv();
    test_random_stream();
    test_quality_speed();
    test_wikipedia();
    return check_done();
}
