/* sched_internal.h: what DyGNeX's scheduler files share (private to src/cluster).
 *
 * A slot assignment gives each window i a slot slot[i] = r * P + p (round r, rank p).
 * sched_slots.c holds the helpers every scheduler uses on one (the shared cost order, the
 * windows of each round, the makespan); sched_greedy.c and sched_ilp.c are the two techniques; sched.c is the public
 * side (the schedule struct, its metrics and checks, the lower bound, even, and the
 * dispatch dgnn_schedule). Calls go one way: sched.c -> sched_ilp.c -> sched_greedy.c ->
 * sched_slots.c (and sched.c to each of them); none calls back up. */
#ifndef DGNN_SCHED_INTERNAL_H
#define DGNN_SCHED_INTERNAL_H

#include "dgnn/sched.h"

/* ---- sched_slots.c ---- */

/* idx[0..n-1] = the positions by descending cost, ties by position: one deterministic
 * order that every scheduler and the ILP's symmetry breaking share. */
void sched_sort_desc(int64_t *idx, int64_t n, const double *cost);
/* The windows of each round in the order ord (a permutation of 0..n-1, e.g. by descending
 * cost): round r holds members[rptr[r] .. rptr[r+1]). rptr (R + 1), members (n). */
void sched_round_members(int64_t *rptr, int64_t *members, const int64_t *slot, const int64_t *ord, int64_t n,
                         int64_t P, int64_t R);
/* makespan of a slot assignment */
double sched_slot_makespan(const int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R);

/* ---- the techniques ---- */

/* sched_greedy.c: round-filling first fit, largest first, LPT re-pack, sorted chunking,
 * then local search; slot[0..n-1] receives the assignment (all R rounds non-empty when
 * n >= R). */
void sched_greedy(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R);
/* sched_ilp.c: greedy, then GLPK's MIP (exact slot model or round decomposition) when it
 * improves on it; fills info's method, bound, optimal, fallback, round_bound, ilp_vars
 * and msg. Never fails: no solver (or o->ilp_disable) leaves greedy's assignment with
 * info->fallback = 1. */
void sched_ilp(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R, const dgnn_sched_opts *o,
               dgnn_sched_info *info);

#endif
