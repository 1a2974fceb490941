/* sampler_bench.c: throughput of the temporal neighbour samplers, measured the way
 * the event trainer queries them (consecutive batches of events, roots = the batch's
 * sources then destinations at their event times). `dgnn bench sampler` prints the
 * result; the numbers go to docs/ and bench/. */
#include "dgnn/sampler.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Runs one sampler (uniform = 0: most recent) over batches until `seconds` have
 * passed (at least one batch); returns the roots processed and the elapsed time. */
static int time_sampler(int64_t *roots_done, double *elapsed, const dgnn_tcsr *g, const dgnn_events *ev,
                        int uniform, int k, int64_t bs, double seconds, int32_t *root, double *root_t,
                        dgnn_sample_buf *out, dgnn_err *err) {
    const int64_t E = ev->num_events;
    int64_t start = 0, roots = 0, calls = 0;
    double t0 = dgnn_now(), el = 0;
    do {
        int64_t n = E - start < bs ? E - start : bs;
        for (int64_t j = 0; j < n; j++) {
            root[j] = ev->src[start + j];
            root[n + j] = ev->dst[start + j];
            root_t[j] = root_t[n + j] = ev->t[start + j];
        }
        int rc = uniform ? dgnn_sample_uniform(out->nbr, out->eid, out->ts, out->count, g, root, root_t, 2 * n, k,
                                               dgnn_hash64((uint64_t)calls), err)
                         : dgnn_sample_recent(out->nbr, out->eid, out->ts, out->count, g, root, root_t, 2 * n, k,
                                              err);
        if (rc) return rc;
        roots += 2 * n;
        calls++;
        start += n;
        if (start >= E) start = 0; /* wrap: an epoch is over, start the next */
        el = dgnn_now() - t0;
    } while (el < seconds);
    *roots_done = roots;
    *elapsed = el;
    return DGNN_OK;
}

int dgnn_bench_sampler(dgnn_bench_sampler_result *res, const dgnn_events *ev, int k, int threads,
                       double seconds, int batch_size, dgnn_err *err) {
    memset(res, 0, sizeof *res);
    if (k < 1) return dgnn_err_set(err, DGNN_EINVAL, "bench sampler: k must be >= 1 (got %d)", k);
    if (ev->num_events < 1) return dgnn_err_set(err, DGNN_EINVAL, "bench sampler: the event table is empty");
    const int64_t bs = batch_size > 0 ? batch_size : 600;

    int prev_threads = omp_get_max_threads();
    if (threads > 0) omp_set_num_threads(threads);
    res->threads = omp_get_max_threads();

    dgnn_tcsr g;
    dgnn_sample_buf out;
    memset(&out, 0, sizeof out);
    int32_t *root = malloc((size_t)(2 * bs) * sizeof(int32_t));
    double *root_t = malloc((size_t)(2 * bs) * sizeof(double));
    double t0 = dgnn_now();
    int rc = dgnn_tcsr_build(&g, ev, -1, 0, err);
    res->build_s = dgnn_now() - t0;
    if (rc) goto done;
    if (!root || !root_t) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "bench sampler: out of memory");
        goto done;
    }
    if ((rc = dgnn_sample_buf_init(&out, 2 * bs, k, err))) goto done;

    double el;
    if ((rc = time_sampler(&res->recent_roots, &el, &g, ev, 0, k, bs, seconds, root, root_t, &out, err))) goto done;
    res->recent_qps = el > 0 ? (double)res->recent_roots / el : 0;
    if ((rc = time_sampler(&res->uniform_roots, &el, &g, ev, 1, k, bs, seconds, root, root_t, &out, err))) goto done;
    res->uniform_qps = el > 0 ? (double)res->uniform_roots / el : 0;

done:
    dgnn_sample_buf_free(&out);
    dgnn_tcsr_free(&g);
    free(root);
    free(root_t);
    omp_set_num_threads(prev_threads);
    return rc;
}
