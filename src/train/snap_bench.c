/* snap_bench.c: what `dgnn bench train` measures besides the trainer's own figures
 * (snap_train.h): the --synthetic sequence of growing snapshots it can train on, and
 * the SpMM bandwidth of the largest input snapshot beside the STREAM triad, both measured
 * in the same run so that their ratio means something on the machine. */
#include "dgnn/snap_train.h"

#include <string.h>

#include "dgnn/snapshot_graph.h"

dgnn_gen_opts dgnn_snap_synthetic_opts(int64_t nodes, int64_t events) {
    dgnn_gen_opts o = dgnn_gen_opts_default();
    o.num_nodes = nodes;
    o.num_events = events;
    o.growth = DGNN_SNAP_SYNTH_GROWTH;
    o.bursts = 0;
    return o;
}

int dgnn_snap_spmm_bandwidth(dgnn_snap_bandwidth *b, const dgnn_events *ev, const dgnn_snap_train_cfg *c,
                             double seconds, dgnn_err *err) {
    memset(b, 0, sizeof *b);
    dgnn_snapshots s;
    int rc = dgnn_snapshots_cut(&s, ev, c->snapshot_seconds, c->snapshot_count,
                                dgnn_snap_weight_from_feature(c->task, ev), err);
    if (rc) return rc;
    if (s.count == 0) {
        dgnn_snapshots_free(&s);
        return dgnn_err_set(err, DGNN_EINVAL, "no snapshot");
    }
    int64_t best = 0;
    for (int64_t k = 1; k < s.count; k++)
        if (s.snaps[k].hat_nnz > s.snaps[best].hat_nnz) best = k;
    dgnn_csr A = dgnn_csr_of_hat(&s.snaps[best]);
    dgnn_spmm_perf perf;
    dgnn_spmm_bench(&perf, &A, c->model.hidden, seconds, 1);
    b->triad_gbps = dgnn_triad_gbps(0, seconds);
    b->snapshot = best;
    b->hat_nnz = s.snaps[best].hat_nnz;
    b->num_nodes = s.num_nodes;
    b->hidden = c->model.hidden;
    b->spmm_gbps = perf.gbps;
    b->spmm_gflops = perf.gflops;
    dgnn_snapshots_free(&s);
    return DGNN_OK;
}
