/* split.c: chronological splits and TGN's new-node masks (the protocol is spelled
 * out in split.h). Everything here is O(E + N) passes over the table; the only
 * randomness is the held-out node sample, drawn from a dgnn_rng seeded by opts. Also the
 * snapshot trainer's split by sample index (dgnn_snap_split, EvolveGCN's splitter.py). */
#include "dgnn/split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dgnn_split_opts dgnn_split_opts_default(void) {
    dgnn_split_opts o;
    memset(&o, 0, sizeof o);
    o.mode = DGNN_SPLIT_BY_TIME;
    o.val_q = 0.70;
    o.test_q = 0.85;
    o.new_node_frac = 0.1;
    o.seed = 2020;
    return o;
}

void dgnn_split_free(dgnn_split *s) {
    if (!s) return;
    free(s->mask);
    free(s->held_out);
    free(s->new_node);
    memset(s, 0, sizeof *s);
}

double dgnn_quantile_sorted(const double *a, int64_t n, double q) {
    DGNN_ASSERT(n >= 1);
    /* numpy 'linear': virtual index (n - 1) * q, computed in that order (numpy's
     * comment: it rounds better than the general alpha/beta formula). */
    double vi = (double)(n - 1) * q;
    if (!(vi < (double)(n - 1))) return a[n - 1]; /* at or past the last value */
    if (vi < 0) return a[0];
    double prev = floor(vi);
    int64_t i = (int64_t)prev;
    double gamma = vi - prev;
    double lo = a[i], hi = a[i + 1], diff = hi - lo;
    /* numpy's _lerp: from the upper end when gamma >= 0.5, for accuracy near 1 */
    return gamma >= 0.5 ? hi - diff * (1.0 - gamma) : lo + diff * gamma;
}

/* Period of each event: 0 train, 1 val, 2 test (stored in mask temporarily as the
 * TRAIN/VAL/TEST bit, before held-out nodes' edges are taken out of training). */
static int assign_periods(dgnn_split *s, const dgnn_events *ev, const dgnn_split_opts *o, dgnn_err *err) {
    const int64_t E = ev->num_events;
    if (o->mode == DGNN_SPLIT_BY_TIME) {
        if (!(o->val_q >= 0 && o->val_q <= o->test_q && o->test_q <= 1))
            return dgnn_err_set(err, DGNN_EINVAL, "split: quantiles must satisfy 0 <= val %g <= test %g <= 1",
                                o->val_q, o->test_q);
        for (int64_t e = 1; e < E; e++)
            if (!(ev->t[e - 1] <= ev->t[e]))
                return dgnn_err_set(err, DGNN_EINVAL,
                                    "split: event %lld: time %.17g is before the previous event's %.17g "
                                    "(the event table must be sorted by time)",
                                    (long long)e, ev->t[e], ev->t[e - 1]);
        s->val_time = dgnn_quantile_sorted(ev->t, E, o->val_q);
        s->test_time = dgnn_quantile_sorted(ev->t, E, o->test_q);
        for (int64_t e = 0; e < E; e++) {
            double t = ev->t[e];
            s->mask[e] = t <= s->val_time ? DGNN_SPLIT_TRAIN : t <= s->test_time ? DGNN_SPLIT_VAL : DGNN_SPLIT_TEST;
        }
    } else if (o->mode == DGNN_SPLIT_BY_EXT_ROLL) {
        if (!ev->ext_roll)
            return dgnn_err_set(err, DGNN_EINVAL, "split: split by ext_roll asked, but the table has no ext_roll column");
        s->val_time = s->test_time = NAN;
        for (int64_t e = 0; e < E; e++) {
            int r = ev->ext_roll[e];
            if (r < 0 || r > 2)
                return dgnn_err_set(err, DGNN_EINVAL, "split: event %lld: field 'ext_roll': %d is not 0, 1 or 2",
                                    (long long)e, r);
            s->mask[e] = (uint8_t)(1 << r); /* 1 TRAIN, 2 VAL, 4 TEST */
        }
    } else {
        return dgnn_err_set(err, DGNN_EINVAL, "split: unknown mode %d", (int)o->mode);
    }
    return DGNN_OK;
}

