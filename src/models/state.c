/* state.c: the node state store (see include/dgnn/state.h). */
#include "dgnn/state.h"

#include "dgnn/binfmt.h" /* dgnn_bin_checksum */

#include <stdlib.h>
#include <string.h>

int dgnn_state_init(dgnn_state *s, int64_t N, int64_t M, int64_t D, int64_t S, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    if (N < 0 || M < 0 || D < 0 || S < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "node state: bad sizes N=%lld M=%lld mail=%lld slots=%lld",
                            (long long)N, (long long)M, (long long)D, (long long)S);
    s->num_nodes = N, s->mem_dim = M, s->mail_dim = D, s->slots = S;
    size_t n = (size_t)(N ? N : 1);
    s->mem = calloc(n * (size_t)(M ? M : 1), sizeof(float));
    s->mem_t = calloc(n, sizeof(double));
    s->mail = calloc(n * (size_t)S * (size_t)(D ? D : 1), sizeof(float));
    s->mail_t = calloc(n * (size_t)S, sizeof(double));
    s->mail_n = calloc(n, sizeof(int32_t));
    s->mail_head = calloc(n, sizeof(int32_t));
    if (!s->mem || !s->mem_t || !s->mail || !s->mail_t || !s->mail_n || !s->mail_head) {
        dgnn_state_free(s);
        return dgnn_err_set(err, DGNN_ENOMEM, "node state: out of memory for %lld nodes", (long long)N);
    }
    return DGNN_OK;
}

void dgnn_state_free(dgnn_state *s) {
    free(s->mem);
    free(s->mem_t);
    free(s->mail);
    free(s->mail_t);
    free(s->mail_n);
    free(s->mail_head);
    free(s->scratch);
    free(s->written_flag);
    free(s->written);
    memset(s, 0, sizeof *s);
}

void dgnn_state_reset(dgnn_state *s) {
    size_t N = (size_t)s->num_nodes;
    memset(s->mem, 0, N * (size_t)s->mem_dim * sizeof(float));
    memset(s->mem_t, 0, N * sizeof(double));
    memset(s->mail, 0, N * (size_t)s->slots * (size_t)s->mail_dim * sizeof(float));
    memset(s->mail_t, 0, N * (size_t)s->slots * sizeof(double));
    memset(s->mail_n, 0, N * sizeof(int32_t));
    memset(s->mail_head, 0, N * sizeof(int32_t));
    if (s->written_flag) {
        memset(s->written_flag, 0, N);
        s->n_written = 0;
    }
}

/* Records node v as written (serial callers only). */
static inline void mark(dgnn_state *s, int32_t v) {
    if (s->written_flag && !s->written_flag[v]) {
        s->written_flag[v] = 1;
        s->written[s->n_written++] = v;
    }
}

void dgnn_state_copy(dgnn_state *d, const dgnn_state *s) {
    DGNN_ASSERT(d->num_nodes == s->num_nodes && d->mem_dim == s->mem_dim && d->mail_dim == s->mail_dim &&
                d->slots == s->slots);
    size_t N = (size_t)s->num_nodes;
    memcpy(d->mem, s->mem, N * (size_t)s->mem_dim * sizeof(float));
    memcpy(d->mem_t, s->mem_t, N * sizeof(double));
    memcpy(d->mail, s->mail, N * (size_t)s->slots * (size_t)s->mail_dim * sizeof(float));
    memcpy(d->mail_t, s->mail_t, N * (size_t)s->slots * sizeof(double));
    memcpy(d->mail_n, s->mail_n, N * sizeof(int32_t));
    memcpy(d->mail_head, s->mail_head, N * sizeof(int32_t));
}

int64_t dgnn_state_bytes(const dgnn_state *s) {
    int64_t N = s->num_nodes;
    return N * s->mem_dim * 4 + N * 8 + N * s->slots * (s->mail_dim * 4 + 8) + N * 8;
}

