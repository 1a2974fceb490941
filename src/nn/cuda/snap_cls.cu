// snap_cls.cu: the snapshot models' pair (edge) classifier on the GPU, mirroring
// src/models/snapmodel_edge.c (include/dgnn/cuda.h): logits(u, v) = W2 relu(P[u] + Q[v]) + b2
// with P = H W1a^T + b1, Q = H W1b^T over every node, its backward, and the all-pairs
// scoring of validation and test.
//
// The products run through dgnn_cuda_gemm (cuBLAS; W1's halves are read in place with
// leading dimension 2L, so nothing is split or copied); the rest are small kernels:
//  - the bias add, the per-pair relu(P[src] + Q[dst]) and the ReLU mask of the backward:
//    element-wise, one thread per (row, column), columns contiguous;
//  - the per-node sums dP[u] = sum of G's rows of u's pairs (and dQ over destinations):
//    one thread per (node, column), which adds the rows listed by the caller's stable
//    counting sort (soff / sperm) in ascending pair order, starting from 0: the order the
//    CPU adds them in (snapmodel_edge.c's pair_bwd_cols walks the pairs in order);
//  - the bias gradients: column sums by a fixed-shape block reduction (colsum_tile);
//  - the all-pairs probabilities: a 32 x 64 tile of (source, destination) per block, P's
//    and Q's rows staged through shared memory 32 columns at a time (prob_tile).
// No float atomics and no order that depends on scheduling: the same bits on every run
// (cuBLAS's sgemm is reproducible on one GPU model and toolkit). Results agree with the
// CPU's within float rounding, not to the bit (cuBLAS sums in its own order).
// Everything is asynchronous on c->stream; nothing here waits for the device, and no
// temporary is allocated (the backward's G lives in the caller's dscratch; prob_rows
// forms wd = W2[1] - W2[0] as it stages each chunk).
#include <climits>

#include "cuda_internal.h"

#define CLS_THREADS 256 /* colsum_tile's block: a power of two */

// ---- element-wise kernels ----

// Y (R, D) += b (D) on every row
__global__ static void cls_add_bias(float *Y, const float *b, int64_t R, int64_t D) {
    DGNN_CUDA_FOR(t, R * D) Y[t] += b[t % D];
}

// hid (M, C) = relu(P[src_i] + Q[dst_i]): the CPU's x = p + q, then x < 0 ? 0 : x (a NaN passes)
__global__ static void cls_pair_hidden(float *hid, const float *P, const float *Q, const int32_t *src,
                                       const int32_t *dst, int64_t M, int64_t C) {
    DGNN_CUDA_FOR(t, M * C) {
        const int64_t i = t / C, j = t % C;
        const float x = P[(int64_t)src[i] * C + j] + Q[(int64_t)dst[i] * C + j];
        hid[t] = x < 0.0f ? 0.0f : x;
    }
}

// G (n) = 0 where the ReLU was off (hid == 0, i.e. the pre-activation was not > 0)
__global__ static void cls_relu_mask(float *G, const float *hid, int64_t n) {
    DGNN_CUDA_FOR(t, n) if (!(hid[t] > 0.0f)) G[t] = 0.0f;
}

// dP (N, C) [u] = sum over q in [soff[u], soff[u+1]) of G[sperm[q]], dQ likewise over
// doff / dperm: one thread per (node, column), the pairs in the order listed (ascending)
__global__ static void cls_node_sums(float *dP, float *dQ, const float *G, const int32_t *soff, const int32_t *sperm,
                                     const int32_t *doff, const int32_t *dperm, int64_t N, int64_t C) {
    DGNN_CUDA_FOR(t, N * C) {
        const int64_t u = t / C, j = t % C;
        float a = 0.0f;
        for (int32_t q = soff[u], e = soff[u + 1]; q < e; q++) a += G[(int64_t)sperm[q] * C + j];
        dP[t] = a;
        float b = 0.0f;
        for (int32_t q = doff[u], e = doff[u + 1]; q < e; q++) b += G[(int64_t)dperm[q] * C + j];
        dQ[t] = b;
    }
}

