/* snap_checkpoint.c: the snapshot trainer's checkpoint (snap_run.h), in one place.
 * <dir>/checkpoint.dgnnckpt, rewritten atomically after every epoch: parameters, Adam
 * state, the gradient slab (with windows_per_step > 1 a step may straddle epochs), the
 * best parameters, the node head's slabs (node task), the results so far, a fingerprint
 * of the settings that must not change on --resume, and the run record (checkpoint.h:
 * processes, --dist dygnex and its schedule, checked with a message naming both runs).
 * The distributed figures (dgnn_snap_dist_result) are per-epoch means over the epochs a
 * run trained itself, so they need no totals from the checkpoint. */
#include "snap_run.h"

#include <stdio.h>
#include <string.h>

#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"

/* The run record: processes, the distribution mode, the schedule's shape, its scheduler
 * and a hash of the windows in each group; the flags, for messages. */
static void snap_run_record(const snap_run *r, dgnn_ckpt_run *rec) {
    const dgnn_snap_dist_cfg *d = &r->cfg->dist;
    dgnn_ckpt_run_init(rec);
    dgnn_ckpt_run_set(rec, "processes", "%d", r->dist ? r->procs : 1);
    dgnn_ckpt_run_set(rec, "dist", "%s", r->dist ? "dygnex" : "none");
    if (!r->dist) {
        dgnn_ckpt_run_set(rec, "flags", "%s", "");
        return;
    }
    const dgnn_sched *sc = &r->sched;
    const char *kind = d->schedule ? "given" : dgnn_sched_kind_name(d->scheduler);
    uint64_t h = dgnn_hash64((uint64_t)sc->num_ranks * 0x9e3779b97f4a7c15ULL ^ (uint64_t)sc->num_rounds);
    for (int64_t i = 0; i <= sc->num_rounds * sc->num_ranks; i++) h = dgnn_hash64(h ^ (uint64_t)sc->group_ptr[i]);
    for (int64_t i = 0; i < sc->num_windows; i++) h = dgnn_hash64(h ^ (uint64_t)sc->sample[sc->pos[i]]);
    dgnn_ckpt_run_set(rec, "ranks", "%lld", (long long)sc->num_ranks);
    dgnn_ckpt_run_set(rec, "rounds", "%lld", (long long)sc->num_rounds);
    dgnn_ckpt_run_set(rec, "scheduler", "%s", kind);
    dgnn_ckpt_run_set(rec, "schedule", "%016llx", (unsigned long long)h);
    char more[48] = "";
    if (sc->num_ranks != r->procs) snprintf(more, sizeof more, " --sched-ranks %lld", (long long)sc->num_ranks);
    dgnn_ckpt_run_set(rec, "flags", "--dist dygnex --scheduler %s%s", kind, more);
}

static const dgnn_ckpt_run_rule k_run_rules[] = {
    {"processes", "one process plays the schedule's ranks in turn: the same rounds and optimizer steps (the "
                  "gradients summed in another order)"},
    {"schedule", "the scheduler grouped the windows otherwise (the ILP stops at its time limit; another "
                 "--cost-profile gives other costs): the rounds from here on differ from the run that wrote it"},
    {NULL, NULL},
};

uint64_t snap_fingerprint(const snap_run *r) {
    const dgnn_snap_train_cfg *c = r->cfg;
    uint64_t h = dgnn_params_layout_hash(r->p);
    if (r->head.p.total) h = dgnn_hash64(h ^ dgnn_params_layout_hash(&r->head.p));
    uint64_t v[] = {(uint64_t)c->model.kind, (uint64_t)r->N, (uint64_t)r->V, (uint64_t)r->T, (uint64_t)c->model.hidden,
                    (uint64_t)c->model.cls_hidden, c->model.seed, (uint64_t)c->window, (uint64_t)c->windows_per_step,
                    c->seed, (uint64_t)c->neg_mult, (uint64_t)(c->lr * 1e12), (uint64_t)(c->class_w[0] * 1e6),
                    (uint64_t)(c->class_w[1] * 1e6), (uint64_t)(c->train_frac * 1e9), (uint64_t)(c->val_frac * 1e9),
                    (uint64_t)r->ev->num_events, (uint64_t)c->max_train_windows, (uint64_t)c->task};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = dgnn_hash64(h ^ v[i]);
    h = dgnn_hash64(h ^ dgnn_events_hash(r->ev)); /* the events themselves, not only their counts */
    return h; /* distributed: the run record holds the rank and round counts (a round is the step) */
}

