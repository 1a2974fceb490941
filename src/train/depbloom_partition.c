/* depbloom_partition.c: DepBloom's first technique, temporally bounded spatial
 * partitioning (docs/depbloom.md), as the epoch's plan (depbloom_internal.h).
 *
 * The training stream is cut into windows (partition.h); each window's interaction
 * graph is split into P parts by METIS and rank p trains the events of part p in time order, its own sub-stream, in S_w
 * steps per window (S_w = ceil(largest part / batch), the same on every rank, so the
 * gradient all-reduce pairs up; each rank splits its part evenly over the S_w steps).
 * Inside a window a rank reads every other node as of the window start (or as it wrote
 * it itself). At the window's end, each node written in the window gets one
 * authoritative row: that of the rank that trained the LAST event touching it (every
 * rank knows every event's part, so every rank computes the same rule); those ranks
 * all-gather their rows and every replica is equal again. A rank's writes to a node
 * whose last event another rank trained are dropped (the cut events' price).
 * The windows, parts and send lists are computed once, at set-up, on every rank (the
 * partition is deterministic), and reported as figures (cut fraction, part sizes).
 * The plan's geometry (which events a micro-batch trains) is here too, since refinement
 * and the critical path both walk it. APAN (mails to sampled neighbours): every row a
 * rank wrote is sent at the window's end and the versions merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/outfile.h"

void depbloom_plan_free(struct depbloom_plan *pl) {
    if (!pl) return;
    free(pl->steps);
    free(pl->step_total);
    dgnn_events_free(&pl->mine);
    free(pl->mine_off);
    free(pl->send);
    free(pl->send_off);
    free(pl->wmark);
    free(pl->wlist);
    free(pl);
}

/* merge mode: adds the nodes just taken from the write tracker to the current window's
 * list (emptied by every window sync, which also advances wgen) */
void depbloom_note_written(struct depbloom_plan *pl, const int32_t *nodes, int64_t n) {
    if (!pl->merge) return;
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = nodes[i];
        if (pl->wmark[v] == pl->wgen) continue;
        pl->wmark[v] = pl->wgen;
        if (pl->nwl == pl->wl_cap) {
            pl->wl_cap = pl->wl_cap ? 2 * pl->wl_cap : 1024;
            pl->wlist = dgnn_xrealloc(pl->wlist, (size_t)pl->wl_cap * sizeof(int32_t));
        }
        pl->wlist[pl->nwl++] = v;
    }
}

/* a failure of the --window-report file, named by its flag (outfile.h names the path) */
static void report_failed(dgnn_err *err) {
    if (!err) return;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    dgnn_err_set(err, err->code, "--window-report: %s", why);
}