// ---- column sums: db (D) += the column sums of X (R, D) ----
//
// One block per tile of TW columns (TW the smallest power of two >= D, at most 32); the
// block's threads are TW columns by RL = blockDim.x / TW row lanes, thread (lane y, column
// x) summing rows y, y + RL, ... in order, then the lanes are added as a fixed tree. So a
// narrow X (the logits' K = 2 columns) still spreads its rows over the whole block, and a
// wide one reads whole rows of 32 columns at a time. The shape depends on D only: the
// same order, so the same bits, on every run.
__global__ static void colsum_tile(float *db, const float *X, int64_t R, int64_t D, int TW) {
    __shared__ float sh[CLS_THREADS];
    const int tx = (int)(threadIdx.x % (unsigned)TW), ty = (int)(threadIdx.x / (unsigned)TW);
    const int RL = (int)blockDim.x / TW;
    const int64_t ntiles = (D + TW - 1) / TW;
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) { // uniform per block
        const int64_t col = tile * TW + tx;
        float acc = 0.0f;
        if (col < D)
            for (int64_t r = ty; r < R; r += RL) acc += X[r * D + col];
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (int s = RL / 2; s > 0; s >>= 1) {
            if (ty < s) sh[threadIdx.x] += sh[threadIdx.x + s * TW];
            __syncthreads();
        }
        if (ty == 0 && col < D) db[col] += sh[tx];
        __syncthreads(); // sh is rewritten by the next tile
    }
}

static int colsum_acc(dgnn_cuda *c, float *ddb, const float *dX, int64_t R, int64_t D, const char *what,
                      dgnn_err *err) {
    if (D <= 0) return DGNN_OK;
    int TW = 1;
    while (TW < D && TW < 32) TW *= 2;
    colsum_tile<<<dgnn_cuda_blocks((D + TW - 1) / TW, 1), CLS_THREADS, 0, c->stream>>>(ddb, dX, R, D, TW);
    return dgnn_cuda_check(cudaGetLastError(), what, err);
}

// ---- the all-pairs probabilities ----
//
// prob (rows, N) [r][v] = sigmoid(bd + sum_c wd[c] relu(P[u0 + r][c] + Q[v][c])), wd =
// W2[1] - W2[0], bd = b2[1] - b2[0]. A block of 16 x 16 threads owns a tile of 32 source
// rows by 64 destinations, thread (x, y) the rows y, y + 16 and the destinations x, x + 16,
// x + 32, x + 48 (8 sums in registers). The c loop runs over chunks of 32 columns: the
// tile's P rows, Q rows and wd's chunk are staged in shared memory (rows padded to 33
// floats, so that the 16 destinations a half-warp reads sit in 16 different banks), then
// each thread adds the chunk's columns in ascending order; columns past C are staged as 0
// (wd 0: they add nothing). Every sum starts at bd and adds c = 0 .. C-1 in order, as the
// CPU's score_tile2 does; the sigmoid is the CPU's 1 / (1 + expf(-z)) (expf(-z) = inf
// for a very negative z gives 0, as on the CPU). Writes: 16 consecutive floats of a row
// per half-warp. Tiles past the grid's 65535 in either direction are visited by a
// block-uniform grid-stride loop.
#define PT_R 32 /* source rows per tile */
#define PT_V 64 /* destinations per tile */
#define PT_C 32 /* columns per staged chunk */

__global__ static void prob_tile(float *prob, const float *P, const float *Q, const float *W2, const float *b2,
                                 int64_t u0, int64_t rows, int64_t N, int64_t C) {
    __shared__ float Ps[PT_R][PT_C + 1];
    __shared__ float Qs[PT_V][PT_C + 1];
    __shared__ float wds[PT_C];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, tid = ty * 16 + tx;
    const float bd = b2[1] - b2[0];
    const int64_t rtiles = (rows + PT_R - 1) / PT_R, vtiles = (N + PT_V - 1) / PT_V;
    for (int64_t rt = blockIdx.y; rt < rtiles; rt += gridDim.y)
        for (int64_t vt = blockIdx.x; vt < vtiles; vt += gridDim.x) {
            const int64_t r0 = rt * PT_R, v0 = vt * PT_V;
            float acc[2][4];
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 4; b++) acc[a][b] = bd;
            for (int64_t c0 = 0; c0 < C; c0 += PT_C) {
                for (int k = tid; k < PT_R * PT_C; k += 256) {
                    const int i = k / PT_C, j = k % PT_C;
                    const int64_t r = r0 + i, cc = c0 + j;
                    Ps[i][j] = r < rows && cc < C ? P[(u0 + r) * C + cc] : 0.0f;
                }
                for (int k = tid; k < PT_V * PT_C; k += 256) {
                    const int i = k / PT_C, j = k % PT_C;
                    const int64_t v = v0 + i, cc = c0 + j;
                    Qs[i][j] = v < N && cc < C ? Q[v * C + cc] : 0.0f;
                }
                if (tid < PT_C) wds[tid] = c0 + tid < C ? W2[C + c0 + tid] - W2[c0 + tid] : 0.0f;
                __syncthreads();
                const int jn = C - c0 < PT_C ? (int)(C - c0) : PT_C; // columns of this chunk
                for (int j = 0; j < jn; j++) {
                    const float w = wds[j], p0 = Ps[ty][j], p1 = Ps[ty + 16][j];
                    for (int b = 0; b < 4; b++) {
                        const float q = Qs[tx + 16 * b][j];
                        const float x0 = p0 + q, x1 = p1 + q;
                        acc[0][b] += (x0 < 0.0f ? 0.0f : x0) * w;
                        acc[1][b] += (x1 < 0.0f ? 0.0f : x1) * w;
                    }
                }
                __syncthreads(); // the chunk is restaged next
            }
            for (int a = 0; a < 2; a++) {
                const int64_t r = r0 + ty + 16 * a;
                if (r >= rows) continue;
                for (int b = 0; b < 4; b++) {
                    const int64_t v = v0 + tx + 16 * b;
                    if (v < N) prob[r * N + v] = 1.0f / (1.0f + expf(-acc[a][b]));
                }
            }
        }
}