int dgnn_split_make(dgnn_split *s, const dgnn_events *ev, const dgnn_split_opts *opts, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    dgnn_split_opts o = opts ? *opts : dgnn_split_opts_default();
    const int64_t E = ev->num_events, N = ev->num_nodes;
    if (E < 1) return dgnn_err_set(err, DGNN_EINVAL, "split: the event table is empty");
    if (!(o.new_node_frac >= 0 && o.new_node_frac <= 1))
        return dgnn_err_set(err, DGNN_EINVAL, "split: new_node_frac %g outside [0, 1]", o.new_node_frac);

    s->num_events = E;
    s->num_nodes = N;
    s->mask = malloc((size_t)E);
    s->held_out = calloc((size_t)(N > 0 ? N : 1), 1);
    s->new_node = calloc((size_t)(N > 0 ? N : 1), 1);
    uint8_t *seen = calloc((size_t)(N > 0 ? N : 1), 1); /* bit 1: any event, bit 2: later period, bit 4: train */
    int32_t *later = NULL;
    int rc = DGNN_OK;
    if (!s->mask || !s->held_out || !s->new_node || !seen) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "split: out of memory for %lld events", (long long)E);
        goto fail;
    }
    for (int64_t e = 0; e < E; e++)
        if (ev->src[e] < 0 || ev->src[e] >= N || ev->dst[e] < 0 || ev->dst[e] >= N) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "split: event %lld: node id (%d -> %d) outside [0, %lld)",
                              (long long)e, ev->src[e], ev->dst[e], (long long)N);
            goto fail;
        }
    if ((rc = assign_periods(s, ev, &o, err))) goto fail;

    /* steps 1-2: node_set and the nodes of the later (val + test) periods */
    for (int64_t e = 0; e < E; e++) {
        uint8_t b = s->mask[e] == DGNN_SPLIT_TRAIN ? 1 : 3;
        seen[ev->src[e]] |= b;
        seen[ev->dst[e]] |= b;
        if (s->mask[e] == DGNN_SPLIT_TRAIN) s->train_end = e + 1;
        if (s->mask[e] != DGNN_SPLIT_TEST) s->val_end = e + 1;
    }
    int64_t n_later = 0;
    for (int64_t v = 0; v < N; v++) {
        s->n_nodes_seen += seen[v] & 1;
        n_later += (seen[v] >> 1) & 1;
    }
    /* step 3: floor(frac * n) nodes of the later periods, without replacement
     * (partial Fisher-Yates over the ascending id list) */
    int64_t want = (int64_t)(o.new_node_frac * (double)s->n_nodes_seen);
    if (want > n_later) want = n_later;
    if (want > 0) {
        later = malloc((size_t)n_later * sizeof(int32_t));
        if (!later) {
            rc = dgnn_err_set(err, DGNN_ENOMEM, "split: out of memory");
            goto fail;
        }
        int64_t j = 0;
        for (int64_t v = 0; v < N; v++)
            if (seen[v] & 2) later[j++] = (int32_t)v;
        dgnn_rng r;
        dgnn_rng_seed(&r, o.seed);
        for (int64_t i = 0; i < want; i++) {
            int64_t p = i + (int64_t)dgnn_rng_below(&r, (uint64_t)(n_later - i));
            int32_t tmp = later[i];
            later[i] = later[p];
            later[p] = tmp;
            s->held_out[later[i]] = 1;
        }
    }
    s->n_held_out = want;

    /* step 4: training edges never touch a held-out node */
    for (int64_t e = 0; e < E; e++) {
        if (s->mask[e] != DGNN_SPLIT_TRAIN) continue;
        int32_t u = ev->src[e], v = ev->dst[e];
        if (s->held_out[u] || s->held_out[v]) {
            s->mask[e] = 0;
            continue;
        }
        seen[u] |= 4;
        seen[v] |= 4;
    }
    /* step 5: new nodes = seen anywhere, but in no training edge */
    for (int64_t v = 0; v < N; v++) {
        s->new_node[v] = (seen[v] & 1) && !(seen[v] & 4);
        s->n_new_nodes += s->new_node[v];
    }
    /* step 6 and the counts */
    for (int64_t e = 0; e < E; e++) {
        uint8_t m = s->mask[e];
        int touches_new = s->new_node[ev->src[e]] || s->new_node[ev->dst[e]];
        if (m & DGNN_SPLIT_VAL && touches_new) m |= DGNN_SPLIT_NEW_VAL;
        if (m & DGNN_SPLIT_TEST && touches_new) m |= DGNN_SPLIT_NEW_TEST;
        s->mask[e] = m;
        s->n_train += (m & DGNN_SPLIT_TRAIN) != 0;
        s->n_val += (m & DGNN_SPLIT_VAL) != 0;
        s->n_test += (m & DGNN_SPLIT_TEST) != 0;
        s->n_new_val += (m & DGNN_SPLIT_NEW_VAL) != 0;
        s->n_new_test += (m & DGNN_SPLIT_NEW_TEST) != 0;
    }
    free(seen);
    free(later);
    return DGNN_OK;
