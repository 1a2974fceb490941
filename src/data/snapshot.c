/* snapshot.c: cutting an event table into graph snapshots and building, per snapshot,
 * the aggregated adjacency A and the GCN-normalized A_hat = D^-1/2 (A + I) D^-1/2.
 *
 * Two steps. (1) A serial O(E) pass assigns each snapshot its event range [begin, end)
 * (the table is time-sorted, so every snapshot is a contiguous range). (2) Snapshots are
 * built in parallel, one per OpenMP iteration; each writes only its own arrays, so the
 * result does not depend on the thread count.
 *
 * Building one snapshot is a two-pass counting sort (by column, then stably by row) of its
 * (u, v, w) entries: O(m + N) with no comparison sort, rows come out with columns
 * ascending and equal (u, v) entries adjacent in event order, so merging them is one
 * linear pass and the weight sums are the same on every run.
 *
 * Also the snapshot trainer's cut (dgnn_snapshots_cut), written once for the trainer and
 * the commands that report on its snapshots, and its one-hot degree input. */
#include "dgnn/snapshot.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cap on the number of snapshots, 2^20 (DGNN_MAX_PERIODS, the same as a PyG-T table's):
 * each costs its struct, eight arrays and two (N+1) row pointer arrays, so a tiny window
 * over a long stream would otherwise ask for gigabytes before failing (2-second windows
 * over bitcoin-alpha's 358 days made 15M snapshots and 6 GB; the EvolveGCN datasets
 * have 49..733 snapshots). */
#define MAX_SNAPSHOTS DGNN_MAX_PERIODS
/* ... and on snapshots x (N + 33): the row pointers of A and A_hat (16 bytes per row)
 * plus about 32 rows' worth of fixed cost per snapshot. 2^28 rows are 4.3 GB, far above
 * the EvolveGCN datasets (elliptic: 49 x 203,769 = 10M) but below what a 1-minute window
 * over a month of a 10,000-node stream would ask. */
#define MAX_SNAPSHOT_ROWS ((int64_t)1 << 28)

dgnn_snapshot_opts dgnn_snapshot_opts_default(void) {
    dgnn_snapshot_opts o;
    memset(&o, 0, sizeof o);
    return o;
}

void dgnn_snapshots_free(dgnn_snapshots *s) {
    if (!s) return;
    for (int64_t k = 0; k < s->count && s->snaps; k++) {
        dgnn_snapshot *g = &s->snaps[k];
        free(g->rowptr);
        free(g->col);
        free(g->w);
        free(g->hat_rowptr);
        free(g->hat_col);
        free(g->hat_val);
    }
    free(s->snaps);
    memset(s, 0, sizeof *s);
}

/* ---- step 1: event ranges ---------------------------------------------------------- */

/* Fills begin/end/t_begin/t_end of snaps (count k) for the chosen mode. The k computed per
 * event is non-decreasing because t is, and each of its operations (subtract, divide by a
 * positive number, floor) is monotone in IEEE arithmetic, so ranges are contiguous. */
