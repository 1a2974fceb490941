/* sched.c: DyGNeX's schedules (sched.h): the schedule struct, its metrics and checks, the
 * lower bound, the even scheduler (the published systems' baseline) and the dispatch
 * dgnn_schedule (the automatic round count, then even, greedy in sched_greedy.c or the ILP
 * in sched_ilp.c). docs/dygnex.md explains the choices and the guarantees. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

dgnn_sched_opts dgnn_sched_opts_default(void) {
    dgnn_sched_opts o;
    memset(&o, 0, sizeof o);
    o.kind = DGNN_SCHED_GREEDY;
    o.ranks = 1;
    o.rounds = 0;
    o.time_limit = 10.0;
    o.ilp_exact_max = 200000;
    return o;
}

int dgnn_sched_kind_parse(const char *name) {
    if (!name) return -1;
    if (strcmp(name, "even") == 0) return DGNN_SCHED_EVEN;
    if (strcmp(name, "greedy") == 0) return DGNN_SCHED_GREEDY;
    if (strcmp(name, "ilp") == 0) return DGNN_SCHED_ILP;
    return -1;
}

const char *dgnn_sched_kind_name(dgnn_sched_kind k) {
    return k == DGNN_SCHED_EVEN ? "even" : k == DGNN_SCHED_GREEDY ? "greedy" : "ilp";
}

void dgnn_sched_free(dgnn_sched *s) {
    free(s->group_ptr);
    free(s->pos);
    free(s->sample);
    free(s->cost);
    memset(s, 0, sizeof *s);
}

const int64_t *dgnn_sched_group(const dgnn_sched *s, int64_t r, int64_t p, int64_t *count) {
    int64_t g = r * s->num_ranks + p;
    *count = s->group_ptr[g + 1] - s->group_ptr[g];
    return s->pos + s->group_ptr[g];
}

double dgnn_sched_group_cost(const dgnn_sched *s, int64_t r, int64_t p) {
    int64_t cnt;
    const int64_t *w = dgnn_sched_group(s, r, p, &cnt);
    double c = 0;
    for (int64_t i = 0; i < cnt; i++) c += s->cost[w[i]];
    return c;
}

void dgnn_sched_eval(const dgnn_sched *s, dgnn_sched_metrics *m) {
    memset(m, 0, sizeof *m);
    for (int64_t r = 0; r < s->num_rounds; r++) {
        double mx = 0;
        for (int64_t p = 0; p < s->num_ranks; p++) {
            double c = dgnn_sched_group_cost(s, r, p);
            m->total += c;
            if (c > mx) mx = c;
            int64_t g = r * s->num_ranks + p;
            if (s->group_ptr[g + 1] == s->group_ptr[g]) m->empty_groups++;
        }
        m->makespan += mx;
    }
    m->mean_sum = m->total / (double)s->num_ranks;
    m->imbalance = m->mean_sum > 0 ? m->makespan / m->mean_sum - 1.0 : 0.0;
}

int dgnn_sched_validate(const dgnn_sched *s, dgnn_err *err) {
    const int64_t n = s->num_windows, G = s->num_rounds * s->num_ranks;
    if (s->group_ptr[0] != 0 || s->group_ptr[G] != n)
        return dgnn_err_set(err, DGNN_EINVAL, "schedule: groups hold %lld windows, expected %lld",
                            (long long)(s->group_ptr[G] - s->group_ptr[0]), (long long)n);
    for (int64_t g = 0; g < G; g++)
        if (s->group_ptr[g + 1] < s->group_ptr[g])
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: group %lld has a negative length", (long long)g);
    uint8_t *seen = dgnn_xcalloc((size_t)(n > 0 ? n : 1), 1);
    int rc = DGNN_OK;
    for (int64_t i = 0; i < n && !rc; i++) {
        int64_t w = s->pos[i];
        if (w < 0 || w >= n) rc = dgnn_err_set(err, DGNN_EINVAL, "schedule: window position %lld out of range", (long long)w);
        else if (seen[w]++) rc = dgnn_err_set(err, DGNN_EINVAL, "schedule: window %lld placed twice", (long long)w);
    }
    free(seen);
    return rc;
}

double dgnn_sched_lower_bound(const double *cost, int64_t n, int64_t P, int64_t R) {
    if (n <= 0) return 0;
    int64_t *o = dgnn_xmalloc((size_t)n * sizeof *o);
    for (int64_t i = 0; i < n; i++) o[i] = i;
    sched_sort_desc(o, n, cost);
    double total = 0;
    for (int64_t i = 0; i < n; i++) total += cost[i];
    double lb = total / (double)P;
    /* every round is non-empty: the round holding the largest window costs >= it, the R-1
     * others >= their own largest window, i.e. at least R-1 distinct other windows */
    if (R > n) R = n;
    double chain = cost[o[0]];
    for (int64_t k = 0; k < R - 1; k++) chain += cost[o[n - 1 - k]];
    if (chain > lb) lb = chain;
    /* more windows than slots: some slot holds two, the smallest two at the least; each of
     * the R rounds also costs >= its largest window (the bound above) */
    if (n > R * P && cost[o[n - 1]] + cost[o[n - 2]] > lb) lb = cost[o[n - 1]] + cost[o[n - 2]];
    free(o);
    return lb;
}