int snap_ckpt_save(snap_run *r, const snap_ckpt_meta *meta, const dgnn_snap_train_result *res, dgnn_err *err) {
    dgnn_ckpt_writer *w;
    int rc = dgnn_ckpt_dir_writer_open(&w, r->cfg->checkpoint, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float), hb = (size_t)r->head.p.total * sizeof(float);
    dgnn_ckpt_run rec;
    snap_run_record(r, &rec);
    rc = dgnn_ckpt_add_run(w, &rec, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "meta", meta, sizeof *meta, err);
    if (!rc) rc = dgnn_ckpt_add_params(w, r->p, 1, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "results", res, sizeof *res, err);
    if (!rc && meta->have_best) rc = dgnn_ckpt_writer_add(w, "best.params", r->best_params, pb, err);
    if (!rc && r->head.p.total) {
        /* the head's four slabs (dgnn_ckpt_add_params names its sections "params", ...) */
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.params", r->head.p.value, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.grad", r->head.p.grad, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.adam.m", r->head.p.m, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.adam.v", r->head.p.v, hb, err);
        if (!rc && meta->have_best) rc = dgnn_ckpt_writer_add(w, "head.best", r->best_head, hb, err);
    }
    if (rc) {
        dgnn_ckpt_writer_abort(w);
        return rc;
    }
    return dgnn_ckpt_writer_commit(w, NULL, err);
}

static int snap_ckpt_load(snap_run *r, snap_ckpt_meta *meta, dgnn_snap_train_result *res, dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, r->cfg->checkpoint);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float), hb = (size_t)r->head.p.total * sizeof(float);
    dgnn_ckpt_run saved, now;
    char notes[512];
    snap_run_record(r, &now);
    rc = dgnn_ckpt_read_run(c, &saved, err);
    if (!rc)
        rc = dgnn_ckpt_run_check(&saved, &now, k_run_rules, r->cfg->checkpoint,
                                 "resume with the same --dist, --scheduler, --sched-ranks and --rounds (any process "
                                 "count plays a schedule), or start without --resume",
                                 notes, sizeof notes, err);
    if (!rc && notes[0]) dgnn_log("resuming %s: %s\n", r->cfg->checkpoint, notes);
    if (!rc) rc = dgnn_ckpt_read(c, "meta", meta, sizeof *meta, err);
    if (!rc && meta->fingerprint != snap_fingerprint(r))
        rc = dgnn_err_set(err, DGNN_EINVAL,
                          "%s was written by a run with other settings (task, model, sizes, snapshots, window, lr, "
                          "seed or data); --resume needs the same ones, or start afresh without --resume",
                          path);
    if (!rc) rc = dgnn_ckpt_read_params(c, r->p, 1, err);
    if (!rc) rc = dgnn_ckpt_read(c, "results", res, sizeof *res, err);
    if (!rc) {
        const snap_totals *t = &meta->tot;
        const int64_t E = (int64_t)(sizeof res->epochs / sizeof res->epochs[0]);
        if (meta->epochs_done < 0 || meta->epochs_done > E || res->num_epochs != meta->epochs_done ||
            meta->best_epoch < 0 || meta->best_epoch > meta->epochs_done || meta->bad_rounds < 0 ||
            (meta->early_stopped != 0 && meta->early_stopped != 1) || (meta->have_best != 0 && meta->have_best != 1) ||
            meta->tr_step < 0 || t->windows < 0 || t->snapshots < 0 || t->events < 0)
            rc = dgnn_err_set(err, DGNN_EFORMAT,
                              "checkpoint %s: its progress is inconsistent (epochs done %lld, results for %lld, best "
                              "epoch %lld): delete it or resume from another",
                              path, (long long)meta->epochs_done, (long long)res->num_epochs,
                              (long long)meta->best_epoch);
    }
    if (!rc && meta->have_best) rc = dgnn_ckpt_read(c, "best.params", r->best_params, pb, err);
    if (!rc && r->head.p.total) {
        if (!rc) rc = dgnn_ckpt_read(c, "head.params", r->head.p.value, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.grad", r->head.p.grad, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.adam.m", r->head.p.m, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.adam.v", r->head.p.v, hb, err);
        if (!rc && meta->have_best) rc = dgnn_ckpt_read(c, "head.best", r->best_head, hb, err);
    }
    dgnn_ckpt_close(c);
    if (rc) return rc;
    r->opt = meta->opt;
    r->hopt = meta->hopt;
    r->tr_step = meta->tr_step;
    return DGNN_OK;
}

int snap_ckpt_resume(snap_run *r, snap_ckpt_meta *meta, dgnn_snap_train_result *res, dgnn_err *err) {
    const int lead = r->rank == 0, bcast = r->dist && r->procs > 1;
    int rc = DGNN_OK;
    if (lead) rc = snap_ckpt_load(r, meta, res, err);
    if (bcast) { /* rank 0 read it: the others take parameters, Adam and progress from it */
        int64_t st = rc;
        dgnn_comm_bcast(&st, sizeof st, 0);
        if (st && !lead) rc = dgnn_err_set(err, (int)st, "rank 0 could not read the checkpoint");
        if (!rc) {
            dgnn_comm_bcast(meta, sizeof *meta, 0);
            dgnn_params *slabs[2] = {r->p, &r->head.p};
            for (int k = 0; k < 2; k++) {
                const int64_t b = slabs[k]->total * (int64_t)sizeof(float);
                if (!b) continue;
                dgnn_comm_bcast(slabs[k]->value, b, 0);
                dgnn_comm_bcast(slabs[k]->grad, b, 0);
                dgnn_comm_bcast(slabs[k]->m, b, 0);
                dgnn_comm_bcast(slabs[k]->v, b, 0);
            }
            r->opt = meta->opt, r->hopt = meta->hopt, r->tr_step = meta->tr_step;
        }
    }
    return rc;
}
