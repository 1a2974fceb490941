// attention_dims.h: the temporal attention layer's sizes and the checks of its arguments
// (attention.cu's forward and backward; internal to src/nn/cuda/). Host code only: the host
// emulation (tests/hostemu) makes the same refusals through it.
#ifndef DGNN_CUDA_ATTENTION_DIMS_H
#define DGNN_CUDA_ATTENTION_DIMS_H

#include <cmath>

#include "cuda_internal.h"
#include "dgnn/nn.h"

// The sizes both passes use, with the checks of their arguments.
typedef struct {
    int64_t B, P, Un, Ue, Ur, E, Hd, H, dh, dn, de, dt, dqw, dk, dc, HK;
    int tgn;
    float scale;
} dims;

static inline int layer_dims(dims *d, const dgnn_tattn_saved *s, const dgnn_tattn_input *in, int64_t P,
                      const dgnn_tattn_cfg *cfg, const char *what, dgnn_err *err) {
    *d = dims{}; /* a refusal leaves no field unset */
    d->B = in->B, d->P = P, d->Un = in->Un;
    d->E = dgnn_tattn_E(cfg), d->Hd = dgnn_tattn_hidden(cfg), d->H = cfg->heads;
    d->dn = cfg->dn, d->de = cfg->de, d->dt = cfg->dt;
    if (cfg->kind != DGNN_ATTN_TGN && cfg->kind != DGNN_ATTN_TGL)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: unknown attention kind %d", what, (int)cfg->kind);
    if (d->H <= 0 || d->E % d->H != 0 || d->dn <= 0 || d->de < 0 || d->dt < 0 || cfg->dout <= 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: bad sizes (dn %lld, de %lld, dt %lld, heads %lld, dout %lld)", what,
                              (long long)d->dn, (long long)d->de, (long long)d->dt, (long long)d->H,
                              (long long)cfg->dout);
    d->dh = d->E / d->H;
    d->dqw = d->dn + d->dt, d->dk = d->dn + d->de + d->dt, d->dc = d->E + d->dn, d->HK = d->H * d->dk;
    d->Ue = d->de > 0 ? (in->edge_row ? in->Ue : P) : 0;
    d->Ur = in->root_row ? in->Ur : in->B;
    d->tgn = cfg->kind == DGNN_ATTN_TGN;
    d->scale = d->tgn ? (float)(1.0 / sqrt((double)d->dh)) : 1.0f;
    if (d->B < 0 || P < 0 || d->B > s->cap_B || P > s->cap_P || d->Un > s->cap_Un || d->Ue > s->cap_Ue ||
        d->Ur > d->B || d->Ur < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "%s: %lld roots (%lld query rows), %lld pairs, %lld node rows, %lld edge rows do not fit "
                              "the saved layout (%lld, %lld, %lld, %lld)",
                              what, (long long)d->B, (long long)d->Ur, (long long)P, (long long)d->Un,
                              (long long)d->Ue, (long long)s->cap_B, (long long)s->cap_P, (long long)s->cap_Un,
                              (long long)s->cap_Ue);
    return DGNN_OK;
}

#endif
