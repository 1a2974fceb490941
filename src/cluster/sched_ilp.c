/* sched_ilp.c: DyGNeX's ILP scheduler (sched_internal.h): GLPK's MIP, an exact slot
 * model for small instances and a round decomposition (greedy's rounds, each solved as
 * P||Cmax) for large ones, warm-started from greedy and kept only when it does better.
 * Without GLPK (or with the test hook ilp_disable) it returns greedy's schedule as a
 * fallback. docs/dygnex.md explains the models and the guarantees. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

#if defined(__has_include)
#if __has_include(<glpk.h>)
#include <glpk.h>
#define SCHED_HAVE_GLPK 1
#endif
#endif
#ifndef SCHED_HAVE_GLPK
#define SCHED_HAVE_GLPK 0
#endif

#if SCHED_HAVE_GLPK
typedef struct {
    double *warm;  /* (ncols + 1) 1-based column values of the warm start, or NULL */
    int warm_given;
    double bound;  /* best bound seen in the tree (scaled units), -inf before */
} ilp_cb;

static void ilp_callback(glp_tree *tree, void *info) {
    ilp_cb *cb = info;
    if (glp_ios_reason(tree) == GLP_IHEUR && cb->warm && !cb->warm_given) {
        glp_ios_heur_sol(tree, cb->warm);
        cb->warm_given = 1;
    }
    int b = glp_ios_best_node(tree);
    if (b) {
        double v = glp_ios_node_bound(tree, b);
        if (v > cb->bound) cb->bound = v;
    }
}

/* The exact slot model of windows w[0..m-1] (sorted descending by cost) on R rounds x P
 * ranks:  min sum_r M_r  s.t.  sum_{r,p} x[k,r,p] = 1 (each window once),
 *         sum_k c_k x[k,r,p] <= M_r (every group under its round's maximum),
 *         sum_{k,p} x[k,r,p] >= 1 (every round holds work; only when R > 1).
 * Symmetry: rounds are interchangeable and so are the ranks inside a round; relabelling
 * rounds by their first (largest) window and ranks within a round likewise gives an
 * optimal solution with window k in a round <= k and a rank <= k, so only those x exist.
 * Costs are divided by the largest one (GLPK's tolerances are absolute).
 * warm_slot[k] (slot of window k, any labelling) seeds the search. On return slot_out[k]
 * holds the best solution found; returns 1 when an integer solution was found (2 when
 * proven optimal), 0 when none (time, solver failure); *bound = proven lower bound in the
 * original units (0 when none). */
