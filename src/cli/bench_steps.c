/* bench_steps.c: `dgnn bench train --step-curve LIST`: seconds per training step and per
 * event at each batch size of LIST, on the run's device (issue 14: the curve DepBloom's
 * refinement trades on, and what the event simulator needs to project GPU clusters).
 *
 * Each size trains one epoch cut to its first --max-batches steps (default 30) with the
 * run's settings, no evaluation. A step's time is the gap between two consecutive steps'
 * ends (the trainer's step callback; on a GPU, where the trainer prepares the next batch
 * while the device computes, that is the steady pipeline's step); the first three gaps
 * (allocation, warm-up) are left out and the median of the rest is printed: a size needs
 * CURVE_SKIP + 2 steps. A size that got fewer (--max-batches below that, or an epoch whose
 * training events end sooner) fails the curve, naming the sizes and what to change: a
 * curve with holes would be read as a whole one.
 *
 * With --out the curve goes into the run's JSON as "step_curve" (the points, the device,
 * and the rate of applying received state rows there), which `dgnn simulate --family
 * event --measured` reads as one worker's costs (issue 18). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/event_train.h"
#include "dgnn/params.h"
#include "dgnn/prof.h"
#include "dgnn/state.h"
#include "dgnn/tgnn.h"
#if DGNN_HAVE_CUDA
#include "dgnn/cuda.h"
#endif

enum { CURVE_MAX_STEPS = 1024, CURVE_SKIP = 3, CURVE_MIN_STEPS = CURVE_SKIP + 2 };

typedef struct {
    int64_t n;
    double t[CURVE_MAX_STEPS];
} step_times;

static void on_step(void *ctx, int64_t epoch, int64_t step, double loss) {
    step_times *s = ctx;
    (void)epoch, (void)step, (void)loss;
    if (s->n < CURVE_MAX_STEPS) s->t[s->n++] = dgnn_now();
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int cli_step_sizes(const char *cmd, const char *list, int64_t *sizes) {
    int n = 0;
    for (const char *p = list; *p;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 1 || v > CLI_MAX_BATCH || (*end && *end != ',') || n == CLI_STEP_SIZES_MAX) {
            fprintf(stderr, "dgnn %s: --step-curve: '%s' is not a list of up to %d batch sizes in [1, %d] "
                            "(e.g. 200,600,1200,2400,4800)\n", cmd, list, CLI_STEP_SIZES_MAX, CLI_MAX_BATCH);
            return -1;
        }
        sizes[n++] = v;
        p = *end ? end + 1 : end;
    }
    if (n == 0) fprintf(stderr, "dgnn %s: --step-curve: no batch size given\n", cmd);
    return n > 0 ? n : -1;
}

/* ---- applying received rows ------------------------------------------------------ */

enum { APPLY_MIN_REPS = 3 };
#define APPLY_MIN_SECONDS 0.2

/* The nodes of a rows-long apply: spread evenly over the N nodes (distinct). */
static int32_t *apply_nodes(int64_t rows, int64_t N) {
    int32_t *v = dgnn_xmalloc((size_t)rows * sizeof *v);
    for (int64_t i = 0; i < rows; i++) v[i] = (int32_t)(i * (N / rows));
    return v;
}

/* On the CPU: dgnn_state_unpack_rows, what the strict exchange applies received rows with
 * (event_step.c), on a state of the run's shape. Bytes per second, 0 when it cannot. */
static double apply_rate_cpu(const dgnn_state *shape_of, int64_t rows) {
    dgnn_state st;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_state_init(&st, shape_of->num_nodes, shape_of->mem_dim, shape_of->mail_dim, shape_of->slots, &err))
        return 0;
    const int64_t rb = dgnn_state_row_bytes(&st);
    int32_t *nodes = apply_nodes(rows, st.num_nodes);
    char *buf = dgnn_xmalloc((size_t)(rows * rb));
    dgnn_state_pack_rows(buf, &st, nodes, rows);
    int64_t reps = 0;
    const double t0 = dgnn_now();
    double dt = 0;
    while (reps < APPLY_MIN_REPS || dt < APPLY_MIN_SECONDS) {
        if (dgnn_state_unpack_rows(&st, buf, rows * rb, &err) != rows) break;
        reps++, dt = dgnn_now() - t0;
    }
    free(buf), free(nodes);
    dgnn_state_free(&st);
    return reps >= APPLY_MIN_REPS && dt > 0 ? (double)(reps * rows * rb) / dt : 0;
}

