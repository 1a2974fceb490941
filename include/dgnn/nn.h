/* nn.h: the dense neural-network kernels (src/nn): linear, GRU and RNN cells, time
 * encoding, temporal multi-head attention, layer norm, ReLU, dropout, the link
 * predictor, binary cross-entropy, JODIE's time projection, dense products (gemm.c), and
 * the snapshot models' matrix GRU, TopK, LSTM cell, losses and RReLU. The sparse
 * kernels (SpMM, the GCN layer) are in spmm.h.
 *
 * Conventions (DESIGN.md 1, 9, 11; llm.c style):
 *  - free functions over plain row-major float arrays: outputs first, then inputs,
 *    then sizes. Every pointer is commented with its shape.
 *  - Weights use PyTorch's layout, W (Dout, Din) for a layer mapping Din -> Dout, so that
 *    out = inp @ W^T + b and results compare with torch.nn directly.
 *  - Forward passes save what the backward pass needs in caller-provided buffers
 *    ("saved"); nothing is allocated per call (except by the reference attention,
 *    which exists for tests).
 *  - Backward passes ACCUMULATE (+=) into every gradient they write, including the
 *    gradients of inputs (dinp). Any gradient pointer documented "or NULL" may be NULL
 *    to skip it. Callers zero gradients once per step (one memset of the slab).
 *  - Dense products go through OpenBLAS (cblas_sgemm); it is called outside OpenMP
 *    parallel regions. Element-wise loops are OpenMP-parallel over the index they
 *    write. Reductions over rows (bias gradients, ...) run in a fixed order. A plain
 *    sgemm's bits change with the thread count (OpenBLAS splits it); dgnn_gemm_fixed's do
 *    not, and the snapshot models use it for every product (docs/determinism.md).
 *  - Randomness (dropout) comes from a dgnn_rng passed in; a NULL rng means inference
 *    (no dropout). Masks are saved, so backward never draws.
 *  - Sizes are int64_t. Bad sizes are internal invariants (DGNN_ASSERT), except for
 *    configurations that come from the user (dgnn_tattn_check returns a status).
 *  - No parameter is named I: OpenBLAS's cblas.h pulls in <complex.h>, whose macro I
 *    would break this header in any file that includes cblas.h first. */
#ifndef DGNN_NN_H
#define DGNN_NN_H

#include <math.h>
#include <stdint.h>

#include "dgnn/base.h"
#include "dgnn/vec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Initialisers (linear.c). All draw from rng in array order.               */
/* ======================================================================== */

/* x (n) <- U(lo, hi). */
void dgnn_init_uniform(float *x, int64_t n, float lo, float hi, dgnn_rng *rng);
/* x (n) <- N(mean, std). */
void dgnn_init_normal(float *x, int64_t n, float mean, float std, dgnn_rng *rng);
/* x (n) <- v. */
void dgnn_init_const(float *x, int64_t n, float v);
/* W (Dout, Din) <- U(-a, a), a = sqrt(6 / (Din + Dout)) (torch.nn.init.xavier_uniform_). */
void dgnn_init_xavier_uniform(float *W, int64_t Din, int64_t Dout, dgnn_rng *rng);
/* W (Dout, Din) <- N(0, sqrt(2 / (Din + Dout))) (torch.nn.init.xavier_normal_). */
void dgnn_init_xavier_normal(float *W, int64_t Din, int64_t Dout, dgnn_rng *rng);
/* torch.nn.Linear's default: W (Dout, Din) and b (Dout, or NULL) <- U(-1/sqrt(Din), 1/sqrt(Din)). */
void dgnn_linear_init(float *W, float *b, int64_t Din, int64_t Dout, dgnn_rng *rng);

/* ======================================================================== */
/* Linear (linear.c)                                                         */
/* ======================================================================== */

/* out (B, Dout) = inp (B, Din) @ W^T + b, with W (Dout, Din) and b (Dout) or NULL.
 * out must not alias inp. */
void dgnn_linear_forward(float *out, const float *inp, const float *W, const float *b, int64_t B,
                         int64_t Din, int64_t Dout);
/* dinp (B, Din) += dout @ W;  dW (Dout, Din) += dout^T @ inp;  db (Dout) += column sums of dout.
 * dinp, dW, db may each be NULL. dout (B, Dout), inp (B, Din), W (Dout, Din). */
void dgnn_linear_backward(float *dinp, float *dW, float *db, const float *dout, const float *inp,
                          const float *W, int64_t B, int64_t Din, int64_t Dout);

/* ======================================================================== */
/* Dense products (gemm.c): the one place that calls sgemm for the models   */
/* ======================================================================== */

/* C (M, N) = op(A) op(B) + beta C, row-major, op(X) = X or (trans) X^T: A is (M, K), or
 * (K, M) when transA; B is (K, N), or (N, K) when transB; row strides lda, ldb, ldc. With
 * T > 1 OpenMP threads (outside a parallel region) and a product large enough, C's rows
 * run as T blocks, one single-threaded sgemm each; else one sgemm. The bits may change
 * with the thread count. K = 0 gives C = beta C; sizes must fit an int (cblas), else
 * DGNN_ASSERT. */
