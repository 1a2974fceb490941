// step_ws.h: the workspace and staging that the device steps share (tgn_step.cu, apan_step.cu;
// internal to src/nn/cuda/). A step's workspace is one device slab, laid out anew for each
// batch (take: every array at a 256-byte aligned offset) and reallocated only when a batch
// needs more than it holds (after a sync, with a quarter of headroom); its first part holds
// the batch's host arrays, which the step packs into a pinned staging buffer laid out exactly
// like that part (staged, put) and sends with one copy. Two staging buffers take turns (batch
// parity), each guarded by an event recorded after its copy: packing a buffer first waits for
// its previous copy, so no buffer is rewritten while a copy may still read it, and the
// caller's arrays are free again as soon as a call returns. The step's own record embeds a
// step_ws and adds its arrays' pointers. NOT YET VERIFIED ON HARDWARE.
#ifndef DGNN_CUDA_STEP_WS_H
#define DGNN_CUDA_STEP_WS_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_internal.h"

#define WS_ALIGN 256 /* every array of the slab (and of a staging buffer) starts at a multiple */

struct step_ws {
    void *dev;             /* the device slab, dev_cap bytes */
    size_t dev_cap, sent;  /* its capacity; the bytes of its first part, sent by the host */
    void *stage[2];        /* pinned staging buffers, stage_cap bytes each */
    size_t stage_cap;
    cudaEvent_t copied[2]; /* recorded after each staging buffer's copy */
    int64_t batches;       /* batches sent; batches % 2 is the next staging buffer */
    float *loss_h;         /* pinned (1): the last forward_backward's loss once the stream is done */
    int has_loss;          /* the last forward_backward enqueued that loss's download */
    int ready;             /* the slab holds a forward that was enqueued to its end (for the commit) */
};

