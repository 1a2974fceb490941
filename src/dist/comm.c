/* comm.c: the only file that calls MPI. Large buffers are sent in chunks of at most
 * 2^30 elements because MPI counts are ints; the variable-size exchanges (whose
 * displacements are ints too) check that a call stays below 2 GiB and assert otherwise
 * (callers exchange state rows per window: megabytes, not gigabytes).
 * Every call adds its blocked time and the bytes it contributes to the counters that
 * the distributed trainers report (dgnn_comm_stats). */
#include "dgnn/comm.h"

#include <stdlib.h>
#include <string.h>

#include "dgnn/base.h"

#if DGNN_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_inited = 0;
static dgnn_comm_stats g_stats;

dgnn_comm_stats dgnn_comm_stats_get(void) { return g_stats; }
void dgnn_comm_stats_reset(void) { memset(&g_stats, 0, sizeof g_stats); }

#define CHUNK ((int64_t)1 << 30)

int dgnn_comm_has_mpi(void) { return DGNN_HAVE_MPI; }

void dgnn_comm_init(int *argc, char ***argv) {
    if (g_inited) return;
    g_inited = 1;
#if DGNN_HAVE_MPI
    int already = 0;
    MPI_Initialized(&already);
    if (!already) MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
    (void)argc;
    (void)argv;
#endif
    dgnn_log_set_rank(g_rank);
}

void dgnn_comm_finalize(void) {
#if DGNN_HAVE_MPI
    int fin = 0;
    MPI_Finalized(&fin);
    if (g_inited && !fin) MPI_Finalize();
#endif
    g_inited = 0;
}

int dgnn_comm_rank(void) { return g_rank; }
int dgnn_comm_size(void) { return g_size; }

void dgnn_comm_barrier(void) {
#if DGNN_HAVE_MPI
    if (g_size > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void dgnn_comm_abort(int code) {
#if DGNN_HAVE_MPI
    if (g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    exit(code);
}

#if DGNN_HAVE_MPI
/* In-place all-reduce of n elements in chunks that fit MPI's int counts, counted. */
static void allreduce(void *buf, int64_t n, MPI_Datatype type, int64_t elem, MPI_Op op) {
    if (g_size == 1) return;
    double t0 = dgnn_now();
    for (int64_t off = 0; off < n; off += CHUNK) {
        int64_t c = n - off < CHUNK ? n - off : CHUNK;
        MPI_Allreduce(MPI_IN_PLACE, (char *)buf + off * elem, (int)c, type, op, MPI_COMM_WORLD);
    }
    g_stats.bytes_sent += n * elem;
    g_stats.wait_seconds += dgnn_now() - t0;
}
#define ALLREDUCE(buf, n, type, op) allreduce(buf, n, type, (int64_t)sizeof *(buf), op)
#else
#define ALLREDUCE(buf, n, type, op) ((void)(buf), (void)(n))
#endif

void dgnn_comm_allreduce_sum_f32(float *buf, int64_t n) { ALLREDUCE(buf, n, MPI_FLOAT, MPI_SUM); }
void dgnn_comm_allreduce_sum_f64(double *buf, int64_t n) { ALLREDUCE(buf, n, MPI_DOUBLE, MPI_SUM); }
void dgnn_comm_allreduce_max_f64(double *buf, int64_t n) { ALLREDUCE(buf, n, MPI_DOUBLE, MPI_MAX); }
void dgnn_comm_allreduce_sum_i64(int64_t *buf, int64_t n) { ALLREDUCE(buf, n, MPI_INT64_T, MPI_SUM); }

void dgnn_comm_bcast(void *buf, int64_t bytes, int root) {
#if DGNN_HAVE_MPI
    if (g_size > 1)
        for (int64_t off = 0; off < bytes; off += CHUNK) {
            int64_t c = bytes - off < CHUNK ? bytes - off : CHUNK;
            MPI_Bcast((char *)buf + off, (int)c, MPI_BYTE, root, MPI_COMM_WORLD);
        }
#else
    (void)buf;
    (void)bytes;
    (void)root;
#endif
}

void dgnn_comm_allgather_i64(int64_t *recv, int64_t mine) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        double t0 = dgnn_now();
        MPI_Allgather(&mine, 1, MPI_INT64_T, recv, 1, MPI_INT64_T, MPI_COMM_WORLD);
        g_stats.bytes_sent += (int64_t)sizeof(int64_t) * (g_size - 1);
        g_stats.wait_seconds += dgnn_now() - t0;
        return;
    }
#endif
    recv[0] = mine;
}

#if DGNN_HAVE_MPI
/* int counts and displacements of byte blocks, checked to fit MPI's ints. */
static void int_layout(int *cnt, int *dsp, const int64_t *counts) {
    int64_t off = 0;
    for (int q = 0; q < g_size; q++) {
        DGNN_ASSERT(counts[q] >= 0 && off + counts[q] < ((int64_t)1 << 31));
        cnt[q] = (int)counts[q];
        dsp[q] = (int)off;
        off += counts[q];
    }
}
#endif

int64_t dgnn_comm_allgatherv_bytes(void *recv, int64_t *counts, const void *send, int64_t send_bytes) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        double t0 = dgnn_now();
        MPI_Allgather(&send_bytes, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
        int *cnt = dgnn_xmalloc(2 * (size_t)g_size * sizeof(int)), *dsp = cnt + g_size;
        int_layout(cnt, dsp, counts);
        int64_t total = (int64_t)dsp[g_size - 1] + cnt[g_size - 1];
        MPI_Allgatherv(send, (int)send_bytes, MPI_BYTE, recv, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
        free(cnt);
        g_stats.bytes_sent += send_bytes * (g_size - 1);
        g_stats.wait_seconds += dgnn_now() - t0;
        return total;
    }
#endif
    counts[0] = send_bytes;
    if (send_bytes > 0 && recv != send) memmove(recv, send, (size_t)send_bytes);
    return send_bytes;
}

int64_t dgnn_comm_alltoallv_bytes(void **recv, int64_t *recv_cap, int64_t *recv_counts, const void *send,
                                  const int64_t *send_counts) {
    int64_t total = 0;
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        double t0 = dgnn_now();
        MPI_Alltoall(send_counts, 1, MPI_INT64_T, recv_counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
        for (int q = 0; q < g_size; q++) total += recv_counts[q];
        if (total > *recv_cap) {
            *recv = dgnn_xrealloc(*recv, (size_t)total);
            *recv_cap = total;
        }
        int *v = dgnn_xmalloc(4 * (size_t)g_size * sizeof(int));
        int_layout(v, v + g_size, send_counts);
        int_layout(v + 2 * g_size, v + 3 * g_size, recv_counts);
        MPI_Alltoallv(send, v, v + g_size, MPI_BYTE, *recv, v + 2 * g_size, v + 3 * g_size, MPI_BYTE, MPI_COMM_WORLD);
        free(v);
        for (int q = 0; q < g_size; q++)
            if (q != g_rank) g_stats.bytes_sent += send_counts[q];
        g_stats.wait_seconds += dgnn_now() - t0;
        return total;
    }
#endif
    total = recv_counts[0] = send_counts[0];
    if (total > *recv_cap) {
        *recv = dgnn_xrealloc(*recv, (size_t)total);
        *recv_cap = total;
    }
    if (total > 0) memcpy(*recv, send, (size_t)total);
    return total;
}

#if DGNN_HAVE_MPI
static MPI_Request g_a2a_req = MPI_REQUEST_NULL;
static int *g_a2a_layout;
#endif

int64_t dgnn_comm_ialltoallv_bytes(void **recv, int64_t *recv_cap, int64_t *recv_counts, const void *send,
                                   const int64_t *send_counts) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        DGNN_ASSERT(g_a2a_req == MPI_REQUEST_NULL); /* one in flight */
        double t0 = dgnn_now();
        MPI_Alltoall(send_counts, 1, MPI_INT64_T, recv_counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
        int64_t total = 0;
        for (int q = 0; q < g_size; q++) total += recv_counts[q];
        if (total > *recv_cap) {
            *recv = dgnn_xrealloc(*recv, (size_t)total);
            *recv_cap = total;
        }
        if (!g_a2a_layout) g_a2a_layout = dgnn_xmalloc(4 * (size_t)g_size * sizeof(int));
        int *v = g_a2a_layout;
        int_layout(v, v + g_size, send_counts);
        int_layout(v + 2 * g_size, v + 3 * g_size, recv_counts);
        MPI_Ialltoallv(send, v, v + g_size, MPI_BYTE, *recv, v + 2 * g_size, v + 3 * g_size, MPI_BYTE, MPI_COMM_WORLD,
                       &g_a2a_req);
        for (int q = 0; q < g_size; q++)
            if (q != g_rank) g_stats.bytes_sent += send_counts[q];
        g_stats.wait_seconds += dgnn_now() - t0;
        return total;
    }
#endif
    return dgnn_comm_alltoallv_bytes(recv, recv_cap, recv_counts, send, send_counts);
}

