/* event_ckpt.c: the event trainer's checkpoint (event_ckpt.h), written and read through
 * the trainers' shared checkpoint (checkpoint.h: dgnn_ckpt_trainer_save/load).
 *
 * One file, <dir>/checkpoint.dgnnckpt, rewritten atomically after every epoch. It
 * holds what the rest of the run depends on: parameters and Adam state, the node
 * state after validation (the test starts from it), the best epoch's parameters and
 * state, the dropout rng, the results so far, a fingerprint of the settings that
 * must not change on --resume (model, sizes, batch, learning rate, seed, data), the run
 * record (checkpoint.h: the rank count and the distribution mode and options, checked
 * with a message naming both runs) and, distributed, every rank's running totals
 * ("dist.totals"), so the figures of a resumed run cover all its epochs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/checkpoint.h"
#include "dgnn/params.h"
#include "event_ckpt.h"

/* The run record: the settings that change what the saved state means (event_train.h's
 * dgnn_dist_cfg), and the flags that set them, for messages. */
static void event_run_record(const event_run *r, dgnn_ckpt_run *rec) {
    const dgnn_dist_cfg *d = &r->cfg->dist;
    static const char *const mode[] = {"none", "strict", "depbloom"};
    dgnn_ckpt_run_init(rec);
    dgnn_ckpt_run_set(rec, "processes", "%d", r->nranks);
    dgnn_ckpt_run_set(rec, "dist", "%s", d->mode >= 0 && d->mode <= 2 ? mode[d->mode] : "?");
    char flags[DGNN_CKPT_RUN_VAL] = "";
    if (d->mode == DGNN_DIST_STRICT) snprintf(flags, sizeof flags, "--dist strict");
    if (d->mode == DGNN_DIST_DEPBLOOM) {
        const int64_t K = d->refine > 1 ? d->refine : 1;
        dgnn_ckpt_run_set(rec, "partition", "%d", d->partition);
        if (d->window_seconds > 0) dgnn_ckpt_run_set(rec, "window_seconds", "%.17g", d->window_seconds);
        else dgnn_ckpt_run_set(rec, "window_events", "%lld", (long long)d->window_events);
        dgnn_ckpt_run_set(rec, "refine", "%lld", (long long)K);
        dgnn_ckpt_run_set(rec, "critical_path", "%d", d->critical_path);
        if (d->critical_path) {
            dgnn_ckpt_run_set(rec, "cold_fetch", "%d", !d->cold_allgather);
            dgnn_ckpt_run_set(rec, "prefetch", "%d", !d->no_prefetch);
        }
        char w[40];
        if (d->window_seconds > 0) snprintf(w, sizeof w, " --window-seconds %g", d->window_seconds);
        else snprintf(w, sizeof w, " --window-events %lld", (long long)d->window_events);
        char k[32] = "";
        if (K > 1) snprintf(k, sizeof k, " --refine %lld", (long long)K);
        snprintf(flags, sizeof flags, "--dist depbloom%s%s%s%s", d->partition ? " --partition" : "", w, k,
                 d->critical_path ? " --critical-path" : "");
    }
    dgnn_ckpt_run_set(rec, "flags", "%s", flags);
}

/* What may change on --resume: both give the same training, step for step
 * (test_dist_event checks each against its alternative). */
static const dgnn_ckpt_run_rule k_event_run_rules[] = {
    {"cold_fetch", "cold rows fetched when read or all-gathered at each window's end train alike"},
    {"prefetch", "sampling the next micro-batch ahead draws the same samples"},
    {NULL, NULL},
};

