/* snapmodel_ngru.c: what the two kinds with a GRU over node states share (tgcn.c,
 * gcrn.c; their GPU twins find the same tensors by name): the gates' tensors and the
 * window's buffers (snapmodel_internal.h). */
#include "snapmodel_internal.h"

#include <stdio.h>
#include <stdlib.h>

void snapm_ngru_name(char *buf, size_t cap, const char *kind, const char *part, int gate, const char *what) {
    static const char gate_name[] = "zrh";
    snprintf(buf, cap, "%s.%s_%c.%s", kind, part, gate_name[gate], what);
}

void snapm_ngru_declare(dgnn_snapmodel *m, snapm_ngru_idx *ix, const char *kind, const char *const part[2],
                        const int64_t shape[2][2]) {
    char name[DGNN_PARAM_NAME_MAX];
    for (int g = 0; g < 3; g++)
        for (int k = 0; k < 2; k++) {
            snapm_ngru_name(name, sizeof name, kind, part[k], g, "W");
            ix->W[k][g] = dgnn_params_add(&m->p, name, shape[k][0], shape[k][1]);
            snapm_ngru_name(name, sizeof name, kind, part[k], g, "b");
            ix->b[k][g] = dgnn_params_add1(&m->p, name, m->L);
        }
}

int snapm_ngru_alloc(dgnn_snapmodel *m, snapm_ngru_bufs *b, int64_t extra, dgnn_err *err) {
    const int64_t NL = MUL(m->N, m->L);
    b->extra = extra;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW_ZEROED(&as, b->zero, NL);
    float **bufs[] = {&b->tmp, &b->aux, &b->dZp, &b->dRp, &b->dHtp, &b->dHR, &b->dHa, &b->dHb};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) DGNN_GROW(&as, *bufs[i], NL);
    return snapm_alloc_done(m, &as, 0, err);
}

static void free_window(snapm_ngru_bufs *b) {
    float **p[] = {&b->Hs, &b->Z, &b->R, &b->Ht, &b->HR, &b->X};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(*p[i]), *p[i] = NULL;
    b->Tcap = 0;
}

int snapm_ngru_ensure(dgnn_snapmodel *m, snapm_ngru_bufs *b, int64_t T, dgnn_err *err) {
    if (T <= b->Tcap) return DGNN_OK;
    free_window(b);
    const int64_t TNL = MUL(MUL(T, m->N), m->L);
    dgnn_alloc_set as = {0, 0};
    if (b->extra > 0) DGNN_GROW(&as, b->X, MUL(b->extra, TNL));
    float **bufs[] = {&b->Hs, &b->Z, &b->R, &b->Ht, &b->HR};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) DGNN_GROW(&as, *bufs[i], TNL);
    int rc = snapm_alloc_done(m, &as, T, err);
    if (rc) return rc;
    b->Tcap = T;
    return DGNN_OK;
}

void snapm_ngru_free(snapm_ngru_bufs *b) {
    free_window(b);
    void *p[] = {b->zero, b->tmp, b->aux, b->dZp, b->dRp, b->dHtp, b->dHR, b->dHa, b->dHb};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
}