#if DGNN_HAVE_CUDA
/* On the GPU: whole rows of the same bytes scattered into a device table of N rows with
 * their times (dgnn_cuda_scatter_rows_last, the op a device-side exchange applies rows
 * with; issue 18 writes that exchange). Bytes per second, 0 when it cannot. */
static double apply_rate_cuda(int device, int64_t N, int64_t row_bytes, int64_t rows) {
    dgnn_cuda *c = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_cuda_init(&c, device, &err)) return 0;
    const int64_t W = (row_bytes - 8 + 3) / 4; /* floats beside the time */
    float *dtab = NULL, *dsrc = NULL;
    double *dtt = NULL, *dst = NULL;
    int32_t *didx = NULL;
    int32_t *nodes = apply_nodes(rows, N);
    double rate = 0;
    if (!dgnn_cuda_alloc(c, (void **)&dtab, (size_t)(N * W) * 4, "apply table", &err) &&
        !dgnn_cuda_alloc(c, (void **)&dtt, (size_t)N * 8, "apply times", &err) &&
        !dgnn_cuda_alloc(c, (void **)&dsrc, (size_t)(rows * W) * 4, "apply rows", &err) &&
        !dgnn_cuda_alloc(c, (void **)&dst, (size_t)rows * 8, "apply row times", &err) &&
        !dgnn_cuda_alloc(c, (void **)&didx, (size_t)rows * 4, "apply index", &err) &&
        !dgnn_cuda_zero(c, dsrc, (size_t)(rows * W) * 4, &err) && !dgnn_cuda_zero(c, dst, (size_t)rows * 8, &err) &&
        !dgnn_cuda_upload(c, didx, nodes, (size_t)rows * 4, &err) && !dgnn_cuda_sync(c, &err)) {
        int64_t reps = 0;
        const double t0 = dgnn_now();
        double dt = 0;
        int bad = 0;
        while (!bad && (reps < APPLY_MIN_REPS || dt < APPLY_MIN_SECONDS)) {
            bad = dgnn_cuda_scatter_rows_last(c, dtab, W, dtt, dsrc, W, dst, didx, rows, W, &err) ||
                  dgnn_cuda_sync(c, &err);
            reps++, dt = dgnn_now() - t0;
        }
        if (!bad && dt > 0) rate = (double)(reps * rows * row_bytes) / dt;
    }
    dgnn_cuda_release(c, dtab), dgnn_cuda_release(c, dtt), dgnn_cuda_release(c, dsrc);
    dgnn_cuda_release(c, dst), dgnn_cuda_release(c, didx);
    dgnn_cuda_free(c);
    free(nodes);
    return rate;
}

/* On the GPU: one Adam step over n parameters (dgnn_cuda_adam_step, as the device step's
 * dgnn_cuda_tgn_adam over its slab), seconds; 0 when it cannot. */
static double adam_seconds_cuda(int device, int64_t n) {
    dgnn_cuda *c = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (n < 1 || dgnn_cuda_init(&c, device, &err)) return 0;
    float *d[4] = {NULL, NULL, NULL, NULL};
    double sec = 0;
    int ok = 1;
    for (int k = 0; k < 4 && ok; k++)
        ok = !dgnn_cuda_alloc(c, (void **)&d[k], (size_t)n * 4, "Adam arrays", &err) &&
             !dgnn_cuda_zero(c, d[k], (size_t)n * 4, &err);
    if (ok && !dgnn_cuda_sync(c, &err)) {
        int64_t reps = 0;
        const double t0 = dgnn_now();
        double dt = 0;
        while (ok && (reps < 10 || dt < APPLY_MIN_SECONDS)) {
            ok = !dgnn_cuda_adam_step(c, d[0], d[1], d[2], d[3], n, 1e-4, 0.9, 0.999, 1e-8, 0, reps + 1, &err) &&
                 !dgnn_cuda_sync(c, &err);
            reps++, dt = dgnn_now() - t0;
        }
        if (ok && reps > 0) sec = dt / (double)reps;
    }
    for (int k = 0; k < 4; k++) dgnn_cuda_release(c, d[k]);
    dgnn_cuda_free(c);
    return sec;
}
#endif