void dgnn_gemm(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* Independent products (no C overlaps another's operands or C), run together: with T > 1
 * threads and at least T products, each is one single-threaded sgemm on a thread of its
 * own (largest first), which on the models' few-hundred-row shapes beats cutting each
 * product over the threads (a block per thread packs the shared operand again); with
 * fewer products, one after the other as dgnn_gemm. At most DGNN_GEMM_GROUP_MAX. */
typedef struct {
    int transA, transB;
    int64_t M, N, K;
    const float *A;
    int64_t lda;
    const float *B;
    int64_t ldb;
    float beta;
    float *C;
    int64_t ldc;
} dgnn_gemm_op;
#define DGNN_GEMM_GROUP_MAX 16
void dgnn_gemm_group(const dgnn_gemm_op *ops, int n);

/* The same product with the same bits for every thread count. */

/* C (M, N) = op(A) op(B) + beta C, row-major, op(X) = X or (trans) X^T: A is (M, K), or
 * (K, M) when transA; B is (K, N), or (N, K) when transB; row strides lda, ldb, ldc. The
 * rows of C run in fixed blocks (64 when transA, else 256), each one single-threaded
 * sgemm inside an OpenMP loop, so the bits do not depend on the thread count (gemm.c says
 * why a plain sgemm's do). */
void dgnn_gemm_fixed(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* ======================================================================== */
/* Element-wise (act.c)                                                      */
/* ======================================================================== */

static inline float dgnn_sigmoidf(float x) {
    /* Two branches so that exp never overflows: for x < 0 use e^x / (1 + e^x). */
    if (x >= 0) {
        float e = expf(-x);
        return 1.0f / (1.0f + e);
    }
    float e = expf(x);
    return e / (1.0f + e);
}

/* Branch-free exp, sigmoid and tanh for loops that should vectorise (the recurrent
 * cells' gates: libm's expf and tanhf are calls the compiler cannot vectorise).
 * dgnn_expf_fast: e^x = 2^n e^r with n = round(x / ln 2), |r| <= ln 2 / 2, e^r by its
 * Taylor series through r^7; x is clamped to [-87, 88] (results stay normal and finite).
 * Relative error below 3e-7 on that range; tanh and sigmoid are within 3e-7 of libm's
 * double results in absolute terms (tests/test_nn_elementwise.c). NaN gives NaN.
 * 2^n is built from the bits of nm = x / ln 2 + MAGIC, whose low mantissa bits hold the
 * integer n (nm is in [2^23, 2^24), where a float's unit is 1), in unsigned arithmetic:
 * no float-to-int conversion, no shift of a negative value, which are undefined for NaN
 * (which passes the clamps) and made UBSan abort. For finite x the bits are those of
 * ((int32_t)n + 127) << 23, the formulation before (the test checks every float in
 * [-100, 100] against it bit for bit). The union is written then read by member (C99,
 * and GCC's and Clang's C++: a designated initializer is C++20). */
DGNN_VEC_INLINE float dgnn_expf_fast(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    const float MAGIC = 12582912.0f; /* 1.5 * 2^23: adding and subtracting it rounds to an integer */
    const float nm = x * 1.44269504088896341f + MAGIC;
    const float n = nm - MAGIC;
    const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f; /* ln 2 in two parts */
    const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
                    r * (1.0f / 720 + r * (1.0f / 5040)))))));
    union {
        uint32_t i;
        float f;
    } bits, two_n;
    bits.f = nm;
    /* bits(nm) = 0x4B400000 + n: the biased exponent n + 127 is bits(nm) - (0x4B400000 - 127) */
    two_n.i = (bits.i - (0x4B400000u - 127u)) << 23;
    return p * two_n.f;
}

DGNN_VEC_INLINE float dgnn_sigmoidf_fast(float x) { return 1.0f / (1.0f + dgnn_expf_fast(-x)); }

/* 1 - 2 / (e^2x + 1), and its Taylor series near 0 where that subtraction would cancel */
DGNN_VEC_INLINE float dgnn_tanhf_fast(float x) {
    const float big = 1.0f - 2.0f / (dgnn_expf_fast(2.0f * x) + 1.0f);
    const float z = x * x;
    const float small = x * (1.0f + z * (-1.0f / 3 + z * (2.0f / 15 + z * (-17.0f / 315))));
    return z < 0.015625f ? small : big;
}

/* out (n) = max(inp, 0). out may equal inp (in place). */
void dgnn_relu_forward(float *out, const float *inp, int64_t n);
/* dinp (n) += dout * (out > 0), where out is the forward OUTPUT (works after in-place). */
void dgnn_relu_backward(float *dinp, const float *dout, const float *out, int64_t n);

/* Dropout with probability p, inverted scaling: out = inp * mask, mask[i] = 0 with
 * probability p, else 1 / (1 - p). The mask (n) is saved for backward. The mask is a
 * counter-based hash of (one u64 drawn from rng, i): deterministic for a seed and
 * independent of the thread count. rng == NULL or p == 0: mask = 1, out = inp.
 * out may equal inp. Requires 0 <= p < 1. */
void dgnn_dropout_forward(float *out, float *mask, const float *inp, int64_t n, float p,
                          dgnn_rng *rng);
/* dinp (n) += dout * mask. */
void dgnn_dropout_backward(float *dinp, const float *dout, const float *mask, int64_t n);
/* Fills only the mask (n) as dgnn_dropout_forward would, from an explicit seed. */
void dgnn_dropout_mask(float *mask, int64_t n, float p, uint64_t seed);

/* ======================================================================== */
/* Layer norm (layernorm.c), torch.nn.LayerNorm(C) with eps = 1e-5, affine   */
/* ======================================================================== */

#define DGNN_LAYERNORM_EPS 1e-5f

/* out (N, C) = (inp - mean) * rstd * g + b per row; saves mean (N), rstd (N).
 * g, b (C) may be NULL (g = 1, b = 0). */
void dgnn_layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *g,
                            const float *b, int64_t N, int64_t C);
/* dinp (N, C) += ..., dg (C) += ..., db (C) += ...; any may be NULL. */
void dgnn_layernorm_backward(float *dinp, float *dg, float *db, const float *dout, const float *inp,
                             const float *g, const float *mean, const float *rstd, int64_t N,
                             int64_t C);