static void assign_ranges(dgnn_snapshot *snaps, int64_t count, const dgnn_events *ev, dgnn_snap_mode mode,
                          double S, double t0, double span) {
    int64_t E = ev->num_events;
    if (mode == DGNN_SNAP_EVENTS) { /* by position: snapshot k holds [floor(kE/C), floor((k+1)E/C)) */
        for (int64_t k = 0; k < count; k++) {
            snaps[k].ev_begin = (int64_t)(((__int128)k * E) / count);
            snaps[k].ev_end = (int64_t)(((__int128)(k + 1) * E) / count);
        }
    } else {
        int64_t next = 0; /* first snapshot whose begin is not set yet */
        for (int64_t i = 0; i <= E; i++) {
            int64_t k;
            if (i == E) k = count; /* close every remaining snapshot at E */
            else if (mode == DGNN_SNAP_PERIODS) k = (int64_t)ev->t[i];
            else if (mode == DGNN_SNAP_SECONDS) k = (int64_t)floor((ev->t[i] - t0) / S);
            else k = span > 0 ? (int64_t)floor((ev->t[i] - t0) / span * (double)count) : 0;
            if (i < E && k > count - 1) k = count - 1; /* count mode: the last event, t = t0 + span */
            while (next <= k && next < count) {
                snaps[next].ev_begin = i;
                if (next > 0) snaps[next - 1].ev_end = i;
                next++;
            }
        }
    }
    if (count > 0) snaps[count - 1].ev_end = E;
    for (int64_t k = 0; k < count; k++) {
        dgnn_snapshot *g = &snaps[k];
        switch (mode) {
        case DGNN_SNAP_PERIODS:
            g->t_begin = (double)k;
            g->t_end = (double)(k + 1);
            break;
        case DGNN_SNAP_SECONDS:
            g->t_begin = t0 + (double)k * S;
            g->t_end = t0 + (double)(k + 1) * S;
            break;
        case DGNN_SNAP_COUNT:
            g->t_begin = t0 + span * (double)k / (double)count;
            g->t_end = k + 1 == count ? t0 + span : t0 + span * (double)(k + 1) / (double)count;
            break;
        case DGNN_SNAP_EVENTS:
            if (E == 0) {
                g->t_begin = g->t_end = 0;
            } else if (g->ev_end > g->ev_begin) {
                g->t_begin = ev->t[g->ev_begin];
                g->t_end = ev->t[g->ev_end - 1];
            } else {
                g->t_begin = g->t_end = ev->t[g->ev_begin < E ? g->ev_begin : E - 1];
            }
            break;
        }
    }
}

/* ---- step 2: one snapshot --------------------------------------------------------- */

/* Builds A and A_hat of snapshot g from its event range. Returns 0, DGNN_ENOMEM, or
 * DGNN_EINVAL with *bad_node / *bad_deg set when a degree is not positive. */
