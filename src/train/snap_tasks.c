/* snap_tasks.c: the task-specific data of the snapshot trainer (snap_train.h) that
 * does not depend on a model: edge-classification labels from the events' ratings
 * (bitcoin_dl.py's majority vote), node-regression inputs and targets from a PyG-Temporal
 * table (the profile's CSV: snap_profile.c). Kept apart from the trainer so that each
 * piece can be tested on hand-made inputs. */
#include "dgnn/outfile.h"
#include "dgnn/snap_train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *dgnn_snap_task_name(dgnn_snap_task t) {
    return t == DGNN_SNAP_TASK_EDGE ? "edge" : t == DGNN_SNAP_TASK_NODE ? "node" : "link";
}

int dgnn_snap_task_parse(const char *s, dgnn_snap_task *t, dgnn_err *err) {
    if (strcmp(s, "link") == 0) *t = DGNN_SNAP_TASK_LINK;
    else if (strcmp(s, "edge") == 0) *t = DGNN_SNAP_TASK_EDGE;
    else if (strcmp(s, "node") == 0) *t = DGNN_SNAP_TASK_NODE;
    else return dgnn_err_set(err, DGNN_EINVAL, "unknown task '%s' (link, edge, node)", s);
    return DGNN_OK;
}

int dgnn_snap_weight_from_feature(dgnn_snap_task t, const dgnn_events *ev) {
    return t == DGNN_SNAP_TASK_NODE && ev->edge_dim >= 1;
}

/* ---- edge labels ----------------------------------------------------------------------- */

int dgnn_snap_edge_labels(int32_t *label, const dgnn_snapshot *g, const dgnn_events *ev, int64_t col, dgnn_err *err) {
    if (col < 0 || col >= ev->edge_dim || !ev->efeat)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "edge classification needs a signed rating per event (edge-feature column %lld, e.g. "
                            "bitcoin's RATING read as the weight column); the data has %lld edge-feature column(s)",
                            (long long)col, (long long)ev->edge_dim);
    /* bitcoin_dl: each rating becomes +1 (> 0) or -1 (<= 0); the edge list is doubled with
     * its reverse and coalesced per (u, v, t), so a pair's vote sums both directions (a
     * self loop counts twice, as its reverse is itself) */
    int64_t *vote = dgnn_xcalloc((size_t)(g->num_edges ? g->num_edges : 1), sizeof *vote);
    for (int64_t e = g->ev_begin; e < g->ev_end; e++) {
        int32_t u = ev->src[e], v = ev->dst[e];
        int s = dgnn_events_efeat(ev, e)[col] > 0 ? 1 : -1;
        int64_t a = dgnn_snapshot_entry(g, u, v), b = dgnn_snapshot_entry(g, v, u);
        if (a < 0 || b < 0) {
            free(vote);
            return dgnn_err_set(err, DGNN_EINVAL,
                                "event %lld (%d -> %d) is not an edge of its snapshot: the snapshot must be the "
                                "symmetric A + A^T cut from the same events",
                                (long long)e, u, v);
        }
        vote[a] += s;
        vote[b] += s;
    }
    for (int64_t e = 0; e < g->num_edges; e++) label[e] = vote[e] > 0;
    free(vote);
    return DGNN_OK;
}

/* ---- node regression data --------------------------------------------------------------- */

int dgnn_snap_node_data(float **x, int64_t *dim, float **y, const dgnn_events *ev, dgnn_err *err) {
    *x = NULL, *y = NULL, *dim = 0;
    const int64_t P = ev->num_periods, N = ev->num_nodes, dy = ev->period_y_dim, dx = ev->period_x_dim;
    if (P <= 0 || dy <= 0 || !ev->period_y)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "node regression needs per-snapshot node targets (a PyG-Temporal json file with y); "
                            "this data has %lld periods and %lld target column(s)",
                            (long long)P, (long long)dy);
    float *Y = dgnn_xmalloc((size_t)(P * N) * sizeof(float));
    /* EnglandCovidDatasetLoader: (y - mean) / (std + 1e-10) over the time axis, per node,
     * with numpy's population std; accumulated in double */
    for (int64_t v = 0; v < N; v++) {
        double s = 0, ss = 0;
        for (int64_t p = 0; p < P; p++) s += ev->period_y[(p * N + v) * dy];
        double mean = s / (double)P;
        for (int64_t p = 0; p < P; p++) {
            double d = ev->period_y[(p * N + v) * dy] - mean;
            ss += d * d;
        }
        double sd = sqrt(ss / (double)P) + 1e-10;
        for (int64_t p = 0; p < P; p++) Y[p * N + v] = (float)((ev->period_y[(p * N + v) * dy] - mean) / sd);
    }
    const int64_t D = dx + 1;
    float *X = dgnn_xmalloc((size_t)(P * N * D) * sizeof(float));
    for (int64_t p = 0; p < P; p++)
        for (int64_t v = 0; v < N; v++) {
            float *row = X + (p * N + v) * D;
            if (dx > 0) memcpy(row, ev->period_x + (p * N + v) * dx, (size_t)dx * sizeof(float));
            row[dx] = Y[p * N + v];
        }
    *x = X, *y = Y, *dim = D;
    return DGNN_OK;
}