/* ======================================================================== */
/* GRU cell and vanilla RNN cell (gru.c), as torch.nn.GRUCell / RNNCell       */
/* ======================================================================== */
/* GRUCell, gates in torch's order (r, z, n):
 *   r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr)
 *   z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz)
 *   n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn))
 *   h' = (1 - z) * n + z * h
 * W_ih (3H, Din) = [W_ir; W_iz; W_in], W_hh (3H, H), b_ih (3H), b_hh (3H): exactly the
 * layout of torch's weight_ih, weight_hh, bias_ih, bias_hh. Biases may be NULL. */
#define DGNN_GRU_SAVED(H) (6 * (H)) /* floats of `saved` per row */

/* torch's init: every weight and bias <- U(-1/sqrt(H), 1/sqrt(H)). gates = 3 for the
 * GRU, 1 for the RNN (W_ih (gates*H, Din), W_hh (gates*H, H), b_* (gates*H) or NULL). */
void dgnn_rnn_cell_init(float *W_ih, float *W_hh, float *b_ih, float *b_hh, int64_t Din, int64_t H,
                        int gates, dgnn_rng *rng);

/* hout (B, H), saved (B, 6H) (r, z, n, then h W_hh^T + b_hh); x (B, Din), h (B, H).
 * hout must not alias h. */
void dgnn_gru_forward(float *hout, float *saved, const float *x, const float *h, const float *W_ih,
                      const float *W_hh, const float *b_ih, const float *b_hh, int64_t B, int64_t Din,
                      int64_t H);
/* dx (B, Din), dh (B, H), dW_ih (3H, Din), dW_hh (3H, H), db_ih (3H), db_hh (3H): all +=,
 * any may be NULL. scratch (B, 6H) is overwritten. dhout (B, H) is the gradient of hout. */
void dgnn_gru_backward(float *dx, float *dh, float *dW_ih, float *dW_hh, float *db_ih,
                       float *db_hh, float *scratch, const float *dhout, const float *saved,
                       const float *x, const float *h, const float *W_ih, const float *W_hh,
                       int64_t B, int64_t Din, int64_t H);

/* RNNCell (tanh): h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh); W_ih (H, Din),
 * W_hh (H, H), b_ih, b_hh (H) or NULL. hout (B, H) is also what backward needs.
 * hout must not alias h. */
void dgnn_rnn_forward(float *hout, const float *x, const float *h, const float *W_ih,
                      const float *W_hh, const float *b_ih, const float *b_hh, int64_t B, int64_t Din,
                      int64_t H);
/* All +=, any may be NULL; scratch (B, H) is overwritten; hout = forward output. */
void dgnn_rnn_backward(float *dx, float *dh, float *dW_ih, float *dW_hh, float *db_ih,
                       float *db_hh, float *scratch, const float *dhout, const float *hout,
                       const float *x, const float *h, const float *W_ih, const float *W_hh,
                       int64_t B, int64_t Din, int64_t H);

/* ======================================================================== */
/* The node-state GRU of T-GCN and GCRN-GRU (ngru.c): its element-wise parts  */
/* ======================================================================== */
/* Between the products that form the gates' pre-activations (tgcn.c, gcrn.c):
 *   Z = sigmoid(pz), R = sigmoid(pr), HR = H R, Ht = tanh(ph), H' = Z H + (1 - Z) Ht,
 * and their backward; gradients += (any may be NULL: not wanted). The GPU twins are
 * cuda.h's dgnn_cuda_ngru_* (the same order of operations in every element). */
#define DGNN_NGRU_SIGMOID 0 /* dgnn_sigmoidf */
#define DGNN_NGRU_TANH 1    /* tanhf */
/* A gate: out (N, D) = act((x + h) + b), h (N, D) or NULL, b (D) or NULL (added to every
 * row); out may equal x or h. */
void dgnn_ngru_gate(float *out, const float *x, const float *h, const float *b, int act, int64_t N, int64_t D);
/* HR (n) = H R. */
void dgnn_ngru_reset(float *HR, const float *H, const float *R, int64_t n);
/* Hn (n) = Z H + (1 - Z) Ht (Hn aliasing none of them). */
void dgnn_ngru_update(float *Hn, const float *Z, const float *H, const float *Ht, int64_t n);
/* From dHn: dZp += dHn (H - Ht) Z (1 - Z), dHtp += dHn (1 - Z) (1 - Ht^2), dH += dHn Z. */
void dgnn_ngru_update_backward(float *dZp, float *dHtp, float *dH, const float *dHn, const float *Z, const float *H,
                               const float *Ht, int64_t n);
/* From dHR: dH += dHR R, dRp += dHR H R (1 - R). */
void dgnn_ngru_reset_backward(float *dH, float *dRp, const float *dHR, const float *R, const float *H, int64_t n);

/* ======================================================================== */
/* Time encoding (timeenc.c): TGAT/TGN/TGL's cos(dt * w + b)                 */
/* ======================================================================== */

/* w (d) <- 10^(-9 j / (d - 1)) (1 / 10^linspace(0, 9, d)), b (d) <- 0, as TGN/TGL. */
void dgnn_timeenc_init(float *w, float *b, int64_t d);
/* out (N, d) = cos(dt (N) * w (d) + b (d)). The argument is formed in double: dt is
 * seconds since an event (up to ~1e8) and w up to 1, so a float product would lose
 * the phase entirely; the result is rounded to float once. */
void dgnn_timeenc_forward(float *out, const float *dt, const float *w, const float *b, int64_t N,
                          int64_t d);
/* dw (d) += sum_n dout * -sin(.) * dt,  db (d) += sum_n dout * -sin(.); either may be
 * NULL. dt is data (no gradient). dout (N, d). */
void dgnn_timeenc_backward(float *dw, float *db, const float *dout, const float *dt,
                           const float *w, const float *b, int64_t N, int64_t d);

/* ======================================================================== */
/* JODIE time projection (jodie.c)                                            */
/* ======================================================================== */
/* emb = h * (1 + dt * w + b): the Linear(1 -> M) of JODIE/TGN/TGL (weight w (M), bias
 * b (M)), applied to a normalised time difference dt (one scalar per row). */

