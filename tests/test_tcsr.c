/* test_tcsr.c: the temporal CSR against a brute-force scan of the events (random
 * tie-heavy graphs, both directions and directed, prefixes), a hand-made graph with
 * hand-written arrays, thread-count independence, count_before at boundary times,
 * and rejection of bad tables. */
#include "check.h"
#include "random_events.h"
#include "dgnn/tcsr.h"

#include <omp.h>


/* Brute force: v's entries are the events touching v in table order. */
static int64_t brute_list(int32_t *nbr, int64_t *eid, const dgnn_events *ev, int64_t E, int directed, int32_t v) {
    int64_t n = 0;
    for (int64_t e = 0; e < E; e++) {
        if (ev->src[e] == v) { nbr[n] = ev->dst[e]; eid[n++] = e; }
        else if (!directed && ev->dst[e] == v) { nbr[n] = ev->src[e]; eid[n++] = e; }
    }
    return n;
}

static void compare_brute(const dgnn_tcsr *g, const dgnn_events *ev, int64_t E, int directed, const char *what) {
    int32_t *nbr = malloc((size_t)(E + 1) * sizeof(int32_t));
    int64_t *eid = malloc((size_t)(E + 1) * sizeof(int64_t));
    int ok = g->num_nodes == ev->num_nodes && g->num_events == E && g->directed == directed && g->rowptr[0] == 0;
    int64_t total = 0;
    for (int32_t v = 0; v < ev->num_nodes && ok; v++) {
        int64_t n = brute_list(nbr, eid, ev, E, directed, v);
        total += n;
        int64_t lo = g->rowptr[v];
        ok &= g->rowptr[v + 1] - lo == n;
        for (int64_t j = 0; j < n && ok; j++)
            ok &= g->nbr[lo + j] == nbr[j] && g->eid[lo + j] == eid[j] && g->ts[lo + j] == ev->t[eid[j]];
        if (!ok) fprintf(stderr, "%s: node %d differs from the brute-force list\n", what, v);
        /* count_before against a direct count, at every distinct time of the list,
         * between times, before the first and after the last */
        int64_t step = n / 40 + 1; /* bounded work on hubs */
        for (int64_t j = 0; j <= n && ok; j = j == n ? n + 1 : (j + step < n ? j + step : n)) {
            double probes[3];
            probes[0] = j < n ? ev->t[eid[j]] : 1e300;
            probes[1] = j < n ? ev->t[eid[j]] - 0.25 : ev->t[E - 1] + 1;
            probes[2] = -1e300;
            for (int q = 0; q < 3; q++) {
                int64_t want = 0;
                for (int64_t i = 0; i < n; i++) want += ev->t[eid[i]] < probes[q];
                ok &= dgnn_tcsr_count_before(g, v, probes[q]) == want;
            }
            if (!ok) fprintf(stderr, "%s: count_before of node %d differs\n", what, v);
        }
    }
    CHECK_MSG(ok, "%s", what);
    CHECK_MSG(g->num_entries == total && g->rowptr[g->num_nodes] == total, "%s: %lld entries, brute %lld", what,
              (long long)g->num_entries, (long long)total);
    free(nbr);
    free(eid);
}

static int same_tcsr(const dgnn_tcsr *a, const dgnn_tcsr *b) {
    if (a->num_nodes != b->num_nodes || a->num_entries != b->num_entries) return 0;
    size_t m = (size_t)a->num_entries;
    return memcmp(a->rowptr, b->rowptr, (size_t)(a->num_nodes + 1) * sizeof(int64_t)) == 0 &&
           memcmp(a->nbr, b->nbr, m * sizeof(int32_t)) == 0 && memcmp(a->eid, b->eid, m * sizeof(int64_t)) == 0 &&
           memcmp(a->ts, b->ts, m * sizeof(double)) == 0;
}

/* A masked build holds exactly the selected events, in the same order as a full build
 * filtered afterwards, with the table's event ids. */
