/* dygnex_epoch.c: DyGNeX's distributed snapshot training (snap_train.h,
 * docs/dygnex.md "Distributed training"), first the pieces that do not touch the
 * trainer's state: the schedule every process trains (computed once on rank 0 and
 * broadcast, because the ILP runs under a wall-clock limit and two ranks could stop it at
 * different incumbents) and the makespan/imbalance of a measured (rounds, ranks) matrix;
 * then the trainer's distributed mode (snap_run.h): its set-up, the round loop of one
 * epoch (snap_epoch.c's loop, round by round and rank by rank), the profile's reduction
 * over the processes and the report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/costmodel.h"
#include "dgnn/snapmodel_cuda.h"
#include "snap_run.h"

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
    /* the others wait here while rank 0 schedules: the ILP for up to its time limit */
    if (procs > 1 && !d->schedule && d->scheduler == DGNN_SCHED_ILP) dgnn_comm_allow(d->time_limit);
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

/* One epoch of DyGNeX training: round by round, this process trains the groups of its
 * ranks (its own rank; with one process, every rank's), then the gradient slabs are
 * sum-all-reduced and every process takes the same Adam step. A round none of whose
 * windows trains (empty label snapshots) takes no step, as the single-process trainer
 * counts only windows that train. Each group's compute (wall and CPU seconds) is timed;
 * the (R, P) matrices are summed over the processes at the epoch's end. */
int snap_dygnex_epoch(snap_run *r, int64_t epoch, dgnn_snap_epoch_result *er, snap_totals *tot, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    const dgnn_sched *s = &r->sched;
    const int64_t P = s->num_ranks, R = s->num_rounds, n = s->num_windows;
    double *prof = snap_profile_epoch(r, n);
    memset(r->gwall, 0, (size_t)(R * P) * sizeof(double));
    memset(r->gcpu, 0, (size_t)(R * P) * sizeof(double));
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (rounds)", (long long)epoch);
    if (c->progress) dgnn_progress_begin(&pg, label, R);
    double t0 = dgnn_now();
    /* this process's sums: loss, then windows, pairs, snapshots, events (reduced at the end) */
    double loss_sum = 0;
    int64_t cnt[4] = {0, 0, 0, 0};
    for (int64_t rd = 0; rd < R; rd++) {
        for (int64_t p = r->rank; p < P; p += r->procs) {
            int64_t m;
            const int64_t *g = dgnn_sched_group(s, rd, p, &m);
            if (m == 0) continue; /* an idle rank: time 0, it only waits */
            double w0 = dgnn_now(), c0 = dgnn_snap_cpu_seconds();
            int64_t last = -1;
            int rc = snap_begin_group(r, err);
            if (rc) return rc;
            for (int64_t i = 0; i < m; i++) {
                const int64_t idx = s->sample[g[i]], k = idx - r->tb;
                double loss, secs;
                int64_t pairs;
                rc = snap_train_sample(r, epoch, idx, &loss, &pairs, &secs, err);
                if (rc) return rc;
                if (prof) prof[k] = secs, r->prof_pairs[k] = pairs;
                if (pairs > 0) last = k;
                if (pairs > 0) {
                    loss_sum += loss;
                    cnt[0]++;
                    cnt[1] += pairs;
                    cnt[2] += r->W + 1;
                    for (int64_t q = idx - r->W; q <= idx; q++)
                        cnt[3] += r->snaps.snaps[q].ev_end - r->snaps.snaps[q].ev_begin;
                }
            }
            double tail;
            if ((rc = snap_end_group(r, &tail, err))) return rc;
            if (prof && last >= 0) prof[last] += tail;
            r->gwall[rd * P + p] = dgnn_now() - w0;
            r->gcpu[rd * P + p] = dgnn_snap_cpu_seconds() - c0;
        }
        int any = 0;
        for (int64_t p = 0; p < P && !any; p++) {
            int64_t m;
            const int64_t *g = dgnn_sched_group(s, rd, p, &m);
            for (int64_t i = 0; i < m && !any; i++) any = snap_sample_trains(r, s->sample[g[i]]);
        }
        if (any) {
            if (r->procs > 1) {
                /* the sum of the ranks' summed gradients = the single-process accumulation
                 * over the round's windows: no weighting needed */
                double a = dgnn_now();
                const int head = r->head.p.total > 0;
                if (r->dev) { /* on GPUs (the model's gradients, the node head's): comm_dev.h */
                    int rc = r->cdev ? DGNN_OK
                                     : dgnn_comm_dev_init(&r->cdev, dgnn_snapmodel_cuda_context(r->dev), err);
                    /* both sums in flight together on the lane; the optimizer's step waits for them */
                    if (!rc)
                        rc = dgnn_comm_dev_allreduce_start(r->cdev, dgnn_snapmodel_cuda_grad_slab(r->dev), r->p->grad,
                                                           r->p->total, 0, err);
                    if (!rc && head)
                        rc = dgnn_comm_dev_allreduce_start(r->cdev, dgnn_snapmodel_cuda_head_grad_slab(r->dev),
                                                           r->head.p.grad, r->head.p.total, 0, err);
                    if (!rc) rc = dgnn_comm_dev_allreduce_wait(r->cdev, err);
                    if (rc) return rc;
                } else {
                    dgnn_comm_allreduce_sum_f32(r->p->grad, r->p->total);
                    if (head) dgnn_comm_allreduce_sum_f32(r->head.p.grad, r->head.p.total);
                }
                r->comm_s += dgnn_now() - a;
            }
            double a = dgnn_now();
            const int rc = snap_optimizer_step(r, err);
            if (rc) return rc;
            r->tr_step++;
            r->step_s += dgnn_now() - a;
        }
        if (c->progress) dgnn_progress_update(&pg, rd + 1, NULL);
    }
    if (c->progress) dgnn_progress_end(&pg);
    if (r->procs > 1) {
        double a = dgnn_now();
        dgnn_comm_allreduce_sum_f64(r->gwall, R * P);
        dgnn_comm_allreduce_sum_f64(r->gcpu, R * P);
        dgnn_comm_allreduce_sum_f64(&loss_sum, 1);
        dgnn_comm_allreduce_sum_i64(cnt, 4);
        r->comm_s += dgnn_now() - a;
    }
    for (int64_t i = 0; i < R * P; i++) r->acc_wall[i] += r->gwall[i], r->acc_cpu[i] += r->gcpu[i];
    r->dist_epochs++;
    if (prof) r->prof_epochs++;
    er->train_loss = cnt[0] ? loss_sum / (double)cnt[0] : NAN;
    er->train_seconds = dgnn_now() - t0;
    er->train_windows = cnt[0];
    er->train_pairs = cnt[1];
    tot->windows += cnt[0];
    tot->snapshots += cnt[2];
    tot->events += cnt[3];
    tot->train_seconds += er->train_seconds;
    return DGNN_OK;
}

