/* event_presets.c: the event trainer's settings (event_train.h): the TGN code's defaults,
 * the named presets (--preset), the checks that need no data, and the built-in synthetic
 * stream it trains on when no dataset is given. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dgnn/gen.h"
#include "dgnn/event_train.h"
#include "dgnn/tgnn_cuda.h"

dgnn_event_train_cfg dgnn_event_train_cfg_default(void) {
    dgnn_event_train_cfg c;
    memset(&c, 0, sizeof c);
    c.model = dgnn_tgnn_cfg_default(DGNN_TGNN_TGN);
    c.batch = 200;
    c.epochs = 10;
    c.lr = 1e-4;
    c.patience = 5;
    c.eval_negatives = 9;
    c.neg = DGNN_NEG_DST;
    c.split = dgnn_split_opts_default();
    c.protocol.tgb_k = 100;
    c.protocol.tgb_seed = 2023;
    c.seed = 0;
    c.progress = 1;
    return c;
}

/* DGNN_EINVAL naming the setting and the value given when v is outside [min, max] */
static int int_bound(const char *flag, int64_t v, int64_t min, int64_t max, dgnn_err *err) {
    return dgnn_err_range(err, "training", flag, v, min, max);
}

int dgnn_event_train_cfg_check(const dgnn_event_train_cfg *c, dgnn_err *err) {
    if (!c) return dgnn_err_set(err, DGNN_EINVAL, "training: the configuration is NULL");
    int rc;
    if ((rc = int_bound("--batch", c->batch, 1, INT64_MAX, err)) || (rc = int_bound("--epochs", c->epochs, 0, 1024, err)) ||
        (rc = int_bound("--patience", c->patience, 1, INT64_MAX, err)) ||
        (rc = int_bound("--eval-negatives", c->eval_negatives, 0, INT64_MAX, err)) ||
        (rc = int_bound("--max-batches", c->max_train_batches, 0, INT64_MAX, err)) ||
        (rc = int_bound("--eval-max-events", c->max_eval_events, 0, INT64_MAX, err)) ||
        /* 0: OpenMP's default; the value goes to omp_set_num_threads (an int): the CLI's bound */
        (rc = int_bound("--threads", c->threads, 0, 1024, err)))
        return rc;
    /* Adam's step size enters its float kernel: below float32's smallest normal number it
     * is 0 or subnormal, and nothing trains */
    if (!(c->lr >= FLT_MIN) || !isfinite(c->lr))
        return dgnn_err_set(err, DGNN_EINVAL, "training: --lr must be finite and at least %g (float32's smallest "
                            "normal number: a step below it is 0) (got %g)", (double)FLT_MIN, c->lr);
    /* an enum from the caller: saved into checkpoints as it is */
    if (c->neg != DGNN_NEG_DST && c->neg != DGNN_NEG_ALL)
        return dgnn_err_set(err, DGNN_EINVAL, "training: field 'neg' (negative sampling) is %d: DGNN_NEG_DST (0) or "
                            "DGNN_NEG_ALL (1)", (int)c->neg);
    if (!(c->split.new_node_frac >= 0 && c->split.new_node_frac <= 1))
        return dgnn_err_set(err, DGNN_EINVAL, "--new-node-frac must be in [0, 1] (got %g)", c->split.new_node_frac);
    if (c->protocol.tgb && (c->protocol.tgb_k < 1 || c->protocol.tgb_k > 100000))
        return dgnn_err_set(err, DGNN_EINVAL, "--tgb-k must be in [1, 100000] (got %lld)", (long long)c->protocol.tgb_k);
    if (c->use_cuda) {
        if (c->edgebank)
            return dgnn_err_set(err, DGNN_EINVAL, "--model edgebank trains nothing: no --device cuda");
        if (!dgnn_tgnn_cuda_built())
            return dgnn_err_set(err, DGNN_EINVAL,
                                "--device cuda: this dgnn was built without the CUDA backend; rebuild with "
                                "-DDGNN_CUDA=ON (README, 'GPU') or use --device cpu");
        if ((rc = dgnn_tgnn_cuda_supports(&c->model, err))) return rc;
        const int n = dgnn_tgnn_cuda_devices();
        if (c->cuda_device < DGNN_CUDA_LOCAL_RANK || c->cuda_device >= n || n == 0)
            return dgnn_err_set(err, DGNN_EINVAL, "--device cuda:%d: this machine has %d CUDA device%s (or no driver); "
                                "use --device cpu", c->cuda_device < 0 ? 0 : c->cuda_device, n, n == 1 ? "" : "s");
    }
    if (c->edgebank) {
        if (c->dist.mode != DGNN_DIST_NONE) return dgnn_err_set(err, DGNN_EINVAL, "--model edgebank trains nothing: no --dist");
        if (c->checkpoint || c->resume)
            return dgnn_err_set(err, DGNN_EINVAL, "--model edgebank trains nothing: no --checkpoint or --resume");
        return DGNN_OK; /* the model's settings are not used */
    }
    return dgnn_tgnn_cfg_check(&c->model, err);
}

/* Which models read each setting that some model leaves unread (checked against the
 * models: tgn.c and dyrep.c embed by attention over sampled neighbours, with dropout,
 * --attention picking the layer; apan.c delivers mails to sampled neighbours, attends over
 * --mail-slots mails with its own layer, with dropout; jodie.c samples nothing and embeds
 * by a time projection; EdgeBank has no model and no training loop). A setting every
 * model reads (batch, seed, negatives, split, the evaluation's) is not listed. */