/* TGL's normalisation: dt (B) = (t - t_mem) / (t + 1). */
void dgnn_jodie_dt_tgl(float *dt, const double *t, const double *t_mem, int64_t B);
/* The original TGN code's: dt (B) = (t - t_mem - mean) / std (mean and std of the
 * time since a node's previous event, over the training events). */
void dgnn_jodie_dt_norm(float *dt, const double *t, const double *t_mem, int64_t B, double mean,
                        double std);
/* JODIE's NormalLinear(1, M) init: w, b (M) <- N(0, 1). */
void dgnn_jodie_init(float *w, float *b, int64_t M, dgnn_rng *rng);
/* out (B, M) = h (B, M) * (1 + dt (B) * w (M) + b (M)); b may be NULL. */
void dgnn_jodie_forward(float *out, const float *h, const float *dt, const float *w, const float *b,
                        int64_t B, int64_t M);
/* dh (B, M) +=, dw (M) +=, db (M) +=; any may be NULL. dt is data. */
void dgnn_jodie_backward(float *dh, float *dw, float *db, const float *dout, const float *h,
                         const float *dt, const float *w, const float *b, int64_t B, int64_t M);

/* ======================================================================== */
/* Binary cross-entropy with logits (loss.c)                                  */
/* ======================================================================== */
/* l_i = max(x, 0) - x y + log(1 + exp(-|x|)): equal to -y log s(x) - (1-y) log(1-s(x))
 * but never overflows and keeps precision for large |x|. */

/* Returns mean_i l_i over n (accumulated in double); losses (n) may be NULL, else gets
 * each l_i. labels (n) are 0/1 (any value in [0,1] works). */
float dgnn_bce_logits_forward(float *losses, const float *logits, const float *labels, int64_t n);
/* dlogits (n) += dloss * (sigmoid(x) - y) / n: the gradient of dloss * mean loss. */
void dgnn_bce_logits_backward(float *dlogits, const float *logits, const float *labels, int64_t n,
                              float dloss);

/* ======================================================================== */
/* Link predictor (linear.c): TGL's EdgePredictor                             */
/* ======================================================================== */
/* logit(s, d) = Wo relu(Ws h_s + bs + Wd h_d + bd) + bo.
 * This IS TGN's MergeLayer affinity score fc2(relu(fc1([h_s, h_d]))): fc1's weight
 * (Hd, 2D) split by columns is [Ws | Wd] and its bias is bs + bd (pass bd = NULL to
 * have exactly one bias, as TGN). Computing Ws h_s once per source and reusing it for
 * the positive and all negatives is why this form is used.
 * Layout: Be events; h_dst holds (1 + nneg) blocks of Be rows: block 0 = the positive
 * destinations, block j >= 1 = the j-th negative of each event (TGL's tile order), so
 * row j*Be + i pairs with source i. logits (same (1+nneg)*Be order). */
typedef struct {
    float *Ws, *bs; /* (Hd, D), (Hd) */
    float *Wd, *bd; /* (Hd, D), (Hd) or NULL */
    float *Wo, *bo; /* (1, Hd), (1) */
} dgnn_edgepred_params;

/* Number of floats of the parameters; with slab != NULL, also points p's fields into
 * slab in the order Ws, bs, Wd, bd (if with_bd), Wo, bo. */
int64_t dgnn_edgepred_layout(dgnn_edgepred_params *p, float *slab, int64_t D, int64_t Hd,
                             int with_bd);
/* torch Linear default init of each layer (bs/bd from fan-in D, bo from fan-in Hd). */
void dgnn_edgepred_init(dgnn_edgepred_params *p, int64_t D, int64_t Hd, dgnn_rng *rng);
/* Floats of `saved`: hs (Be, Hd) + act ((1+nneg)*Be, Hd). */
#define DGNN_EDGEPRED_SAVED(Be, nneg, Hd) ((int64_t)(Be) * (Hd) * (2 + (nneg)))
/* logits ((1+nneg)*Be); saved (DGNN_EDGEPRED_SAVED); h_src (Be, D); h_dst ((1+nneg)*Be, D). */
void dgnn_edgepred_forward(float *logits, float *saved, const float *h_src, const float *h_dst,
                           const dgnn_edgepred_params *p, int64_t Be, int64_t nneg, int64_t D,
                           int64_t Hd);
/* dh_src (Be, D) +=, dh_dst ((1+nneg)*Be, D) +=, dp's fields +=; dh_* may be NULL (dp's
 * fields must be set when p's are). scratch ((1+nneg)*Be, Hd) + (Be, Hd) is overwritten
 * (DGNN_EDGEPRED_SAVED floats). dlogits ((1+nneg)*Be). */
void dgnn_edgepred_backward(float *dh_src, float *dh_dst, dgnn_edgepred_params *dp, float *scratch,
                            const float *dlogits, const float *saved, const float *h_src,
                            const float *h_dst, const dgnn_edgepred_params *p, int64_t Be,
                            int64_t nneg, int64_t D, int64_t Hd);

/* ======================================================================== */
/* Multi-head attention core (attention.c)                                    */
/* ======================================================================== */
/* B queries, each attending over its own variable-length set of keys/values given in
 * CSR form: query i owns rows off[i] .. off[i+1]-1 of k and v (P = off[B] rows in all).
 * Per head h (width dh = E / heads, columns h*dh .. (h+1)*dh-1):
 *   logit_j = score(q_h . k_jh);  att = softmax_j(logit);  o_h = sum_j att'_j v_jh
 * where att' = att * att_mask (dropout multipliers, or att when att_mask is NULL).
 * A query with no keys gets o = 0. Used by the temporal attention layer below and by
 * models that attend over other sets (APAN's mailbox: off[i] = i * slots). */