uint64_t event_settings(const event_run *r, dgnn_ckpt_run *keep) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_tgnn_cfg *m = &c->model;
    if (keep) dgnn_ckpt_run_init(keep);
    uint64_t h = dgnn_params_layout_hash(r->p);
    if (keep) dgnn_ckpt_run_set(keep, "parameters", "%lld", (long long)r->p->nparams); /* the layout, in short */
    static const char *const kinds[] = {"tgn", "jodie", "dyrep", "apan"}; /* dgnn_tgnn_kind's order */
    const int k = (int)m->kind;
    dgnn_ckpt_keep(keep, &h, "model", (uint64_t)m->kind, "%s", k >= 0 && k < 4 ? kinds[k] : "?");
    dgnn_ckpt_keep(keep, &h, "mem_dim", (uint64_t)m->mem_dim, "%lld", (long long)m->mem_dim);
    dgnn_ckpt_keep(keep, &h, "time_dim", (uint64_t)m->time_dim, "%lld", (long long)m->time_dim);
    dgnn_ckpt_keep(keep, &h, "emb_dim", (uint64_t)m->emb_dim, "%lld", (long long)m->emb_dim);
    dgnn_ckpt_keep(keep, &h, "neighbors", (uint64_t)m->neighbors, "%lld", (long long)m->neighbors);
    dgnn_ckpt_keep(keep, &h, "heads", (uint64_t)m->heads, "%lld", (long long)m->heads);
    dgnn_ckpt_keep(keep, &h, "attention", (uint64_t)m->attn, "%d", (int)m->attn);
    dgnn_ckpt_keep(keep, &h, "uniform_sampler", (uint64_t)m->uniform_sampler, "%d", (int)m->uniform_sampler);
    dgnn_ckpt_keep(keep, &h, "model_seed", m->seed, "%llu", (unsigned long long)m->seed);
    dgnn_ckpt_keep(keep, &h, "batch", (uint64_t)c->batch, "%lld", (long long)c->batch);
    dgnn_ckpt_keep(keep, &h, "negatives", (uint64_t)c->neg, "%d", (int)c->neg);
    dgnn_ckpt_keep(keep, &h, "seed", c->seed, "%llu", (unsigned long long)c->seed);
    dgnn_ckpt_keep(keep, &h, "events", (uint64_t)r->ev->num_events, "%lld", (long long)r->ev->num_events);
    dgnn_ckpt_keep(keep, &h, "nodes", (uint64_t)r->ev->num_nodes, "%lld", (long long)r->ev->num_nodes);
    dgnn_ckpt_keep(keep, &h, "lr", (uint64_t)(c->lr * 1e12), "%.9g", c->lr);
    dgnn_ckpt_keep(keep, &h, "dropout", (uint64_t)(m->dropout * 1e6), "%.6g", (double)m->dropout);
    dgnn_ckpt_keep(keep, &h, "max_batches", (uint64_t)c->max_train_batches, "%lld", (long long)c->max_train_batches);
    dgnn_ckpt_keep(keep, &h, "mail_slots", (uint64_t)m->mail_slots, "%lld", (long long)m->mail_slots);
    /* the split: which events train, which are new-node events */
    dgnn_ckpt_keep(keep, &h, "split", (uint64_t)c->split.mode, "%d", (int)c->split.mode);
    dgnn_ckpt_keep(keep, &h, "new_node_frac", (uint64_t)(c->split.new_node_frac * 1e9), "%.9g", c->split.new_node_frac);
    dgnn_ckpt_keep(keep, &h, "val_q", (uint64_t)(c->split.val_q * 1e9), "%.9g", c->split.val_q);
    dgnn_ckpt_keep(keep, &h, "test_q", (uint64_t)(c->split.test_q * 1e9), "%.9g", c->split.test_q);
    dgnn_ckpt_keep(keep, &h, "split_seed", c->split.seed, "%llu", (unsigned long long)c->split.seed);
    /* the events themselves, not only their counts */
    const uint64_t eh = dgnn_events_hash(r->ev);
    dgnn_ckpt_keep(keep, &h, "data", eh, "events hash %016llx", (unsigned long long)eh);
    return h;
}

uint64_t event_fingerprint(const event_run *r) { return event_settings(r, NULL); }

int event_ranks_agree(const event_run *r, dgnn_err *err) {
    dgnn_ckpt_run rec;
    (void)event_settings(r, &rec);
    int rc = dgnn_ckpt_ranks_agree(&rec, "data and settings", err);
    if (rc) return rc;
    /* the loop's shape: the same windows and steps, the same epochs on every rank */
    event_run_record(r, &rec);
    const dgnn_event_train_cfg *c = r->cfg;
    dgnn_ckpt_run_set(&rec, "epochs", "%lld", (long long)c->epochs);
    dgnn_ckpt_run_set(&rec, "patience", "%lld", (long long)c->patience);
    dgnn_ckpt_run_set(&rec, "resume", "%d", c->resume);
    /* what decides a collective: the totals gathered for each checkpoint, the device's set-up */
    dgnn_ckpt_run_set(&rec, "checkpoint", "%s", c->checkpoint ? "given" : "none");
    dgnn_ckpt_run_set(&rec, "device", "%s", c->use_cuda ? "cuda" : "cpu");
    return dgnn_ckpt_ranks_agree(&rec, "distribution options", err);
}

