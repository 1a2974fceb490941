/* event_strict.c: the strict baseline's training epoch (one MPI rank = one worker;
 * comm.h does all the talking).
 *
 * strict (the baseline, event_train.h): global batch b holds events [b G, b G + G_b) of
 * the training stream, G = P x batch; rank p trains the p-th of P consecutive slices.
 * Every rank holds the whole node state. A step is:
 *   forward + backward of the slice (reading the replicated state, which every rank
 *   has equal), the gradient all-reduce started (non-blocking, bucketed), the slice's
 *   commit into the local replica, the rows it wrote all-gathered and applied in rank
 *   order (a node written by several slices ends with the latest slice's row, as the
 *   later events' writes win in single-process training), the all-reduce finished,
 *   the Adam step.
 * Loss weights: the single-process loss of the global batch is mean BCE over its G_b
 * positives + mean over its G_b negatives; its gradient is the sum over ranks of
 * (B_p / G_b) x the gradient of the slice's own loss. Each rank scales its dlogits by
 * that factor and the all-reduce sums. Negatives are drawn for the whole global batch
 * from the stream single-process training uses for batch b, and each rank takes its
 * slice, so one rank with batch P x B and P ranks with batch B see the same negatives.
 * What strict does NOT reproduce bit for bit: the TGN code pushes a batch's source
 * mails before its destination mails, so a node that is a destination in an earlier
 * slice and a source in a later one keeps, in single-process training, the earlier
 * event's mail; here the later slice's row wins (non-bipartite data only).
 *
 * On GPUs (r->dev) the same epoch runs each rank's step on its device (event_step.c's
 * calls; event_device.c): the slice planned on the host, its forward, backward and commit
 * on the device, the gradient sum on comm_dev.h's lane (NCCL, or through the host), the
 * rows between the devices (event_allgather_rows), Adam on the device; a GPU run and a CPU
 * run at P ranks differ only by the device's arithmetic.
 *
 * Dropout draws from a stream keyed by (seed, epoch, rank), so ranks do not share masks
 * and a resumed run repeats the epoch it restarts exactly. */
#include <stdio.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/params.h"
#include "dgnn/tgnn_cuda.h"
#include "event_epoch.h"

int event_strict_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_events *tr = &r->train;
    const int P = r->nranks, me = r->rank;
    const int64_t G = c->batch * P;
    int64_t nb = (tr->num_events + G - 1) / G;
    if (c->max_train_batches > 0 && nb > c->max_train_batches) nb = c->max_train_batches;
    int rc = r->dev ? dgnn_tgnn_cuda_reset(r->dev, &r->st, err) : (dgnn_state_reset(&r->st), DGNN_OK);
    if (rc) return rc;
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70ULL + (uint64_t)epoch * 4099 + (uint64_t)me);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (strict, %d ranks%s)", (long long)epoch, P, r->dev ? ", GPU" : "");
    const int64_t shown = nb * G > tr->num_events ? tr->num_events : nb * G;
    if (c->progress && me == 0) dgnn_progress_begin(&pg, label, shown);
    double loss_share = 0, flops = 0, t_start = dgnn_now();
    dgnn_comm_stats_reset();
    int64_t all_events = 0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t g0 = b * G, Gb = g0 + G <= tr->num_events ? G : tr->num_events - g0;
        const int64_t lo = g0 + Gb * me / P, hi = g0 + Gb * (me + 1) / P, B = hi - lo;
        rc = event_ensure_batch(r, Gb, 1, err);
        if (!rc) rc = event_draw_negatives(r, Gb, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (rc) return rc;
        double t0 = dgnn_now();
        if (!r->dev) dgnn_params_zero_grad(r->p);
        double loss = 0;
        event_grad_sync gs = {.r = r};
        if (B > 0) rc = event_micro_batch(r, tr, lo, B, Gb, r->neg_t + (lo - g0), &gs, 1, 1.0, &loss, &flops, err);
        if (!rc) rc = event_grad_start(r, &gs, err);
        if (rc) return rc;
        if (B > 0 && !r->dev) dgnn_tgnn_commit(r->model, &r->st, tr); /* a GPU's step committed it */
        double t1 = dgnn_now();
        const int32_t *nodes;
        const int64_t nw = dgnn_state_take_written(&r->st, &nodes);
        if ((rc = event_allgather_rows(r, nodes, nw, 0, err))) return rc;
        if ((rc = event_grad_wait(r, err))) return rc;
        double t2 = dgnn_now();
        if ((rc = event_adam_step(r, epoch, b, err))) return rc;
        r->t_compute += (t1 - t0) + (dgnn_now() - t2);
        r->t_comm += t2 - t1;
        all_events += Gb;
        if ((rc = event_step_done(r, epoch, b, loss, B, Gb, &loss_share, &pg, all_events, err))) return rc;
    }
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    event_epoch_done(r, nb, loss_share, t_start, all_events, flops, er);
    return DGNN_OK;
}
