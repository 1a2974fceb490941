/* params.h: the parameter slab (DESIGN.md, convention 2, after llm.c).
 *
 * A model's parameters live in ONE contiguous float array. A table of named tensors
 * (name, up to 3 dims, offset, count) describes it; the gradients and the two Adam
 * moments are slabs of the same size and layout. So zeroing the gradients is one
 * memset, the gradient all-reduce is one call over `total` floats, and a checkpoint
 * stores each slab as one section.
 *
 * Two phases:
 *   dgnn_params p; dgnn_params_init(&p);
 *   int W = dgnn_params_add(&p, "gru.W_ih", 3 * H, I);     // declare: returns an index
 *   int b = dgnn_params_add1(&p, "gru.b_ih", 3 * H);       // a vector
 *   dgnn_params_alloc(&p, &err);                           // value, grad, m, v (zeroed)
 *   dgnn_params_init_torch_linear(&p, W, I, &rng);          // U(+-1/sqrt(I))
 *   dgnn_params_init_torch_linear(&p, b, I, &rng);
 *   ... dgnn_params_free(&p);
 *
 * Every tensor starts on a 64-byte boundary (16 floats): the slab has a few padding
 * floats between tensors. Padding is zero in every slab and stays zero (its gradient is
 * zero, so Adam leaves it alone), so slab-wide operations need not skip it.
 *
 * Declaring a tensor wrongly (after alloc, duplicate name, negative dims, name too long)
 * is a bug in model code, not bad input: it hits DGNN_ASSERT. Allocation depends on the
 * configuration, so it returns DGNN_ENOMEM. */
#ifndef DGNN_PARAMS_H
#define DGNN_PARAMS_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DGNN_PARAM_NAME_MAX 64 /* including the terminating NUL */

typedef struct {
    char name[DGNN_PARAM_NAME_MAX];
    int ndim;          /* 1..3 */
    int64_t shape[3];  /* unused dims are 1 */
    int64_t offset;    /* in floats from the start of the slab; a multiple of 16 */
    int64_t count;     /* shape[0] * shape[1] * shape[2] */
} dgnn_tensor_info;

typedef struct {
    dgnn_tensor_info *t;  /* the table, in declaration order */
    int ntensors, cap;
    int64_t total;        /* slab length in floats, padding included (a multiple of 16) */
    int64_t nparams;      /* real parameters, padding excluded */
    float *value, *grad, *m, *v; /* (total) each, 64-byte aligned; NULL before alloc */
} dgnn_params;

void dgnn_params_init(dgnn_params *p);
/* Declares a matrix (d0, d1) and returns the tensor's index. Dims may be 0: an empty
 * tensor, e.g. the weights (H, 0) of absent edge features, takes no room. */
int dgnn_params_add(dgnn_params *p, const char *name, int64_t d0, int64_t d1);
/* Declares a vector (d0) (a bias). */
int dgnn_params_add1(dgnn_params *p, const char *name, int64_t d0);
/* Declares a tensor (d0, d1, d2). */
int dgnn_params_add3(dgnn_params *p, const char *name, int64_t d0, int64_t d1, int64_t d2);
/* Allocates the four slabs, zeroed. Ends the declare phase. */
int dgnn_params_alloc(dgnn_params *p, dgnn_err *err);
/* Frees everything; p is left as after dgnn_params_init. */
void dgnn_params_free(dgnn_params *p);

/* Pointers into the slabs (valid after alloc, owned by p). */
float *dgnn_params_get(const dgnn_params *p, int idx);
float *dgnn_params_grad(const dgnn_params *p, int idx);
int64_t dgnn_params_numel(const dgnn_params *p, int idx);
/* The index of the tensor called name, or -1. */
int dgnn_params_find(const dgnn_params *p, const char *name);
/* Number of real parameters (padding excluded): what a paper calls the model size. */
int64_t dgnn_params_count(const dgnn_params *p);
/* One memset over the gradient slab. */
void dgnn_params_zero_grad(dgnn_params *p);
/* A hash of the table (names, shapes, offsets): equal hashes mean slabs that can be
 * exchanged (a checkpoint stores it to refuse parameters of another configuration). */
uint64_t dgnn_params_layout_hash(const dgnn_params *p);
/* Prints the table (name, shape, count) and the total to f. */
void dgnn_params_print(const dgnn_params *p, FILE *f);

/* ---- initialisers of one tensor, from an explicit generator (DESIGN.md, 10) ----
 * Sequential draws from r in the tensor's order (the array initialisers of nn.h:
 * dgnn_init_uniform, dgnn_init_normal, dgnn_init_const), so one seed gives one model
 * whatever the thread count. Fans follow torch's _calculate_fan_in_and_fan_out for a
 * weight in torch's layout (Dout, Din[, k]): fan_in = shape[1] * k, fan_out = shape[0] * k. */
void dgnn_params_init_constant(dgnn_params *p, int idx, float c); /* zeros, ones: c = 0, 1 */
void dgnn_params_init_uniform(dgnn_params *p, int idx, float lo, float hi, dgnn_rng *r);
void dgnn_params_init_normal(dgnn_params *p, int idx, float mean, float std, dgnn_rng *r);
/* Glorot / Xavier (torch.nn.init.xavier_uniform_ / xavier_normal_): U(-a, a) with
 * a = gain sqrt(6 / (fan_in + fan_out)), or N(0, gain^2 2 / (fan_in + fan_out)).
 * The tensor must have 2 or 3 dims (torch refuses fewer). */
void dgnn_params_init_xavier_uniform(dgnn_params *p, int idx, float gain, dgnn_rng *r);
void dgnn_params_init_xavier_normal(dgnn_params *p, int idx, float gain, dgnn_rng *r);
/* torch.nn.Linear's default for weight AND bias (and nn.GRUCell's / nn.LSTMCell's, with
 * fan_in = the hidden size): kaiming_uniform(a = sqrt(5)) reduces to
 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in being the WEIGHT's input width (pass it for
 * a bias too). fan_in == 0 gives zeros (torch: bound 0). */
void dgnn_params_init_torch_linear(dgnn_params *p, int idx, int64_t fan_in, dgnn_rng *r);

#ifdef __cplusplus
}
#endif
#endif