/* The distributed mode's set-up: checks, the windows' predicted costs (cfg's, else the
 * default law on this run's windows), the schedule (a collective) and the matrices. */
int snap_dygnex_setup(snap_run *r, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    const dgnn_snap_dist_cfg *d = &c->dist;
    r->dist = 1;
    r->rank = d->local ? 0 : dgnn_comm_rank();
    r->procs = d->local ? 1 : dgnn_comm_size();
    if (r->procs > 1) {
        int rc = snap_ranks_agree(r, err);
        if (rc) return rc;
    }
    const int64_t P = d->ranks > 0 ? d->ranks : r->procs;
    if (c->windows_per_step != 1)
        return dgnn_err_set(err, DGNN_EINVAL, "--windows-per-step does not apply with --dist dygnex: a round (one "
                                              "group per rank) is one optimizer step");
    if (d->mode != DGNN_SNAP_DIST_DYGNEX)
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: unknown distributed mode %d", (int)d->mode);
    if (r->procs > 1 && P != r->procs)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--sched-ranks %lld under %d processes: a schedule for P ranks runs on P processes (or on "
                            "one, which plays all P)",
                            (long long)P, r->procs);
    if (P > DGNN_SNAP_DIST_MAX_RANKS)
        return dgnn_err_set(err, DGNN_EINVAL, "%lld ranks: at most %d here (dgnn simulate models more)", (long long)P,
                            DGNN_SNAP_DIST_MAX_RANKS);
    if (d->rounds < 0 || d->time_limit < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "--rounds and --time-limit must be >= 0");
    int64_t n = r->te - r->tb;
    if (c->max_train_windows > 0 && n > c->max_train_windows) n = c->max_train_windows;
    double *cost = dgnn_xmalloc((size_t)n * sizeof(double));
    int64_t *sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    for (int64_t k = 0; k < n; k++) sample[k] = r->tb + k;
    int rc = DGNN_OK;
    if (d->cost) {
        if (d->cost_n < n)
            rc = dgnn_err_set(err, DGNN_EINVAL, "%lld predicted window costs for %lld training windows",
                              (long long)d->cost_n, (long long)n);
        else
            for (int64_t k = 0; k < n; k++) cost[k] = d->cost[k];
    } else {
        dgnn_window *win = dgnn_xmalloc((size_t)n * sizeof *win);
        rc = dgnn_windows_of_snapshots(win, &r->snaps, r->tb, r->tb + n, r->W, c->neg_mult, r->L, err);
        if (!rc) {
            dgnn_costmodel cm = dgnn_costmodel_default((int)c->model.kind, r->W, r->L,
                                                       r->C, r->V, 0);
            for (int64_t k = 0; k < n; k++) cost[k] = dgnn_costmodel_predict(&cm, &win[k]);
        }
        free(win);
    }
    /* every process takes part in the schedule's broadcast, even after a local failure
     * here (the inputs are the same on every process, so all fail alike) */
    if (!rc) rc = dgnn_snap_dist_schedule(&r->sched, &r->sinfo, d, cost, sample, n, P, err);
    free(cost);
    free(sample);
    if (rc) return rc;
    const int64_t R = r->sched.num_rounds;
    r->gwall = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    r->gcpu = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    r->acc_wall = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    r->acc_cpu = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    return DGNN_OK;
}