typedef enum {
    DGNN_SCORE_SCALED_DOT = 0, /* q.k / sqrt(dh): torch.nn.MultiheadAttention (TGN) */
    DGNN_SCORE_LEAKY_DOT = 1   /* LeakyReLU(0.2)(q.k): TGL's attention layers */
} dgnn_score_kind;

/* o (B, E); logit, att (P, heads) saved; att_mask (P, heads) or NULL (input).
 * q (B, E), k, v (P, E), off (B+1). */
void dgnn_attn_core_forward(float *o, float *logit, float *att, const float *att_mask,
                            const float *q, const float *k, const float *v, const int64_t *off,
                            int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind);
/* dq (B, E) +=, dk (P, E) +=, dv (P, E) +=; any may be NULL. do_ (B, E). */
void dgnn_attn_core_backward(float *dq, float *dk, float *dv, const float *do_, const float *logit,
                             const float *att, const float *att_mask, const float *q,
                             const float *k, const float *v, const int64_t *off, int64_t B,
                             int64_t heads, int64_t E, dgnn_score_kind kind);

/* ======================================================================== */
/* Temporal attention layer (attention.c): TGN's TemporalAttentionLayer or   */
/* TGL's TransfomerAttentionLayer, one layer                                  */
/* ======================================================================== */
/* For each root i (features h_root[i], dn) and its sampled neighbours j (node features
 * h_j (dn), edge features e_j (de), time encoding te_j = time_enc(t_i - t_j) (dt)):
 *   query  x_q = [h_root; te0]            (dq = dn + dt; te0 = time_enc(0), one vector)
 *   key    x_k = [h_j; e_j; te_j]         (dk = dn + de + dt)
 *   q = Wq x_q + bq;  k_j = Wk x_k + bk;  v_j = Wv x_k + bv        (width E)
 *   o = multi-head attention core over the root's neighbours (E columns, `heads` heads)
 * DGNN_ATTN_TGN (torch.nn.MultiheadAttention + TGN's MergeLayer; E = dq):
 *   scores scaled dot product; a = Wo o + bo; a = 0 for a root with no neighbours
 *   (TGN unmasks a fake neighbour and then zeroes such rows: the same result);
 *   out = W2 relu(W1 [a; h_root] + b1) + b2,  W1 (dn, E + dn), W2 (dout, dn).
 * DGNN_ATTN_TGL (TGL's TransfomerAttentionLayer; E = dout):
 *   scores LeakyReLU(0.2)(q.k), no output projection, a = o (0 without neighbours);
 *   out = LayerNorm(relu(dropout(W1 [a; h_root] + b1))),  W1 (dout, dout + dn).
 * Dropout on the attention weights (both kinds, cfg.attn_dropout) and before the ReLU
 * (TGL, cfg.dropout) when an rng is given.
 *
 * Input layout: neighbours are given per root in CSR form (off), one entry per VALID
 * sampled neighbour ("pair"), padding already removed. Node features come as a matrix of
 * DISTINCT rows h_nbr (Un, dn) plus a row index per pair; edge features likewise (Ue, de)
 * plus an index (or NULL for the identity, Ue = P). Roots and their neighbours need not
 * be distinct nodes; h_root is separate from h_nbr.
 *
 * The fast path (attention.c) never forms a key or a value: per head h,
 * q_h . k_p = (Wk_h^T q_h) . x_p + q_h . bk_h and sum_p a_p v_p = Wv_h (sum_p a_p x_p) +
 * bv_h sum_p a_p, with x_p = [h_j; e_j; te_j] the pair's input, so its products run over
 * the B roots (B x E x dk) and each pair costs dot products and sums of its dk inputs. */
typedef enum { DGNN_ATTN_TGN = 0, DGNN_ATTN_TGL = 1 } dgnn_attn_kind;

typedef struct {
    dgnn_attn_kind kind;
    int64_t dn;         /* root and neighbour feature dim (memory [+ node features]), > 0 */
    int64_t de;         /* edge feature dim, >= 0 */
    int64_t dt;         /* time encoding dim, >= 0 */
    int64_t heads;      /* attention heads; must divide E */
    int64_t dout;       /* output dim */
    float attn_dropout; /* dropout on attention weights, in [0, 1) */
    float dropout;      /* TGL: dropout before the ReLU, in [0, 1) (unused by TGN) */
} dgnn_tattn_cfg;

/* Derived sizes. */
static inline int64_t dgnn_tattn_E(const dgnn_tattn_cfg *c) {
    return c->kind == DGNN_ATTN_TGN ? c->dn + c->dt : c->dout;
}
static inline int64_t dgnn_tattn_hidden(const dgnn_tattn_cfg *c) { /* rows of W1 */
    return c->kind == DGNN_ATTN_TGN ? c->dn : c->dout;
}

/* Returns DGNN_OK, or DGNN_EINVAL with a message naming the bad field. */
int dgnn_tattn_check(const dgnn_tattn_cfg *c, dgnn_err *err);

typedef struct {
    float *Wq, *bq;     /* (E, dn + dt), (E) */
    float *Wk, *bk;     /* (E, dn + de + dt), (E): columns [node | edge | time] */
    float *Wv, *bv;     /* (E, dn + de + dt), (E) */
    float *Wo, *bo;     /* TGN: (E, E), (E) (MHA out_proj); TGL: NULL */
    float *W1, *b1;     /* (Hd, E + dn), (Hd); Hd = dgnn_tattn_hidden */
    float *W2, *b2;     /* TGN: (dout, dn), (dout); TGL: NULL */
    float *ln_g, *ln_b; /* TGL: (dout), (dout); TGN: NULL */
} dgnn_tattn_params;

/* Number of floats of the parameters of c; with slab != NULL, also points p's fields
 * into slab in the order above (a gradient slab of the same size gets the same
 * layout). */