void dgnn_state_gather_mem(float *out, const dgnn_state *s, const int32_t *nodes, int64_t n) {
    const int64_t M = s->mem_dim;
#pragma omp parallel for schedule(static) if (n * M > 16384)
    for (int64_t i = 0; i < n; i++) {
        if (nodes[i] >= 0) memcpy(out + i * M, s->mem + (int64_t)nodes[i] * M, (size_t)M * sizeof(float));
        else memset(out + i * M, 0, (size_t)M * sizeof(float));
    }
}

void dgnn_state_set_mem(dgnn_state *s, const int32_t *nodes, const float *rows, const double *t, int64_t n) {
    const int64_t M = s->mem_dim;
    /* distinct nodes: each row written by one iteration */
#pragma omp parallel for schedule(static) if (n * M > 16384)
    for (int64_t i = 0; i < n; i++) {
        DGNN_ASSERT(nodes[i] >= 0 && nodes[i] < s->num_nodes);
        memcpy(s->mem + (int64_t)nodes[i] * M, rows + i * M, (size_t)M * sizeof(float));
        if (t) s->mem_t[nodes[i]] = t[i];
    }
    if (s->written_flag)
        for (int64_t i = 0; i < n; i++) mark(s, nodes[i]);
}

/* Stable order of 0..n-1 by node id (LSD radix on 32-bit ids would do too; a merge sort
 * on n <= a few thousand mails per batch is cheap and obviously stable). */
static void order_by_node(int64_t *idx, int64_t *tmp, const int32_t *nodes, int64_t n) {
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = nodes[idx[j]] < nodes[idx[i]] ? idx[j++] : idx[i++];
            while (i < mid) tmp[k++] = idx[i++];
            while (j < hi) tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof(int64_t));
    }
}

void dgnn_state_push_mails(dgnn_state *s, const int32_t *nodes, const float *mails, const double *t, int64_t n,
                           dgnn_aggregator agg) {
    if (n <= 0) return;
    if (s->scratch_cap < 2 * n) {
        free(s->scratch);
        s->scratch_cap = 2 * n;
        s->scratch = dgnn_xmalloc((size_t)s->scratch_cap * sizeof(int64_t));
    }
    int64_t *idx = s->scratch, *tmp = s->scratch + n;
    order_by_node(idx, tmp, nodes, n);
    /* segment starts: tmp[g] = first position in idx of group g */
    int64_t groups = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || nodes[idx[i]] != nodes[idx[i - 1]]) tmp[groups++] = i;
    const int64_t D = s->mail_dim, S = s->slots;
#pragma omp parallel for schedule(static) if (groups * D > 16384)
    for (int64_t g = 0; g < groups; g++) {
        int64_t a = tmp[g], b = g + 1 < groups ? tmp[g + 1] : n;
        int32_t v = nodes[idx[a]];
        DGNN_ASSERT(v >= 0 && v < s->num_nodes);
        int32_t slot = s->mail_head[v];
        float *dst = s->mail + ((int64_t)v * S + slot) * D;
        double tv;
        if (agg == DGNN_AGG_LAST) {
            if (mails) memcpy(dst, mails + idx[b - 1] * D, (size_t)D * sizeof(float));
            tv = t[idx[b - 1]];
        } else if (!mails) { /* the times and counts only: the latest time */
            tv = t[idx[a]];
            for (int64_t p = a; p < b; p++)
                if (t[idx[p]] > tv) tv = t[idx[p]];
        } else {
            memset(dst, 0, (size_t)D * sizeof(float));
            tv = t[idx[a]];
            for (int64_t p = a; p < b; p++) {
                const float *m = mails + idx[p] * D;
                for (int64_t d = 0; d < D; d++) dst[d] += m[d];
                if (t[idx[p]] > tv) tv = t[idx[p]];
            }
            float inv = 1.0f / (float)(b - a);
            for (int64_t d = 0; d < D; d++) dst[d] *= inv;
        }
        s->mail_t[(int64_t)v * S + slot] = tv;
        s->mail_head[v] = (int32_t)((slot + 1) % S);
        if (s->mail_n[v] < S) s->mail_n[v]++;
    }
    if (s->written_flag)
        for (int64_t g = 0; g < groups; g++) mark(s, nodes[idx[tmp[g]]]);
}

