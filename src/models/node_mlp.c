/* node_mlp.c: the node-classification decoder (node_mlp.h), the TGN code's MLP:
 * three linear layers, ReLU then dropout after each of the first two. */
#include "dgnn/node_mlp.h"

#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

static void free_acts(dgnn_node_mlp *d) {
    free(d->r1), free(d->m1), free(d->a1), free(d->r2), free(d->m2), free(d->a2), free(d->d1), free(d->d2);
    d->r1 = d->m1 = d->a1 = d->r2 = d->m2 = d->a2 = d->d1 = d->d2 = NULL;
    d->cap = 0;
}

int dgnn_node_mlp_init(dgnn_node_mlp *d, int64_t L, int64_t H1, int64_t H2, float dropout, uint64_t seed,
                       dgnn_err *err) {
    memset(d, 0, sizeof *d);
    dgnn_params_init(&d->p);
    if (L < 1 || H1 < 1 || H2 < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "node decoder: widths %lld -> %lld -> %lld -> 1 must be >= 1",
                            (long long)L, (long long)H1, (long long)H2);
    if (!(dropout >= 0 && dropout < 1))
        return dgnn_err_set(err, DGNN_EINVAL, "node decoder: dropout must be in [0, 1) (got %g)", (double)dropout);
    d->L = L, d->H1 = H1, d->H2 = H2, d->dropout = dropout;
    const int i1 = dgnn_params_add(&d->p, "node_mlp.fc_1.weight", H1, L);
    const int j1 = dgnn_params_add1(&d->p, "node_mlp.fc_1.bias", H1);
    const int i2 = dgnn_params_add(&d->p, "node_mlp.fc_2.weight", H2, H1);
    const int j2 = dgnn_params_add1(&d->p, "node_mlp.fc_2.bias", H2);
    const int i3 = dgnn_params_add(&d->p, "node_mlp.fc_3.weight", 1, H2);
    const int j3 = dgnn_params_add1(&d->p, "node_mlp.fc_3.bias", 1);
    int rc = dgnn_params_alloc(&d->p, err);
    if (rc) return rc;
    const dgnn_params *p = &d->p;
    d->w = (dgnn_node_mlp_tensors){dgnn_params_get(p, i1), dgnn_params_get(p, j1), dgnn_params_get(p, i2),
                                   dgnn_params_get(p, j2), dgnn_params_get(p, i3), dgnn_params_get(p, j3)};
    d->g = (dgnn_node_mlp_tensors){dgnn_params_grad(p, i1), dgnn_params_grad(p, j1), dgnn_params_grad(p, i2),
                                   dgnn_params_grad(p, j2), dgnn_params_grad(p, i3), dgnn_params_grad(p, j3)};
    dgnn_rng g;
    dgnn_rng_seed2(&g, seed, 0x6e6d6c70 /* "nmlp" */);
    dgnn_params_init_torch_linear(&d->p, i1, L, &g);
    dgnn_params_init_torch_linear(&d->p, j1, L, &g);
    dgnn_params_init_torch_linear(&d->p, i2, H1, &g);
    dgnn_params_init_torch_linear(&d->p, j2, H1, &g);
    dgnn_params_init_torch_linear(&d->p, i3, H2, &g);
    dgnn_params_init_torch_linear(&d->p, j3, H2, &g);
    return DGNN_OK;
}

void dgnn_node_mlp_free(dgnn_node_mlp *d) {
    dgnn_params_free(&d->p);
    free_acts(d);
}

static int grow(dgnn_node_mlp *d, int64_t B, dgnn_err *err) {
    if (B <= d->cap) return DGNN_OK;
    free_acts(d);
    dgnn_alloc_set as = {0, 0};
    const int64_t n1 = dgnn_size_mul(B, d->H1), n2 = dgnn_size_mul(B, d->H2);
    DGNN_GROW(&as, d->r1, n1);
    DGNN_GROW(&as, d->m1, n1);
    DGNN_GROW(&as, d->a1, n1);
    DGNN_GROW(&as, d->d1, n1);
    DGNN_GROW(&as, d->r2, n2);
    DGNN_GROW(&as, d->m2, n2);
    DGNN_GROW(&as, d->a2, n2);
    DGNN_GROW(&as, d->d2, n2);
    int rc = dgnn_alloc_done(&as, err, "the node decoder's activations (%lld rows)", (long long)B);
    if (rc) return rc;
    d->cap = B;
    return DGNN_OK;
}

int dgnn_node_mlp_forward(dgnn_node_mlp *d, float *logits, const float *H, int64_t B, dgnn_rng *rng,
                          dgnn_err *err) {
    int rc = grow(d, B, err);
    if (rc) return rc;
    d->B = B;
    const int64_t H1 = d->H1, H2 = d->H2;
    dgnn_linear_forward(d->r1, H, d->w.W1, d->w.b1, B, d->L, H1);
    dgnn_relu_forward(d->r1, d->r1, B * H1);
    dgnn_dropout_forward(d->a1, d->m1, d->r1, B * H1, d->dropout, rng);
    dgnn_linear_forward(d->r2, d->a1, d->w.W2, d->w.b2, B, H1, H2);
    dgnn_relu_forward(d->r2, d->r2, B * H2);
    dgnn_dropout_forward(d->a2, d->m2, d->r2, B * H2, d->dropout, rng);
    dgnn_linear_forward(logits, d->a2, d->w.W3, d->w.b3, B, H2, 1);
    return DGNN_OK;
}

void dgnn_node_mlp_backward(dgnn_node_mlp *d, float *dH, const float *dlogits, const float *H) {
    const int64_t B = d->B, H1 = d->H1, H2 = d->H2;
    /* d2: the gradient at a2, then through dropout and ReLU to the second layer's output */
    memset(d->d2, 0, (size_t)(B * H2) * sizeof(float));
    dgnn_linear_backward(d->d2, d->g.W3, d->g.b3, dlogits, d->a2, d->w.W3, B, H2, 1);
    for (int64_t i = 0; i < B * H2; i++) d->d2[i] = d->r2[i] > 0 ? d->d2[i] * d->m2[i] : 0.0f;
    memset(d->d1, 0, (size_t)(B * H1) * sizeof(float));
    dgnn_linear_backward(d->d1, d->g.W2, d->g.b2, d->d2, d->a1, d->w.W2, B, H1, H2);
    for (int64_t i = 0; i < B * H1; i++) d->d1[i] = d->r1[i] > 0 ? d->d1[i] * d->m1[i] : 0.0f;
    dgnn_linear_backward(dH, d->g.W1, d->g.b1, d->d1, H, d->w.W1, B, d->L, H1);
}
