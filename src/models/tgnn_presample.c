/* tgnn_presample.c: sampling a later batch's neighbours ahead of its forward (tgnn.h,
 * "Sampling ahead"), so that DepBloom's critical path holds only the work the next step
 * waits for. The sample is taken into its own buffers, reading nothing of the model but its
 * configuration, and copied into the model's workspace by the forward that uses it
 * (tgnn_batch.c's tgnn_sample), after checking that it is that forward's batch. */
#include <stdlib.h>
#include <string.h>

#include "dgnn/sampler.h"
#include "tgnn_internal.h"

int dgnn_tgnn_can_presample(const dgnn_tgnn *m) { return !m->cfg.uniform_sampler && m->ops->can_presample; }

static void grow(dgnn_tgnn_sample *s, int64_t R, int64_t k) {
    if (R <= s->cap && k == s->k) return;
    const int64_t cap = R > s->cap ? R * 2 : s->cap;
    s->roots = dgnn_xrealloc(s->roots, (size_t)cap * sizeof(int32_t));
    s->root_t = dgnn_xrealloc(s->root_t, (size_t)cap * sizeof(double));
    s->cnt = dgnn_xrealloc(s->cnt, (size_t)cap * sizeof(int32_t));
    s->nbr = dgnn_xrealloc(s->nbr, (size_t)(cap * k) * sizeof(int32_t));
    s->eid = dgnn_xrealloc(s->eid, (size_t)(cap * k) * sizeof(int64_t));
    s->ts = dgnn_xrealloc(s->ts, (size_t)(cap * k) * sizeof(double));
    s->cap = cap, s->k = k;
}

int dgnn_tgnn_presample(const dgnn_tgnn *m, dgnn_tgnn_sample *s, const dgnn_tcsr *g, const dgnn_events *ev,
                        int64_t e0, int64_t B, const int32_t *neg, int64_t nneg, dgnn_err *err) {
    if (!dgnn_tgnn_can_presample(m))
        return dgnn_err_set(err, DGNN_EINVAL, "sampling ahead needs TGN or DyRep with the most-recent sampler");
    if (B < 1 || e0 < 0 || e0 + B > ev->num_events || nneg < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "batch [%lld, %lld) outside the %lld events", (long long)e0,
                            (long long)(e0 + B), (long long)ev->num_events);
    const double t0 = dgnn_now();
    const int64_t R = B * (2 + nneg), Rs = tgnn_sampled_roots(m, B, R), k = m->cfg.neighbors;
    grow(s, R, k);
    s->e0 = e0, s->B = B, s->nneg = nneg, s->R = R, s->Rs = Rs;
    int rc = tgnn_fill_roots(s->roots, s->root_t, ev, e0, B, R, neg, m->N, err);
    if (!rc && Rs > 0) rc = dgnn_sample_recent(s->nbr, s->eid, s->ts, s->cnt, g, s->roots, s->root_t, Rs, (int)k, err);
    s->seconds = dgnn_now() - t0;
    return rc;
}

void dgnn_tgnn_use_sample(dgnn_tgnn *m, const dgnn_tgnn_sample *s) { m->pre = s; }

void dgnn_tgnn_sample_free(dgnn_tgnn_sample *s) {
    if (!s) return;
    free(s->roots), free(s->root_t), free(s->cnt), free(s->nbr), free(s->eid), free(s->ts);
    memset(s, 0, sizeof *s);
}
