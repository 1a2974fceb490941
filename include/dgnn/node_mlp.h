/* node_mlp.h: the decoder of dynamic node classification (event_node.h), the TGN code's
 * utils/utils.py MLP: Linear(L -> 80) -> ReLU -> Dropout -> Linear(80 -> 10) -> ReLU ->
 * Dropout -> Linear(10 -> 1), one logit per embedding row (the TGN code applies the
 * sigmoid outside; dgnn's loss takes the logit, nn.h's dgnn_bce_logits_*).
 *
 * A model of its own beside the frozen event model, with its own parameter slab (and so
 * its own Adam), read through named pointers (DESIGN.md, convention 2). Initialisation:
 * torch.nn.Linear's, from its own stream of seed. The activations grow to the largest
 * batch seen. Ownership: the decoder owns its slab and activations; dgnn_node_mlp_free
 * releases them. */
#ifndef DGNN_NODE_MLP_H
#define DGNN_NODE_MLP_H

#include "dgnn/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    float *W1, *b1; /* (H1, L), (H1) */
    float *W2, *b2; /* (H2, H1), (H2) */
    float *W3, *b3; /* (1, H2), (1) */
} dgnn_node_mlp_tensors;

typedef struct {
    int64_t L, H1, H2; /* input width, hidden widths (the TGN code: 80, 10) */
    float dropout;     /* after each hidden ReLU (the TGN code: its --drop_out, 0.1) */
    dgnn_params p;     /* the slab: values, gradients, Adam moments */
    dgnn_node_mlp_tensors w, g; /* into p.value, p.grad */
    /* the last forward (B rows), saved for the backward */
    int64_t B, cap;
    float *r1, *m1, *a1; /* (B, H1) ReLU output, dropout mask, after dropout */
    float *r2, *m2, *a2; /* (B, H2) */
    float *d1, *d2;      /* (B, H1), (B, H2) backward scratch */
} dgnn_node_mlp;

/* A decoder for embeddings of width L. Errors: DGNN_EINVAL (a width < 1, dropout outside
 * [0, 1)), DGNN_ENOMEM. */
int dgnn_node_mlp_init(dgnn_node_mlp *d, int64_t L, int64_t H1, int64_t H2, float dropout, uint64_t seed,
                       dgnn_err *err);
void dgnn_node_mlp_free(dgnn_node_mlp *d);
/* logits (B) from H (B, L); rng NULL: inference (no dropout), else the dropout masks
 * draw from it. DGNN_ENOMEM when the activations cannot grow to B rows. */
int dgnn_node_mlp_forward(dgnn_node_mlp *d, float *logits, const float *H, int64_t B, dgnn_rng *rng,
                          dgnn_err *err);
/* From dlogits (B) of the last forward on H: the decoder's gradients += and, when dH is
 * not NULL, dH (B, L) +=. */
void dgnn_node_mlp_backward(dgnn_node_mlp *d, float *dH, const float *dlogits, const float *H);

#ifdef __cplusplus
}
#endif
#endif