static int ilp_exact(int64_t *slot_out, double *bound, const double *c, int64_t m, int64_t P, int64_t R,
                     const int64_t *warm_slot, double time_limit) {
    *bound = 0;
    const double cmax = c[0] > 0 ? c[0] : 1;
    /* columns: x for k, r <= min(k, R-1), p <= min(k, P-1), then M_0..M_{R-1} */
    int64_t nx = 0;
    int64_t *col0 = dgnn_xmalloc((size_t)(m + 1) * sizeof(int64_t)); /* first x column of window k */
    for (int64_t k = 0; k < m; k++) {
        col0[k] = nx;
        nx += (k + 1 < R ? k + 1 : R) * (k + 1 < P ? k + 1 : P);
    }
    col0[m] = nx;
    const int64_t ncols = nx + R;
    /* plus, per window k and round r it may take: c_k sum_p x[k,r,p] <= M_r. Implied for
     * integer x, but it lifts the LP bound: without it the LP spreads a window over the
     * ranks and its round maximum falls to c_k / P. */
    int64_t nkr = 0, *kr0 = dgnn_xmalloc((size_t)(m + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < m; k++) kr0[k] = nkr, nkr += k + 1 < R ? k + 1 : R;
    kr0[m] = nkr;
    const int64_t rows_kr = m + R * P + (R > 1 ? R : 0);
    const int64_t nrows = rows_kr + nkr;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, (int)nrows);
    glp_add_cols(lp, (int)ncols);
    for (int64_t k = 0; k < m; k++) glp_set_row_bnds(lp, (int)(k + 1), GLP_FX, 1, 1);
    for (int64_t g = 0; g < R * P; g++) glp_set_row_bnds(lp, (int)(m + g + 1), GLP_UP, 0, 0);
    if (R > 1)
        for (int64_t r = 0; r < R; r++) glp_set_row_bnds(lp, (int)(m + R * P + r + 1), GLP_LO, 1, 0);
    for (int64_t j = 0; j < nkr; j++) glp_set_row_bnds(lp, (int)(rows_kr + j + 1), GLP_UP, 0, 0);
    const int64_t nnz = nx * (R > 1 ? 4 : 3) + R * P + nkr;
    int *ia = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(int)), *ja = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(int));
    double *ar = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(double));
    int64_t e = 0;
    for (int64_t k = 0; k < m; k++) {
        int64_t rr = k + 1 < R ? k + 1 : R, pp = k + 1 < P ? k + 1 : P, j = col0[k];
        for (int64_t r = 0; r < rr; r++)
            for (int64_t p = 0; p < pp; p++, j++) {
                glp_set_col_kind(lp, (int)(j + 1), GLP_BV);
                e++, ia[e] = (int)(k + 1), ja[e] = (int)(j + 1), ar[e] = 1;
                e++, ia[e] = (int)(m + r * P + p + 1), ja[e] = (int)(j + 1), ar[e] = c[k] / cmax;
                if (R > 1) e++, ia[e] = (int)(m + R * P + r + 1), ja[e] = (int)(j + 1), ar[e] = 1;
                e++, ia[e] = (int)(rows_kr + kr0[k] + r + 1), ja[e] = (int)(j + 1), ar[e] = c[k] / cmax;
            }
    }
    for (int64_t k = 0; k < m; k++)
        for (int64_t r = 0; r < kr0[k + 1] - kr0[k]; r++)
            e++, ia[e] = (int)(rows_kr + kr0[k] + r + 1), ja[e] = (int)(nx + r + 1), ar[e] = -1;
    for (int64_t r = 0; r < R; r++) {
        int col = (int)(nx + r + 1);
        glp_set_col_bnds(lp, col, GLP_LO, 0, 0);
        glp_set_obj_coef(lp, col, 1.0);
        for (int64_t p = 0; p < P; p++) e++, ia[e] = (int)(m + r * P + p + 1), ja[e] = col, ar[e] = -1;
    }
    DGNN_ASSERT(e == nnz);
    glp_load_matrix(lp, (int)nnz, ia, ja, ar);
    free(ia), free(ja), free(ar);

    /* the warm start, relabelled into the symmetry-broken form */
    double *warm = dgnn_xcalloc((size_t)(ncols + 1), sizeof(double));
    {
        int64_t *rmap = dgnn_xmalloc((size_t)R * sizeof(int64_t)), *pmap = dgnn_xmalloc((size_t)(R * P) * sizeof(int64_t));
        int64_t *pnext = dgnn_xcalloc((size_t)R, sizeof(int64_t)), rnext = 0;
        double *wl = dgnn_xcalloc((size_t)(R * P), sizeof(double));
        for (int64_t r = 0; r < R; r++) rmap[r] = -1;
        for (int64_t g = 0; g < R * P; g++) pmap[g] = -1;
        for (int64_t k = 0; k < m; k++) {
            int64_t r0 = warm_slot[k] / P, g0 = warm_slot[k];
            if (rmap[r0] < 0) rmap[r0] = rnext++;
            int64_t r = rmap[r0];
            if (pmap[g0] < 0) pmap[g0] = pnext[r]++;
            int64_t p = pmap[g0];
            int64_t pp = k + 1 < P ? k + 1 : P;
            DGNN_ASSERT(r <= k && p <= k);
            warm[col0[k] + r * pp + p + 1] = 1;
            wl[r * P + p] += c[k] / cmax;
        }
        for (int64_t r = 0; r < R; r++) {
            double mx = 0;
            for (int64_t p = 0; p < P; p++) mx = wl[r * P + p] > mx ? wl[r * P + p] : mx;
            warm[nx + r + 1] = mx;
        }
        free(rmap), free(pmap), free(pnext), free(wl);
    }

    double t0 = dgnn_now();
    int found = 0;
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.tm_lim = (int)(time_limit * 1000);
    if (sm.tm_lim < 1) sm.tm_lim = 1;
    int ret = glp_simplex(lp, &sm);
    if (ret == 0 && glp_get_status(lp) == GLP_OPT) {
        double left = time_limit - (dgnn_now() - t0);
        if (left > 0.001) {
            ilp_cb cb = {warm, 0, -INFINITY};
            glp_iocp io;
            glp_init_iocp(&io);
            io.msg_lev = GLP_MSG_OFF;
            io.presolve = GLP_OFF; /* the callback's warm start is in the original columns */
            io.tm_lim = (int)(left * 1000);
            io.cb_func = ilp_callback;
            io.cb_info = &cb;
            io.mip_gap = 1e-9;
            ret = glp_intopt(lp, &io);
            int st = glp_mip_status(lp);
            if (st == GLP_OPT || st == GLP_FEAS) {
                found = st == GLP_OPT && ret == 0 ? 2 : 1;
                /* extract */
                for (int64_t k = 0; k < m; k++) {
                    int64_t rr = k + 1 < R ? k + 1 : R, pp = k + 1 < P ? k + 1 : P, j = col0[k], hit = -1;
                    for (int64_t r = 0; r < rr && hit < 0; r++)
                        for (int64_t p = 0; p < pp; p++, j++)
                            if (glp_mip_col_val(lp, (int)(j + 1)) > 0.5) {
                                hit = r * P + p;
                                break;
                            }
                    DGNN_ASSERT(hit >= 0);
                    slot_out[k] = hit;
                }
                if (found == 2) *bound = glp_mip_obj_val(lp) * cmax;
                else if (isfinite(cb.bound)) *bound = cb.bound * cmax;
            }
        }
    }
    free(warm), free(col0), free(kr0);
    glp_delete_prob(lp);
    return found;
}
#endif

