/* sched.h: DyGNeX's snapshot scheduling (issue 6): the schedulers that place training
 * windows on (round, rank) slots (src/cluster/sched.c: even and the dispatch;
 * sched_greedy.c; sched_ilp.c). docs/dygnex.md is the
 * long form; this header is the precise reference.
 *
 * Windows, rounds and groups:
 *  - a window is one training sample of the snapshot trainer (snap_train.h): sample
 *    idx reads snapshots idx-W..idx and predicts idx+1; windows are independent (each
 *    starts from the learned initial state), so any window can run on any rank at any time;
 *  - a schedule has R rounds and P ranks; a round is one optimizer step. In round r rank p
 *    trains group (r, p): zero or more windows, gradients summed; then the gradients are
 *    all-reduced and one step is taken;
 *  - cost of a group = sum of its windows' (predicted) costs;
 *    makespan = sum over rounds of max over ranks of the group cost;
 *    imbalance = makespan / (sum over rounds of the mean group cost) - 1
 *              = makespan * P / (total cost) - 1.
 *
 * The costs come from the cost model (costmodel.h) or from anywhere else: a scheduler
 * sees only numbers.
 *
 * Ownership: dgnn_sched owns its arrays (malloc'd); dgnn_sched_free releases them and is
 * safe on a zeroed struct. */
#ifndef DGNN_SCHED_H
#define DGNN_SCHED_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- schedules ---- */

/* R rounds x P ranks; group (r, p) holds the windows pos[group_ptr[g] .. group_ptr[g+1])
 * with g = r * P + p; a window position i in 0..n-1 names sample[i] with cost cost[i].
 * A trainer reads, for its rank p and each round r, the sample indices
 * sample[pos[group_ptr[g] ..]]; dgnn_sched_group returns that list. */
typedef struct {
    int64_t num_windows; /* n */
    int64_t num_ranks;   /* P */
    int64_t num_rounds;  /* R */
    int64_t *group_ptr;  /* (R P + 1) */
    int64_t *pos;        /* (n) window positions, grouped */
    int64_t *sample;     /* (n) sample index of each position */
    double *cost;        /* (n) cost of each position (the one the scheduler used) */
} dgnn_sched;

typedef enum { DGNN_SCHED_EVEN = 0, DGNN_SCHED_GREEDY = 1, DGNN_SCHED_ILP = 2 } dgnn_sched_kind;
/* "even", "greedy", "ilp" -> kind; returns -1 for an unknown name. */
int dgnn_sched_kind_parse(const char *name);
const char *dgnn_sched_kind_name(dgnn_sched_kind k);

typedef struct {
    dgnn_sched_kind kind;
    int64_t ranks;          /* P >= 1 */
    int64_t rounds;         /* R; even ignores it (always ceil(n / P)). 0 = automatic:
                               the R in [max(0.9 ceil(n / P), ceil(n / P) - 7), ceil(n / P)]
                               with the lowest greedy makespan (ties: the larger R) */
    double time_limit;      /* ILP: seconds for the whole solve (default 10) */
    int64_t ilp_exact_max;  /* ILP: the exact slot model when it has at most this many
                               binaries (default 200,000), else the decomposition */
    int ilp_disable;        /* test hook: act as if no solver were available */
} dgnn_sched_opts;

dgnn_sched_opts dgnn_sched_opts_default(void);

/* What a solver reports. */
typedef struct {
    const char *method;    /* "even", "greedy", "ilp-exact", "ilp-rounds", "greedy (ilp fallback)" */
    double solve_seconds;  /* scheduler wall time */
    double bound;          /* a proven lower bound on the makespan of any R-round schedule */
    double gap;            /* (makespan - bound) / makespan; 0 = proven optimal */
    int optimal;           /* 1: proven optimal (exact model) or optimal for the fixed
                              round partition (decomposition: see docs/dygnex.md) */
    int fallback;          /* 1: the ILP gave nothing better; the greedy schedule is returned */
    double round_bound;    /* decomposition: a lower bound for the fixed round partition
                              (sum of per-round bounds); NaN otherwise */
    int64_t ilp_vars;      /* binaries of the (largest) model solved */
    int rounds_below_ceil; /* automatic rounds: how many rounds below ceil(n / P) they chose (0: ceil) */
    char msg[256];         /* one line for the user (fallback reason, time limit hit) */
} dgnn_sched_info;

/* Schedules n windows with costs cost[0..n-1] (>= 0) and sample indices sample[0..n-1]
 * (NULL: 0..n-1). out is overwritten; info may be NULL. Errors: DGNN_EINVAL (n < 1, P < 1,
 * R < 1 after defaults, a negative or non-finite cost). The ILP never fails for solver
 * reasons: it falls back to greedy with info->fallback = 1 and a message. */
int dgnn_schedule(dgnn_sched *out, const double *cost, const int64_t *sample, int64_t n, const dgnn_sched_opts *o,
                  dgnn_sched_info *info, dgnn_err *err);
void dgnn_sched_free(dgnn_sched *s);

/* Window positions of group (r, p); *count = its length. */
const int64_t *dgnn_sched_group(const dgnn_sched *s, int64_t r, int64_t p, int64_t *count);
double dgnn_sched_group_cost(const dgnn_sched *s, int64_t r, int64_t p);

typedef struct {
    double makespan;     /* sum over rounds of the slowest group */
    double mean_sum;     /* sum over rounds of the mean group cost = total / P */
    double imbalance;    /* makespan / mean_sum - 1 (0 when mean_sum = 0) */
    double total;        /* sum of all costs */
    int64_t empty_groups;
} dgnn_sched_metrics;
void dgnn_sched_eval(const dgnn_sched *s, dgnn_sched_metrics *m);

/* Every window exactly once, group_ptr monotone. Returns 0 or DGNN_EINVAL with the fault. */
int dgnn_sched_validate(const dgnn_sched *s, dgnn_err *err);

/* A lower bound on the makespan of any schedule of these costs on P ranks in R rounds
 * with every round non-empty: max(total / P, the largest cost, ...). */
double dgnn_sched_lower_bound(const double *cost, int64_t n, int64_t P, int64_t R);

#ifdef __cplusplus
}
#endif
#endif