/* --profile: each window ran on one process, so each process holds the rows of its own
 * windows and zeros elsewhere: the others' rows are summed in (a collective). */
void snap_dygnex_profile_reduce(snap_run *r) {
    int64_t *owner = dgnn_xmalloc((size_t)r->prof_n * sizeof(int64_t));
    for (int64_t rd = 0; rd < r->sched.num_rounds; rd++)
        for (int64_t p = 0; p < r->sched.num_ranks; p++) {
            int64_t m;
            const int64_t *g = dgnn_sched_group(&r->sched, rd, p, &m);
            for (int64_t i = 0; i < m; i++) owner[r->sched.sample[g[i]] - r->tb] = p % r->procs;
        }
    for (int64_t k = 0; k < r->prof_n; k++)
        if (owner[k] != r->rank) r->prof_pairs[k] = 0;
    dgnn_comm_allreduce_sum_f64(r->prof_sec, r->prof_epochs * r->prof_n);
    dgnn_comm_allreduce_sum_i64(r->prof_pairs, r->prof_n);
    free(owner);
}

/* res->dist from the schedule and the summed matrices; a collective (the per-process
 * communication seconds are gathered). */
void snap_dygnex_report(snap_run *r, const dgnn_snap_train_result *res, dgnn_snap_dist_result *d) {
    const dgnn_sched *s = &r->sched;
    const int64_t P = s->num_ranks, R = s->num_rounds;
    double mine[2] = {r->comm_s, r->step_s}, all[2 * DGNN_SNAP_DIST_MAX_RANKS];
    int64_t counts[DGNN_SNAP_DIST_MAX_RANKS];
    if (r->procs > 1) dgnn_comm_allgatherv_bytes(all, counts, mine, (int64_t)sizeof mine);
    else all[0] = mine[0], all[1] = mine[1];
    memset(d, 0, sizeof *d);
    d->active = 1;
    d->ranks = P, d->processes = r->procs, d->rounds = R, d->windows = s->num_windows;
    snprintf(d->scheduler, sizeof d->scheduler, "%s", r->cfg->dist.schedule ? "given"
                                                        : dgnn_sched_kind_name(r->cfg->dist.scheduler));
    snprintf(d->method, sizeof d->method, "%s", r->sinfo.method ? r->sinfo.method : "");
    d->solve_seconds = r->sinfo.solve_seconds, d->gap = r->sinfo.gap, d->fallback = r->sinfo.fallback;
    const double E = r->dist_epochs > 0 ? (double)r->dist_epochs : 1;
    double *pred = dgnn_xmalloc((size_t)(R * P) * sizeof(double));
    double *wall = dgnn_xmalloc((size_t)(R * P) * sizeof(double)), *cpu = dgnn_xmalloc((size_t)(R * P) * sizeof(double));
    for (int64_t rd = 0; rd < R; rd++)
        for (int64_t p = 0; p < P; p++) {
            const int64_t i = rd * P + p;
            int64_t m;
            dgnn_sched_group(s, rd, p, &m);
            pred[i] = dgnn_sched_group_cost(s, rd, p);
            wall[i] = r->acc_wall[i] / E, cpu[i] = r->acc_cpu[i] / E;
            d->rank_windows[p] += m;
            d->rank_pred[p] += pred[i], d->rank_compute[p] += wall[i], d->rank_cpu[p] += cpu[i];
        }
    d->pred_imbalance = dgnn_snap_round_imbalance(pred, R, P, &d->pred_makespan, &d->pred_mean);
    d->meas_imbalance = dgnn_snap_round_imbalance(wall, R, P, &d->meas_makespan, &d->meas_mean);
    d->cpu_imbalance = dgnn_snap_round_imbalance(cpu, R, P, &d->cpu_makespan, &d->cpu_mean);
    for (int64_t p = 0; p < P; p++) d->rank_comm[p] = all[2 * (p % r->procs)] / E;
    d->step_seconds = all[1] / E;
    double ts = 0;
    int64_t ne = 0;
    for (int64_t i = 0; i < res->num_epochs; i++)
        if (res->epochs[i].train_seconds > 0) ts += res->epochs[i].train_seconds, ne++;
    d->epoch_seconds = ne ? ts / (double)ne : 0;
    if (R * P <= DGNN_SNAP_DIST_MAX_CELLS) {
        d->per_round = 1;
        memcpy(d->round_pred, pred, (size_t)(R * P) * sizeof(double));
        memcpy(d->round_meas, wall, (size_t)(R * P) * sizeof(double));
        memcpy(d->round_cpu, cpu, (size_t)(R * P) * sizeof(double));
    }
    free(pred), free(wall), free(cpu);
}
