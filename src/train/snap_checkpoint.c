/* snap_checkpoint.c: the snapshot trainer's checkpoint (snap_run.h), written and read
 * through the trainers' shared checkpoint (checkpoint.h: dgnn_ckpt_trainer_save/load).
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

uint64_t snap_settings(const snap_run *r, dgnn_ckpt_run *keep) {
    const dgnn_snap_train_cfg *c = r->cfg;
    if (keep) dgnn_ckpt_run_init(keep);
    uint64_t h = dgnn_params_layout_hash(r->p);
    if (r->head.p.total) h = dgnn_hash64(h ^ dgnn_params_layout_hash(&r->head.p));
    if (keep) /* the layouts, in short */
        dgnn_ckpt_run_set(keep, "parameters", "%lld", (long long)(dgnn_params_count(r->p) +
                                                                  (r->head.p.total ? dgnn_params_count(&r->head.p) : 0)));
    dgnn_ckpt_keep(keep, &h, "model", (uint64_t)c->model.kind, "%s", dgnn_snapmodel_name(c->model.kind));
    dgnn_ckpt_keep(keep, &h, "nodes", (uint64_t)r->N, "%lld", (long long)r->N);
    dgnn_ckpt_keep(keep, &h, "in_dim", (uint64_t)r->V, "%lld", (long long)r->V);
    dgnn_ckpt_keep(keep, &h, "snapshots", (uint64_t)r->T, "%lld", (long long)r->T);
    dgnn_ckpt_keep(keep, &h, "hidden", (uint64_t)c->model.hidden, "%lld", (long long)c->model.hidden);
    dgnn_ckpt_keep(keep, &h, "cls_hidden", (uint64_t)c->model.cls_hidden, "%lld", (long long)c->model.cls_hidden);
    dgnn_ckpt_keep(keep, &h, "model_seed", c->model.seed, "%llu", (unsigned long long)c->model.seed);
    dgnn_ckpt_keep(keep, &h, "window", (uint64_t)c->window, "%lld", (long long)c->window);
    dgnn_ckpt_keep(keep, &h, "windows_per_step", (uint64_t)c->windows_per_step, "%lld", (long long)c->windows_per_step);
    dgnn_ckpt_keep(keep, &h, "seed", c->seed, "%llu", (unsigned long long)c->seed);
    dgnn_ckpt_keep(keep, &h, "negatives", (uint64_t)c->neg_mult, "%lld", (long long)c->neg_mult);
    dgnn_ckpt_keep(keep, &h, "lr", (uint64_t)(c->lr * 1e12), "%.9g", c->lr);
    dgnn_ckpt_keep(keep, &h, "class_w0", (uint64_t)(c->class_w[0] * 1e6), "%.6g", (double)c->class_w[0]);
    dgnn_ckpt_keep(keep, &h, "class_w1", (uint64_t)(c->class_w[1] * 1e6), "%.6g", (double)c->class_w[1]);
    dgnn_ckpt_keep(keep, &h, "train_frac", (uint64_t)(c->train_frac * 1e9), "%.9g", c->train_frac);
    dgnn_ckpt_keep(keep, &h, "val_frac", (uint64_t)(c->val_frac * 1e9), "%.9g", c->val_frac);
    dgnn_ckpt_keep(keep, &h, "events", (uint64_t)r->ev->num_events, "%lld", (long long)r->ev->num_events);
    dgnn_ckpt_keep(keep, &h, "max_windows", (uint64_t)c->max_train_windows, "%lld", (long long)c->max_train_windows);
    dgnn_ckpt_keep(keep, &h, "task", (uint64_t)c->task, "%s", dgnn_snap_task_name(c->task));
    /* the link task's negatives over all nodes: kept only when set, so that the other runs'
     * fingerprints stay those of the checkpoints written before it was */
    if (c->neg_all_nodes) dgnn_ckpt_keep(keep, &h, "neg_all_nodes", 1, "%d", 1);
    /* where the snapshots are cut (their count alone leaves another --snapshot-seconds
     * with the same count unseen): each one's events */
    uint64_t cut = dgnn_hash64((uint64_t)r->snaps.count);
    for (int64_t k = 0; k < r->snaps.count; k++)
        cut = dgnn_hash64(cut ^ dgnn_hash64((uint64_t)r->snaps.snaps[k].ev_begin * 0x9E3779B97F4A7C15ull ^
                                            (uint64_t)r->snaps.snaps[k].ev_end));
    dgnn_ckpt_keep(keep, &h, "snapshot_cut", cut, "events per snapshot hash %016llx", (unsigned long long)cut);
    /* the events themselves, not only their counts */
    const uint64_t eh = dgnn_events_hash(r->ev);
    dgnn_ckpt_keep(keep, &h, "data", eh, "events hash %016llx", (unsigned long long)eh);
    return h; /* distributed: the run record holds the rank and round counts (a round is the step) */
}