static void test_masked(void) {
    dgnn_events ev;
    gen_events(&ev, 7, 40, 2000, 100);
    uint8_t *mask = malloc((size_t)ev.num_events);
    for (int64_t e = 0; e < ev.num_events; e++) mask[e] = (uint8_t)(e % 3 == 0 ? 1 : e % 3 == 1 ? 2 : 5);
    dgnn_tcsr full, sub;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&full, &ev, -1, 0, &err) == DGNN_OK);
    CHECK(dgnn_tcsr_build_masked(&sub, &ev, -1, mask, 1, 0, &err) == DGNN_OK);
    int ok = 1;
    int64_t total = 0;
    for (int64_t v = 0; v < ev.num_nodes; v++) {
        int64_t q = sub.rowptr[v];
        for (int64_t p = full.rowptr[v]; p < full.rowptr[v + 1]; p++) {
            if (!(mask[full.eid[p]] & 1)) continue;
            ok &= q < sub.rowptr[v + 1] && sub.eid[q] == full.eid[p] && sub.nbr[q] == full.nbr[p] && sub.ts[q] == full.ts[p];
            q++;
        }
        ok &= q == sub.rowptr[v + 1];
        total += sub.rowptr[v + 1] - sub.rowptr[v];
    }
    CHECK(ok);
    CHECK(total > 0 && total < full.num_entries);
    dgnn_tcsr_free(&full);
    dgnn_tcsr_free(&sub);
    free(mask);
    dgnn_events_free(&ev);
}

