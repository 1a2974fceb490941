/* prefetch.c: one background worker thread that runs one job at a time (declared in
 * prefetch.h). DepBloom's --critical-path uses it to sample batch i+1 while
 * batch i computes. The worker runs its OpenMP regions on one thread, so it takes one
 * core's share next to the trainer's team instead of a second full team. */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>

#include "prefetch.h"

struct prefetch {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    prefetch_fn fn;  /* the submitted job (NULL: none pending) */
    void *ctx;
    int busy;        /* submitted and not yet finished */
    int stop;
    int rc;          /* the finished job's result and error */
    dgnn_err err;
};

static void *worker(void *arg) {
    struct prefetch *pf = arg;
    omp_set_num_threads(1);
    pthread_mutex_lock(&pf->mu);
    for (;;) {
        while (!pf->fn && !pf->stop) pthread_cond_wait(&pf->cv, &pf->mu);
        if (!pf->fn) break; /* stop, nothing pending */
        prefetch_fn fn = pf->fn;
        void *ctx = pf->ctx;
        pf->fn = NULL;
        pthread_mutex_unlock(&pf->mu);
        dgnn_err e;
        dgnn_err_clear(&e);
        int rc = fn(ctx, &e);
        pthread_mutex_lock(&pf->mu);
        pf->rc = rc, pf->err = e, pf->busy = 0;
        pthread_cond_broadcast(&pf->cv);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

prefetch *prefetch_start(dgnn_err *err) {
    struct prefetch *pf = dgnn_xcalloc(1, sizeof *pf);
    pthread_mutex_init(&pf->mu, NULL);
    pthread_cond_init(&pf->cv, NULL);
    if (pthread_create(&pf->thread, NULL, worker, pf) != 0) {
        pthread_cond_destroy(&pf->cv);
        pthread_mutex_destroy(&pf->mu);
        free(pf);
        dgnn_err_set(err, DGNN_EINVAL, "prefetch: cannot start a thread");
        return NULL;
    }
    return pf;
}

void prefetch_submit(prefetch *pf, prefetch_fn fn, void *ctx) {
    pthread_mutex_lock(&pf->mu);
    while (pf->busy) pthread_cond_wait(&pf->cv, &pf->mu); /* one job at a time */
    pf->fn = fn, pf->ctx = ctx, pf->busy = 1, pf->rc = DGNN_OK;
    pthread_cond_broadcast(&pf->cv);
    pthread_mutex_unlock(&pf->mu);
}

int prefetch_wait(prefetch *pf, dgnn_err *err) {
    pthread_mutex_lock(&pf->mu);
    while (pf->busy) pthread_cond_wait(&pf->cv, &pf->mu);
    const int rc = pf->rc;
    if (rc && err) *err = pf->err;
    pf->rc = DGNN_OK;
    pthread_mutex_unlock(&pf->mu);
    return rc;
}

void prefetch_stop(prefetch *pf) {
    if (!pf) return;
    prefetch_wait(pf, NULL);
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->cv);
    pthread_mutex_unlock(&pf->mu);
    pthread_join(pf->thread, NULL);
    pthread_cond_destroy(&pf->cv);
    pthread_mutex_destroy(&pf->mu);
    free(pf);
}
