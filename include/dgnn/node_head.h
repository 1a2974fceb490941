/* node_head.h: the node-regression head of the snapshot trainer's node task
 * (snap_train.h): Linear(L -> C) -> ReLU -> Linear(C -> 1) on every node's embedding,
 * yhat (N) from H (N, L). It is a model of its own, with its own parameter slab (the
 * reference's classifier has its own optimizer too, so the trainer keeps a second Adam
 * for it) and named pointers into the slab (DESIGN.md, convention 2).
 *
 * Initialisation: torch.nn.Linear's (U(+-1/sqrt(fan_in)) for weights and biases), from
 * its own stream of the model seed, so adding the head changes no draw of the model's.
 * Ownership: the head owns its slab and activations; dgnn_node_head_free releases them. */
#ifndef DGNN_NODE_HEAD_H
#define DGNN_NODE_HEAD_H

#include "dgnn/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Named pointers into one slab (the values, or the gradients). */
typedef struct {
    float *W1; /* (C, L) */
    float *b1; /* (C) */
    float *W2; /* (1, C) */
    float *b2; /* (1) */
} dgnn_node_head_tensors;

typedef struct {
    int64_t N, L, C;
    dgnn_params p;              /* the slab: values, gradients, Adam moments (checkpointed) */
    dgnn_node_head_tensors w;   /* into p.value */
    dgnn_node_head_tensors g;   /* into p.grad */
    /* activations of the last forward (saved for the backward) */
    float *hz;    /* (N, C) relu(H W1^T + b1) */
    float *hdz;   /* (N, C) scratch of the backward */
    float *yhat;  /* (N) the prediction */
    float *dyhat; /* (N) the loss gradient the caller fills before the backward */
} dgnn_node_head;

/* A zeroed head with no slab (p.total = 0): what a trainer holds when its task has none. */
void dgnn_node_head_init_empty(dgnn_node_head *h);
/* The head for N nodes, embeddings of width L and C hidden units, initialised from seed.
 * Errors: DGNN_ENOMEM (the slab, or the activations, naming their sizes). */
int dgnn_node_head_init(dgnn_node_head *h, int64_t N, int64_t L, int64_t C, uint64_t seed, dgnn_err *err);
/* Releases the slab and the activations; safe on an empty head. */
void dgnn_node_head_free(dgnn_node_head *h);

/* h->yhat (N) from H (N, L), saving h->hz for the backward. */
void dgnn_node_head_forward(dgnn_node_head *h, const float *H);
/* From h->dyhat (N) of the last forward on H: the head's gradients += and dH (N, L) +=. */
void dgnn_node_head_backward(dgnn_node_head *h, float *dH, const float *H);

#ifdef __cplusplus
}
#endif
#endif