int main(void) {
    dgnn_err err;
    dgnn_tcsr g;

    /* ---- hand-made graph, arrays written out by hand ----
     * e0: 0->1 t=1   e1: 2->0 t=1   e2: 1->1 t=2 (self-loop)   e3: 0->2 t=3
     * node 3 has no event. Undirected lists:
     *   0: (1,e0,1) (2,e1,1) (2,e3,3)
     *   1: (0,e0,1) (1,e2,2)
     *   2: (0,e1,1) (0,e3,3)
     *   3: -                                                    */
    {
        dgnn_events ev;
        dgnn_events_init(&ev);
        CHECK(dgnn_events_alloc(&ev, 4, 0, 0, &err) == DGNN_OK);
        ev.num_nodes = 4;
        int32_t s[4] = {0, 2, 1, 0}, d[4] = {1, 0, 1, 2};
        double t[4] = {1, 1, 2, 3};
        memcpy(ev.src, s, sizeof s);
        memcpy(ev.dst, d, sizeof d);
        memcpy(ev.t, t, sizeof t);
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
        int64_t rp[5] = {0, 3, 5, 7, 7};
        int32_t nb[7] = {1, 2, 2, 0, 1, 0, 0};
        int64_t id[7] = {0, 1, 3, 0, 2, 1, 3};
        double ts[7] = {1, 1, 3, 1, 2, 1, 3};
        CHECK(g.num_entries == 7 && memcmp(g.rowptr, rp, sizeof rp) == 0);
        CHECK(memcmp(g.nbr, nb, sizeof nb) == 0 && memcmp(g.eid, id, sizeof id) == 0 && memcmp(g.ts, ts, sizeof ts) == 0);
        CHECK(dgnn_tcsr_count_before(&g, 0, 1.0) == 0);  /* equal time: not before */
        CHECK(dgnn_tcsr_count_before(&g, 0, 1.5) == 2);
        CHECK(dgnn_tcsr_count_before(&g, 0, 3.0) == 2);
        CHECK(dgnn_tcsr_count_before(&g, 0, 99) == 3);
        CHECK(dgnn_tcsr_count_before(&g, 3, 99) == 0);
        CHECK(dgnn_tcsr_count_before(&g, 1, NAN) == 0);
        dgnn_tcsr_free(&g);
        /* directed: out-neighbours only */
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 1, &err) == DGNN_OK);
        int64_t rpd[5] = {0, 2, 3, 4, 4};
        int32_t nbd[4] = {1, 2, 1, 0};
        int64_t idd[4] = {0, 3, 2, 1};
        CHECK(g.num_entries == 4 && memcmp(g.rowptr, rpd, sizeof rpd) == 0);
        CHECK(memcmp(g.nbr, nbd, sizeof nbd) == 0 && memcmp(g.eid, idd, sizeof idd) == 0);
        dgnn_tcsr_free(&g);
        /* prefix of 2 events */
        CHECK(dgnn_tcsr_build(&g, &ev, 2, 0, &err) == DGNN_OK);
        int64_t rpp[5] = {0, 2, 3, 4, 4};
        CHECK(g.num_events == 2 && memcmp(g.rowptr, rpp, sizeof rpp) == 0);
        CHECK(g.nbr[0] == 1 && g.nbr[1] == 2 && g.nbr[2] == 0 && g.nbr[3] == 0);
        dgnn_tcsr_free(&g);
        /* max_event = E: every event, the same as -1 (only max_event > E is refused) */
        int rc_all = dgnn_tcsr_build(&g, &ev, 4, 0, &err);
        CHECK_MSG(rc_all == DGNN_OK, "%s", err.msg);
        if (rc_all == DGNN_OK) {
            CHECK(g.num_events == 4 && g.num_entries == 7 && memcmp(g.rowptr, rp, sizeof rp) == 0);
            CHECK(memcmp(g.nbr, nb, sizeof nb) == 0 && memcmp(g.eid, id, sizeof id) == 0);
        }
        dgnn_tcsr_free(&g);
        /* empty prefix */
        CHECK(dgnn_tcsr_build(&g, &ev, 0, 0, &err) == DGNN_OK);
        CHECK(g.num_entries == 0 && g.rowptr[4] == 0);
        dgnn_tcsr_free(&g);

        /* bad inputs are errors with a message, never asserts */
        CHECK(dgnn_tcsr_build(&g, &ev, 5, 0, &err) == DGNN_EINVAL);
        CHECK(g.rowptr == NULL);
        ev.t[2] = 0.5; /* out of order at event 2 */
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_EINVAL);
        CHECK_MSG(strstr(err.msg, "event 2") != NULL, "%s", err.msg);
        CHECK(dgnn_tcsr_build(&g, &ev, 2, 0, &err) == DGNN_OK); /* the prefix before it is fine */
        dgnn_tcsr_free(&g);
        ev.t[2] = NAN;
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_EINVAL);
        ev.t[2] = 2;
        ev.dst[3] = 4; /* node id out of range */
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_EINVAL);
        CHECK_MSG(strstr(err.msg, "event 3") != NULL, "%s", err.msg);
        ev.dst[3] = -1;
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_EINVAL);
        dgnn_events_free(&ev);
    }

    /* ---- random graphs against brute force, several seeds, both modes, prefixes ---- */
    for (uint64_t seed = 1; seed <= 4; seed++) {
        dgnn_events ev;
        int64_t E = 300 + (int64_t)seed * 97;
        gen_events(&ev, seed, 23 + (int64_t)seed, E, seed == 4 ? 1 : 12); /* seed 4: all times equal */
        for (int directed = 0; directed <= 1; directed++) {
            int64_t prefixes[3] = {-1, E / 2, 1};
            for (int p = 0; p < 3; p++) {
                char what[96];
                snprintf(what, sizeof what, "seed %llu directed %d prefix %lld", (unsigned long long)seed, directed,
                         (long long)prefixes[p]);
                CHECK(dgnn_tcsr_build(&g, &ev, prefixes[p], directed, &err) == DGNN_OK);
                compare_brute(&g, &ev, prefixes[p] < 0 ? E : prefixes[p], directed, what);
                dgnn_tcsr_free(&g);
            }
        }
        dgnn_events_free(&ev);
    }

    /* ---- thread-count independence: large enough for several chunks ---- */
    {
        dgnn_events ev;
        gen_events(&ev, 99, 500, 30000, 300);
        int saved = omp_get_max_threads();
        dgnn_tcsr ref;
        omp_set_num_threads(1);
        CHECK(dgnn_tcsr_build(&ref, &ev, -1, 0, &err) == DGNN_OK);
        compare_brute(&ref, &ev, ev.num_events, 0, "30000 events, 1 thread");
        int threads[3] = {2, 3, 7};
        for (int i = 0; i < 3; i++) {
            omp_set_num_threads(threads[i]);
            CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
            CHECK_MSG(same_tcsr(&ref, &g), "%d threads differ from 1", threads[i]);
            dgnn_tcsr_free(&g);
            CHECK(dgnn_tcsr_build(&g, &ev, 12345, 1, &err) == DGNN_OK);
            if (i == 0) compare_brute(&g, &ev, 12345, 1, "30000 events, directed prefix, 2 threads");
            dgnn_tcsr_free(&g);
        }
        omp_set_num_threads(saved);
        dgnn_tcsr_free(&ref);
        dgnn_events_free(&ev);
    }
    dgnn_tcsr_free(&g); /* safe on a zeroed struct */
    test_masked();
    return check_done();
}
