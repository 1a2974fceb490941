/* tgnn_params.c: the event models' named parameter pointers (DESIGN.md convention 2, after
 * llm.c's ParameterTensors). A kind declares each tensor together with the field of
 * tgnn_tensors it belongs in; once the slab exists, one call points m->w's fields into the
 * values and m->dw's, the same names, into the gradients. Forward and backward then read
 * m->w.W_ih, never a slab index. Names, shapes and the declaration order are the slab's
 * layout (checkpoints hash it), so they are exactly those dgnn_params_add would be given. */
#include "tgnn_internal.h"

static void remember(dgnn_tgnn *m, int idx, float **val, float **grad) {
    DGNN_ASSERT(m->ndecl < TGNN_MAX_TENSORS);
    m->decl[m->ndecl].idx = idx;
    m->decl[m->ndecl].val = val;
    m->decl[m->ndecl].grad = grad;
    m->ndecl++;
}

void tgnn_param(dgnn_tgnn *m, float **val, float **grad, const char *name, int64_t d0, int64_t d1) {
    remember(m, dgnn_params_add(&m->p, name, d0, d1), val, grad);
}

void tgnn_param1(dgnn_tgnn *m, float **val, float **grad, const char *name, int64_t d0) {
    remember(m, dgnn_params_add1(&m->p, name, d0), val, grad);
}

void tgnn_point_params(dgnn_tgnn *m) {
    for (int i = 0; i < m->ndecl; i++) {
        *m->decl[i].val = dgnn_params_get(&m->p, m->decl[i].idx);
        *m->decl[i].grad = dgnn_params_grad(&m->p, m->decl[i].idx);
    }
}
