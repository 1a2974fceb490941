/* test_comm.c: the comm module under 1 process (ctest) and under mpirun -np 2/4
 * (tests/cli_mpi.sh): all-reduce sums, broadcast from a non-zero root, all-gather(-v),
 * all-to-all-v, the non-blocking bucketed all-reduce and the byte counter. Each rank
 * checks the exact expected values. Under mpirun: heartbeats keep a rank that works alone
 * past the timeout from ending the job, and the waiting ranks nap instead of spinning. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"
#include "dgnn/base.h"
#include "dgnn/comm.h"

/* all-gather-v of variable byte blocks (rank q sends q + 1 bytes of value q), all-to-all-v
 * (rank r sends to q a block of (r + q) % 3 bytes of value 16 r + q) and its non-blocking
 * variant: exact bytes on every rank */
static void check_exchanges(int r, int P) {
    unsigned char mine[64], got[64 * 65 / 2];
    memset(mine, r, sizeof mine);
    int64_t cnt[64];
    int64_t tot = dgnn_comm_allgatherv_bytes(got, cnt, mine, r + 1);
    CHECK(tot == (int64_t)P * (P + 1) / 2);
    for (int q = 0, off = 0; q < P; off += q + 1, q++) {
        CHECK(cnt[q] == q + 1);
        for (int j = 0; j <= q; j++) CHECK(got[off + j] == q);
    }
    /* all-to-all-v: rank r sends to q a block of (r + q) % 3 bytes of value 16 r + q */
    int64_t sc[64], rc64[64];
    unsigned char sb[64 * 3];
    int64_t off = 0;
    for (int q = 0; q < P; q++) {
        sc[q] = (r + q) % 3;
        for (int j = 0; j < sc[q]; j++) sb[off++] = (unsigned char)(16 * r + q);
    }
    void *rb = NULL;
    int64_t rcap = 0, rtot = dgnn_comm_alltoallv_bytes(&rb, &rcap, rc64, sb, sc);
    off = 0;
    for (int q = 0; q < P; q++) {
        CHECK(rc64[q] == (q + r) % 3);
        for (int j = 0; j < rc64[q]; j++) CHECK(((unsigned char *)rb)[off + j] == (unsigned char)(16 * q + r));
        off += rc64[q];
    }
    CHECK(off == rtot);
    /* the non-blocking variant gives the same blocks */
    if (rb) memset(rb, 0xff, (size_t)rcap); /* one rank sends itself 0 bytes: nothing allocated */
    int64_t rtot2 = dgnn_comm_ialltoallv_bytes(&rb, &rcap, rc64, sb, sc);
    dgnn_comm_alltoallv_wait();
    CHECK(rtot2 == rtot);
    off = 0;
    for (int q = 0; q < P; q++) {
        for (int j = 0; j < rc64[q]; j++) CHECK(((unsigned char *)rb)[off + j] == (unsigned char)(16 * q + r));
        off += rc64[q];
    }
    free(rb);
}

/* --big BYTES (bench/scale.sh, under mpirun): an all-gather-v of BYTES from every rank
 * and an all-to-all-v of BYTES to every rank, whose layouts pass MPI's int counts when
 * BYTES * P does: every byte checked (value: a hash of sender, receiver and offset) */
static unsigned char big_byte(int from, int to, int64_t i) { return (unsigned char)((i * 131 + from * 7 + to * 3) >> 3); }

static int check_big(int r, int P, int64_t bytes) {
    unsigned char *send = malloc((size_t)bytes * (size_t)P), *recv = malloc((size_t)bytes * (size_t)P);
    CHECK(send && recv);
    if (!send || !recv) return 1;
    for (int64_t i = 0; i < bytes; i++) send[i] = big_byte(r, -1, i);
    int64_t cnt[64];
    const double t0 = dgnn_now();
    CHECK(dgnn_comm_allgatherv_bytes(recv, cnt, send, bytes) == bytes * P);
    const double t1 = dgnn_now();
    int ok = 1;
    for (int q = 0; q < P; q++)
        for (int64_t i = 0; i < bytes; i++) ok &= recv[q * bytes + i] == big_byte(q, -1, i);
    CHECK_MSG(ok, "rank %d: the all-gather-v of %lld bytes a rank is wrong", r, (long long)bytes);
    int64_t sc[64], rc[64];
    for (int q = 0; q < P; q++) {
        sc[q] = bytes;
        for (int64_t i = 0; i < bytes; i++) send[q * bytes + i] = big_byte(r, q, i);
    }
    void *rb = recv;
    int64_t cap = bytes * P;
    const double t2 = dgnn_now();
    CHECK(dgnn_comm_alltoallv_bytes(&rb, &cap, rc, send, sc) == bytes * P);
    const double t3 = dgnn_now();
    ok = 1;
    for (int q = 0; q < P; q++)
        for (int64_t i = 0; i < bytes; i++) ok &= ((unsigned char *)rb)[q * bytes + i] == big_byte(q, r, i);
    CHECK_MSG(ok, "rank %d: the all-to-all-v of %lld bytes a rank is wrong", r, (long long)bytes);
    if (r == 0)
        printf("%d ranks, %lld bytes a rank (layouts of %lld bytes): all-gather-v %.2f s, all-to-all-v %.2f s\n", P,
               (long long)bytes, (long long)(bytes * P), t1 - t0, t3 - t2);
    free(send), free(rb);
    return 0;
}

