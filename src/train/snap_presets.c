/* snap_presets.c: the snapshot trainer's configurations (snap_train.h): the default,
 * the named presets of the reference's yaml files (EvolveGCN's link prediction and edge
 * classification on bitcoin-alpha and UCI) and dgnn's own for node regression, the
 * checks a configuration needs before any data is read, and, for a CLI, which tasks read
 * which task-dependent flag and the presets' values as help text. */
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

dgnn_snap_train_cfg dgnn_snap_train_cfg_default(dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c;
    memset(&c, 0, sizeof c);
    c.model = dgnn_snapmodel_cfg_default(kind);
    c.windows_per_step = 1;
    c.seed = 1234;
    c.progress = 1;
    dgnn_snap_train_preset(&c, "bitcoin-alpha", NULL);
    return c;
}

int dgnn_snap_train_preset(dgnn_snap_train_cfg *c, const char *name, dgnn_err *err) {
    const int h = c->model.kind == DGNN_SNAPMODEL_EGCN_H;
    if (c->task == DGNN_SNAP_TASK_EDGE) {
        if (strcmp(name, "bitcoin-alpha") != 0 && strcmp(name, "bc-alpha") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task edge (bitcoin-alpha)", name);
        /* parameters_bitcoin_alpha_edgecls_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->snapshot_count = 0;
        c->window = 10;
        c->model.hidden = h ? 100 : 122;
        c->model.cls_hidden = h ? 200 : 77;
        c->class_w[0] = 0.8f;
        c->class_w[1] = 0.2f;
        c->lr = 0.001;
        c->neg_mult = 0; /* no sampling: every label edge is a pair */
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 1000;
        c->patience = 100;
        c->skip_val_epochs = 6;
        return DGNN_OK;
    }
    if (c->task == DGNN_SNAP_TASK_NODE) {
        if (strcmp(name, "pgt") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task node (pgt)", name);
        /* no reference configuration: one snapshot per period, a window of 8 snapshots as
         * PGT's 8 lags, small widths for tables of ~100-1000 nodes */
        c->snapshot_seconds = 0;
        c->snapshot_count = 0;
        c->window = 7;
        c->model.hidden = 32;
        c->model.cls_hidden = 32;
        c->class_w[0] = c->class_w[1] = 1.0f;
        c->lr = 0.01;
        c->neg_mult = 0;
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 200;
        c->patience = 20;
        c->skip_val_epochs = 0;
        return DGNN_OK;
    }
    /* shared by both reference configurations */
    c->snapshot_count = 0;
    c->window = 10;
    c->patience = 50;
    c->skip_val_epochs = 6; /* eval_after_epochs: 5, and the check is e > 5 with e from 0 */
    c->val_frac = 0.1;
    if (strcmp(name, "bitcoin-alpha") == 0 || strcmp(name, "bc-alpha") == 0) {
        /* parameters_bitcoin_alpha_linkpred_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->model.hidden = h ? 50 : 100;
        c->model.cls_hidden = h ? 100 : 400;
        c->class_w[0] = h ? 0.1f : 0.05f;
        c->class_w[1] = h ? 0.9f : 0.95f;
        c->lr = 0.005;
        c->neg_mult = 100;
        c->train_frac = 0.7;
        c->epochs = 500;
        return DGNN_OK;
    }
    if (strcmp(name, "uci") == 0) {
        /* parameters_uc_irv_mess_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 190080;
        c->model.hidden = 100;
        c->model.cls_hidden = 100;
        c->class_w[0] = 0.1f;
        c->class_w[1] = 0.9f;
        c->lr = 0.001;
        c->neg_mult = 50;
        c->train_frac = 0.71;
        c->epochs = 1000;
        return DGNN_OK;
    }
    return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' (bitcoin-alpha, uci)", name);
}

/* ---- checks ---- */

/* DGNN_EINVAL naming the setting and the value given when v is outside [min, max] */
static int int_bound(const char *flag, int64_t v, int64_t min, int64_t max, dgnn_err *err) {
    return dgnn_err_range(err, "snapshot training", flag, v, min, max);
}

int dgnn_snap_train_cfg_check(const dgnn_snap_train_cfg *c, dgnn_err *err) {
    if (!c) return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: the configuration is NULL");
    if (c->task != DGNN_SNAP_TASK_LINK && c->task != DGNN_SNAP_TASK_EDGE && c->task != DGNN_SNAP_TASK_NODE)
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: unknown task %d", (int)c->task);
    int rc;
    if ((rc = int_bound("--window", c->window, 0, INT64_MAX, err)) ||
        (rc = int_bound("--windows-per-step", c->windows_per_step, 1, INT64_MAX, err)) ||
        (rc = int_bound("--epochs", c->epochs, 0, 1024, err)) ||
        (rc = int_bound("--negatives", c->neg_mult, 0, INT64_MAX, err)) ||
        (rc = int_bound("--patience", c->patience, 0, INT64_MAX, err)) ||
        (rc = int_bound("--skip-val-epochs", c->skip_val_epochs, 0, INT64_MAX, err)) ||
        (rc = int_bound("--max-windows", c->max_train_windows, 0, INT64_MAX, err)) ||
        /* 0: OpenMP's default; the value goes to omp_set_num_threads (an int): the CLI's bound */
        (rc = int_bound("--threads", c->threads, 0, 1024, err)))
        return rc;
    /* Adam's step size enters its float kernel: below float32's smallest normal number it
     * is 0 or subnormal, and nothing trains */
    if (!(c->lr >= FLT_MIN) || !isfinite(c->lr))
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: --lr must be finite and at least %g (float32's "
                            "smallest normal number: a step below it is 0) (got %g)", (double)FLT_MIN, c->lr);
    if (!(c->class_w[0] >= 0) || !(c->class_w[1] >= 0) || !(c->class_w[0] + c->class_w[1] >= FLT_MIN))
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: --class-weights must be >= 0 and not both 0 (got %g,%g)",
                            (double)c->class_w[0], (double)c->class_w[1]);
    if (!(c->train_frac > 0 && c->train_frac < 1) || !(c->val_frac >= 0 && c->val_frac < 1) ||
        !(c->train_frac + c->val_frac < 1))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--train-frac (%g) and --val-frac (%g) must leave a test part: 0 < train, 0 <= val, "
                            "train + val < 1", c->train_frac, c->val_frac);
    if (c->use_cuda) {
        if (!dgnn_snapmodel_cuda_built())
            return dgnn_err_set(err, DGNN_EINVAL,
                                "--device cuda: this dgnn was built without the CUDA backend; rebuild with "
                                "-DDGNN_CUDA=ON (README, 'GPU') or use --device cpu");
        if ((rc = dgnn_snapmodel_cuda_supports(&c->model, err))) return rc;
        const int n = dgnn_snapmodel_cuda_devices();
        if (c->cuda_device < DGNN_SNAP_CUDA_LOCAL_RANK || c->cuda_device >= n || n == 0)
            return dgnn_err_set(err, DGNN_EINVAL, "--device cuda:%d: this machine has %d CUDA device%s (or no driver); "
                                "use --device cpu", c->cuda_device < 0 ? 0 : c->cuda_device, n, n == 1 ? "" : "s");
    }
    return DGNN_OK;
}

/* ---- the settings that only some tasks read, and the presets' values (a CLI's checks and
 * help: one table, so that the help cannot drift from the presets above) ---- */

enum {
    SET_NONE, /* a setting no preset sets */
    SET_SECONDS, SET_WINDOW, SET_EPOCHS, SET_LR, SET_HIDDEN, SET_CLS, SET_CLASS_W, SET_NEG, SET_TRAIN_FRAC,
    SET_VAL_FRAC, SET_PATIENCE, SET_SKIP_VAL
};

#define TASK_BIT(t) (1u << (t))
#define TASKS_ALL (TASK_BIT(DGNN_SNAP_TASK_LINK) | TASK_BIT(DGNN_SNAP_TASK_EDGE) | TASK_BIT(DGNN_SNAP_TASK_NODE))
#define TASKS_LINK_EDGE (TASK_BIT(DGNN_SNAP_TASK_LINK) | TASK_BIT(DGNN_SNAP_TASK_EDGE))

static const struct {
    const char *flag; /* dgnn train's option, without "--" */
    unsigned tasks;   /* TASK_BIT(t): task t reads it */
    int field;        /* SET_*: the configuration field the presets set */
    const char *why;  /* the tasks that read it only: what the other tasks do instead */
} snap_settings[] = {
    {"snapshot-seconds", TASKS_LINK_EDGE, SET_SECONDS, "it reads one snapshot per period of the file"},
    {"snapshots", TASKS_LINK_EDGE, SET_NONE, "it reads one snapshot per period of the file"},
    {"window", TASKS_ALL, SET_WINDOW, NULL},
    {"epochs", TASKS_ALL, SET_EPOCHS, NULL},
    {"lr", TASKS_ALL, SET_LR, NULL},
    {"hidden", TASKS_ALL, SET_HIDDEN, NULL},
    {"cls-hidden", TASKS_ALL, SET_CLS, NULL},
    {"class-weights", TASKS_LINK_EDGE, SET_CLASS_W, "node regression's loss is the MSE: no classes to weigh"},
    {"negatives", TASK_BIT(DGNN_SNAP_TASK_LINK), SET_NEG,
     "edge classification scores the rated pairs and node regression every node: neither samples non-edges"},
    {"neg-all-nodes", TASK_BIT(DGNN_SNAP_TASK_LINK), SET_NONE,
     "edge classification scores the rated pairs and node regression every node: neither samples non-edges"},
    {"train-frac", TASKS_ALL, SET_TRAIN_FRAC, NULL},
    {"val-frac", TASKS_ALL, SET_VAL_FRAC, NULL},
    {"patience", TASKS_ALL, SET_PATIENCE, NULL},
    {"skip-val-epochs", TASKS_ALL, SET_SKIP_VAL, NULL},
};
#define NUM_SETTINGS ((int)(sizeof snap_settings / sizeof snap_settings[0]))

/* the presets above in the order the help lists them; label: how the help names one */
static const struct {
    dgnn_snap_task task;
    const char *name, *label;
} snap_presets[] = {
    {DGNN_SNAP_TASK_LINK, "bitcoin-alpha", "link bitcoin-alpha"},
    {DGNN_SNAP_TASK_LINK, "uci", "link uci"},
    {DGNN_SNAP_TASK_EDGE, "bitcoin-alpha", "edge"},
    {DGNN_SNAP_TASK_NODE, "pgt", "node"},
};
#define NUM_PRESETS ((int)(sizeof snap_presets / sizeof snap_presets[0]))
#define NUM_KINDS (DGNN_SNAPMODEL_GCN + 1)

static int setting_find(const char *flag) {
    for (int i = 0; i < NUM_SETTINGS; i++)
        if (strcmp(snap_settings[i].flag, flag) == 0) return i;
    return -1;
}

/* "link", "link and edge", "link, edge and node": the tasks of mask */
static void tasks_text(char *buf, size_t cap, unsigned mask) {
    int n = 0, k = 0;
    for (int t = 0; t < 3; t++) n += (mask >> t) & 1;
    buf[0] = '\0';
    for (int t = 0; t < 3; t++) {
        if (!((mask >> t) & 1)) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", k == 0 ? "" : k == n - 1 ? " and " : ", ",
                 dgnn_snap_task_name((dgnn_snap_task)t));
        k++;
    }
}

int dgnn_snap_train_flag_check(dgnn_snap_task task, const char *flag, dgnn_err *err) {
    const int i = setting_find(flag);
    if (i < 0 || (unsigned)task > 2 || (snap_settings[i].tasks >> task) & 1) return DGNN_OK;
    char tasks[64];
    tasks_text(tasks, sizeof tasks, snap_settings[i].tasks);
    return dgnn_err_set(err, DGNN_EINVAL, "--%s is for --task %s only, not --task %s (%s)", flag, tasks,
                        dgnn_snap_task_name(task), snap_settings[i].why);
}

/* The value of field in c as the help writes it: integers as such, doubles to 15 digits
 * (1200000, 0.005: not %g's 1.2e+06), the float class weights to %g's 6 (0.05, not
 * 0.0500000007) */
static void setting_value(char *buf, size_t cap, int field, const dgnn_snap_train_cfg *c) {
    switch (field) {
    case SET_SECONDS: snprintf(buf, cap, "%.15g", c->snapshot_seconds); break;
    case SET_WINDOW: snprintf(buf, cap, "%lld", (long long)c->window); break;
    case SET_EPOCHS: snprintf(buf, cap, "%lld", (long long)c->epochs); break;
    case SET_LR: snprintf(buf, cap, "%.15g", c->lr); break;
    case SET_HIDDEN: snprintf(buf, cap, "%lld", (long long)c->model.hidden); break;
    case SET_CLS: snprintf(buf, cap, "%lld", (long long)c->model.cls_hidden); break;
    case SET_CLASS_W: snprintf(buf, cap, "%g,%g", (double)c->class_w[0], (double)c->class_w[1]); break;
    case SET_NEG: snprintf(buf, cap, "%lld", (long long)c->neg_mult); break;
    case SET_TRAIN_FRAC: snprintf(buf, cap, "%.15g", c->train_frac); break;
    case SET_VAL_FRAC: snprintf(buf, cap, "%.15g", c->val_frac); break;
    case SET_PATIENCE: snprintf(buf, cap, "%lld", (long long)c->patience); break;
    case SET_SKIP_VAL: snprintf(buf, cap, "%lld", (long long)c->skip_val_epochs); break;
    default: buf[0] = '\0';
    }
}

/* appends s to buf (cap bytes), truncated to fit */
static void append(char *buf, size_t cap, const char *s) {
    const size_t len = strlen(buf);
    if (len + 1 < cap) snprintf(buf + len, cap - len, "%s", s);
}

const char *dgnn_snap_train_preset_help(char *buf, size_t cap, const char *flag) {
    if (cap == 0) return buf;
    buf[0] = '\0';
    const int s = setting_find(flag);
    if (s < 0 || snap_settings[s].field == SET_NONE) return buf;
    /* entry[p]: preset p's value for EvolveGCN-O (and every kind that agrees), then the
     * kinds that differ, grouped by value: "100 (evolvegcn-h 50)" */
    char entry[NUM_PRESETS][160];
    int used[NUM_PRESETS], reads[NUM_PRESETS], nreads = 0;
    for (int p = 0; p < NUM_PRESETS; p++) {
        char val[NUM_KINDS][48];
        for (int k = 0; k < NUM_KINDS; k++) {
            dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default((dgnn_snapmodel_kind)k);
            c.task = snap_presets[p].task;
            DGNN_ASSERT(dgnn_snap_train_preset(&c, snap_presets[p].name, NULL) == DGNN_OK);
            setting_value(val[k], sizeof val[k], snap_settings[s].field, &c);
        }
        snprintf(entry[p], sizeof entry[p], "%s", val[0]);
        int seen[NUM_KINDS] = {0}, open = 0;
        for (int k = 1; k < NUM_KINDS; k++) {
            if (seen[k] || strcmp(val[k], val[0]) == 0) continue;
            append(entry[p], sizeof entry[p], open ? ", " : " (");
            open = 1;
            for (int k2 = k, first = 1; k2 < NUM_KINDS; k2++) {
                if (seen[k2] || strcmp(val[k2], val[k]) != 0) continue;
                seen[k2] = 1;
                if (!first) append(entry[p], sizeof entry[p], ", ");
                append(entry[p], sizeof entry[p], dgnn_snapmodel_name((dgnn_snapmodel_kind)k2));
                first = 0;
            }
            append(entry[p], sizeof entry[p], " ");
            append(entry[p], sizeof entry[p], val[k]);
        }
        if (open) append(entry[p], sizeof entry[p], ")");
        reads[p] = (snap_settings[s].tasks >> snap_presets[p].task) & 1;
        used[p] = !reads[p];
        nreads += reads[p];
    }
    /* presets with equal entries share one: "link, edge 10; node 7"; a task all of whose
     * presets share it is named alone; one entry for every preset needs no names */
    for (int p = 0; p < NUM_PRESETS; p++) {
        if (used[p]) continue;
        int same[NUM_PRESETS] = {0}, n = 0;
        for (int q = p; q < NUM_PRESETS; q++)
            if (!used[q] && strcmp(entry[q], entry[p]) == 0) same[q] = 1, used[q] = 1, n++;
        if (buf[0]) append(buf, cap, "; ");
        if (n < nreads) {
            int named = 0;
            for (int q = p; q < NUM_PRESETS; q++) {
                if (!same[q]) continue;
                const dgnn_snap_task t = snap_presets[q].task;
                int whole = 1, first = 1;
                for (int r = 0; r < NUM_PRESETS; r++)
                    if (snap_presets[r].task == t) {
                        whole &= same[r];
                        if (r < q) first = 0; /* the task was named at its first preset */
                    }
                if (whole && !first) continue;
                if (named++) append(buf, cap, ", ");
                append(buf, cap, whole ? dgnn_snap_task_name(t) : snap_presets[q].label);
            }
            append(buf, cap, " ");
        }
        append(buf, cap, entry[p]);
    }
    return buf;
}