// ---- the ops ----

extern "C" int dgnn_cuda_cls_nodes(dgnn_cuda *c, float *dP, float *dQ, const float *dH, const float *dW1,
                                   const float *db1, int64_t N, int64_t L, int64_t C, dgnn_err *err) {
    if (N < 0 || L < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_cls_nodes: N=%lld L=%lld C=%lld (sizes must be >= 0)",
                              (long long)N, (long long)L, (long long)C);
    if (N == 0 || C == 0) return DGNN_OK;
    // P = H W1a^T, Q = H W1b^T: W1's column blocks [0, L) and [L, 2L), leading dimension 2L
    int rc = dgnn_cuda_gemm(c, 0, 1, N, C, L, dH, L, dW1, 2 * L, 0.0f, dP, C, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, N, C, L, dH, L, dW1 + L, 2 * L, 0.0f, dQ, C, err);
    if (!rc) {
        cls_add_bias<<<dgnn_cuda_blocks(N * C, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dP, db1, N, C);
        rc = dgnn_cuda_check(cudaGetLastError(), "cls_add_bias (the classifier's b1)", err);
    }
    return rc;
}

extern "C" int dgnn_cuda_cls_pairs_forward(dgnn_cuda *c, float *dlogits, float *dhid, const float *dP,
                                           const float *dQ, const int32_t *dsrc, const int32_t *ddst,
                                           const float *dW2, const float *db2, int64_t M, int64_t C, int64_t K,
                                           dgnn_err *err) {
    if (M < 0 || C < 0 || K < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "dgnn_cuda_cls_pairs_forward: M=%lld C=%lld K=%lld (sizes must be >= 0)", (long long)M,
                              (long long)C, (long long)K);
    if (M == 0) return DGNN_OK;
    int rc = DGNN_OK;
    if (C > 0) {
        cls_pair_hidden<<<dgnn_cuda_blocks(M * C, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            dhid, dP, dQ, dsrc, ddst, M, C);
        rc = dgnn_cuda_check(cudaGetLastError(), "cls_pair_hidden", err);
    }
    // logits = hid W2^T + b2 (C = 0: the product is 0, the logits b2)
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, M, K, C, dhid, C, dW2, C, 0.0f, dlogits, K, err);
    if (!rc && K > 0) {
        cls_add_bias<<<dgnn_cuda_blocks(M * K, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dlogits, db2, M,
                                                                                                     K);
        rc = dgnn_cuda_check(cudaGetLastError(), "cls_add_bias (the classifier's b2)", err);
    }
    return rc;
}

