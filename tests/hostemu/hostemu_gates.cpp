// hostemu_gates.cpp: the host emulation (tests only; hostemu.cpp's top comment says what it
// is and is not) of the node-state GRU gates of T-GCN and GCRN-GRU and the two bias helpers
// of include/dgnn/cuda.h (snap_gates.cu). The gates are nn.h's CPU ops (dgnn_ngru_*, which
// tgcn.c and gcrn.c run); the bias helpers' plain references are here, the loops of
// snapmodel_gcn.c they stand for, in the same order of operations (on the emulation, a
// model composed of them gives the CPU model's gates bit for bit). Before
// it, hostemu_internal.h's checks (every device array inside a live allocation with its
// true extent, opened for the call) and the real op's DGNN_EINVAL checks; an output that
// overlaps an input other than by being the same array (a race on a GPU) is an abort.
#include <cmath>
#include <cstdint>

#include "hostemu_internal.h"

#include "dgnn/nn.h"

using namespace hostemu;

// ---- the references: the CPU loops ----

// snapm_h_gcn_forward's bias
static void ref_add_rows(float *Y, const float *b, int64_t N, int64_t D) {
    for (int64_t i = 0; i < N; i++)
        for (int64_t o = 0; o < D; o++) Y[i * D + o] += b[o];
}

// snapm_colsum (dgnn_linear_backward's bias path): each column's rows in order
static void ref_col_sums(float *db, const float *dY, int64_t N, int64_t D) {
    dgnn_linear_backward(nullptr, nullptr, db, dY, nullptr, nullptr, N, 1, D);
}

// ---- the checks ----

static int bad_sizes(const char *op, int64_t a, int64_t b, dgnn_err *err) {
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: sizes %lld, %lld (negative)", op, (long long)a, (long long)b);
}

// [a, a + na) and [b, b + nb) must not overlap (a kernel that writes one while it reads or
// writes the other races); same_ok: a == b (in place, element for element) is allowed
static void need_apart(const void *a, size_t na, const char *an, const void *b, size_t nb, const char *bn,
                       int same_ok, const char *fn) {
    if (!a || !b || na == 0 || nb == 0 || (same_ok && a == b && na == nb)) return;
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (x < y + nb && y < x + na)
        die("%s: %s and %s overlap%s (the GPU op's result would be undefined)", fn, an, bn,
            same_ok ? " without being the same array" : "");
}

// n outputs and m inputs of one extent: every output apart from the others and from every
// input (or the same array as an input, where same_ok)
static void need_apart_all(const void *const *out, const char *const *on, int no, const void *const *in,
                           const char *const *inn, int ni, size_t bytes, int same_ok, const char *fn) {
    for (int o = 0; o < no; o++) {
        for (int i = 0; i < ni; i++) need_apart(out[o], bytes, on[o], in[i], bytes, inn[i], same_ok, fn);
        for (int p = o + 1; p < no; p++) need_apart(out[o], bytes, on[o], out[p], bytes, on[p], 0, fn);
    }
}

// ---- the ops ----