int64_t dgnn_tattn_params_layout(dgnn_tattn_params *p, float *slab, const dgnn_tattn_cfg *c);
/* The reference codes' init. TGN: Wq, Wk, Wv xavier_uniform, bq = bk = bv = bo = 0, Wo
 * torch Linear default (out_proj), W1 and W2 xavier_normal with Linear-default biases
 * (MergeLayer). TGL: torch Linear defaults for Wq, Wk, Wv, W1 (with biases), ln_g = 1,
 * ln_b = 0. */
void dgnn_tattn_init(dgnn_tattn_params *p, const dgnn_tattn_cfg *c, dgnn_rng *rng);

typedef struct {
    int64_t B;              /* roots */
    const float *h_root;    /* (B, dn), or (Ur, dn) with root_row: the roots' query inputs */
    int64_t Ur;             /* rows of h_root when root_row is given (<= B) */
    const int32_t *root_row;/* (B) row of h_root of each root, or NULL: root i uses row i. Roots
                             * that share a row (the same node, the query's time part being
                             * te0 for all) share the products of the query side */
    const float *te0;       /* (dt) time encoding of dt = 0 (the query's), shared by all roots */
    const int64_t *off;     /* (B+1) root i's pairs are off[i] .. off[i+1]-1; P = off[B] */
    int64_t Un;             /* distinct neighbour node rows */
    const float *h_nbr;     /* (Un, dn) */
    const int32_t *nbr_row; /* (P) row of h_nbr of each pair */
    int64_t Ue;             /* distinct edge rows (ignored when de == 0) */
    const float *e_feat;    /* (Ue, de), NULL when de == 0 */
    const int32_t *edge_row;/* (P) row of e_feat of each pair, or NULL: pair p uses row p */
    const float *te;        /* (P, dt) time encoding of each pair's time difference */
} dgnn_tattn_input;

/* Gradients with respect to the inputs; accumulated (+=); any may be NULL. */
typedef struct {
    float *h_root; /* like h_root: (B, dn), or (Ur, dn); may be the same buffer as h_nbr */
    float *te0;    /* (dt) */
    float *h_nbr;  /* (Un, dn) */
    float *e_feat; /* (Ue, de) */
    float *te;     /* (P, dt) */
} dgnn_tattn_dinput;

/* What forward saves for backward, plus backward's scratch; all point into one
 * caller-provided slab sized by dgnn_tattn_saved_layout. Rows: B roots, P pairs,
 * Un node rows, Ue edge rows, Hd hidden. */
typedef struct {
    int64_t cap_B, cap_P, cap_Un, cap_Ue; /* sizes the slab was laid out for */
    /* forward */
    float *qc;         /* (E) bq + Wq[:, dn:] te0 (forward), column sums of dq (backward) */
    float *q;          /* (B, E) */
    float *qt;         /* (B, heads, dk) Wk_h^T q_h: the query seen from the key inputs
                        * (q, qt, qb: per row of h_root) */
    float *qb;         /* (B, heads) q_h . bk_h */
    float *logit;      /* (P, heads) */
    float *att;        /* (P, heads) softmax weights */
    float *att_mask;   /* (P, heads) attention dropout multipliers (valid when has_att_mask) */
    float *xbar;       /* (B, heads, dk) sum_p aw_p x_p (aw: att times the dropout mask) */
    float *asum;       /* (B, heads) sum_p aw_p */
    float *o;          /* (B, E) attention output before the out-projection */
    float *wfold;      /* TGN: (Hd, E) W1[:, :E] Wo, the out projection folded into the merge */
    float *cfold;      /* TGN: (Hd) W1[:, :E] bo */
    float *cat;        /* TGL: (B, E + dn) [o; h_root] */
    float *zr;         /* TGN: (B, Hd) W1[:, E:] h_root, per row of h_root */
    float *z;          /* (B, Hd) W1 cat + b1 */
    float *drop_mask;  /* (B, Hd) TGL dropout multipliers (valid when has_drop_mask) */
    float *r;          /* (B, Hd) after dropout and ReLU */
    float *ln_mean, *ln_rstd; /* (B) TGL */
    int has_att_mask, has_drop_mask;
    /* backward scratch: shapes as their forward twins; ds (P, heads) the scores'
     * gradients, dxn (P, dn) and dxe (P, de) the pairs' node and edge input gradients */
    float *dq, *dqt, *dqb, *dxbar, *dasum, *ds, *dxn, *dxe, *do_, *dwfold, *dcfold, *dcat, *dz;
    float *dqtu, *dqbu, *dzr; /* dqt, dqb and dz summed per row of h_root (with root_row) */
} dgnn_tattn_saved;

/* Number of floats needed for B roots, P pairs, Un node rows, Ue edge rows (use Ue = P
 * when edge_row will be NULL); with slab != NULL, also points s's fields into it. */
int64_t dgnn_tattn_saved_layout(dgnn_tattn_saved *s, float *slab, const dgnn_tattn_cfg *c,
                                int64_t B, int64_t P, int64_t Un, int64_t Ue);

/* out (B, dout). s must be laid out for at least in's sizes. rng: NULL = inference (no
 * dropout); otherwise one u64 is drawn per active dropout (attention weights first). */
void dgnn_tattn_forward(float *out, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                        const dgnn_tattn_params *p, const dgnn_tattn_cfg *c, dgnn_rng *rng);
/* The u64s dgnn_tattn_forward draws from rng, in its order, into seeds: one per active
 * dropout (the attention weights', then TGL's before the ReLU); returns how many (0 for
 * rng NULL). The forward draws them first, so the GPU op (cuda.h) given these seeds makes
 * the same masks. */
int dgnn_tattn_draw_seeds(const dgnn_tattn_cfg *c, dgnn_rng *rng, uint64_t seeds[2]);
/* dgnn_tattn_forward with those seeds given (NULL: inference, no dropout), as the GPU op
 * takes them: dgnn_tattn_forward(rng) is draw_seeds, then this. */