enum {
    READ_TGN = 1 << DGNN_TGNN_TGN, READ_JODIE = 1 << DGNN_TGNN_JODIE, READ_DYREP = 1 << DGNN_TGNN_DYREP,
    READ_APAN = 1 << DGNN_TGNN_APAN,
    READ_TRAINED = READ_TGN | READ_JODIE | READ_DYREP | READ_APAN, /* not EdgeBank */
    READ_NEIGHBOURS = READ_TGN | READ_DYREP | READ_APAN,
};
static const struct {
    const char *flag;
    unsigned models;
    const char *why; /* what the models that leave it unread do instead (EdgeBank: always "trains nothing") */
} k_model_settings[] = {
    {"epochs", READ_TRAINED, ""},
    {"lr", READ_TRAINED, ""},
    {"patience", READ_TRAINED, ""},
    {"max-batches", READ_TRAINED, ""},
    {"mem-dim", READ_TRAINED, ""},
    {"time-dim", READ_TRAINED, ""},
    {"emb-dim", READ_TRAINED, ""},
    {"neighbors", READ_NEIGHBOURS, "JODIE samples no neighbours"},
    {"sampler", READ_NEIGHBOURS, "JODIE samples no neighbours"},
    {"heads", READ_NEIGHBOURS, "JODIE has no attention: its embedding is a time projection of the memory"},
    {"dropout", READ_NEIGHBOURS, "JODIE has no dropout"},
    {"attention", READ_TGN | READ_DYREP, "it picks TGN's and DyRep's embedding layer; APAN's memory updater has its "
                                         "own attention, JODIE none"},
    {"mail-slots", READ_APAN, "the other models keep one mail per node"},
};

int dgnn_event_train_flag_check(const dgnn_event_train_cfg *c, const char *flag, dgnn_err *err) {
    if (!c || !flag)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_event_train_flag_check: %s is NULL", !c ? "the configuration" : "flag");
    static const char *const names[] = {"tgn", "jodie", "dyrep", "apan"};
    const unsigned kind = (unsigned)c->model.kind;
    for (size_t i = 0; i < sizeof k_model_settings / sizeof k_model_settings[0]; i++) {
        if (strcmp(k_model_settings[i].flag, flag) != 0) continue;
        const unsigned models = k_model_settings[i].models;
        if (!c->edgebank && kind < 4 && (models >> kind) & 1) return DGNN_OK;
        char readers[64] = "";
        size_t used = 0;
        for (unsigned k = 0; k < 4; k++)
            if ((models >> k) & 1)
                used += (size_t)snprintf(readers + used, sizeof readers - used, "%s%s", used ? ", " : "", names[k]);
        return dgnn_err_set(err, DGNN_EINVAL, "--%s: --model %s never reads it (%s); it applies to --model %s", flag,
                            c->edgebank ? "edgebank" : kind < 4 ? names[kind] : "?",
                            c->edgebank ? "EdgeBank trains nothing: no model, no training" : k_model_settings[i].why,
                            readers);
    }
    return DGNN_OK;
}

const char *dgnn_event_train_preset_default(dgnn_tgnn_kind kind) {
    return kind == DGNN_TGNN_APAN ? "tgl" : "tgn-paper";
}

int dgnn_event_train_preset(dgnn_event_train_cfg *c, const char *name, dgnn_err *err) {
    if (!c || !name)
        return dgnn_err_set(err, DGNN_EINVAL, "--preset: %s is NULL", !c ? "the configuration" : "the preset's name");
    const dgnn_tgnn_kind kind = c->model.kind;
    if (strcmp(name, "tgn-paper") == 0) return DGNN_OK; /* the defaults */
    if (strcmp(name, "tgl") == 0 && kind == DGNN_TGNN_APAN) {
        /* TGL's config/APAN.yml */
        c->model = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
        c->batch = 600;
        c->lr = 1e-4;
        c->neg = DGNN_NEG_ALL;
        return DGNN_OK;
    }
    if (strcmp(name, "tgl") == 0) {
        /* TGL's config/TGN.yml */
        c->batch = 600;
        c->model.mem_dim = 100;
        c->model.time_dim = 100;
        c->model.emb_dim = 100;
        c->model.neighbors = 10;
        c->model.heads = 2;
        c->model.dropout = 0.2f;
        c->model.attn = DGNN_ATTN_TGL;
        c->lr = 1e-4;
        c->neg = DGNN_NEG_ALL;
        return DGNN_OK;
    }
    return dgnn_err_set(err, DGNN_EINVAL, "--preset: unknown preset '%s' (tgn-paper, tgl)", name);
}

int dgnn_event_builtin_dataset(dgnn_events *ev, dgnn_err *err) {
    if (!ev) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_event_builtin_dataset: ev is NULL (the table to fill)");
    dgnn_gen_opts o = dgnn_gen_opts_default();
    o.num_events = 60000;
    o.num_nodes = 2000;
    o.bipartite = 1;
    o.seed = 7;
    o.repeat_prob = 0.8; /* sessions of repeated interactions: the temporal locality that */
    o.session = 0.8;     /* memory-based models exploit on real streams (wikipedia, reddit) */
    return dgnn_gen_events(ev, &o, err);
}