fail:
    free(seen);
    free(later);
    dgnn_split_free(s);
    return rc;
}

int dgnn_split_indices(int64_t **idx, int64_t *n, const dgnn_split *s, int bits, dgnn_err *err) {
    int64_t c = 0;
    for (int64_t e = 0; e < s->num_events; e++) c += (s->mask[e] & bits) != 0;
    *idx = malloc((size_t)(c > 0 ? c : 1) * sizeof(int64_t));
    *n = 0;
    if (!*idx) return dgnn_err_set(err, DGNN_ENOMEM, "split: out of memory for %lld indices", (long long)c);
    for (int64_t e = 0, j = 0; e < s->num_events; e++)
        if (s->mask[e] & bits) (*idx)[j++] = e;
    *n = c;
    return DGNN_OK;
}

int dgnn_split_check(const dgnn_split *s, const dgnn_events *ev, int need_eval, dgnn_err *err) {
    const char *empty = s->n_train == 0 ? "training" : !need_eval ? NULL : s->n_val == 0 ? "validation"
                                                       : s->n_test == 0 ? "test" : NULL;
    if (!empty) return DGNN_OK;
    const int64_t E = s->num_events;
    char counts[160];
    snprintf(counts, sizeof counts, "of %lld events: %lld training, %lld validation, %lld test", (long long)E,
             (long long)s->n_train, (long long)s->n_val, (long long)s->n_test);
    if (isnan(s->val_time)) /* by ext_roll */
        return dgnn_err_set(err, DGNN_EINVAL, "the split leaves no %s events (%s): no event's ext_roll is %d", empty,
                            counts, s->n_train == 0 ? 0 : s->n_val == 0 ? 1 : 2);
    if (E > 0 && ev->t[0] == ev->t[E - 1])
        return dgnn_err_set(err, DGNN_EINVAL,
                            "the split leaves no %s events (%s): all %lld events share the timestamp %.17g, and a "
                            "chronological split (training up to a time quantile, then validation, then test) needs "
                            "events at three or more distinct times",
                            empty, counts, (long long)E, ev->t[0]);
    if (s->n_train == 0 && s->n_held_out > 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "the split leaves no training events (%s): every training-period event touches one of "
                            "the %lld nodes held out as new nodes; lower --new-node-frac",
                            counts, (long long)s->n_held_out);
    return dgnn_err_set(err, DGNN_EINVAL,
                        "the split leaves no %s events (%s; training t <= %.17g, validation t <= %.17g, test after): "
                        "the stream needs more events, spread over more distinct times",
                        empty, counts, s->val_time, s->test_time);
}

void dgnn_snap_split(int64_t T, int64_t W, double train_frac, double val_frac, int64_t *train_begin,
                     int64_t *train_end, int64_t *val_end, int64_t *test_end) {
    /* splitter.py multiplies a float32 max_time by the Python float proportion (float32
     * arithmetic), floors, and ends the test split at the tasker's max_time + 1 = T - 1 */
    float max_time = (float)(T - 1);
    *train_begin = W;
    *train_end = (int64_t)floorf(max_time * (float)train_frac);
    *val_end = (int64_t)floorf(max_time * (float)(train_frac + val_frac));
    *test_end = T - 1;
}

int64_t dgnn_snap_split_min_snapshots(int64_t W, double train_frac, double val_frac) {
    /* fewer than W + 2 leave no sample at all (a sample reads W + 1 snapshots and predicts
     * one more); the split's own rule, not a copy of it, says when training has one */
    int64_t need = W + 2, tb = 0, te = 0, ve = 0, xe = 0;
    if (train_frac > 0 && train_frac < 1) {
        for (int64_t t = need; t < need + 1000000; t++) {
            dgnn_snap_split(t, W, train_frac, val_frac, &tb, &te, &ve, &xe);
            if (te > tb) {
                need = t;
                break;
            }
        }
    }
    return need;
}