/* The run's state shape (its model's mail width and slots; *params: its parameter count)
 * and the apply rate on the run's device for rows rows (a step's worth), in bytes per
 * second; 0 when not measured. */
static double apply_rate(const dgnn_events *ev, const dgnn_event_train_cfg *c, int64_t rows, int64_t *row_bytes,
                         int64_t *params) {
    dgnn_tgnn *m = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    *row_bytes = 0, *params = 0;
    if (c->edgebank || ev->num_nodes < 1 || dgnn_tgnn_init(&m, &c->model, ev->num_nodes, ev->edge_dim, &err)) return 0;
    dgnn_state shape;
    memset(&shape, 0, sizeof shape);
    shape.num_nodes = ev->num_nodes, shape.mem_dim = c->model.mem_dim;
    shape.mail_dim = dgnn_tgnn_mail_dim(m), shape.slots = dgnn_tgnn_mail_slots(m);
    *params = dgnn_tgnn_params(m)->total;
    dgnn_tgnn_free(m);
    if (rows > shape.num_nodes) rows = shape.num_nodes;
    dgnn_state probe;
    if (dgnn_state_init(&probe, 1, shape.mem_dim, shape.mail_dim, shape.slots, &err)) return 0;
    *row_bytes = dgnn_state_row_bytes(&probe);
    dgnn_state_free(&probe);
#if DGNN_HAVE_CUDA
    if (c->use_cuda) return apply_rate_cuda(c->cuda_device, shape.num_nodes, *row_bytes, rows);
#endif
    return apply_rate_cpu(&shape, rows);
}

/* ---- the curve -------------------------------------------------------------------- */