static inline size_t ws_round(size_t n) { return (n + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN; }

/* Places arrays one after another at aligned offsets from base; base NULL: sizes only
 * (every pointer NULL). An empty array (n <= 0) is a NULL pointer and takes no room. */
struct ws_cursor {
    char *base;
    size_t used;
};
template <typename T> static inline void take(ws_cursor *k, T **p, int64_t n) {
    *p = nullptr;
    if (n <= 0) return;
    k->used = ws_round(k->used);
    if (k->base) *p = (T *)(k->base + k->used);
    k->used += (size_t)n * sizeof(T);
}

/* The staging buffer's place of slab array d (of the slab's first part) */
template <typename T> static inline T *staged(const step_ws *w, char *stage, T *d) {
    return (T *)(stage + ((char *)d - (char *)w->dev));
}
/* n elements of host x into d's place in the staging buffer (nothing for n == 0) */
template <typename T> static inline void put(const step_ws *w, char *stage, T *d, const T *x, int64_t n) {
    if (n > 0) memcpy(staged(w, stage, d), x, (size_t)n * sizeof(T));
}

/* The events and the pinned loss of a zeroed w (`what`: the step, for messages); on
 * failure step_ws_free frees what was made. */
static inline int step_ws_init(dgnn_cuda *c, step_ws *w, const char *what, dgnn_err *err) {
    int rc = DGNN_OK;
    for (int i = 0; i < 2 && !rc; i++) {
        rc = dgnn_cuda_check(cudaEventCreateWithFlags(&w->copied[i], cudaEventDisableTiming), "cudaEventCreate", err);
        if (rc) w->copied[i] = nullptr; /* nothing for step_ws_free to destroy */
    }
    if (!rc) rc = dgnn_cuda_host_alloc(c, (void **)&w->loss_h, sizeof(float), what, err);
    return rc;
}

/* Everything w holds, after a wait for the stream (no queued op or copy may still use it). */
static inline void step_ws_free(dgnn_cuda *c, step_ws *w) {
    cudaStreamSynchronize(c->stream);
    dgnn_cuda_release(c, w->dev);
    for (int i = 0; i < 2; i++) {
        dgnn_cuda_host_free(c, w->stage[i]);
        if (w->copied[i]) cudaEventDestroy(w->copied[i]);
    }
    dgnn_cuda_host_free(c, w->loss_h);
    memset(w, 0, sizeof *w);
}

static inline size_t step_ws_bytes(const step_ws *w) { return w->dev_cap + 2 * w->stage_cap; }

/* A step's four parameter slabs, n floats each, zeroed (`model`: "TGN", "APAN", for
 * messages): slab[0..3] = parameters, gradients, Adam m, Adam v. On failure the caller's
 * free releases what was made (step_slabs_free; NULL entries are no-ops). */
static inline int step_slabs_init(dgnn_cuda *c, float **slab[4], int64_t n, const char *model, dgnn_err *err) {
    const size_t bytes = (size_t)n * sizeof(float);
    const char *part[] = {"parameters", "gradients", "Adam m", "Adam v"};
    int rc = DGNN_OK;
    for (int i = 0; i < 4 && !rc; i++) {
        char what[64];
        snprintf(what, sizeof what, "the %s %s", model, part[i]);
        rc = dgnn_cuda_alloc(c, (void **)slab[i], bytes, what, err);
        if (!rc) rc = dgnn_cuda_zero(c, *slab[i], bytes, err);
    }
    return rc;
}
static inline void step_slabs_free(dgnn_cuda *c, float **slab[4]) {
    for (int i = 0; i < 4; i++) dgnn_cuda_release(c, *slab[i]), *slab[i] = nullptr;
}

/* Grows the slab to `need` bytes and the staging buffers to `sent`, each with a quarter
 * of headroom, where they hold less; on failure what was freed stays freed (capacity 0),
 * so the next batch tries again. */
static inline int step_ws_grow(dgnn_cuda *c, step_ws *w, size_t need, size_t sent, const char *what_dev,
                               const char *what_stage, dgnn_err *err) {
    if (need <= w->dev_cap && sent <= w->stage_cap) return DGNN_OK;
    int rc = dgnn_cuda_sync(c, err); /* nothing queued may still read the old slab or copy from a buffer */
    if (rc) return rc;
    if (need > w->dev_cap) {
        dgnn_cuda_release(c, w->dev);
        w->dev = nullptr, w->dev_cap = 0;
        const size_t cap = ws_round(need + need / 4);
        rc = dgnn_cuda_alloc(c, &w->dev, cap, what_dev, err);
        if (rc) {
            w->dev = nullptr;
            return rc;
        }
        w->dev_cap = cap;
    }
    if (sent > w->stage_cap) {
        for (int i = 0; i < 2; i++) dgnn_cuda_host_free(c, w->stage[i]), w->stage[i] = nullptr;
        w->stage_cap = 0;
        const size_t cap = ws_round(sent + sent / 4);
        for (int i = 0; i < 2 && !rc; i++) rc = dgnn_cuda_host_alloc(c, &w->stage[i], cap, what_stage, err);
        if (rc) {
            for (int i = 0; i < 2; i++) dgnn_cuda_host_free(c, w->stage[i]), w->stage[i] = nullptr;
            return rc;
        }
        w->stage_cap = cap;
    }
    return DGNN_OK;
}

/* The first half of sending a batch: waits for the next staging buffer's previous copy and
 * grows the workspace to need / sent bytes; returns the buffer's index in *q. The caller
 * then lays its arrays out over w->dev, packs w->stage[*q] and calls step_ws_upload. */
static inline int step_ws_begin(dgnn_cuda *c, step_ws *w, size_t need, size_t sent, const char *what_dev,
                                const char *what_stage, int *q, dgnn_err *err) {
    w->ready = 0;
    *q = (int)(w->batches % 2);
    int rc = dgnn_cuda_wait_event(c, w->copied[*q], "cudaEventSynchronize (a staging buffer's last copy)", err);
    if (!rc) rc = step_ws_grow(c, w, need, sent, what_dev, what_stage, err);
    return rc;
}

/* The second half: the packed buffer q's w->sent bytes to the slab with one copy, and the
 * event that guards the buffer. Asynchronous. */
static inline int step_ws_upload(dgnn_cuda *c, step_ws *w, int q, dgnn_err *err) {
    int rc = dgnn_cuda_upload(c, w->dev, w->stage[q], w->sent, err);
    if (!rc) rc = dgnn_cuda_check(cudaEventRecord(w->copied[q], c->stream), "cudaEventRecord", err);
    if (rc) {
        cudaStreamSynchronize(c->stream); /* the event may not guard the buffer: let no copy outlive this call */
        return rc;
    }
    w->batches++;
    return DGNN_OK;
}

/* The end of a forward_backward: the loss (device dlossv) into w's pinned float, read once
 * the stream is done; with loss or logits given, waits and writes them (L logits from
 * dlogits), else returns at once (the asynchronous path; step_ws_wait_loss reads it). */
static inline int step_ws_finish(dgnn_cuda *c, step_ws *w, const float *dlossv, const float *dlogits, int64_t L,
                                 float *loss, float *logits, dgnn_err *err) {
    int rc = dgnn_cuda_download(c, w->loss_h, dlossv, sizeof(float), err);
    if (!rc) w->has_loss = 1;
    if (rc || (!loss && !logits)) return rc;
    if (logits) rc = dgnn_cuda_download(c, logits, dlogits, (size_t)L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    if (!rc && loss) *loss = *w->loss_h;
    return rc;
}

/* Waits for the stream and gives the last forward_backward's loss (`what`: the step). */
static inline int step_ws_wait_loss(dgnn_cuda *c, const step_ws *w, const char *what, float *loss, dgnn_err *err) {
    if (!w || !w->has_loss)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda %s: no loss to wait for (no forward_backward ran, or the last "
                                                "one failed)", what);
    const int rc = dgnn_cuda_sync(c, err);
    if (!rc) *loss = *w->loss_h;
    return rc;
}

#endif
