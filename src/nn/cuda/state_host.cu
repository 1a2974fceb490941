// state_host.cu: the node state store's host code (include/dgnn/cuda.h; its kernels are
// in state.cu): the device arrays' allocation, release and reset, through the context's
// calls. No kernel: the host emulation (tests/hostemu) compiles it too.
#include "cuda_internal.h"

static int64_t nz(int64_t x) { return x > 0 ? x : 1; }

extern "C" int dgnn_cuda_state_init(dgnn_cuda *c, dgnn_cuda_state *s, int64_t N, int64_t M, int64_t D, int64_t S,
                                    dgnn_err *err) {
    *s = dgnn_cuda_state{};
    if (N < 0 || M < 0 || D < 0 || S < 1)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "GPU node state: bad sizes N=%lld M=%lld mail=%lld slots=%lld",
                              (long long)N, (long long)M, (long long)D, (long long)S);
    s->num_nodes = N, s->mem_dim = M, s->mail_dim = D, s->slots = S;
    const size_t n = (size_t)nz(N);
    int rc = dgnn_cuda_alloc(c, (void **)&s->mem, n * (size_t)nz(M) * sizeof(float), "the GPU node memory", err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&s->mem_t, n * sizeof(double), "the GPU memory times", err);
    if (!rc)
        rc = dgnn_cuda_alloc(c, (void **)&s->mail, n * (size_t)S * (size_t)nz(D) * sizeof(float), "the GPU mailboxes",
                             err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&s->mail_t, n * (size_t)S * sizeof(double), "the GPU mail times", err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&s->mail_n, n * sizeof(int32_t), "the GPU mail counts", err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&s->mail_head, n * sizeof(int32_t), "the GPU mail heads", err);
    if (!rc) rc = dgnn_cuda_state_reset(c, s, err);
    if (rc) dgnn_cuda_state_free(c, s);
    return rc;
}

extern "C" void dgnn_cuda_state_free(dgnn_cuda *c, dgnn_cuda_state *s) {
    dgnn_cuda_release(c, s->mem);
    dgnn_cuda_release(c, s->mem_t);
    dgnn_cuda_release(c, s->mail);
    dgnn_cuda_release(c, s->mail_t);
    dgnn_cuda_release(c, s->mail_n);
    dgnn_cuda_release(c, s->mail_head);
    *s = dgnn_cuda_state{};
}

extern "C" int dgnn_cuda_state_reset(dgnn_cuda *c, dgnn_cuda_state *s, dgnn_err *err) {
    const size_t N = (size_t)s->num_nodes, S = (size_t)s->slots;
    int rc = dgnn_cuda_zero(c, s->mem, N * (size_t)s->mem_dim * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, s->mem_t, N * sizeof(double), err);
    if (!rc) rc = dgnn_cuda_zero(c, s->mail, N * S * (size_t)s->mail_dim * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, s->mail_t, N * S * sizeof(double), err);
    if (!rc) rc = dgnn_cuda_zero(c, s->mail_n, N * sizeof(int32_t), err);
    if (!rc) rc = dgnn_cuda_zero(c, s->mail_head, N * sizeof(int32_t), err);
    return rc;
}