int main(int argc, char **argv) {
    dgnn_comm_init(&argc, &argv);
    int r = dgnn_comm_rank(), P = dgnn_comm_size();
    CHECK(r >= 0 && r < P);
    if (argc == 3 && strcmp(argv[1], "--big") == 0) {
        CHECK(P <= 64);
        check_big(r, P, (int64_t)atof(argv[2]));
        int fails = check_fail_;
        int rc = (r == 0 || fails) ? check_done() : (fails != 0);
        dgnn_comm_finalize();
        return rc;
    }
    float f[1000];
    double d[3];
    for (int i = 0; i < 1000; i++) f[i] = (float)(i + r);
    for (int i = 0; i < 3; i++) d[i] = 0.5 * (r + 1) * (i + 1);
    dgnn_comm_allreduce_sum_f32(f, 1000);
    dgnn_comm_allreduce_sum_f64(d, 3);
    int ok = 1;
    for (int i = 0; i < 1000; i++) ok &= f[i] == (float)(P * i + P * (P - 1) / 2);
    CHECK(ok);
    for (int i = 0; i < 3; i++) CHECK_NEAR(d[i], 0.5 * (i + 1) * P * (P + 1) / 2.0, 1e-12);
    int64_t v[2] = {r == P - 1 ? 77 : -1, r};
    dgnn_comm_bcast(v, sizeof v, P - 1);
    CHECK(v[0] == 77 && v[1] == P - 1);
    /* all-gather of counts and of variable byte blocks: rank q sends q + 1 bytes of
     * value q */
    int64_t all[64];
    CHECK(P <= 64);
    dgnn_comm_allgather_i64(all, 10 * r);
    for (int q = 0; q < P; q++) CHECK(all[q] == 10 * q);
    check_exchanges(r, P);
    /* the same exchanges past the int limit (lowered to a few bytes): the point-to-point
     * path that layouts over 2 GiB take, the same bytes */
    dgnn_comm_set_int_limit(2);
    check_exchanges(r, P);
    dgnn_comm_set_int_limit(0); /* back to MPI's int */
    check_exchanges(r, P);
    /* the non-blocking all-reduce in small buckets, with work in between */
    float g[1001];
    for (int i = 0; i < 1001; i++) g[i] = (float)(r + 1) * (float)i;
    dgnn_comm_stats_reset();
    dgnn_comm_iallreduce_sum_f32(g, 1001, 100);
    double busy = 0;
    for (int i = 0; i < 1000; i++) busy += i * 0.5;
    dgnn_comm_wait();
    CHECK(busy > 0);
    ok = 1;
    for (int i = 0; i < 1001; i++) ok &= g[i] == (float)(P * (P + 1) / 2) * (float)i;
    CHECK(ok);
    dgnn_comm_stats st = dgnn_comm_stats_get();
    CHECK(st.bytes_sent == (P > 1 ? 1001 * 4 : 0));
    double mx = r;
    int64_t si = r;
    dgnn_comm_allreduce_max_f64(&mx, 1);
    dgnn_comm_allreduce_sum_i64(&si, 1);
    CHECK(mx == P - 1 && si == (int64_t)P * (P - 1) / 2);
    dgnn_comm_barrier();
    /* a rank working alone for longer than the timeout, saying it is alive: the others
     * wait in a barrier without ending the job, and napping, not spinning (CPU time well
     * below the wall time) */
    if (P > 1) {
        CHECK(dgnn_comm_timeout() == DGNN_COMM_TIMEOUT_DEFAULT);
        dgnn_comm_set_timeout(1.5);
        CHECK(dgnn_comm_timeout() == 1.5);
        struct rusage ru0, ru1;
        getrusage(RUSAGE_SELF, &ru0);
        const double t0 = dgnn_now();
        if (r == 0)
            while (dgnn_now() - t0 < 4.0) {
                struct timespec ts = {0, 20 * 1000 * 1000};
                nanosleep(&ts, NULL);
                dgnn_comm_heartbeat();
            }
        dgnn_comm_barrier();
        getrusage(RUSAGE_SELF, &ru1);
        const double wall = dgnn_now() - t0;
        const double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                           1e-6 * (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec -
                                           ru0.ru_stime.tv_usec);
        CHECK_MSG(wall >= 3.9, "rank %d: the barrier ended after %.2f s, before rank 0 arrived", r, wall);
        CHECK_MSG(r == 0 || cpu < 0.5 * wall, "rank %d: %.2f s of CPU in a %.2f s wait", r, cpu, wall);
        dgnn_comm_set_timeout(DGNN_COMM_TIMEOUT_DEFAULT);
    }
    int fails = check_fail_;
    if (r == 0 || fails) printf("rank %d of %d: ", r, P);
    int rc = (r == 0 || fails) ? check_done() : (fails != 0);
    dgnn_comm_finalize();
    return rc;
}
