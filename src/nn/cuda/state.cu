// state.cu: the node state store on the GPU (include/dgnn/cuda.h), mirroring state.c and
// the memory commit of tgnn_memory.c: memory rows, their times and the mailbox ring of
// every node in device memory, with the CPU's rules for a node that a batch names more
// than once. Writes by node id group the batch's positions by node with a stable sort
// (rows.cu), so each node is written by one thread and "first" / "last" mean first / last
// in the order given, exactly as on the CPU. Write tracking (dgnn_state_track_writes) is
// not mirrored: the distributed trainers run on the CPU store.
#include "cuda_internal.h"

extern "C" int dgnn_cuda_state_gather_mem(dgnn_cuda *c, float *dout, const dgnn_cuda_state *s, const int32_t *dnodes,
                                          int64_t n, dgnn_err *err) {
    if (!dnodes && n > 0) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_state_gather_mem: nodes is NULL");
    return dgnn_cuda_gather_rows(c, dout, s->mem_dim, s->mem, s->mem_dim, dnodes, n, s->mem_dim, err);
}

extern "C" int dgnn_cuda_state_set_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, const float *drows,
                                       const double *dt, int64_t n, dgnn_err *err) {
    if (!dnodes && n > 0) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_state_set_mem: nodes is NULL");
    return dgnn_cuda_scatter_rows_last(c, s->mem, s->mem_dim, dt ? s->mem_t : nullptr, drows, s->mem_dim, dt, dnodes,
                                       n, s->mem_dim, err);
}

// ---- mails ----

// One thread per (sorted position, mail column): the thread at the start of a node's group
// writes the group's mail (the last one, or the mean in order) into the node's next slot.
__global__ static void push_mail_rows(float *mail, const int32_t *mail_head, const float *mails, const int32_t *keys,
                                      const int32_t *perm, int64_t n, int64_t N, int64_t S, int64_t D, int agg) {
    DGNN_CUDA_FOR(t, n * D) {
        const int64_t pos = t / D, d = t % D;
        const int32_t v = keys[pos];
        if ((pos > 0 && keys[pos - 1] == v) || v < 0 || v >= N) continue;
        int64_t b = pos + 1;
        while (b < n && keys[b] == v) b++;
        float *dst = mail + ((int64_t)v * S + mail_head[v]) * D + d;
        if (agg == DGNN_CUDA_AGG_LAST) {
            *dst = mails[(int64_t)perm[b - 1] * D + d];
        } else {
            float acc = 0.0f;
            for (int64_t q = pos; q < b; q++) acc += mails[(int64_t)perm[q] * D + d];
            *dst = acc * (1.0f / (float)(b - pos));
        }
    }
}

// Then, one thread per group: the slot's time (the last mail's, or the latest), and the
// ring advanced. After push_mail_rows (stream order), which read the old heads.
__global__ static void push_mail_heads(double *mail_t, int32_t *mail_head, int32_t *mail_n, const double *t,
                                       const int32_t *keys, const int32_t *perm, int64_t n, int64_t N, int64_t S,
                                       int agg) {
    DGNN_CUDA_FOR(pos, n) {
        const int32_t v = keys[pos];
        if ((pos > 0 && keys[pos - 1] == v) || v < 0 || v >= N) continue;
        int64_t b = pos + 1;
        while (b < n && keys[b] == v) b++;
        double tv;
        if (agg == DGNN_CUDA_AGG_LAST) {
            tv = t[perm[b - 1]];
        } else {
            tv = t[perm[pos]];
            for (int64_t q = pos; q < b; q++)
                if (t[perm[q]] > tv) tv = t[perm[q]];
        }
        const int32_t slot = mail_head[v];
        mail_t[(int64_t)v * S + slot] = tv;
        mail_head[v] = (int32_t)((slot + 1) % S);
        if (mail_n[v] < S) mail_n[v]++;
    }
}

extern "C" int dgnn_cuda_state_push_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes,
                                          const float *dmails, const double *dt, int64_t n, int agg, dgnn_err *err) {
    if (agg != DGNN_CUDA_AGG_LAST && agg != DGNN_CUDA_AGG_MEAN)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_state_push_mails: unknown aggregator %d", agg);
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes, S = s->slots, D = s->mail_dim;
    dgnn_cuda_groups g;
    int rc = dgnn_cuda_groups_make(c, &g, dnodes, n, err);
    if (rc) return rc;
    if (D > 0) {
        push_mail_rows<<<dgnn_cuda_blocks(n * D, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            s->mail, s->mail_head, dmails, g.keys, g.perm, n, N, S, D, agg);
        rc = dgnn_cuda_check(cudaGetLastError(), "push_mail_rows", err);
    }
    if (!rc) {
        push_mail_heads<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            s->mail_t, s->mail_head, s->mail_n, dt, g.keys, g.perm, n, N, S, agg);
        rc = dgnn_cuda_check(cudaGetLastError(), "push_mail_heads", err);
    }
    dgnn_cuda_groups_free(c, &g);
    return rc;
}