int depbloom_plan_make(event_run *r, int cold, depbloom_window_fn on_window, dgnn_err *err) {
    const dgnn_dist_cfg *d = &r->cfg->dist;
    const dgnn_events *tr = &r->train;
    const int P = r->nranks, me = r->rank;
    const double t0 = dgnn_now();
    if (!d->partition)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist depbloom: needs --partition (the other techniques build on it)");
    int64_t W = dgnn_windows_make(NULL, tr, 0, tr->num_events, d->window_events, d->window_seconds, err);
    if (W < 0) return (int)W;
    struct depbloom_plan *pl = dgnn_xcalloc(1, sizeof *pl);
    r->plan = pl;
    pl->W = W;
    int64_t *bounds = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    dgnn_windows_make(bounds, tr, 0, tr->num_events, d->window_events, d->window_seconds, err);
    int32_t *owner = dgnn_xmalloc((size_t)tr->num_nodes * sizeof(int32_t));
    int64_t *last = dgnn_xmalloc((size_t)tr->num_nodes * sizeof(int64_t)); /* last event touching v, per window */
    for (int64_t v = 0; v < tr->num_nodes; v++) last[v] = -1;
    uint8_t *mask = dgnn_xcalloc((size_t)(tr->num_events ? tr->num_events : 1), 1);
    dgnn_owner_init(owner, tr->num_nodes, P, 1);
    dgnn_part_opts po = dgnn_part_opts_default();
    po.parts = P;
    po.seed = r->cfg->seed + 1;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    pl->steps = dgnn_xmalloc((size_t)(W ? W : 1) * sizeof(int64_t));
    pl->mine_off = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    pl->send_off = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    int64_t nsteps = 0, mine = 0, nsend = 0, send_cap = 1024, steps_cap = 1024;
    pl->send = dgnn_xmalloc((size_t)send_cap * sizeof(int32_t));
    pl->step_total = dgnn_xmalloc((size_t)steps_cap * sizeof(int64_t));
    int rc = DGNN_OK;
    pl->cold = cold;
    FILE *rep = NULL;
    dgnn_outfile *rep_out = NULL; /* outfile.h: a temporary file renamed at the end, or written through */
    const int64_t rb = dgnn_state_row_bytes(&r->st);
    if (d->window_report && me == 0) {
        if ((rc = dgnn_outfile_open(&rep_out, d->window_report, 0, err))) {
            report_failed(err);
        } else {
            rep = dgnn_outfile_stream(rep_out);
            fprintf(rep, "window,begin,end,events,cut_events,cut_fraction,nodes");
            for (int q = 0; q < P; q++) fprintf(rep, ",events_rank%d", q);
            fprintf(rep, ",largest_over_mean,rows_synced,bytes_synced,strict_bytes_max\n");
        }
    }
    for (int64_t w = 0; w < W && !rc; w++) {
        const int64_t b = bounds[w], e = bounds[w + 1];
        if ((rc = dgnn_window_partition(&wp, tr, b, e, owner, &po, err))) break;
        if (rep) {
            /* the boundary all-gather sends every node the window wrote once, to P - 1
             * ranks; strict sends each step's written rows (at most 2 per event) likewise */
            int64_t mx = 0;
            fprintf(rep, "%lld,%lld,%lld,%lld,%lld,%.6f,%lld", (long long)w, (long long)b, (long long)e,
                    (long long)(e - b), (long long)wp.num_cut, wp.cut_fraction, (long long)wp.num_nodes);
            for (int q = 0; q < P; q++) {
                fprintf(rep, ",%lld", (long long)wp.part_events[q]);
                mx = wp.part_events[q] > mx ? wp.part_events[q] : mx;
            }
            fprintf(rep, ",%.4f,%lld,%lld,%lld\n", e > b ? (double)mx * P / (double)(e - b) : 0.0,
                    (long long)wp.num_nodes, (long long)(wp.num_nodes * rb * (P - 1)),
                    (long long)(2 * (e - b) * rb * (P - 1)));
        }
        pl->cut_fraction += wp.cut_fraction / (double)W;
        int64_t mx = 0;
        for (int q = 0; q < P; q++) mx = wp.part_events[q] > mx ? wp.part_events[q] : mx;
        pl->max_part_events += mx;
        pl->sum_part_events += e - b;
        const int64_t step_events = r->cfg->batch * (d->refine > 1 ? d->refine : 1);
        const int64_t S = (mx + step_events - 1) / step_events;
        pl->steps[w] = S;
        if (nsteps + S > steps_cap) {
            steps_cap = 2 * (nsteps + S);
            pl->step_total = dgnn_xrealloc(pl->step_total, (size_t)steps_cap * sizeof(int64_t));
        }
        /* step s of rank q trains part q's events [s n_q / S, (s+1) n_q / S) */
        for (int64_t s = 0; s < S; s++) {
            int64_t tot = 0;
            for (int q = 0; q < P; q++) tot += (s + 1) * wp.part_events[q] / S - s * wp.part_events[q] / S;
            pl->step_total[nsteps + s] = tot;
        }
        nsteps += S;
        pl->mine_off[w] = mine;
        for (int64_t i = b; i < e; i++)
            if (wp.event_part[i - b] == me) mask[i] = 1, mine++;
        /* authoritative rows: the rank of the last event touching each node */
        for (int64_t i = b; i < e; i++) last[tr->src[i]] = i, last[tr->dst[i]] = i;
        pl->send_off[w] = nsend;
        for (int64_t j = 0; j < wp.num_nodes; j++) {
            int32_t v = wp.nodes[j];
            if (wp.event_part[last[v] - b] != me) continue;
            if (nsend == send_cap) {
                send_cap *= 2;
                pl->send = dgnn_xrealloc(pl->send, (size_t)send_cap * sizeof(int32_t));
            }
            pl->send[nsend++] = v;
        }
        if (on_window) on_window(r, w, &wp, last, b, e);
        dgnn_owner_update(owner, &wp);
    }
    if (rep_out && rc) dgnn_outfile_abort(rep_out); /* no half report; a previous one stays */
    else if (rep_out && (rc = dgnn_outfile_commit(rep_out, err))) report_failed(err); /* names the path and the OS error */
    pl->merge = r->cfg->model.kind == DGNN_TGNN_APAN;
    if (pl->merge) {
        pl->wmark = dgnn_xmalloc((size_t)(tr->num_nodes ? tr->num_nodes : 1) * sizeof(int64_t));
        for (int64_t v = 0; v < tr->num_nodes; v++) pl->wmark[v] = -1;
    }
    pl->mine_off[W] = mine;
    pl->send_off[W] = nsend;
    if (!rc) rc = dgnn_events_subset(&pl->mine, tr, mask, 1, err);
    dgnn_window_part_free(&wp);
    free(bounds);
    free(owner);
    free(last);
    free(mask);
    pl->setup_seconds = dgnn_now() - t0;
    if (!rc)
        dgnn_log("depbloom: %lld windows of %s, mean cut fraction %.3f, largest part %.1f%% above the mean, "
                 "partitioned in %.2f s\n",
                 (long long)W, d->window_seconds > 0 ? "fixed seconds" : "fixed events", pl->cut_fraction,
                 pl->sum_part_events ? 100.0 * ((double)pl->max_part_events * P / (double)pl->sum_part_events - 1) : 0,
                 pl->setup_seconds);
    return rc;
}

