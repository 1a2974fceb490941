/* node_head.c: the snapshot trainer's node-regression head (node_head.h):
 * Linear(L -> C) -> ReLU -> Linear(C -> 1), one slab with named pointers. */
#include "dgnn/node_head.h"

#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

void dgnn_node_head_init_empty(dgnn_node_head *h) {
    memset(h, 0, sizeof *h);
    dgnn_params_init(&h->p);
}

int dgnn_node_head_init(dgnn_node_head *h, int64_t N, int64_t L, int64_t C, uint64_t seed, dgnn_err *err) {
    dgnn_node_head_init_empty(h);
    h->N = N, h->L = L, h->C = C;
    const int iW1 = dgnn_params_add(&h->p, "head.W1", C, L);
    const int ib1 = dgnn_params_add1(&h->p, "head.b1", C);
    const int iW2 = dgnn_params_add(&h->p, "head.W2", 1, C);
    const int ib2 = dgnn_params_add1(&h->p, "head.b2", 1);
    int rc = dgnn_params_alloc(&h->p, err);
    if (rc) return rc;
    h->w = (dgnn_node_head_tensors){dgnn_params_get(&h->p, iW1), dgnn_params_get(&h->p, ib1),
                                    dgnn_params_get(&h->p, iW2), dgnn_params_get(&h->p, ib2)};
    h->g = (dgnn_node_head_tensors){dgnn_params_grad(&h->p, iW1), dgnn_params_grad(&h->p, ib1),
                                    dgnn_params_grad(&h->p, iW2), dgnn_params_grad(&h->p, ib2)};
    /* torch.nn.Linear's initialisation, from its own stream of the model seed */
    dgnn_rng g;
    dgnn_rng_seed2(&g, seed, 0x68656164 /* "head" */);
    dgnn_params_init_torch_linear(&h->p, iW1, L, &g);
    dgnn_params_init_torch_linear(&h->p, ib1, L, &g);
    dgnn_params_init_torch_linear(&h->p, iW2, C, &g);
    dgnn_params_init_torch_linear(&h->p, ib2, C, &g);
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, h->hz, dgnn_size_mul(N, C));
    DGNN_GROW(&as, h->hdz, dgnn_size_mul(N, C));
    DGNN_GROW(&as, h->yhat, N);
    DGNN_GROW(&as, h->dyhat, N);
    return dgnn_alloc_done(&as, err, "the node head's activations (%lld nodes x --cls-hidden %lld)", (long long)N,
                           (long long)C);
}

void dgnn_node_head_free(dgnn_node_head *h) {
    dgnn_params_free(&h->p);
    free(h->hz), free(h->hdz), free(h->yhat), free(h->dyhat);
    dgnn_node_head_init_empty(h);
}

/* hz = relu(H W1^T + b1) (N, C), yhat = hz W2^T + b2 (N) */
void dgnn_node_head_forward(dgnn_node_head *h, const float *H) {
    dgnn_linear_forward(h->hz, H, h->w.W1, h->w.b1, h->N, h->L, h->C);
    dgnn_relu_forward(h->hz, h->hz, h->N * h->C);
    dgnn_linear_forward(h->yhat, h->hz, h->w.W2, h->w.b2, h->N, h->C, 1);
}

void dgnn_node_head_backward(dgnn_node_head *h, float *dH, const float *H) {
    float *dr = h->hdz;
    memset(dr, 0, (size_t)(h->N * h->C) * sizeof(float));
    dgnn_linear_backward(dr, h->g.W2, h->g.b2, h->dyhat, h->hz, h->w.W2, h->N, h->C, 1);
    /* relu backward in place: the mask of the saved output */
    for (int64_t i = 0; i < h->N * h->C; i++)
        if (!(h->hz[i] > 0)) dr[i] = 0;
    dgnn_linear_backward(dH, h->g.W1, h->g.b1, dr, H, h->w.W1, h->N, h->L, h->C);
}