void dgnn_comm_alltoallv_wait(void) {
#if DGNN_HAVE_MPI
    if (g_a2a_req != MPI_REQUEST_NULL) {
        double t0 = dgnn_now();
        MPI_Wait(&g_a2a_req, MPI_STATUS_IGNORE);
        g_stats.wait_seconds += dgnn_now() - t0;
    }
#endif
}

/* ---- the non-blocking bucketed all-reduce ---- */
#if DGNN_HAVE_MPI
static MPI_Request *g_req;
static int g_nreq, g_req_cap;
#endif

void dgnn_comm_iallreduce_sum_f32(float *buf, int64_t n, int64_t bucket) {
#if DGNN_HAVE_MPI
    if (g_size > 1 && n > 0) {
        if (bucket <= 0) bucket = (4 << 20) / (int64_t)sizeof(float);
        if (bucket > CHUNK) bucket = CHUNK;
        int nb = (int)((n + bucket - 1) / bucket);
        if (g_nreq + nb > g_req_cap) { /* calls before the wait append their buckets */
            g_req_cap = 2 * (g_nreq + nb);
            g_req = dgnn_xrealloc(g_req, (size_t)g_req_cap * sizeof(MPI_Request));
        }
        double t0 = dgnn_now();
        for (int b = 0; b < nb; b++) {
            int64_t off = (int64_t)b * bucket, c = n - off < bucket ? n - off : bucket;
            MPI_Iallreduce(MPI_IN_PLACE, buf + off, (int)c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &g_req[g_nreq + b]);
        }
        g_nreq += nb;
        g_stats.bytes_sent += n * (int64_t)sizeof(float);
        g_stats.wait_seconds += dgnn_now() - t0;
    }
#else
    (void)buf;
    (void)n;
    (void)bucket;
#endif
}

void dgnn_comm_wait(void) {
#if DGNN_HAVE_MPI
    if (g_nreq > 0) {
        double t0 = dgnn_now();
        MPI_Waitall(g_nreq, g_req, MPI_STATUSES_IGNORE);
        g_nreq = 0;
        g_stats.wait_seconds += dgnn_now() - t0;
    }
#endif
}