// dgnn_state_last_mail for n nodes at once: one thread per (node, mail column)
__global__ static void last_mail_kernel(float *out, double *out_t, int32_t *has, const float *mail,
                                        const double *mail_t, const int32_t *mail_n, const int32_t *mail_head,
                                        const int32_t *nodes, int64_t n, int64_t N, int64_t S, int64_t D) {
    const int64_t w = D > 0 ? D : 1;
    DGNN_CUDA_FOR(t, n * w) {
        const int64_t i = t / w, d = t % w;
        const int32_t v = nodes[i];
        const int ok = v >= 0 && v < N && mail_n[v] > 0;
        const int64_t slot = ok ? ((int64_t)mail_head[v] + S - 1) % S : 0;
        if (D > 0 && out) out[i * D + d] = ok ? mail[((int64_t)v * S + slot) * D + d] : 0.0f;
        if (d == 0) {
            if (out_t) out_t[i] = ok ? mail_t[(int64_t)v * S + slot] : 0.0;
            if (has) has[i] = ok;
        }
    }
}

extern "C" int dgnn_cuda_state_last_mail(dgnn_cuda *c, float *dout, double *dout_t, int32_t *dhas,
                                         const dgnn_cuda_state *s, const int32_t *dnodes, int64_t n, dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    const int64_t w = s->mail_dim > 0 ? s->mail_dim : 1;
    last_mail_kernel<<<dgnn_cuda_blocks(n * w, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        dout, dout_t, dhas, s->mail, s->mail_t, s->mail_n, s->mail_head, dnodes, n, s->num_nodes, s->slots,
        s->mail_dim);
    return dgnn_cuda_check(cudaGetLastError(), "last_mail_kernel", err);
}

// A node named twice gets the same two stores: a benign race, as both write zeros.
__global__ static void clear_mails_kernel(int32_t *mail_n, int32_t *mail_head, const int32_t *nodes, int64_t n,
                                          int64_t N) {
    DGNN_CUDA_FOR(i, n) {
        const int32_t v = nodes[i];
        if (v < 0 || v >= N) continue;
        mail_n[v] = 0;
        mail_head[v] = 0;
    }
}

extern "C" int dgnn_cuda_state_clear_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, int64_t n,
                                           dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    clear_mails_kernel<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        s->mail_n, s->mail_head, dnodes, n, s->num_nodes);
    return dgnn_cuda_check(cudaGetLastError(), "clear_mails_kernel", err);
}

// dt (n) = t - mem_t[node], in double, rounded once (tgnn_memory.c's commit: each mail's
// time since its node's memory update, what the mail's time encoding reads)
__global__ static void time_since_kernel(float *dt, const double *t, const double *mem_t, const int32_t *nodes,
                                         int64_t n, int64_t N) {
    DGNN_CUDA_FOR(i, n) {
        const int32_t v = nodes[i];
        dt[i] = v >= 0 && v < N ? (float)(t[i] - mem_t[v]) : 0.0f;
    }
}

extern "C" int dgnn_cuda_state_time_since(dgnn_cuda *c, float *ddt, const double *d_t, const dgnn_cuda_state *s,
                                          const int32_t *dnodes, int64_t n, dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    time_since_kernel<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddt, d_t, s->mem_t,
                                                                                                   dnodes, n,
                                                                                                   s->num_nodes);
    return dgnn_cuda_check(cudaGetLastError(), "time_since_kernel", err);
}

// ---- the memory commit of tgnn_memory.c (step 1 of tgnn_mem_commit) ----

// The FIRST position of each node's group (stable sort: the first in the order given)
// stores its row of h when the node has a pending mail; a node without one is left alone.
__global__ static void commit_rows(float *mem, double *mem_t, const int32_t *mail_n, const float *h,
                                   const double *h_t, const int32_t *row, const int32_t *keys, const int32_t *perm,
                                   int64_t n, int64_t N, int64_t M) {
    const int64_t w = M > 0 ? M : 1;
    DGNN_CUDA_FOR(t, n * w) {
        const int64_t pos = t / w, j = t % w;
        const int32_t v = keys[pos];
        if ((pos > 0 && keys[pos - 1] == v) || v < 0 || v >= N || mail_n[v] == 0) continue;
        const int64_t r = row[perm[pos]];
        if (j < M) mem[(int64_t)v * M + j] = h[r * M + j];
        if (j == 0) mem_t[v] = h_t[r];
    }
}

// then (stream order: after commit_rows read the counts) their consumed mails dropped
__global__ static void commit_clear(int32_t *mail_n, int32_t *mail_head, const int32_t *keys, int64_t n, int64_t N) {
    DGNN_CUDA_FOR(pos, n) {
        const int32_t v = keys[pos];
        if ((pos > 0 && keys[pos - 1] == v) || v < 0 || v >= N || mail_n[v] == 0) continue;
        mail_n[v] = 0;
        mail_head[v] = 0;
    }
}

extern "C" int dgnn_cuda_state_commit_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes,
                                          const int32_t *drow, const float *dh, const double *dh_t, int64_t n,
                                          dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes, M = s->mem_dim, w = M > 0 ? M : 1;
    dgnn_cuda_groups g;
    int rc = dgnn_cuda_groups_make(c, &g, dnodes, n, err);
    if (rc) return rc;
    commit_rows<<<dgnn_cuda_blocks(n * w, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        s->mem, s->mem_t, s->mail_n, dh, dh_t, drow, g.keys, g.perm, n, N, M);
    rc = dgnn_cuda_check(cudaGetLastError(), "commit_rows", err);
    if (!rc) {
        commit_clear<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            s->mail_n, s->mail_head, g.keys, n, N);
        rc = dgnn_cuda_check(cudaGetLastError(), "commit_clear", err);
    }
    dgnn_cuda_groups_free(c, &g);
    return rc;
}