uint64_t snap_fingerprint(const snap_run *r) { return snap_settings(r, NULL); }

int snap_ranks_agree(const snap_run *r, dgnn_err *err) {
    dgnn_ckpt_run rec;
    (void)snap_settings(r, &rec);
    int rc = dgnn_ckpt_ranks_agree(&rec, "data and settings", err);
    if (rc) return rc;
    /* the loop's shape (the schedule itself is rank 0's, broadcast) */
    const dgnn_snap_train_cfg *c = r->cfg;
    dgnn_ckpt_run_init(&rec);
    dgnn_ckpt_run_set(&rec, "epochs", "%lld", (long long)c->epochs);
    dgnn_ckpt_run_set(&rec, "patience", "%lld", (long long)c->patience);
    dgnn_ckpt_run_set(&rec, "skip_val_epochs", "%lld", (long long)c->skip_val_epochs);
    dgnn_ckpt_run_set(&rec, "resume", "%d", c->resume);
    /* P as the schedule uses it (0: the process count) */
    dgnn_ckpt_run_set(&rec, "sched_ranks", "%lld", (long long)(c->dist.ranks > 0 ? c->dist.ranks : r->procs));
    /* what decides a collective (the profile's reduction, the device's set-up) or how long
     * a rank waits for rank 0's schedule */
    dgnn_ckpt_run_set(&rec, "profile", "%d", c->profile != NULL);
    dgnn_ckpt_run_set(&rec, "device", "%s", c->use_cuda ? "cuda" : "cpu");
    dgnn_ckpt_run_set(&rec, "scheduler", "%s", dgnn_sched_kind_name(c->dist.scheduler));
    dgnn_ckpt_run_set(&rec, "time_limit", "%.17g", c->dist.time_limit);
    return dgnn_ckpt_ranks_agree(&rec, "training options", err);
}

typedef struct {
    snap_run *r;
    snap_ckpt_meta *meta;
    dgnn_snap_train_result *res;
    dgnn_ckpt_run keep; /* the settings the fingerprint covers, by name */
} ckpt_ctx;

/* after "results": the best parameters, and the node head's slabs (node task; not
 * dgnn_ckpt_add_params, which names its sections "params", ...) */
static int late_sections(dgnn_ckpt_io *io, void *ctx, dgnn_err *err) {
    ckpt_ctx *k = ctx;
    snap_run *r = k->r;
    const int have_best = k->meta->have_best != 0;
    const size_t pb = (size_t)r->p->total * sizeof(float), hb = (size_t)r->head.p.total * sizeof(float);
    int rc = DGNN_OK;
    if (have_best) rc = dgnn_ckpt_io_section(io, "best.params", r->best_params, pb, err);
    if (!rc && r->head.p.total) {
        if (!rc) rc = dgnn_ckpt_io_section(io, "head.params", r->head.p.value, hb, err);
        if (!rc) rc = dgnn_ckpt_io_section(io, "head.grad", r->head.p.grad, hb, err);
        if (!rc) rc = dgnn_ckpt_io_section(io, "head.adam.m", r->head.p.m, hb, err);
        if (!rc) rc = dgnn_ckpt_io_section(io, "head.adam.v", r->head.p.v, hb, err);
        if (!rc && have_best) rc = dgnn_ckpt_io_section(io, "head.best", r->best_head, hb, err);
    }
    return rc;
}