/* The node state as checkpoint sections "PREFIX.mem", ...: one table for writing and
 * reading. */
static int state_io(dgnn_ckpt_io *io, const char *prefix, dgnn_state *s, dgnn_err *err) {
    const int64_t N = s->num_nodes;
    const struct {
        const char *name;
        void *data;
        size_t bytes;
    } sec[] = {{"mem", s->mem, (size_t)(N * s->mem_dim) * sizeof(float)},
               {"mem_t", s->mem_t, (size_t)N * sizeof(double)},
               {"mail", s->mail, (size_t)(N * s->slots * s->mail_dim) * sizeof(float)},
               {"mail_t", s->mail_t, (size_t)(N * s->slots) * sizeof(double)},
               {"mail_n", s->mail_n, (size_t)N * sizeof(int32_t)},
               {"mail_head", s->mail_head, (size_t)N * sizeof(int32_t)}};
    for (size_t i = 0; i < sizeof sec / sizeof sec[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.%s", prefix, sec[i].name);
        int rc = dgnn_ckpt_io_section(io, name, sec[i].data, sec[i].bytes, err);
        if (rc) return rc;
    }
    return DGNN_OK;
}

typedef struct {
    event_run *r;
    event_ckpt_meta *meta;
    dgnn_event_train_result *res;
    event_rank_totals *totals; /* P entries, distributed runs; else NULL */
    int saving;
    dgnn_ckpt_run keep; /* the settings the fingerprint covers, by name */
} ckpt_ctx;

/* after "meta": every rank's running totals (distributed runs) */
static int early_sections(dgnn_ckpt_io *io, void *ctx, dgnn_err *err) {
    ckpt_ctx *k = ctx;
    const dgnn_event_train_cfg *c = k->r->cfg;
    /* the command's settings, for dgnn eval (written, never read back by a resume) */
    if (k->saving && c->run_flags && c->run_flags_bytes > 0) {
        int rc = dgnn_ckpt_io_section(io, "run.flags", (void *)c->run_flags, (size_t)c->run_flags_bytes, err);
        if (rc) return rc;
    }
    if (!k->totals) return DGNN_OK;
    return dgnn_ckpt_io_section(io, "dist.totals", k->totals, (size_t)k->r->nranks * sizeof *k->totals, err);
}

/* after "results": the node state, and the best epoch's parameters and state */
static int late_sections(dgnn_ckpt_io *io, void *ctx, dgnn_err *err) {
    ckpt_ctx *k = ctx;
    event_run *r = k->r;
    const size_t pb = (size_t)r->p->total * sizeof(float);
    int rc = state_io(io, "state", &r->st, err);
    if (!rc && k->meta->have_best) rc = dgnn_ckpt_io_section(io, "best.params", r->best_params, pb, err);
    if (!rc && k->meta->have_best) rc = state_io(io, "best", &r->st_best, err);
    return rc;
}

/* A checkpoint's progress that the loop indexes with: in range, or the file is refused. */
static int check_meta(void *ctx, const char *path, dgnn_err *err) {
    const ckpt_ctx *k = ctx;
    const event_ckpt_meta *m = k->meta;
    const dgnn_event_train_result *res = k->res;
    const int64_t E = (int64_t)(sizeof res->epochs / sizeof res->epochs[0]);
    if (m->epochs_done < 0 || m->epochs_done > E || res->num_epochs != m->epochs_done || m->best_epoch < 0 ||
        m->best_epoch > m->epochs_done || m->bad_rounds < 0 || (m->early_stopped != 0 && m->early_stopped != 1) ||
        (m->have_best != 0 && m->have_best != 1) || res->best_epoch != m->best_epoch)
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s: its progress is inconsistent (epochs done %lld, results for %lld, best epoch "
                            "%lld): delete it or resume from another",
                            path, (long long)m->epochs_done, (long long)res->num_epochs, (long long)m->best_epoch);
    return DGNN_OK;
}

static dgnn_ckpt_trainer trainer_of(ckpt_ctx *k, const dgnn_ckpt_run *rec) {
    event_run *r = k->r;
    dgnn_ckpt_trainer t = {
        .dir = r->cfg->checkpoint,
        .run = rec,
        .meta = k->meta,
        .meta_bytes = sizeof *k->meta,
        .params = r->p,
        .with_grad = 0,
        .results = k->res,
        .results_bytes = sizeof *k->res,
        .rules = k_event_run_rules,
        .advice = "resume with the same mpirun -np and --dist flags, or start afresh in another --checkpoint folder",
        .settings = "model, sizes, batch, lr, seed or data",
        .keep = &k->keep,
        .early = early_sections,
        .check = check_meta,
        .late = late_sections,
        .ctx = k,
    };
    return t;
}

int event_ckpt_save(event_run *r, const event_ckpt_meta *meta, const dgnn_event_train_result *res,
                    const event_rank_totals *totals, dgnn_err *err) {
    /* saving only reads these: the shared struct serves both directions */
    ckpt_ctx k = {r, (event_ckpt_meta *)meta, (dgnn_event_train_result *)res, (event_rank_totals *)totals, 1, {0}};
    (void)event_settings(r, &k.keep);
    dgnn_ckpt_run rec;
    event_run_record(r, &rec);
    const dgnn_ckpt_trainer t = trainer_of(&k, &rec);
    return dgnn_ckpt_trainer_save(&t, err);
}

/* A snapshot model's checkpoint (snap_checkpoint.c: no node state, "state.mem") given to
 * an event model: told as such, with the model its settings record names, rather than as
 * a run record or sections that differ, whose advice (the same --dist, the same options)
 * could not be followed. 1 after setting err, else 0 (err untouched). */
static int snapshot_checkpoint(const event_run *r, dgnn_err *err) {
    char model[64], was[256];
    if (dgnn_ckpt_family(r->cfg->checkpoint, model, sizeof model, was, sizeof was) != DGNN_CKPT_SNAPSHOT) return 0;
    static const char *const kinds[] = {"tgn", "jodie", "dyrep", "apan"}; /* dgnn_tgnn_kind's order */
    const int k = (int)r->cfg->model.kind;
    dgnn_err_set(err, DGNN_EINVAL,
                 "checkpoint %s is a snapshot model's checkpoint (%s: EvolveGCN, T-GCN, GCRN, WD-GCN, GCN)%s%s: the "
                 "event model %s (TGN, JODIE, DyRep, APAN) cannot resume or evaluate it; resume it with dgnn train "
                 "--model %s as that run was started, or start afresh in another --checkpoint folder",
                 r->cfg->checkpoint, model[0] ? model : "its model", was[0] ? ", written by " : "", was,
                 k >= 0 && k < 4 ? kinds[k] : "?", model[0] ? model : "M");
    return 1;
}

int event_ckpt_load(event_run *r, event_ckpt_meta *meta, dgnn_event_train_result *res, event_rank_totals *totals,
                    dgnn_err *err) {
    ckpt_ctx k = {r, meta, res, totals, 0, {0}};
    dgnn_ckpt_run rec;
    event_run_record(r, &rec);
    dgnn_ckpt_trainer t = trainer_of(&k, &rec);
    t.fingerprint = event_settings(r, &k.keep);
    int rc = dgnn_ckpt_trainer_load(&t, err);
    if (rc && snapshot_checkpoint(r, err)) return DGNN_EINVAL;
    if (rc) return rc;
    r->opt = meta->opt;
    r->rng = meta->rng;
    r->have_best = (int)meta->have_best;
    return DGNN_OK;
}

int dgnn_event_ckpt_flags(const char *dir, char **flags, int64_t *bytes, dgnn_err *err) {
    *flags = NULL, *bytes = 0;
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    const void *data;
    size_t n;
    if (dgnn_ckpt_has(c, "run.flags") && !(rc = dgnn_ckpt_get(c, "run.flags", &data, &n, err)) && n > 0) {
        *flags = malloc(n + 1);
        if (!*flags) rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory for its settings", path);
        else {
            memcpy(*flags, data, n);
            (*flags)[n] = 0; /* a last token is terminated even in a damaged section */
            *bytes = (int64_t)n;
        }
    }
    dgnn_ckpt_close(c);
    return rc;
}
