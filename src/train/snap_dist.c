/* snap_dist.c: the pieces of DyGNeX's distributed snapshot training (train_snapshot.h,
 * docs/dygnex.md "Distributed training") that do not touch the trainer's state: the
 * schedule every process trains (computed once on rank 0 and broadcast, because the ILP
 * runs under a wall-clock limit and two ranks could stop it at different incumbents), the
 * makespan/imbalance of a measured (rounds, ranks) matrix, and a CPU clock. The round
 * loop itself is in snap_train.c, beside the single-process loop it mirrors. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dgnn/comm.h"
#include "dgnn/train_snapshot.h"

double dgnn_snap_cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double dgnn_snap_round_imbalance(const double *t, int64_t R, int64_t P, double *makespan, double *mean_sum) {
    double mk = 0, mean = 0;
    for (int64_t r = 0; r < R; r++) {
        double mx = 0, s = 0;
        for (int64_t p = 0; p < P; p++) {
            double x = t[r * P + p];
            s += x;
            if (x > mx) mx = x;
        }
        mk += mx;
        mean += s / (double)P;
    }
    if (makespan) *makespan = mk;
    if (mean_sum) *mean_sum = mean;
    return mean > 0 ? mk / mean - 1 : 0;
}

/* Copies a caller's schedule after checking that it schedules exactly the windows
 * sample[0..n) on P ranks; positions are renumbered to index sample[]. */
static int copy_schedule(dgnn_sched *out, const dgnn_sched *in, const double *cost, const int64_t *sample, int64_t n,
                         int64_t P, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    if (in->num_ranks != P)
        return dgnn_err_set(err, DGNN_EINVAL, "the given schedule has %lld ranks, the run has %lld",
                            (long long)in->num_ranks, (long long)P);
    if (in->num_windows != n)
        return dgnn_err_set(err, DGNN_EINVAL, "the given schedule has %lld windows, the run trains %lld",
                            (long long)in->num_windows, (long long)n);
    int rc = dgnn_sched_validate(in, err);
    if (rc) return rc;
    /* sample -> position in sample[] (sample[] is ascending: consecutive training samples) */
    int64_t *seen = calloc((size_t)n, sizeof *seen);
    DGNN_ASSERT(seen);
    const int64_t R = in->num_rounds;
    out->num_windows = n, out->num_ranks = P, out->num_rounds = R;
    out->group_ptr = dgnn_xmalloc((size_t)(R * P + 1) * sizeof(int64_t));
    out->pos = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    out->sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    out->cost = dgnn_xmalloc((size_t)n * sizeof(double));
    memcpy(out->group_ptr, in->group_ptr, (size_t)(R * P + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        int64_t smp = in->sample[in->pos[i]];
        int64_t k = smp - sample[0];
        if (k < 0 || k >= n || sample[k] != smp) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "the given schedule holds sample %lld, not a training window (%lld..%lld)",
                              (long long)smp, (long long)sample[0], (long long)sample[n - 1]);
            break;
        }
        if (seen[k]++) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "the given schedule holds sample %lld twice", (long long)smp);
            break;
        }
        out->pos[i] = k;
    }
    /* costs: the run's predictions, else the given schedule's own */
    for (int64_t k = 0; k < n; k++) out->sample[k] = sample[k], out->cost[k] = cost ? cost[k] : 0;
    if (!rc && !cost)
        for (int64_t i = 0; i < n; i++) out->cost[out->pos[i]] = in->cost[in->pos[i]];
    free(seen);
    if (rc) dgnn_sched_free(out);
    return rc;
}

int dgnn_snap_dist_schedule(dgnn_sched *out, dgnn_sched_info *info, const dgnn_snap_dist_cfg *d, const double *cost,
                            const int64_t *sample, int64_t n, int64_t P, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    info->method = "received";
    const int me = d->local ? 0 : dgnn_comm_rank(), procs = d->local ? 1 : dgnn_comm_size();
    /* hdr: status, windows, ranks, rounds */
    int64_t hdr[4] = {0, n, P, 0};
    if (me == 0) {
        int rc;
        if (d->schedule) {
            rc = copy_schedule(out, d->schedule, cost, sample, n, P, err);
            info->method = "given";
        } else {
            dgnn_sched_opts o = dgnn_sched_opts_default();
            o.kind = d->scheduler;
            o.ranks = P;
            o.rounds = d->rounds;
            if (d->time_limit > 0) o.time_limit = d->time_limit;
            rc = dgnn_schedule(out, cost, sample, n, &o, info, err);
        }
        if (!rc) rc = dgnn_sched_validate(out, err);
        hdr[0] = rc;
        hdr[3] = rc ? 0 : out->num_rounds;
    }
    if (procs > 1) dgnn_comm_bcast(hdr, (int64_t)sizeof hdr, 0);
    if (hdr[0]) {
        if (me != 0) dgnn_err_set(err, (int)hdr[0], "rank 0 could not schedule the windows (its message says why)");
        else dgnn_sched_free(out);
        return (int)hdr[0];
    }
    if (procs > 1) {
        const int64_t R = hdr[3];
        if (me != 0) {
            out->num_windows = n, out->num_ranks = P, out->num_rounds = R;
            out->group_ptr = dgnn_xmalloc((size_t)(R * P + 1) * sizeof(int64_t));
            out->pos = dgnn_xmalloc((size_t)n * sizeof(int64_t));
            out->sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
            out->cost = dgnn_xmalloc((size_t)n * sizeof(double));
        }
        dgnn_comm_bcast(out->group_ptr, (R * P + 1) * (int64_t)sizeof(int64_t), 0);
        dgnn_comm_bcast(out->pos, n * (int64_t)sizeof(int64_t), 0);
        dgnn_comm_bcast(out->sample, n * (int64_t)sizeof(int64_t), 0);
        dgnn_comm_bcast(out->cost, n * (int64_t)sizeof(double), 0);
    }
    return DGNN_OK;
}
