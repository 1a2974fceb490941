/* bench_steps.c: `dgnn bench train --step-curve LIST`: seconds per training step and per
 * event at each batch size of LIST, on the run's device (issue 14: the curve DepBloom's
 * refinement trades on, and what the event simulator needs to project GPU clusters).
 *
 * Each size trains one epoch cut to its first --max-batches steps (default 30) with the
 * run's settings, no evaluation. A step's time is the gap between two consecutive steps'
 * ends (the trainer's step callback; on a GPU, where the trainer prepares the next batch
 * while the device computes, that is the steady pipeline's step); the first three gaps
 * (allocation, warm-up) are left out and the median of the rest is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/event_train.h"

enum { CURVE_MAX_STEPS = 1024, CURVE_SKIP = 3 };

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

int cli_bench_step_curve(const char *cmd, const int64_t *sizes, int n, const dgnn_events *ev,
                         const dgnn_event_train_cfg *base, int64_t steps) {
    if (steps <= 0) steps = 30;
    if (steps > CURVE_MAX_STEPS - 1) steps = CURVE_MAX_STEPS - 1;
    step_times *st = dgnn_xcalloc(1, sizeof *st);
    double *gap = dgnn_xmalloc(CURVE_MAX_STEPS * sizeof *gap);
    printf("\nstep-time curve (%s; %lld steps a size, the median step after the first %d):\n",
           base->use_cuda ? "GPU" : "CPU", (long long)steps, CURVE_SKIP);
    printf("%8s %7s %12s %14s %14s\n", "batch", "steps", "ms/step", "us/event", "events/s");
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        dgnn_event_train_cfg c = *base;
        c.batch = sizes[i], c.epochs = 1, c.skip_eval = 1, c.progress = 0, c.max_train_batches = steps;
        c.checkpoint = NULL, c.resume = 0, c.on_epoch = NULL, c.op_seconds = NULL, c.keep_model = NULL;
        c.on_step = on_step, c.on_step_ctx = st;
        st->n = 0;
        dgnn_event_train_result *res = dgnn_xcalloc(1, sizeof *res);
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_event_train(ev, &c, res, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: --step-curve at batch %lld: %s\n", cmd, (long long)sizes[i], err.msg);
            rc = 1;
        } else {
            int64_t g = 0;
            for (int64_t k = CURVE_SKIP + 1; k < st->n; k++) gap[g++] = st->t[k] - st->t[k - 1];
            if (g == 0) {
                printf("%8lld %7lld %12s %14s %14s  (too few steps: raise --max-batches or lower the batch)\n",
                       (long long)sizes[i], (long long)st->n, "n/a", "n/a", "n/a");
            } else {
                qsort(gap, (size_t)g, sizeof *gap, cmp_double);
                const double med = g % 2 ? gap[g / 2] : 0.5 * (gap[g / 2 - 1] + gap[g / 2]);
                printf("%8lld %7lld %12.3f %14.3f %14.0f\n", (long long)sizes[i], (long long)st->n, 1e3 * med,
                       1e6 * med / (double)sizes[i], (double)sizes[i] / med);
            }
        }
        free(res);
    }
    free(st), free(gap);
    return rc;
}
