/* tgnn_batch.c: the steps of one batch every event model takes (tgnn.h, steps 1 and 2):
 * its roots [src; dst; negatives] at the event times, the neighbours sampled for those of
 * them the kind samples (or taken from a batch sampled ahead, tgnn_presample.c), and the
 * node-map stamp that gives distinct-row lookups without clearing N entries per batch. */
#include <string.h>

#include "dgnn/prof.h"
#include "dgnn/sampler.h"
#include "tgnn_internal.h"

int tgnn_fill_roots(int32_t *roots, double *root_t, const dgnn_events *ev, int64_t e0, int64_t B, int64_t R,
                    const int32_t *neg, int64_t N, dgnn_err *err) {
    for (int64_t i = 0; i < R; i++) {
        int64_t blk = i / B, e = e0 + i % B;
        roots[i] = blk == 0 ? ev->src[e] : blk == 1 ? ev->dst[e] : neg[(blk - 2) * B + i % B];
        root_t[i] = ev->t[e];
        if (roots[i] < 0 || roots[i] >= N)
            return dgnn_err_set(err, DGNN_EINVAL, "batch at event %lld: node %d outside [0, %lld)", (long long)e,
                                roots[i], (long long)N);
    }
    return DGNN_OK;
}

int tgnn_set_roots(dgnn_tgnn *m, const dgnn_events *ev, const int32_t *neg, dgnn_err *err) {
    if (m->emb_nodes) { /* dgnn_tgnn_embed checked the ids */
        memcpy(m->roots, m->emb_nodes, (size_t)m->R * sizeof(int32_t));
        memcpy(m->root_t, m->emb_t, (size_t)m->R * sizeof(double));
        return DGNN_OK;
    }
    return tgnn_fill_roots(m->roots, m->root_t, ev, m->e0, m->B, m->R, neg, m->N, err);
}

void tgnn_batch_grow(dgnn_tgnn *m, dgnn_alloc_set *as, int64_t R, int64_t k) {
    TGNN_GROW(as, m->roots, R);
    TGNN_GROW(as, m->root_t, R);
    TGNN_GROW(as, m->s_nbr, MUL(R, k));
    TGNN_GROW(as, m->s_eid, MUL(R, k));
    TGNN_GROW(as, m->s_ts, MUL(R, k));
    TGNN_GROW(as, m->s_cnt, R);
    TGNN_GROW(as, m->off, dgnn_size_add(R, 1));
    TGNN_GROW(as, m->row_root, R);
}

int64_t tgnn_sampled_roots(const dgnn_tgnn *m, int64_t B, int64_t R) {
    switch (m->ops->sample) {
    case TGNN_SAMPLE_ALL: return R;
    case TGNN_SAMPLE_TRUE: return 2 * B;
    case TGNN_SAMPLE_NONE: break;
    }
    return 0;
}

/* Copies a presampled batch (m->pre) into s_*; DGNN_EINVAL when it is not this batch. */
static int take_presample(dgnn_tgnn *m, dgnn_err *err) {
    const dgnn_tgnn_sample *s = m->pre;
    m->pre = NULL;
    const int64_t R = m->R, Rs = m->Rs, k = m->cfg.neighbors;
    if (s->e0 != m->e0 || s->B != m->B || s->R != R || s->Rs != Rs || s->k != k ||
        memcmp(s->roots, m->roots, (size_t)R * sizeof(int32_t)) != 0 ||
        memcmp(s->root_t, m->root_t, (size_t)R * sizeof(double)) != 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "presampled batch at event %lld (%lld events) does not match the forward's batch at "
                            "event %lld (%lld events)",
                            (long long)s->e0, (long long)s->B, (long long)m->e0, (long long)m->B);
    memcpy(m->s_nbr, s->nbr, (size_t)(Rs * k) * sizeof(int32_t));
    memcpy(m->s_eid, s->eid, (size_t)(Rs * k) * sizeof(int64_t));
    memcpy(m->s_ts, s->ts, (size_t)(Rs * k) * sizeof(double));
    memcpy(m->s_cnt, s->cnt, (size_t)Rs * sizeof(int32_t));
    m->pre_used = 1;
    return DGNN_OK;
}

static int tgnn_sample_body(dgnn_tgnn *m, const dgnn_tcsr *g, dgnn_rng *rng, dgnn_err *err) {
    const int64_t R = m->R, Rs = m->Rs, k = m->cfg.neighbors;
    const double t0 = dgnn_now();
    m->off[0] = 0;
    if (m->pre) {
        int rc = take_presample(m, err);
        if (rc) return rc;
    } else if (Rs > 0) {
        int rc;
        if (m->cfg.uniform_sampler) {
            uint64_t seed = rng ? dgnn_rng_u64(rng) : dgnn_hash64(m->cfg.seed ^ (uint64_t)m->e0);
            rc = dgnn_sample_uniform(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, Rs, (int)k, seed,
                                     err);
        } else {
            rc = dgnn_sample_recent(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, Rs, (int)k, err);
        }
        if (rc) return rc;
    }
    for (int64_t i = 0; i < R; i++) m->off[i + 1] = m->off[i] + (i < Rs ? m->s_cnt[i] : 0);
    m->P = m->off[R];
    m->sample_seconds = m->pre_used ? 0 : dgnn_now() - t0;
    m->pre_used = 0;
    return DGNN_OK;
}

int tgnn_sample(dgnn_tgnn *m, const dgnn_tcsr *g, dgnn_rng *rng, dgnn_err *err) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_SAMPLE);
    int prof_r = tgnn_sample_body(m, g, rng, err);
    dgnn_prof_end(prof_t);
    return prof_r;
}

void tgnn_new_stamp(dgnn_tgnn *m) {
    m->cur_stamp++;
    if (m->cur_stamp == INT32_MAX) { /* wrap: clear once every 2^31 batches */
        memset(m->stamp, 0, (size_t)m->N * sizeof(int32_t));
        m->cur_stamp = 1;
    }
}