/* The boundary sync (depbloom_internal.h). */
int depbloom_window_sync(event_run *r, int64_t w, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    const int32_t *nodes;
    const int64_t n = dgnn_state_take_written(&r->st, &nodes); /* otherwise: the plan says what to send */
    if (!pl->merge)
        return event_allgather_rows(r, pl->send + pl->send_off[w], pl->send_off[w + 1] - pl->send_off[w], 0, err);
    depbloom_note_written(pl, nodes, n);
    int rc = event_allgather_rows(r, pl->wlist, pl->nwl, 1, err);
    pl->nwl = 0, pl->wgen++;
    return rc;
}

/* ---- the plan's geometry ---- */

void depbloom_mb_range(const struct depbloom_plan *pl, int64_t K, const depbloom_mb_pos *p, int64_t *ml,
                       int64_t *mb) {
    const int64_t off = pl->mine_off[p->w], n = pl->mine_off[p->w + 1] - off, S = pl->steps[p->w];
    const int64_t lo = off + p->s * n / S, hi = off + (p->s + 1) * n / S, B = hi - lo;
    *ml = lo + p->j * B / K;
    *mb = lo + (p->j + 1) * B / K - *ml;
}

int depbloom_mb_next(const struct depbloom_plan *pl, int64_t K, int64_t total_steps, depbloom_mb_pos *p,
                     int64_t *ml, int64_t *mb) {
    for (;;) {
        if (++p->j == K) {
            p->j = 0, p->step++;
            if (++p->s >= pl->steps[p->w]) {
                p->s = 0;
                do p->w++;
                while (p->w < pl->W && pl->steps[p->w] == 0);
            }
        }
        if (p->step >= total_steps || p->w >= pl->W) return 0;
        depbloom_mb_range(pl, K, p, ml, mb);
        if (*mb > 0) return 1;
    }
}