extern "C" int dgnn_cuda_cls_pairs_backward(dgnn_cuda *c, float *ddH, float *ddW1, float *ddb1, float *ddW2,
                                            float *ddb2, float *ddP, float *ddQ, float *dscratch,
                                            const float *ddlogits, const float *dhid, const float *dH,
                                            const float *dW1, const float *dW2, const int32_t *dsoff,
                                            const int32_t *dsperm, const int32_t *ddoff, const int32_t *ddperm,
                                            int64_t N, int64_t M, int64_t L, int64_t C, int64_t K, dgnn_err *err) {
    const char *op = "dgnn_cuda_cls_pairs_backward";
    if (N < 0 || M < 0 || L < 0 || C < 0 || K < 0 || M > INT32_MAX || (M > 0 && N == 0))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "%s: N=%lld M=%lld L=%lld C=%lld K=%lld (sizes must be >= 0; pairs need nodes; the "
                              "int32 pair orders hold at most 2^31 - 1 pairs)",
                              op, (long long)N, (long long)M, (long long)L, (long long)C, (long long)K);
    if (M == 0) return DGNN_OK; // no pair: every gradient term is 0, nothing is touched
    if (!ddW1 || !ddb1 || !ddW2 || !ddb2 || !ddP || !ddQ || !dscratch)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: dW1, db1, dW2, db2, dP, dQ and scratch are required (NULL given)",
                              op);
    if (ddP == ddQ || ddP == dscratch || ddQ == dscratch || dscratch == dhid)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "%s: dP, dQ and scratch must be three arrays (two alias), scratch not hid", op);
    // second layer: dW2 += dlogits^T hid, db2 += the column sums of dlogits
    int rc = dgnn_cuda_gemm(c, 1, 0, K, C, M, ddlogits, K, dhid, C, 1.0f, ddW2, C, err);
    if (!rc) rc = colsum_acc(c, ddb2, ddlogits, M, K, "colsum_tile (the classifier's db2)", err);
    if (rc || C == 0) return rc; // C = 0: no hidden unit, nothing reaches the first layer
    // G = (dlogits W2) where hid > 0 (K = 0: the product is 0)
    float *G = dscratch;
    rc = dgnn_cuda_gemm(c, 0, 0, M, C, K, ddlogits, K, dW2, C, 0.0f, G, C, err);
    if (!rc) {
        cls_relu_mask<<<dgnn_cuda_blocks(M * C, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(G, dhid, M * C);
        rc = dgnn_cuda_check(cudaGetLastError(), "cls_relu_mask", err);
    }
    // the per-node sums, in pair order
    if (!rc) {
        cls_node_sums<<<dgnn_cuda_blocks(N * C, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            ddP, ddQ, G, dsoff, dsperm, ddoff, ddperm, N, C);
        rc = dgnn_cuda_check(cudaGetLastError(), "cls_node_sums", err);
    }
    // first layer: dW1 += [dP^T H | dQ^T H], db1 += the column sums of dP,
    // dH += dP W1a + dQ W1b
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, C, L, N, ddP, C, dH, L, 1.0f, ddW1, 2 * L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, C, L, N, ddQ, C, dH, L, 1.0f, ddW1 + L, 2 * L, err);
    if (!rc) rc = colsum_acc(c, ddb1, ddP, N, C, "colsum_tile (the classifier's db1)", err);
    if (!rc && ddH) rc = dgnn_cuda_gemm(c, 0, 0, N, L, C, ddP, C, dW1, 2 * L, 1.0f, ddH, L, err);
    if (!rc && ddH) rc = dgnn_cuda_gemm(c, 0, 0, N, L, C, ddQ, C, dW1 + L, 2 * L, 1.0f, ddH, L, err);
    return rc;
}

extern "C" int dgnn_cuda_cls_prob_rows(dgnn_cuda *c, float *dprob, const float *dP, const float *dQ,
                                       const float *dW2, const float *db2, int64_t u0, int64_t rows, int64_t N,
                                       int64_t C, dgnn_err *err) {
    if (N < 0 || C < 0 || u0 < 0 || rows < 0 || rows > N - u0)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "dgnn_cuda_cls_prob_rows: rows %lld .. %lld + %lld of %lld nodes, C=%lld (sizes must be "
                              ">= 0 and the rows within the nodes)",
                              (long long)u0, (long long)u0, (long long)rows, (long long)N, (long long)C);
    if (rows == 0 || N == 0) return DGNN_OK;
    const int64_t rtiles = (rows + PT_R - 1) / PT_R, vtiles = (N + PT_V - 1) / PT_V;
    const dim3 grid((unsigned)(vtiles < DGNN_CUDA_MAX_BLOCKS ? vtiles : DGNN_CUDA_MAX_BLOCKS),
                    (unsigned)(rtiles < DGNN_CUDA_MAX_BLOCKS ? rtiles : DGNN_CUDA_MAX_BLOCKS));
    prob_tile<<<grid, dim3(16, 16), 0, c->stream>>>(dprob, dP, dQ, dW2, db2, u0, rows, N, C);
    return dgnn_cuda_check(cudaGetLastError(), "prob_tile (the all-pairs probabilities)", err);
}