/* slot[i] = r * P + p of each window -> out (positions ascending within a group) */
static void build_sched(dgnn_sched *s, const int64_t *slot, const double *cost, const int64_t *sample, int64_t n,
                        int64_t P, int64_t R) {
    memset(s, 0, sizeof *s);
    s->num_windows = n, s->num_ranks = P, s->num_rounds = R;
    const int64_t G = R * P;
    s->group_ptr = dgnn_xcalloc((size_t)(G + 1), sizeof(int64_t));
    s->pos = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    s->sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    s->cost = dgnn_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        DGNN_ASSERT(slot[i] >= 0 && slot[i] < G);
        s->group_ptr[slot[i] + 1]++;
        s->sample[i] = sample ? sample[i] : i;
        s->cost[i] = cost[i];
    }
    for (int64_t g = 0; g < G; g++) s->group_ptr[g + 1] += s->group_ptr[g];
    int64_t *fill = dgnn_xmalloc((size_t)(G > 0 ? G : 1) * sizeof(int64_t));
    memcpy(fill, s->group_ptr, (size_t)G * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) s->pos[fill[slot[i]]++] = i;
    free(fill);
}

/* ---- even ---- */

/* Rank p holds the p-th contiguous slice (the first n % P slices one longer); round r
 * trains the r-th window of every slice. */
static void sched_even(int64_t *slot, int64_t n, int64_t P) {
    const int64_t base = n / P, extra = n % P;
    int64_t i = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t len = base + (p < extra);
        for (int64_t r = 0; r < len; r++) slot[i++] = r * P + p;
    }
}

int dgnn_schedule(dgnn_sched *out, const double *cost, const int64_t *sample, int64_t n, const dgnn_sched_opts *o,
                  dgnn_sched_info *info, dgnn_err *err) {
    dgnn_sched_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    info->round_bound = NAN;
    memset(out, 0, sizeof *out);
    if (n < 1) return dgnn_err_set(err, DGNN_EINVAL, "schedule: no windows to schedule");
    if (o->ranks < 1) return dgnn_err_set(err, DGNN_EINVAL, "schedule: --workers must be >= 1, got %lld", (long long)o->ranks);
    for (int64_t i = 0; i < n; i++)
        if (!(cost[i] >= 0) || !isfinite(cost[i]))
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: window %lld: cost %g is not a finite number >= 0",
                                (long long)i, cost[i]);
    const int64_t P = o->ranks;
    int64_t R = (n + P - 1) / P;
    if (o->kind != DGNN_SCHED_EVEN && o->rounds > 0) {
        if (o->rounds > n)
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: --rounds %lld is more than the %lld windows",
                                (long long)o->rounds, (long long)n);
        R = o->rounds;
    }
    int64_t *slot = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    double t0 = dgnn_now();
    if (o->kind != DGNN_SCHED_EVEN && o->rounds <= 0 && R > 1) {
        /* Default rounds: ceil(n / P) (even's step count) or up to 7 fewer, never below 90%
         * of it (so training keeps even's step count within 10%), whichever greedy gives the
         * lowest makespan; ties keep more rounds. Fewer rounds stack windows into groups:
         * ceil leaves P - n % P slots idle, a floor on the imbalance no placement removes,
         * and with unequal windows a round less can pair small windows under a large one. */
        const int64_t R0 = R;
        double best = INFINITY;
        for (int64_t Rc = R0; Rc >= 1 && Rc > R0 - 8 && 10 * Rc >= 9 * R0; Rc--) {
            sched_greedy(slot, cost, n, P, Rc);
            const double ms = sched_slot_makespan(slot, cost, n, P, Rc);
            if (ms < best * (1 - 1e-9)) best = ms, R = Rc;
        }
        info->rounds_below_ceil = (int)(R0 - R);
    }
    switch (o->kind) {
    case DGNN_SCHED_EVEN:
        info->method = "even";
        sched_even(slot, n, P);
        break;
    case DGNN_SCHED_GREEDY:
        info->method = "greedy";
        sched_greedy(slot, cost, n, P, R);
        break;
    case DGNN_SCHED_ILP:
        sched_ilp(slot, cost, n, P, R, o, info);
        break;
    default:
        free(slot);
        return dgnn_err_set(err, DGNN_EINVAL, "schedule: unknown scheduler %d", (int)o->kind);
    }
    info->solve_seconds = dgnn_now() - t0;
    build_sched(out, slot, cost, sample, n, P, R);
    free(slot);
    dgnn_sched_metrics m;
    dgnn_sched_eval(out, &m);
    double lb = dgnn_sched_lower_bound(cost, n, P, R);
    if (lb > info->bound) info->bound = lb;
    if (info->bound > m.makespan) info->bound = m.makespan; /* rounding */
    info->gap = m.makespan > 0 ? (m.makespan - info->bound) / m.makespan : 0;
    if (info->gap < 1e-12) info->gap = 0;
    return DGNN_OK;
}