static int build_one(dgnn_snapshot *g, const dgnn_events *ev, const dgnn_snapshot_opts *o, int64_t N,
                     int32_t *bad_node, double *bad_deg) {
    int64_t ne = g->ev_end - g->ev_begin;
    int64_t m = o->symmetric ? 2 * ne : ne; /* entries before merging */
    size_t mm = (size_t)(m > 0 ? m : 1), nn = (size_t)N + 1;
    int rc = DGNN_ENOMEM;
    int64_t *cnt = calloc(nn, sizeof *cnt);
    int32_t *r1 = malloc(mm * sizeof *r1), *c1 = malloc(mm * sizeof *c1);
    float *w1 = malloc(mm * sizeof *w1);
    double *deg = malloc(nn * sizeof *deg);
    g->rowptr = calloc(nn, sizeof *g->rowptr);
    g->col = malloc(mm * sizeof *g->col);
    g->w = malloc(mm * sizeof *g->w);
    if (!cnt || !r1 || !c1 || !w1 || !deg || !g->rowptr || !g->col || !g->w) goto done;

    /* pass 1: counting sort of the entries by column (stable: event order, then the
     * reversed copy right after its event) */
    for (int64_t i = g->ev_begin; i < g->ev_end; i++) {
        cnt[ev->dst[i] + 1]++;
        if (o->symmetric) cnt[ev->src[i] + 1]++;
    }
    for (int64_t v = 0; v < N; v++) cnt[v + 1] += cnt[v];
    for (int64_t i = g->ev_begin; i < g->ev_end; i++) {
        int32_t u = ev->src[i], v = ev->dst[i];
        float w = o->weight_from_feature ? dgnn_events_efeat(ev, i)[o->weight_col] : 1.0f;
        int64_t p = cnt[v]++;
        r1[p] = u, c1[p] = v, w1[p] = w;
        /* A + A^T: the reversed entry too. A self-loop event therefore adds 2w to the
         * diagonal, exactly as EvolveGCN's "append the reversed edges" does. */
        if (o->symmetric) {
            p = cnt[u]++;
            r1[p] = v, c1[p] = u, w1[p] = w;
        }
    }
    /* pass 2: stable counting sort by row into col/w; columns end up ascending per row */
    for (int64_t p = 0; p < m; p++) g->rowptr[r1[p] + 1]++;
    for (int64_t u = 0; u < N; u++) g->rowptr[u + 1] += g->rowptr[u];
    memcpy(cnt, g->rowptr, nn * sizeof *cnt);
    for (int64_t p = 0; p < m; p++) {
        int64_t q = cnt[r1[p]]++;
        g->col[q] = c1[p];
        g->w[q] = w1[p];
    }
    /* merge equal (u, v) neighbours in place; sums in double so that counts stay exact
     * beyond float's 2^24 and the rounding is done once */
    int64_t out = 0;
    for (int64_t u = 0; u < N; u++) {
        int64_t a = g->rowptr[u], b = g->rowptr[u + 1];
        g->rowptr[u] = out;
        for (int64_t p = a; p < b;) {
            int32_t v = g->col[p];
            double acc = 0;
            for (; p < b && g->col[p] == v; p++) acc += g->w[p];
            g->col[out] = v;
            g->w[out] = (float)acc;
            out++;
        }
    }
    g->rowptr[N] = out;
    g->num_edges = out;
    g->num_nodes = N;
    if (out < m) { /* shrink to the merged size (a failed shrink keeps the larger block) */
        int32_t *c = realloc(g->col, (size_t)(out > 0 ? out : 1) * sizeof *c);
        if (c) g->col = c;
        float *w = realloc(g->w, (size_t)(out > 0 ? out : 1) * sizeof *w);
        if (w) g->w = w;
    }

    /* A_hat. Self loops go on every node 0..N-1, as GCN does over the full node set, so an
     * isolated node keeps its own features. If A already has (u, u), A + I adds 1 to it
     * (the loop's weight is kept, not replaced). D = row sums of the weighted A + I: for a
     * symmetric A that is the degree; for a directed A it is the out-degree. */
    int64_t missing_diag = 0;
    for (int64_t u = 0; u < N; u++) {
        double d = 1.0;
        int has = 0;
        for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++) {
            d += g->w[p];
            has |= g->col[p] == u;
        }
        missing_diag += !has;
        if (!(d > 0) || !isfinite(d)) { /* negative weights: D^-1/2 does not exist */
            *bad_node = (int32_t)u;
            *bad_deg = d;
            rc = DGNN_EINVAL;
            goto done;
        }
        deg[u] = 1.0 / sqrt(d);
    }
    g->hat_nnz = out + missing_diag;
    size_t hn = (size_t)(g->hat_nnz > 0 ? g->hat_nnz : 1);
    g->hat_rowptr = malloc(nn * sizeof *g->hat_rowptr);
    g->hat_col = malloc(hn * sizeof *g->hat_col);
    g->hat_val = malloc(hn * sizeof *g->hat_val);
    if (!g->hat_rowptr || !g->hat_col || !g->hat_val) goto done;
    int64_t q = 0;
    for (int64_t u = 0; u < N; u++) {
        g->hat_rowptr[u] = q;
        int diag_done = 0;
        for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++) {
            int32_t v = g->col[p];
            if (!diag_done && v >= u) { /* the diagonal goes in its sorted place */
                g->hat_col[q] = (int32_t)u;
                g->hat_val[q++] = (float)((v == u ? (double)g->w[p] + 1.0 : 1.0) * deg[u] * deg[u]);
                diag_done = 1;
                if (v == u) continue;
            }
            g->hat_col[q] = v;
            g->hat_val[q++] = (float)((double)g->w[p] * deg[u] * deg[v]);
        }
        if (!diag_done) {
            g->hat_col[q] = (int32_t)u;
            g->hat_val[q++] = (float)(deg[u] * deg[u]);
        }
    }
    g->hat_rowptr[N] = q;
    DGNN_ASSERT(q == g->hat_nnz);
    rc = DGNN_OK;
done:
    free(cnt);
    free(r1);
    free(c1);
    free(w1);
    free(deg);
    return rc;
}

/* ---- the sequence ------------------------------------------------------------------ */