extern "C" int dgnn_cuda_add_rows(dgnn_cuda *c, float *dY, const float *db, int64_t N, int64_t D, dgnn_err *err) {
    const char *fn = "dgnn_cuda_add_rows";
    need_ctx(c, fn);
    in_call k;
    if (N < 0 || D < 0) return bad_sizes(fn, N, D, err);
    if (N * D == 0) return DGNN_OK;
    need_dev(dY, F4(N * D), fn, "Y");
    need_dev(db, F4(D), fn, "b");
    need_apart(dY, F4(N * D), "Y", db, F4(D), "b", 0, fn);
    ref_add_rows(dY, db, N, D);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_col_sums(dgnn_cuda *c, float *ddb, const float *ddY, int64_t N, int64_t D, dgnn_err *err) {
    const char *fn = "dgnn_cuda_col_sums";
    need_ctx(c, fn);
    in_call k;
    if (N < 0 || D < 0) return bad_sizes(fn, N, D, err);
    if (D == 0 || !ddb) return DGNN_OK;
    need_dev(ddb, F4(D), fn, "db");
    need_dev(ddY, F4(N * D), fn, "dY");
    need_apart(ddb, F4(D), "db", ddY, F4(N * D), "dY", 0, fn);
    if (N > 0) ref_col_sums(ddb, ddY, N, D);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_ngru_gate(dgnn_cuda *c, float *dout, const float *dx, const float *dh, const float *db, int act,
                                   int64_t N, int64_t D, dgnn_err *err) {
    const char *fn = "dgnn_cuda_ngru_gate";
    need_ctx(c, fn);
    in_call k;
    if (N < 0 || D < 0) return bad_sizes(fn, N, D, err);
    if (act != DGNN_CUDA_GATE_SIGMOID && act != DGNN_CUDA_GATE_TANH)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_ngru_gate: activation %d (not DGNN_CUDA_GATE_SIGMOID or "
                              "_TANH)", act);
    const int64_t n = N * D;
    if (n == 0) return DGNN_OK;
    need_dev(dout, F4(n), fn, "out");
    need_dev(dx, F4(n), fn, "x");
    if (dh) need_dev(dh, F4(n), fn, "h");
    if (db) need_dev(db, F4(D), fn, "b");
    need_apart(dout, F4(n), "out", dx, F4(n), "x", 1, fn); // in place allowed
    need_apart(dout, F4(n), "out", dh, F4(n), "h", 1, fn);
    need_apart(dout, F4(n), "out", db, F4(D), "b", 0, fn);
    dgnn_ngru_gate(dout, dx, dh, db, act, N, D);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_ngru_reset(dgnn_cuda *c, float *dHR, const float *dH, const float *dR, int64_t n,
                                    dgnn_err *err) {
    const char *fn = "dgnn_cuda_ngru_reset";
    need_ctx(c, fn);
    in_call k;
    if (n < 0) return bad_sizes(fn, n, 0, err);
    if (n == 0) return DGNN_OK;
    need_dev(dHR, F4(n), fn, "HR");
    need_dev(dH, F4(n), fn, "H");
    need_dev(dR, F4(n), fn, "R");
    const void *o[] = {dHR}, *in[] = {dH, dR};
    const char *on[] = {"HR"}, *inn[] = {"H", "R"};
    need_apart_all(o, on, 1, in, inn, 2, F4(n), 1, fn); // element-wise: in place is safe
    dgnn_ngru_reset(dHR, dH, dR, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_ngru_update(dgnn_cuda *c, float *dHn, const float *dZ, const float *dH, const float *dHt,
                                     int64_t n, dgnn_err *err) {
    const char *fn = "dgnn_cuda_ngru_update";
    need_ctx(c, fn);
    in_call k;
    if (n < 0) return bad_sizes(fn, n, 0, err);
    if (n == 0) return DGNN_OK;
    if (dHn == dZ || dHn == dH || dHn == dHt)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_ngru_update: Hn must not alias Z, H or Ht");
    need_dev(dHn, F4(n), fn, "Hn");
    need_dev(dZ, F4(n), fn, "Z");
    need_dev(dH, F4(n), fn, "H");
    need_dev(dHt, F4(n), fn, "Ht");
    const void *o[] = {dHn}, *in[] = {dZ, dH, dHt};
    const char *on[] = {"Hn"}, *inn[] = {"Z", "H", "Ht"};
    need_apart_all(o, on, 1, in, inn, 3, F4(n), 0, fn);
    dgnn_ngru_update(dHn, dZ, dH, dHt, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_ngru_update_backward(dgnn_cuda *c, float *ddZp, float *ddHtp, float *ddH, const float *ddHn,
                                              const float *dZ, const float *dH, const float *dHt, int64_t n,
                                              dgnn_err *err) {
    const char *fn = "dgnn_cuda_ngru_update_backward";
    need_ctx(c, fn);
    in_call k;
    if (n < 0) return bad_sizes(fn, n, 0, err);
    if (n == 0 || (!ddZp && !ddHtp && !ddH)) return DGNN_OK;
    if (ddZp) need_dev(ddZp, F4(n), fn, "dZp");
    if (ddHtp) need_dev(ddHtp, F4(n), fn, "dHtp");
    if (ddH) need_dev(ddH, F4(n), fn, "dH");
    need_dev(ddHn, F4(n), fn, "dHn");
    need_dev(dZ, F4(n), fn, "Z");
    need_dev(dH, F4(n), fn, "H");
    need_dev(dHt, F4(n), fn, "Ht");
    const void *o[] = {ddZp, ddHtp, ddH}, *in[] = {ddHn, dZ, dH, dHt};
    const char *on[] = {"dZp", "dHtp", "dH"}, *inn[] = {"dHn", "Z", "H", "Ht"};
    need_apart_all(o, on, 3, in, inn, 4, F4(n), 0, fn);
    dgnn_ngru_update_backward(ddZp, ddHtp, ddH, ddHn, dZ, dH, dHt, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_ngru_reset_backward(dgnn_cuda *c, float *ddH, float *ddRp, const float *ddHR, const float *dR,
                                             const float *dH, int64_t n, dgnn_err *err) {
    const char *fn = "dgnn_cuda_ngru_reset_backward";
    need_ctx(c, fn);
    in_call k;
    if (n < 0) return bad_sizes(fn, n, 0, err);
    if (n == 0 || (!ddH && !ddRp)) return DGNN_OK;
    if (ddH) need_dev(ddH, F4(n), fn, "dH");
    if (ddRp) need_dev(ddRp, F4(n), fn, "dRp");
    need_dev(ddHR, F4(n), fn, "dHR");
    need_dev(dR, F4(n), fn, "R");
    need_dev(dH, F4(n), fn, "H");
    const void *o[] = {ddH, ddRp}, *in[] = {ddHR, dR, dH};
    const char *on[] = {"dH", "dRp"}, *inn[] = {"dHR", "R", "H"};
    need_apart_all(o, on, 2, in, inn, 3, F4(n), 0, fn);
    dgnn_ngru_reset_backward(ddH, ddRp, ddHR, dR, dH, n);
    return DGNN_OK;
}