void dgnn_tattn_forward_seeded(float *out, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                               const dgnn_tattn_params *p, const dgnn_tattn_cfg *c, const uint64_t *seeds);
/* din's fields +=, dp's fields += (dp laid out like p). dout (B, dout). Uses s's scratch;
 * s's forward fields are left intact, so backward may be called again. */
void dgnn_tattn_backward(dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *dout,
                         dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                         const dgnn_tattn_params *p, const dgnn_tattn_cfg *c);

/* From a sampler's output to the layer's CSR input (serial, O(B k)):
 *   nbr (B, k) neighbour node ids, < 0 = padding (anywhere in a row);
 *   off (B+1) out: root i's pairs are off[i] .. off[i+1]-1;
 *   pair_slot (B*k) out: slot i*k + j of each pair, in row order (so the pair's event id
 *     and time are eid[pair_slot[p]], ts[pair_slot[p]]);
 *   pair_row (B*k) out: row of the pair's node among the distinct nodes (nbr_row);
 *   uniq (B*k) out: node id of each distinct row, in order of first appearance (gather
 *     the h_nbr matrix from it);
 *   map (N) scratch indexed by node id: all -1 on entry, all -1 again on return (keep
 *     one allocated per model).
 * Returns P (the number of pairs) and sets *Un. */
int64_t dgnn_tattn_pairs(int64_t *off, int32_t *pair_slot, int32_t *pair_row, int32_t *uniq,
                         int64_t *Un, int32_t *map, const int32_t *nbr, int64_t B, int k);

/* The plain reference (tests only): builds every key row [h_j; e_j; te_j] explicitly and
 * projects it with plain loops, no BLAS. Computes out (B, dout) and, when dout_grad is
 * not NULL, accumulates the same gradients as the fast path. Dropout masks are inputs
 * (att_mask (P, heads), drop_mask (B, Hd), or NULL for none), e.g. taken from a fast
 * forward's saved struct. Allocates its own temporaries. */
void dgnn_tattn_reference(float *out, dgnn_tattn_dinput *din, dgnn_tattn_params *dp,
                          const float *dout_grad, const dgnn_tattn_input *in,
                          const dgnn_tattn_params *p, const dgnn_tattn_cfg *c,
                          const float *att_mask, const float *drop_mask);

/* ======================================================================== */
/* Peak (peak.c)                                                              */
/* ======================================================================== */
/* GFLOP/s of (n x n) @ (n x n) sgemm over about `seconds`, with the current OpenMP
 * thread count: the reference figure benchmarks print achieved GFLOP/s against. */
double dgnn_sgemm_gflops(int64_t n, double seconds);

/* ======================================================================== */
/* The snapshot models' dense kernels: the matrix GRU and TopK (mgru.c), the   */
/* LSTM cell (lstm.c), weighted cross-entropy and MSE (snap_loss.c), RReLU     */
/* (rrelu.c). Temporaries: dgnn_mgru_backward (4RC floats) and                 */
/* dgnn_topk_forward/_backward (O(N + k) and O(F)) allocate.                   */
/* ======================================================================== */

/* ==== EvolveGCN matrix GRU (mgru.c; mat_GRU_cell of IBM/EvolveGCN egcn_o.py / egcn_h.py) ====== */

/* Applied to a weight matrix Q (R x C) (R = in features, C = out features):
 *   Z  = sigmoid(W_z X + U_z Q + B_z)        (update)
 *   Rs = sigmoid(W_r X + U_r Q + B_r)        (reset)
 *   Hc = tanh(W_h X + U_h (Rs * Q) + B_h)
 *   Q' = (1 - Z) * Q + Z * Hc
 * with W_*, U_* (R x R) multiplying from the left and B_* (R x C). EvolveGCN-O feeds
 * X = Q itself; EvolveGCN-H feeds X = the TopK summary (R x C) of the node embeddings.
 *
 * Parameter layout (one contiguous block, dgnn_mgru_param_count floats):
 *   W (3R, R) = [W_z; W_r; W_h]   stacked so W X is one product
 *   U (3R, R) = [U_z; U_r; U_h]
 *   B (3R, C) = [B_z; B_r; B_h]
 * The gradient block has the same layout. The products are nn.h's dgnn_gemm_fixed (the
 * bits do not depend on the thread count). */
int64_t dgnn_mgru_param_count(int64_t R, int64_t C);
/* The reference initialization: W, U uniform in +-1/sqrt(R) (mat_GRU_gate.reset_param,
 * "1/sqrt(size(1))"), B = 0. Draws W then U in order from rng. */
void dgnn_mgru_init(float *params, int64_t R, int64_t C, dgnn_rng *rng);

/* q_new (R, C); saved (4, R, C) = [Z, Rs, Hc, Rs*Q]; x, q (R, C); params as above.
 * x may equal q (EvolveGCN-O). q_new must not overlap the inputs. */
void dgnn_mgru_forward(float *q_new, float *saved, const float *x, const float *q, const float *params, int64_t R,
                       int64_t C);
/* dx (R, C) += (or NULL), dq (R, C) +=, dparams += ; from dq_new (R, C) and the forward's
 * saved/x/q/params. dx may equal dq (EvolveGCN-O: both gradients reach the same Q). */
void dgnn_mgru_backward(float *dx, float *dq, float *dparams, const float *dq_new, const float *saved, const float *x,
                        const float *q, const float *params, int64_t R, int64_t C);

/* ==== EvolveGCN TopK summary (TopK of egcn_h.py) ===================================== */