int dgnn_snapshots_build(dgnn_snapshots *s, const dgnn_events *ev, const dgnn_snapshot_opts *o, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    dgnn_snapshot_opts def = dgnn_snapshot_opts_default();
    if (!o) o = &def;
    int64_t E = ev->num_events, N = ev->num_nodes;
    if (!(o->seconds >= 0) || isinf(o->seconds))
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot seconds must be a positive finite number, got %g", o->seconds);
    if (o->count < 0) return dgnn_err_set(err, DGNN_EINVAL, "snapshot count must be positive, got %lld", (long long)o->count);
    if (o->seconds > 0 && o->count > 0)
        return dgnn_err_set(err, DGNN_EINVAL, "give either snapshot seconds (%g) or a snapshot count (%lld), not both",
                            o->seconds, (long long)o->count);
    if (o->equal_events && o->count <= 0)
        return dgnn_err_set(err, DGNN_EINVAL, "equal-event snapshots need a snapshot count");
    if (o->weight_from_feature && (o->weight_col < 0 || o->weight_col >= ev->edge_dim))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "weights from edge feature column %lld, but the table has %lld edge feature column(s)",
                            (long long)o->weight_col, (long long)ev->edge_dim);
    for (int64_t i = 1; i < E; i++)
        if (!(ev->t[i - 1] <= ev->t[i]))
            return dgnn_err_set(err, DGNN_EINVAL, "event table is not sorted by time (event %lld: t = %g after %g)",
                                (long long)i, ev->t[i], ev->t[i - 1]);
    if (E > 0 && !isfinite(ev->t[0] - ev->t[E - 1]))
        return dgnn_err_set(err, DGNN_EINVAL, "event times are not finite");

    dgnn_snap_mode mode;
    int64_t count;
    double t0 = E > 0 ? ev->t[0] : 0, span = E > 0 ? ev->t[E - 1] - ev->t[0] : 0;
    if (o->seconds > 0) {
        mode = DGNN_SNAP_SECONDS;
        double k = E > 0 ? floor(span / o->seconds) + 1 : 0;
        if (k > (double)MAX_SNAPSHOTS)
            return dgnn_err_set(err, DGNN_EINVAL,
                                "%g-second snapshots over a span of %g make %s%.15g snapshots (at most %lld): "
                                "use longer snapshots (over %g)",
                                o->seconds, span, isfinite(k) ? "" : "more than ", isfinite(k) ? k : DBL_MAX,
                                (long long)MAX_SNAPSHOTS, span / (double)MAX_SNAPSHOTS);
        count = (int64_t)k;
    } else if (o->count > 0) {
        mode = o->equal_events ? DGNN_SNAP_EVENTS : DGNN_SNAP_COUNT;
        if (o->count > MAX_SNAPSHOTS)
            return dgnn_err_set(err, DGNN_EINVAL, "snapshot count %lld: at most %lld", (long long)o->count,
                                (long long)MAX_SNAPSHOTS);
        count = o->count;
    } else if (ev->num_periods > 0) {
        mode = DGNN_SNAP_PERIODS;
        count = ev->num_periods;
        if (count > MAX_SNAPSHOTS)
            return dgnn_err_set(err, DGNN_EINVAL, "%lld periods: at most %lld snapshots", (long long)count,
                                (long long)MAX_SNAPSHOTS);
        for (int64_t i = 0; i < E; i++) {
            double t = ev->t[i];
            if (!(t >= 0 && t < (double)count && t == floor(t)))
                return dgnn_err_set(err, DGNN_EINVAL,
                                    "event %lld has t = %g, not a period index 0..%lld: give snapshot seconds or a count",
                                    (long long)i, t, (long long)count - 1);
        }
    } else {
        return dgnn_err_set(err, DGNN_EINVAL,
                            "no snapshot size: give snapshot seconds (> 0) or a snapshot count (> 0); "
                            "only PyG-Temporal tables come with their own periods");
    }
    if (N > INT32_MAX) return dgnn_err_set(err, DGNN_EINVAL, "%lld nodes: more than 2^31-1", (long long)N);
    if ((double)count * (double)(N + 33) > (double)MAX_SNAPSHOT_ROWS)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%lld snapshots of %lld nodes: their row pointers would take %.1f GB (at most %.1f GB): "
                            "use fewer or longer snapshots",
                            (long long)count, (long long)N, 16.0 * (double)count * (double)(N + 33) / 1e9,
                            16.0 * (double)MAX_SNAPSHOT_ROWS / 1e9);

    s->snaps = calloc((size_t)(count > 0 ? count : 1), sizeof *s->snaps);
    int *status = calloc((size_t)(count > 0 ? count : 1), sizeof *status);
    int32_t *bad_node = calloc((size_t)(count > 0 ? count : 1), sizeof *bad_node);
    double *bad_deg = calloc((size_t)(count > 0 ? count : 1), sizeof *bad_deg);
    if (!s->snaps || !status || !bad_node || !bad_deg) {
        free(s->snaps), free(status), free(bad_node), free(bad_deg);
        s->snaps = NULL;
        return dgnn_err_set(err, DGNN_ENOMEM, "out of memory for %lld snapshots", (long long)count);
    }
    s->count = count;
    s->num_nodes = N;
    s->mode = mode;
    s->opts = *o;
    assign_ranges(s->snaps, count, ev, mode, o->seconds, t0, span);

    /* dynamic schedule: snapshot sizes vary by 10-100x over time */
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t k = 0; k < count; k++) status[k] = build_one(&s->snaps[k], ev, o, N, &bad_node[k], &bad_deg[k]);

    int rc = DGNN_OK;
    for (int64_t k = 0; k < count && rc == DGNN_OK; k++) {
        if (status[k] == DGNN_ENOMEM)
            rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory building snapshot %lld (%lld events, %lld nodes)",
                              (long long)k, (long long)(s->snaps[k].ev_end - s->snaps[k].ev_begin), (long long)N);
        else if (status[k] != DGNN_OK)
            rc = dgnn_err_set(err, DGNN_EINVAL,
                              "snapshot %lld: node %d has weighted degree %g in A + I: GCN normalization needs "
                              "positive, finite degrees (negative edge weights, or weights whose sum passes "
                              "float32's 3.4e38?)",
                              (long long)k, bad_node[k], bad_deg[k]);
    }
    free(status);
    free(bad_node);
    free(bad_deg);
    if (rc) dgnn_snapshots_free(s);
    return rc;
}

