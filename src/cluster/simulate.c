/* simulate.c: DyGNeX's cluster simulator (simulate.h): the alpha-beta all-reduce model,
 * one simulated point per worker count, the gradient size of a snapshot model, and the
 * synthetic snapshot sequences. */
#include <math.h>
#include <string.h>

#include "dgnn/params.h"
#include "dgnn/simulate.h"

int dgnn_net_preset(dgnn_net *net, const char *name, dgnn_err *err) {
    memset(net, 0, sizeof *net);
    if (strcmp(name, "nvlink") == 0) {
        net->name = "nvlink", net->alpha = 3e-6, net->beta = 1.0 / 150e9;
    } else if (strcmp(name, "ib") == 0) {
        net->name = "ib", net->alpha = 5e-6, net->beta = 1.0 / 25e9;
    } else {
        return dgnn_err_set(err, DGNN_EINVAL, "--net: unknown network '%s' (nvlink, ib)", name);
    }
    return DGNN_OK;
}

int dgnn_allreduce_parse(dgnn_net *net, const char *name, dgnn_err *err) {
    static const char *names[] = {"ring", "tree", "auto"};
    for (int k = 0; k < 3; k++)
        if (strcmp(name, names[k]) == 0) return net->allreduce = k, DGNN_OK;
    return dgnn_err_set(err, DGNN_EINVAL, "--allreduce: unknown algorithm '%s' (ring, tree, auto)", name);
}

static double ring_seconds(const dgnn_net *net, int64_t P, double bytes) {
    return 2.0 * (double)(P - 1) * net->alpha + 2.0 * (double)(P - 1) / (double)P * bytes * net->beta;
}

static double tree_seconds(const dgnn_net *net, int64_t P, double bytes) {
    return 2 * ceil(log2((double)P)) * net->alpha + 2 * bytes * net->beta;
}

const char *dgnn_allreduce_name(const dgnn_net *net, int64_t P, double bytes) {
    if (net->allreduce == DGNN_ALLREDUCE_AUTO)
        return P > 1 && tree_seconds(net, P, bytes) < ring_seconds(net, P, bytes) ? "auto: tree" : "auto: ring";
    return net->allreduce == DGNN_ALLREDUCE_TREE ? "tree" : "ring";
}

double dgnn_allreduce_seconds(const dgnn_net *net, int64_t P, double bytes) {
    if (P <= 1) return 0;
    const double ring = ring_seconds(net, P, bytes), tree = tree_seconds(net, P, bytes);
    if (net->allreduce == DGNN_ALLREDUCE_TREE) return tree;
    if (net->allreduce == DGNN_ALLREDUCE_AUTO) return tree < ring ? tree : ring;
    return ring;
}

int dgnn_sim_snapshot(dgnn_sim_point *out, const double *cost, int64_t n, int64_t P, const dgnn_sched_opts *o,
                      const dgnn_net *net, double grad_bytes, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    dgnn_sched_opts so = *o;
    so.ranks = P;
    dgnn_sched s;
    dgnn_sched_info info;
    int rc = dgnn_schedule(&s, cost, NULL, n, &so, &info, err);
    if (rc) return rc;
    dgnn_sched_metrics m;
    dgnn_sched_eval(&s, &m);
    out->workers = P;
    out->rounds = s.num_rounds;
    out->t1 = m.total;
    out->makespan = m.makespan;
    out->comm = (double)s.num_rounds * dgnn_allreduce_seconds(net, P, grad_bytes);
    out->tp = out->makespan + out->comm;
    out->efficiency = out->tp > 0 ? out->t1 / ((double)P * out->tp) : 0;
    out->imbalance = m.imbalance;
    out->solve_seconds = info.solve_seconds;
    out->gap = info.gap;
    dgnn_sched_free(&s);
    return DGNN_OK;
}

int64_t dgnn_sim_snapshot_params(const dgnn_snapmodel_cfg *model, int kind, int64_t N, int64_t V, dgnn_err *err) {
    dgnn_snapmodel_cfg mc = *model;
    mc.kind = (dgnn_snapmodel_kind)kind;
    mc.num_nodes = N > 0 ? N : 1;
    mc.in_dim = V > 0 ? V : 1;
    mc.onehot = 1;
    mc.num_classes = 2;
    dgnn_snapmodel *m = NULL;
    int rc = dgnn_snapmodel_init(&m, &mc, err);
    if (rc) return rc;
    int64_t k = dgnn_params_count(dgnn_snapmodel_params(m));
    dgnn_snapmodel_free(m);
    return k;
}

int dgnn_sim_synthetic_edges(int64_t *out, int64_t T, const char *pattern, uint64_t seed, dgnn_err *err) {
    if (T < 1) return dgnn_err_set(err, DGNN_EINVAL, "--synthetic: need at least 1 snapshot, got %lld", (long long)T);
    dgnn_rng rng;
    dgnn_rng_seed(&rng, seed);
    if (strcmp(pattern, "growing") == 0) {
        for (int64_t t = 0; t < T; t++) {
            double x = (double)t / (double)T;
            out[t] = (int64_t)llround((50 + 20000 * x * x) * exp(0.25 * dgnn_rng_normal(&rng)));
        }
    } else if (strcmp(pattern, "bursty") == 0) {
        int64_t burst_left = 0;
        double burst = 1;
        for (int64_t t = 0; t < T; t++) {
            if (burst_left == 0 && dgnn_rng_uniform(&rng) < 0.05) {
                burst_left = 1 + (int64_t)dgnn_rng_below(&rng, 3);
                burst = 5 + 15 * dgnn_rng_uniform(&rng);
            }
            double f = burst_left > 0 ? burst : 1;
            if (burst_left > 0) burst_left--;
            out[t] = (int64_t)llround(2000 * f * exp(0.3 * dgnn_rng_normal(&rng)));
        }
    } else {
        return dgnn_err_set(err, DGNN_EINVAL, "--pattern: unknown pattern '%s' (growing, bursty)", pattern);
    }
    return DGNN_OK;
}

void dgnn_sim_windows(dgnn_window *out, const int64_t *edges, int64_t T, int64_t W, int64_t nodes, int64_t neg_mult,
                      int64_t hidden, int64_t in_dim) {
    for (int64_t i = W; i + 1 < T; i++) {
        dgnn_window *w = &out[i - W];
        w->sample = i;
        w->nodes = nodes;
        w->edges = edges[i];
        w->edges_window = 0;
        for (int64_t k = i - W; k <= i; k++) w->edges_window += edges[k];
        w->label_pairs = edges[i + 1] * (1 + neg_mult);
        w->in_dim = in_dim;
        w->hidden = hidden;
        w->seconds = NAN;
    }
}
