/* random_events.h: the random event tables the temporal CSR, sampler and model tests share. */
#ifndef DGNN_TEST_RANDOM_EVENTS_H
#define DGNN_TEST_RANDOM_EVENTS_H
#include <stdio.h>
#include <stdlib.h>

#include "dgnn/events.h"

/* A random time-sorted table: N nodes, the last 3 without any event, node 0 a hub,
 * about 2% self-loops, times on `levels` distinct values (many ties). */
static inline void gen_events(dgnn_events *ev, uint64_t seed, int64_t N, int64_t E, int levels) {
    dgnn_err err;
    dgnn_events_init(ev);
    if (dgnn_events_alloc(ev, E, 0, 0, &err) != DGNN_OK) { fprintf(stderr, "%s\n", err.msg); exit(2); }
    ev->num_nodes = N;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    int64_t used = N - 3;
    for (int64_t e = 0; e < E; e++) {
        int32_t u = dgnn_rng_below(&r, 5) == 0 ? 0 : (int32_t)dgnn_rng_below(&r, (uint64_t)used);
        int32_t v = dgnn_rng_below(&r, 50) == 0 ? u : (int32_t)dgnn_rng_below(&r, (uint64_t)used);
        ev->src[e] = u;
        ev->dst[e] = v;
        ev->t[e] = (double)(e * levels / E) * 1.5 + 100.0; /* non-decreasing, tie-heavy */
    }
}

/* de normal edge features per event (a fixed seed), in place of none. */
static inline void add_edge_features(dgnn_events *ev, int64_t de) {
    ev->edge_dim = de;
    ev->efeat = malloc((size_t)(ev->num_events * de) * sizeof(float));
    dgnn_rng r;
    dgnn_rng_seed(&r, 5);
    for (int64_t i = 0; i < ev->num_events * de; i++) ev->efeat[i] = (float)dgnn_rng_normal(&r);
}
#endif