int dgnn_snapshots_cut(dgnn_snapshots *s, const dgnn_events *ev, double seconds, int64_t count,
                       int weight_from_feature, dgnn_err *err) {
    dgnn_snapshot_opts so = dgnn_snapshot_opts_default();
    so.seconds = seconds;
    so.count = count;
    so.symmetric = 1; /* the reference appends every edge reversed */
    so.weight_from_feature = weight_from_feature;
    return dgnn_snapshots_build(s, ev, &so, err);
}

int64_t dgnn_snapshot_entry(const dgnn_snapshot *g, int32_t u, int32_t v) {
    int64_t lo = g->rowptr[u], hi = g->rowptr[u + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->col[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->rowptr[u + 1] && g->col[lo] == v ? lo : -1;
}

int64_t dgnn_snap_degree_onehot(int32_t *idx, const dgnn_snapshot *g) {
    int64_t mx = 0;
    for (int64_t u = 0; u < g->num_nodes; u++) {
        int64_t d = g->rowptr[u + 1] - g->rowptr[u];
        idx[u] = (int32_t)d;
        if (d > mx) mx = d;
    }
    return mx;
}

void dgnn_snapshot_stats(const dgnn_snapshots *s, dgnn_snap_stats *st) {
    memset(st, 0, sizeof *st);
    st->count = s->count;
    if (s->count == 0) return;
    st->min_events = st->min_edges = INT64_MAX;
    double se = 0, sd = 0;
    for (int64_t k = 0; k < s->count; k++) {
        const dgnn_snapshot *g = &s->snaps[k];
        int64_t e = g->ev_end - g->ev_begin, d = g->num_edges;
        st->empty += e == 0;
        if (e < st->min_events) st->min_events = e;
        if (e > st->max_events) st->max_events = e;
        if (d < st->min_edges) st->min_edges = d;
        if (d > st->max_edges) st->max_edges = d;
        se += (double)e;
        sd += (double)d;
    }
    st->mean_events = se / (double)s->count;
    st->mean_edges = sd / (double)s->count;
}
