/* snapmodel_ngru_cuda.c: snapmodel_ngru.c on the GPU (snapmodel_cuda_internal.h): the
 * device state the two kinds with a GRU over node states share (tgcn_cuda.c,
 * gcrn_cuda.c), their tensors' slab offsets found by the CPU kinds' names and the
 * window's buffers, laid out as the CPU kinds' (snapm_ngru_bufs). NOT YET VERIFIED ON
 * HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>

int snapc_ngru_init(dgnn_snapmodel_cuda *g, const char *kind, const char *const part[2], int64_t extra,
                    const char *label, dgnn_err *err) {
    snapc_ngru *d = dgnn_xcalloc(1, sizeof *d);
    g->impl = d;
    d->extra = extra, d->label = label;
    char name[DGNN_PARAM_NAME_MAX];
    for (int k = 0; k < 2; k++)
        for (int gate = 0; gate < 3; gate++) {
            snapm_ngru_name(name, sizeof name, kind, part[k], gate, "W"), d->oW[k][gate] = snapc_offset(g->m, name);
            snapm_ngru_name(name, sizeof name, kind, part[k], gate, "b"), d->ob[k][gate] = snapc_offset(g->m, name);
        }
    const int64_t NL = g->N * g->L;
    char what[96];
    snprintf(what, sizeof what, "%s's node activations", label);
    float **nl[] = {&d->zero, &d->tmp, &d->aux, &d->dZp, &d->dRp, &d->dHtp, &d->dHR, &d->dHa, &d->dHb};
    int rc = DGNN_OK;
    for (size_t i = 0; i < sizeof nl / sizeof nl[0] && !rc; i++) rc = SNAPC_ALLOC_F(g, *nl[i], NL, what);
    if (!rc) rc = dgnn_cuda_zero(g->c, d->zero, (size_t)NL * sizeof(float), err);
    return rc; /* the front frees a partial kind (snapc_ngru_free) */
}

static void free_window(dgnn_snapmodel_cuda *g, snapc_ngru *d) {
    float **p[] = {&d->Hs, &d->Z, &d->R, &d->Ht, &d->HR, &d->X};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, *p[i]), *p[i] = NULL;
    d->Tcap = 0;
}

void snapc_ngru_free(dgnn_snapmodel_cuda *g) {
    snapc_ngru *d = g->impl;
    if (!d) return;
    free_window(g, d);
    void *p[] = {d->zero, d->tmp, d->aux, d->dZp, d->dRp, d->dHtp, d->dHR, d->dHa, d->dHb};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(d);
    g->impl = NULL;
}

int snapc_ngru_ensure(dgnn_snapmodel_cuda *g, int64_t T, dgnn_err *err) {
    snapc_ngru *d = g->impl;
    if (T <= d->Tcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(g->c, err);
    if (rc) return rc;
    free_window(g, d);
    const int64_t TNL = T * g->N * g->L;
    char what[96];
    snprintf(what, sizeof what, "the window's %s states and gates", d->label);
    if (d->extra > 0 && (rc = SNAPC_ALLOC_F(g, d->X, d->extra * TNL, what))) return rc;
    float **w[] = {&d->Hs, &d->Z, &d->R, &d->Ht, &d->HR};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if ((rc = SNAPC_ALLOC_F(g, *w[i], TNL, what))) return rc;
    d->Tcap = T;
    return DGNN_OK;
}
#endif