int cli_bench_step_curve(const char *cmd, const int64_t *sizes, int n, const dgnn_events *ev,
                         const dgnn_event_train_cfg *base, int64_t steps, cJSON **json) {
    if (steps <= 0) steps = 30;
    if (steps > CURVE_MAX_STEPS - 1) steps = CURVE_MAX_STEPS - 1;
    if (json) *json = NULL;
    if (steps < CURVE_MIN_STEPS) {
        fprintf(stderr, "dgnn %s: --step-curve: --max-batches %lld times too few steps: a size needs %d (the first %d "
                        "are left out, then the median of the gaps between steps): raise --max-batches to %d or "
                        "more\n", cmd, (long long)steps, CURVE_MIN_STEPS, CURVE_SKIP, CURVE_MIN_STEPS);
        return 1;
    }
    step_times *st = dgnn_xcalloc(1, sizeof *st);
    double *gap = dgnn_xmalloc(CURVE_MAX_STEPS * sizeof *gap);
    printf("\nstep-time curve (%s; %lld steps a size, the median step after the first %d):\n",
           base->use_cuda ? "GPU" : "CPU", (long long)steps, CURVE_SKIP);
    printf("%8s %7s %12s %14s %14s\n", "batch", "steps", "ms/step", "us/event", "events/s");
    int rc = 0;
    cJSON *jo = json ? cJSON_CreateObject() : NULL, *jp = NULL;
    if (jo) {
        char dev[32] = "cpu";
        if (base->use_cuda) snprintf(dev, sizeof dev, "cuda:%d", base->cuda_device);
        cJSON_AddStringToObject(jo, "device", dev);
        cJSON_AddNumberToObject(jo, "steps_per_size", (double)steps);
        jp = cJSON_AddArrayToObject(jo, "points");
    }
    int64_t largest = 0, adam_steps = 0, n_train = 0;
    double adam_sec = 0;
    char shorts[512] = ""; /* the sizes that got too few steps: "400 (3 steps), 800 (1 step)" */
    size_t n_short = 0;
    for (int i = 0; i < n && !rc; i++) {
        dgnn_event_train_cfg c = *base;
        c.batch = sizes[i], c.epochs = 1, c.skip_eval = 1, c.progress = 0, c.max_train_batches = steps;
        c.checkpoint = NULL, c.resume = 0, c.on_epoch = NULL, c.op_seconds = NULL, c.keep_model = NULL;
        c.on_step = on_step, c.on_step_ctx = st;
        double ops[DGNN_PROF_N] = {0};
        if (!base->use_cuda) c.op_seconds = ops; /* the optimizer's share: what refinement shares */
        st->n = 0;
        dgnn_event_train_result *res = dgnn_xcalloc(1, sizeof *res);
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_event_train(ev, &c, res, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: --step-curve at batch %lld: %s\n", cmd, (long long)sizes[i], err.msg);
            rc = 1;
        } else {
            adam_sec += ops[DGNN_PROF_ADAM], adam_steps += st->n;
            n_train = res->n_train;
            int64_t g = 0;
            for (int64_t k = CURVE_SKIP + 1; k < st->n; k++) gap[g++] = st->t[k] - st->t[k - 1];
            if (g == 0) {
                printf("%8lld %7lld %12s %14s %14s  (too few steps)\n", (long long)sizes[i], (long long)st->n, "n/a",
                       "n/a", "n/a");
                const size_t u = strlen(shorts);
                if (u < sizeof shorts)
                    snprintf(shorts + u, sizeof shorts - u, "%s%lld (%lld step%s)", n_short ? ", " : "",
                             (long long)sizes[i], (long long)st->n, st->n == 1 ? "" : "s");
                n_short++;
            } else {
                qsort(gap, (size_t)g, sizeof *gap, cmp_double);
                const double med = g % 2 ? gap[g / 2] : 0.5 * (gap[g / 2 - 1] + gap[g / 2]);
                printf("%8lld %7lld %12.3f %14.3f %14.0f\n", (long long)sizes[i], (long long)st->n, 1e3 * med,
                       1e6 * med / (double)sizes[i], (double)sizes[i] / med);
                if (jp) {
                    cJSON *q = cJSON_CreateObject();
                    cJSON_AddNumberToObject(q, "batch", (double)sizes[i]);
                    cJSON_AddNumberToObject(q, "step_seconds", med);
                    cJSON_AddNumberToObject(q, "steps", (double)g);
                    cJSON_AddItemToArray(jp, q);
                }
                largest = sizes[i] > largest ? sizes[i] : largest;
            }
        }
        free(res);
    }
    free(st), free(gap);
    if (!rc && n_short > 0) { /* steps >= CURVE_MIN_STEPS: the epoch's training events ended sooner */
        fprintf(stderr, "dgnn %s: --step-curve: too few steps at batch %s: the %lld training events end before %d "
                        "steps of %s size (a size needs %d, the first %d left out): lower %s, or use a longer "
                        "stream\n", cmd, shorts, (long long)n_train, CURVE_MIN_STEPS,
                n_short == 1 ? "that" : "each", CURVE_MIN_STEPS, CURVE_SKIP, n_short == 1 ? "it" : "them");
        rc = 1;
    }
    if (!rc && largest > 0) { /* a step of the largest batch writes up to 2 rows an event */
        int64_t rb = 0, params = 0;
        const double bps = apply_rate(ev, base, 2 * largest, &rb, &params);
        if (bps > 0)
            printf("applying received state rows (%lld B each, %lld at a time): %.3g GB/s\n", (long long)rb,
                   (long long)(2 * largest < ev->num_nodes ? 2 * largest : ev->num_nodes), bps / 1e9);
        double opt = adam_steps > 0 ? adam_sec / (double)adam_steps : 0;
#if DGNN_HAVE_CUDA
        if (base->use_cuda) opt = adam_seconds_cuda(base->cuda_device, params);
#endif
        if (opt > 0)
            printf("the optimizer's part of a step (Adam over %lld parameters): %.4g ms\n", (long long)params, 1e3 * opt);
        if (jo) {
            cJSON_AddItemToObject(jo, "apply_bytes_per_second", cli_json_number(bps > 0 ? bps : NAN));
            cJSON_AddItemToObject(jo, "optimizer_seconds", cli_json_number(opt > 0 ? opt : NAN));
        }
    }
    if (jo && (rc || cJSON_GetArraySize(jp) == 0)) { /* not every size measured: no curve in the JSON */
        cJSON_Delete(jo);
        jo = NULL;
    }
    if (json) *json = jo;
    return rc;
}