const float *dgnn_state_last_mail(const dgnn_state *s, int32_t v, double *t) {
    if (s->mail_n[v] == 0) return NULL;
    int64_t slot = (s->mail_head[v] + s->slots - 1) % s->slots;
    if (t) *t = s->mail_t[(int64_t)v * s->slots + slot];
    return s->mail + ((int64_t)v * s->slots + slot) * s->mail_dim;
}

void dgnn_state_clear_mails(dgnn_state *s, const int32_t *nodes, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        s->mail_n[nodes[i]] = 0;
        s->mail_head[nodes[i]] = 0;
        mark(s, nodes[i]);
    }
}

int dgnn_state_track_writes(dgnn_state *s, dgnn_err *err) {
    if (s->written_flag) return DGNN_OK;
    size_t n = (size_t)(s->num_nodes ? s->num_nodes : 1);
    s->written_flag = calloc(n, 1);
    s->written = malloc(n * sizeof(int32_t));
    if (!s->written_flag || !s->written) {
        free(s->written_flag);
        free(s->written);
        s->written_flag = NULL, s->written = NULL;
        return dgnn_err_set(err, DGNN_ENOMEM, "node state: out of memory for write tracking");
    }
    s->n_written = 0;
    return DGNN_OK;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int64_t dgnn_state_take_written(dgnn_state *s, const int32_t **nodes) {
    DGNN_ASSERT(s->written_flag);
    int64_t n = s->n_written;
    qsort(s->written, (size_t)n, sizeof(int32_t), cmp_i32);
    for (int64_t i = 0; i < n; i++) s->written_flag[s->written[i]] = 0;
    s->n_written = 0;
    *nodes = s->written;
    return n;
}

/* Row layout: int32 id, mail_n, mail_head, pad; double mem_t; S doubles mail_t;
 * M floats mem; S*D floats mail. Copied with memcpy: a buffer from the network need
 * not be aligned. */
uint64_t dgnn_state_checksum(const dgnn_state *s) {
    const size_t N = (size_t)s->num_nodes, S = (size_t)s->slots;
    uint64_t h = dgnn_bin_checksum(s->mem, N * (size_t)s->mem_dim * sizeof(float));
    h = dgnn_hash64(h ^ dgnn_bin_checksum(s->mem_t, N * sizeof(double)));
    h = dgnn_hash64(h ^ dgnn_bin_checksum(s->mail, N * S * (size_t)s->mail_dim * sizeof(float)));
    h = dgnn_hash64(h ^ dgnn_bin_checksum(s->mail_t, N * S * sizeof(double)));
    h = dgnn_hash64(h ^ dgnn_bin_checksum(s->mail_n, N * sizeof(int32_t)));
    return dgnn_hash64(h ^ dgnn_bin_checksum(s->mail_head, N * sizeof(int32_t)));
}

int64_t dgnn_state_meta_bytes(const dgnn_state *s) { return 16 + 8 + 8 * s->slots; }

int64_t dgnn_state_row_bytes(const dgnn_state *s) {
    return dgnn_state_meta_bytes(s) + 4 * s->mem_dim + 4 * s->slots * s->mail_dim;
}

/* a row's first part: id, mail count and position, memory time, mail times */
static void pack_meta_row(char *p, const dgnn_state *s, int32_t v) {
    const int64_t S = s->slots;
    int32_t hdr[4] = {v, s->mail_n[v], s->mail_head[v], 0};
    memcpy(p, hdr, 16);
    memcpy(p + 16, &s->mem_t[v], 8);
    memcpy(p + 24, s->mail_t + (int64_t)v * S, (size_t)(8 * S));
}

/* the node of row i's first part, applied to s; -1 (err set) when it is not one of s's */
static int32_t unpack_meta_row(dgnn_state *s, const char *p, int64_t i, dgnn_err *err) {
    const int64_t S = s->slots;
    int32_t hdr[4];
    memcpy(hdr, p, 16);
    const int32_t v = hdr[0];
    if (v < 0 || v >= s->num_nodes || hdr[1] < 0 || hdr[1] > S || hdr[2] < 0 || hdr[2] >= S) {
        dgnn_err_set(err, DGNN_EINVAL, "node state rows: row %lld: bad node %d or mailbox position", (long long)i, v);
        return -1;
    }
    s->mail_n[v] = hdr[1];
    s->mail_head[v] = hdr[2];
    memcpy(&s->mem_t[v], p + 16, 8);
    memcpy(s->mail_t + (int64_t)v * S, p + 24, (size_t)(8 * S));
    return v;
}

static int rows_whole(int64_t bytes, int64_t rb, dgnn_err *err) {
    if (bytes >= 0 && bytes % rb == 0) return DGNN_OK;
    return dgnn_err_set(err, DGNN_EINVAL, "node state rows: %lld bytes is not a whole number of %lld-byte rows",
                        (long long)bytes, (long long)rb);
}

void dgnn_state_pack_rows(void *buf, const dgnn_state *s, const int32_t *nodes, int64_t n) {
    const int64_t rb = dgnn_state_row_bytes(s), mb = dgnn_state_meta_bytes(s), M = s->mem_dim, S = s->slots,
                  D = s->mail_dim;
#pragma omp parallel for schedule(static) if (n * rb > 65536)
    for (int64_t i = 0; i < n; i++) {
        char *p = (char *)buf + i * rb;
        const int32_t v = nodes[i];
        pack_meta_row(p, s, v);
        memcpy(p + mb, s->mem + (int64_t)v * M, (size_t)(4 * M));
        memcpy(p + mb + 4 * M, s->mail + (int64_t)v * S * D, (size_t)(4 * S * D));
    }
}

int64_t dgnn_state_unpack_rows(dgnn_state *s, const void *buf, int64_t bytes, dgnn_err *err) {
    const int64_t rb = dgnn_state_row_bytes(s), mb = dgnn_state_meta_bytes(s), M = s->mem_dim, S = s->slots,
                  D = s->mail_dim;
    if (rows_whole(bytes, rb, err)) return err->code;
    int64_t n = bytes / rb;
    /* serial, in buffer order: a node present twice must end with its last row */
    for (int64_t i = 0; i < n; i++) {
        const char *p = (const char *)buf + i * rb;
        const int32_t v = unpack_meta_row(s, p, i, err);
        if (v < 0) return err->code;
        memcpy(s->mem + (int64_t)v * M, p + mb, (size_t)(4 * M));
        memcpy(s->mail + (int64_t)v * S * D, p + mb + 4 * M, (size_t)(4 * S * D));
    }
    return n;
}

void dgnn_state_pack_meta(void *buf, const dgnn_state *s, const int32_t *nodes, int64_t n) {
    const int64_t mb = dgnn_state_meta_bytes(s);
    for (int64_t i = 0; i < n; i++) pack_meta_row((char *)buf + i * mb, s, nodes[i]);
}

int64_t dgnn_state_unpack_meta(dgnn_state *s, const void *buf, int64_t bytes, int32_t *nodes, dgnn_err *err) {
    const int64_t mb = dgnn_state_meta_bytes(s);
    if (rows_whole(bytes, mb, err)) return err->code;
    const int64_t n = bytes / mb;
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = unpack_meta_row(s, (const char *)buf + i * mb, i, err);
        if (v < 0) return err->code;
        if (nodes) nodes[i] = v;
    }
    return n;
}