/* A checkpoint's progress that the loop indexes with: in range, or the file is refused. */
static int check_meta(void *ctx, const char *path, dgnn_err *err) {
    const ckpt_ctx *k = ctx;
    const snap_ckpt_meta *meta = k->meta;
    const dgnn_snap_train_result *res = k->res;
    const snap_totals *t = &meta->tot;
    const int64_t E = (int64_t)(sizeof res->epochs / sizeof res->epochs[0]);
    if (meta->epochs_done < 0 || meta->epochs_done > E || res->num_epochs != meta->epochs_done ||
        meta->best_epoch < 0 || meta->best_epoch > meta->epochs_done || meta->bad_rounds < 0 ||
        (meta->early_stopped != 0 && meta->early_stopped != 1) || (meta->have_best != 0 && meta->have_best != 1) ||
        meta->tr_step < 0 || t->windows < 0 || t->snapshots < 0 || t->events < 0)
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s: its progress is inconsistent (epochs done %lld, results for %lld, best "
                            "epoch %lld): delete it or resume from another",
                            path, (long long)meta->epochs_done, (long long)res->num_epochs,
                            (long long)meta->best_epoch);
    return DGNN_OK;
}

static dgnn_ckpt_trainer trainer_of(ckpt_ctx *k, const dgnn_ckpt_run *rec) {
    snap_run *r = k->r;
    dgnn_ckpt_trainer t = {
        .dir = r->cfg->checkpoint,
        .run = rec,
        .meta = k->meta,
        .meta_bytes = sizeof *k->meta,
        .params = r->p,
        .with_grad = 1, /* with windows_per_step > 1 a step may straddle epochs */
        .results = k->res,
        .results_bytes = sizeof *k->res,
        .rules = k_run_rules,
        .advice = "resume with the same --dist, --scheduler, --sched-ranks and --rounds (any process count plays "
                  "a schedule), or start afresh in another --checkpoint folder",
        .settings = "task, model, sizes, snapshots, window, lr, seed or data",
        .keep = &k->keep,
        .check = check_meta,
        .late = late_sections,
        .ctx = k,
    };
    return t;
}

int snap_ckpt_save(snap_run *r, const snap_ckpt_meta *meta, const dgnn_snap_train_result *res, dgnn_err *err) {
    /* saving only reads these: the shared struct serves both directions */
    ckpt_ctx k = {r, (snap_ckpt_meta *)meta, (dgnn_snap_train_result *)res, {0}};
    (void)snap_settings(r, &k.keep);
    dgnn_ckpt_run rec;
    snap_run_record(r, &rec);
    const dgnn_ckpt_trainer t = trainer_of(&k, &rec);
    return dgnn_ckpt_trainer_save(&t, err);
}

/* An event model's checkpoint (event_ckpt.c: it holds the node state, "state.mem") given
 * to a snapshot model: told as such, with the model its settings record names, rather
 * than as a run record or sections that differ, whose advice (the same --dist, the same
 * options) could not be followed. 1 after setting err, else 0 (err untouched). */
static int event_checkpoint(const snap_run *r, dgnn_err *err) {
    char model[64], was[256];
    if (dgnn_ckpt_family(r->cfg->checkpoint, model, sizeof model, was, sizeof was) != DGNN_CKPT_EVENT) return 0;
    dgnn_err_set(err, DGNN_EINVAL,
                 "checkpoint %s is an event model's checkpoint (%s: TGN, JODIE, DyRep, APAN)%s%s: the snapshot model "
                 "%s cannot resume it; resume it with dgnn train --model %s as that run was started, or start afresh in "
                 "another --checkpoint folder",
                 r->cfg->checkpoint, model[0] ? model : "its model", was[0] ? ", written by " : "", was,
                 dgnn_snapmodel_name(r->cfg->model.kind), model[0] ? model : "M");
    return 1;
}

static int snap_ckpt_load(snap_run *r, snap_ckpt_meta *meta, dgnn_snap_train_result *res, dgnn_err *err) {
    ckpt_ctx k = {r, meta, res, {0}};
    dgnn_ckpt_run rec;
    snap_run_record(r, &rec);
    dgnn_ckpt_trainer t = trainer_of(&k, &rec);
    t.fingerprint = snap_settings(r, &k.keep);
    int rc = dgnn_ckpt_trainer_load(&t, err);
    if (rc && event_checkpoint(r, err)) return DGNN_EINVAL;
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