/* scores s_i = X_i . p / ||p|| over the N rows of X (N, F); the k valid rows with the
 * highest scores, highest first (ties: lower row index first; torch leaves the order of
 * ties unspecified); out (F, k) = (X[idx] * tanh(s[idx]))^T, i.e. column j is row idx[j]
 * of X scaled by tanh(s_idx[j]).
 * Valid rows: mask[i] != 0 (mask (N), the reference's 0 / -inf node mask: nodes with an
 * edge in the snapshot, snapshot_graph.h's dgnn_topk_mask_of_snapshot), or every row
 * when mask is NULL. When fewer than k rows are valid, the reference's pad_with_last_val
 * repeats the last (lowest-scoring) selected index up to k; so does this. When no row is
 * valid (the reference would fail), out is zero and idx is all -1.
 * Saved for backward: idx (k) the selected rows, tanh_s (k) = tanh(s_idx[j]).
 * Returns the number of distinct valid rows selected (min(k, valid)). */
int64_t dgnn_topk_forward(float *out, int32_t *idx, float *tanh_s, const float *X, const float *p,
                          const uint8_t *mask, int64_t N, int64_t F, int64_t k);
/* dX (N, F) += (or NULL: X is an input without gradient), dp (F) += ; from dout (F, k).
 * A padded (repeated) index receives the sum of its columns' gradients. */
void dgnn_topk_backward(float *dX, float *dp, const float *dout, const int32_t *idx, const float *tanh_s,
                        const float *X, const float *p, int64_t N, int64_t F, int64_t k);
/* The reference initialization of the scorer p (F): uniform in +-1/sqrt(F). */
void dgnn_topk_init(float *p, int64_t F, dgnn_rng *rng);

/* ==== LSTM cell (torch.nn.LSTMCell; WD-GCN) ========================================== */

/* a = x W_ih^T + b_ih + h W_hh^T + b_hh (B, 4H), gate blocks [i | f | g | o];
 * i, f, o = sigmoid, g = tanh; c' = f * c + i * g; h' = o * tanh(c').
 * W_ih (4H, Din), W_hh (4H, H), b_ih, b_hh (4H) or NULL: torch's weight_ih, weight_hh,
 * bias_ih, bias_hh. Built on nn.h's linear. */
#define DGNN_LSTM_SAVED(H) (5 * (H))   /* floats of `saved` per row: [gates (B, 4H) | tanh c' (B, H)] */
#define DGNN_LSTM_SCRATCH(H) (4 * (H)) /* floats of `scratch` per row */

/* torch's init: every tensor U(-1/sqrt(H), 1/sqrt(H)), drawn in the order W_ih, W_hh,
 * b_ih, b_hh (a NULL bias is skipped). */
void dgnn_lstm_init(float *W_ih, float *W_hh, float *b_ih, float *b_hh, int64_t Din, int64_t H, dgnn_rng *rng);
/* hout, cout (B, H); saved (B, 5H) as one block: the activated gates (B, 4H) then
 * tanh(c') (B, H); scratch (B, 4H) overwritten. x (B, Din), h, c (B, H). Outputs must not
 * alias the inputs. */
void dgnn_lstm_forward(float *hout, float *cout, float *saved, float *scratch, const float *x, const float *h,
                       const float *c, const float *W_ih, const float *W_hh, const float *b_ih, const float *b_hh,
                       int64_t B, int64_t Din, int64_t H);
/* dx (B, Din), dh (B, H), dc (B, H), dW_ih, dW_hh, db_ih, db_hh: all +=, any may be NULL.
 * dhout, dcout (B, H): gradients of h' and c' (either may be NULL = zero). scratch
 * (B, 4H) overwritten. saved, x, h, c, W_* as in the forward. */
void dgnn_lstm_backward(float *dx, float *dh, float *dc, float *dW_ih, float *dW_hh, float *db_ih, float *db_hh,
                        float *scratch, const float *dhout, const float *dcout, const float *saved, const float *x,
                        const float *h, const float *c, const float *W_ih, const float *W_hh, int64_t B, int64_t Din,
                        int64_t H);

/* ==== losses ========================================================================== */

/* EvolveGCN's Cross_Entropy: loss = (1/M) sum_i w[y_i] * (logsumexp(z_i) - z_i[y_i]) over
 * logits z (M, C) and labels y (M) in [0, C), with class weights w (C) (NULL = all 1).
 * Note the mean divides by M, not by the sum of the weights as torch's weighted
 * CrossEntropyLoss does. logsumexp subtracts the row max first so exp cannot overflow.
 * Returns the loss (0 when M = 0). */
double dgnn_wce_forward(const float *logits, const int32_t *labels, const float *class_w, int64_t M, int64_t C);
/* dlogits (M, C) += dloss * w[y_i] / M * (softmax(z_i) - onehot(y_i)). */
void dgnn_wce_backward(float *dlogits, float dloss, const float *logits, const int32_t *labels, const float *class_w,
                       int64_t M, int64_t C);

/* Mean squared error over n values (torch MSELoss, mean): (1/n) sum (pred - target)^2. */
double dgnn_mse_forward(const float *pred, const float *target, int64_t n);
/* dpred (n) += dloss * 2 (pred - target) / n. */
void dgnn_mse_backward(float *dpred, float dloss, const float *pred, const float *target, int64_t n);

/* ==== RReLU (torch.nn.RReLU; EvolveGCN's activation) ================================== */

/* y = x for x > 0, a * x otherwise; in training a is drawn uniform in [lower, upper] per
 * element, in eval a = (lower + upper) / 2 (torch's defaults: lower 1/8, upper 1/3).
 * slope (n) saves the factor applied to each element (1 for x > 0) for backward.
 * Randomness: one draw from rng gives a key; element i uses a hash of (key, i), so the
 * result does not depend on the thread count. rng is unused (may be NULL) in eval.
 * y may equal x (in place). */
void dgnn_rrelu_forward(float *y, float *slope, const float *x, int64_t n, float lower, float upper, int training,
                        dgnn_rng *rng);
/* dx (n) += dy * slope. */
void dgnn_rrelu_backward(float *dx, const float *dy, const float *slope, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