/* The ILP scheduler. Exact slot model when it is small enough; else the decomposition:
 * greedy fixes which windows share a round, then every round whose greedy maximum is above
 * its own lower bound is solved exactly as P||Cmax (the same model with R = 1). */
void sched_ilp(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R, const dgnn_sched_opts *o,
               dgnn_sched_info *info) {
    sched_greedy(slot, cost, n, P, R);
    const double greedy_ms = sched_slot_makespan(slot, cost, n, P, R);
    info->method = "ilp-exact";
#if !SCHED_HAVE_GLPK
    (void)o;
    info->method = "greedy (ilp fallback)";
    info->fallback = 1;
    snprintf(info->msg, sizeof info->msg, "no ILP solver in this build (GLPK's glpk.h absent): using greedy");
    return;
#else
    if (o->ilp_disable) {
        info->method = "greedy (ilp fallback)";
        info->fallback = 1;
        snprintf(info->msg, sizeof info->msg, "ILP solver disabled: using greedy");
        return;
    }
    glp_term_out(GLP_OFF);
    int64_t *ord = dgnn_xmalloc((size_t)n * sizeof *ord);
    for (int64_t i = 0; i < n; i++) ord[i] = i;
    sched_sort_desc(ord, n, cost);
    double *c = dgnn_xmalloc((size_t)n * sizeof(double));
    int64_t *ws = dgnn_xmalloc((size_t)n * sizeof(int64_t)), *out = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    int64_t nx = 0;
    for (int64_t k = 0; k < n; k++) nx += (k + 1 < R ? k + 1 : R) * (k + 1 < P ? k + 1 : P);
    if (nx <= o->ilp_exact_max) {
        for (int64_t k = 0; k < n; k++) c[k] = cost[ord[k]], ws[k] = slot[ord[k]];
        double b = 0;
        info->ilp_vars = nx;
        int found = ilp_exact(out, &b, c, n, P, R, ws, o->time_limit);
        if (found) {
            int64_t *cand = dgnn_xmalloc((size_t)n * sizeof(int64_t));
            for (int64_t k = 0; k < n; k++) cand[ord[k]] = out[k];
            if (sched_slot_makespan(cand, cost, n, P, R) <= greedy_ms) memcpy(slot, cand, (size_t)n * sizeof(int64_t));
            free(cand);
            if (b > info->bound) info->bound = b;
            info->optimal = found == 2;
            if (found == 1)
                snprintf(info->msg, sizeof info->msg, "ILP stopped at the %.3g s time limit: best schedule found kept",
                         o->time_limit);
        } else {
            info->method = "greedy (ilp fallback)";
            info->fallback = 1;
            snprintf(info->msg, sizeof info->msg,
                     "ILP found no schedule within the %.3g s time limit (%lld binaries): using greedy", o->time_limit,
                     (long long)nx);
        }
    } else {
        /* decomposition: per round P||Cmax on greedy's round partition */
        info->method = "ilp-rounds";
        double t0 = dgnn_now();
        int64_t *rptr = dgnn_xmalloc((size_t)(R + 1) * sizeof(int64_t)), *mem = dgnn_xmalloc((size_t)n * sizeof(int64_t));
        sched_round_members(rptr, mem, slot, ord, n, P, R);
        /* rounds that need the solver: greedy's maximum above the round's own bound */
        double round_bound = 0;
        int64_t need = 0, all_opt = 1, skipped = 0, timeouts = 0;
        double *rlb = dgnn_xmalloc((size_t)R * sizeof(double)), *rmx = dgnn_xmalloc((size_t)R * sizeof(double));
        double *gl = dgnn_xcalloc((size_t)(R * P), sizeof(double));
        for (int64_t i = 0; i < n; i++) gl[slot[i]] += cost[i];
        for (int64_t r = 0; r < R; r++) {
            const int64_t *w = mem + rptr[r], mr = rptr[r + 1] - rptr[r];
            double sum = 0, mx = 0;
            for (int64_t j = 0; j < mr; j++) sum += cost[w[j]];
            for (int64_t p = 0; p < P; p++) mx = gl[r * P + p] > mx ? gl[r * P + p] : mx;
            double lb = mr ? cost[w[0]] : 0;
            if (sum / (double)P > lb) lb = sum / (double)P;
            if (mr > P && cost[w[P - 1]] + cost[w[P]] > lb) lb = cost[w[P - 1]] + cost[w[P]]; /* pigeonhole */
            rlb[r] = lb, rmx[r] = mx;
            if (mx > lb * (1 + 1e-9)) need++;
        }
        for (int64_t r = 0; r < R; r++) {
            if (!(rmx[r] > rlb[r] * (1 + 1e-9))) {
                round_bound += rmx[r]; /* greedy meets the round's bound: optimal for it */
                continue;
            }
            const int64_t *w = mem + rptr[r], mr = rptr[r + 1] - rptr[r];
            int64_t vx = 0;
            for (int64_t k = 0; k < mr; k++) vx += k + 1 < P ? k + 1 : P;
            double left = o->time_limit - (dgnn_now() - t0);
            if (vx > o->ilp_exact_max || left <= 0.001) {
                skipped++, all_opt = 0, round_bound += rlb[r], need--;
                continue;
            }
            if (vx > info->ilp_vars) info->ilp_vars = vx;
            for (int64_t k = 0; k < mr; k++) c[k] = cost[w[k]], ws[k] = slot[w[k]] % P;
            double b = 0;
            int found = ilp_exact(out, &b, c, mr, P, 1, ws, left / (double)need);
            need--;
            if (found) {
                double mx = 0;
                memset(gl + r * P, 0, (size_t)P * sizeof(double));
                for (int64_t k = 0; k < mr; k++) gl[r * P + out[k]] += c[k];
                for (int64_t p = 0; p < P; p++) mx = gl[r * P + p] > mx ? gl[r * P + p] : mx;
                if (mx <= rmx[r])
                    for (int64_t k = 0; k < mr; k++) slot[w[k]] = r * P + out[k];
                round_bound += b > rlb[r] ? b : rlb[r];
                if (found != 2) all_opt = 0, timeouts++;
            } else {
                all_opt = 0, timeouts++;
                round_bound += rlb[r];
            }
        }
        info->optimal = (int)all_opt;
        info->round_bound = round_bound;
        if (skipped || timeouts)
            snprintf(info->msg, sizeof info->msg,
                     "ILP decomposition: %lld round(s) left to greedy (model too large or no time left), %lld "
                     "stopped at the time limit",
                     (long long)skipped, (long long)timeouts);
        free(rptr), free(mem), free(rlb), free(rmx), free(gl);
    }
    free(ord), free(c), free(ws), free(out);
#endif
}
