/* comm.c: the only file that calls MPI. Large buffers are sent in chunks of at most
 * 2^30 elements because MPI counts are ints; the variable-size exchanges (whose
 * displacements are ints too) go as MPI's collectives while their layouts fit an int, and
 * past that (a window's state rows of gigabytes: APAN's mailboxes, a wide window) as
 * point-to-point messages of derived types, whose offsets are pointers (exchange_p2p).
 * Every call adds its blocked time and the bytes it contributes to the counters that
 * the distributed trainers report (dgnn_comm_stats).
 *
 * No call blocks forever. Every collective is issued in its non-blocking form and
 * completed by wait_for(), which polls MPI_Test: a short spin first (a step's waits are
 * mostly shorter: no added latency), then naps of growing length up to 1 ms, so a rank
 * that waits long (for rank 0's validation, for a stopped peer) does not hold a core.
 * A wait that sees no progress for the timeout (dgnn_comm_set_timeout, `--comm-timeout`)
 * ends the job through peer_timeout(), which names the ranks that do not answer.
 * A rank that works alone while the others wait for it (rank 0 evaluating) says it is
 * alive with dgnn_comm_heartbeat(); each heartbeat a waiting rank receives restarts its
 * clock. Heartbeats and the timeout's roll call travel on g_side, a duplicate of
 * MPI_COMM_WORLD, so that they never match a collective's messages. */
#include "dgnn/comm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dgnn/base.h"

#if DGNN_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_inited = 0, g_local = 0;
static dgnn_comm_stats g_stats;
static double g_timeout = DGNN_COMM_TIMEOUT_DEFAULT; /* seconds without progress; 0: forever */
static double g_allow;                                /* extra seconds for the next wait */

dgnn_comm_stats dgnn_comm_stats_get(void) { return g_stats; }
void dgnn_comm_stats_reset(void) { memset(&g_stats, 0, sizeof g_stats); }

void dgnn_comm_set_timeout(double seconds) { g_timeout = seconds > 0 ? seconds : 0; }
double dgnn_comm_timeout(void) { return g_timeout; }
void dgnn_comm_allow(double seconds) {
    if (seconds > 0) g_allow += seconds;
}

#define CHUNK ((int64_t)1 << 30)

int dgnn_comm_has_mpi(void) { return DGNN_HAVE_MPI; }

#if DGNN_HAVE_MPI
static MPI_Comm g_side = MPI_COMM_NULL;
#endif

void dgnn_comm_init(int *argc, char ***argv) {
    if (g_inited) return;
    g_inited = 1;
#if DGNN_HAVE_MPI
    int already = 0;
    MPI_Initialized(&already);
    if (!already) MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_size > 1) {
        MPI_Comm_dup(MPI_COMM_WORLD, &g_side);
        /* this process's rank among those on its machine (the GPU it takes: cuda:local_rank) */
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &g_local);
        MPI_Comm_free(&node);
    }
#else
    (void)argc;
    (void)argv;
#endif
    dgnn_log_set_rank(g_rank);
}

int dgnn_comm_rank(void) { return g_rank; }
int dgnn_comm_size(void) { return g_size; }
int dgnn_comm_local_rank(void) { return g_local; }

void dgnn_comm_abort(int code) {
#if DGNN_HAVE_MPI
    if (g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    exit(code);
}

#if DGNN_HAVE_MPI
/* ---- waiting with a timeout ------------------------------------------------------------
 * The spin covers the waits of a training step (the state exchange, the gradient
 * all-reduce: milliseconds); the naps then cost a long wait at most 1 ms of latency. */
#define SPIN_SECONDS 0.005
#define NAP_MIN_SECONDS 20e-6
#define NAP_MAX_SECONDS 1e-3
/* A gap this long between two polls of one wait means this rank itself did not run (it
 * was stopped, or the whole job was suspended and resumed): that time is not counted
 * against the peers. Without this, a stopped rank that mpirun resumes to kill it would
 * wake up past its timeout and report the others' silence. */
#define FROZEN_SECONDS 1.0

/* TAG_HERE carries -1 (an answer to the roll call) or the seconds its sender waited
 * before it gave up */
enum { TAG_ALIVE = 1, TAG_HERE = 2, TAG_ROLL_CALL = 3, TAG_ACK = 4 };

static double g_last_alive;   /* when this rank last heard a heartbeat (or began its wait) */
static double g_heartbeat_at; /* when this rank last sent heartbeats */
static int g_gave_up = -1;    /* rank 0: a rank that reported a timeout, not yet handled */
static int g_gave_up_after;   /* ... and the seconds it waited */
static int g_acked;           /* ranks > 0: rank 0 acknowledged this rank's report */
static unsigned char *g_here; /* rank 0, during a roll call: 1 for each rank that answered */

static void nap(double seconds) {
    struct timespec ts = {0, (long)(seconds * 1e9)};
    nanosleep(&ts, NULL);
}

/* One int on the side channel; never waited for (an eager send completes locally, and a
 * stopped peer must not block the sender), so *value must stay valid: static storage. */
static void side_send(int to, int tag, const int *value) {
    MPI_Request r;
    MPI_Isend(value, 1, MPI_INT, to, tag, g_side, &r);
    MPI_Request_free(&r);
}
static const int k_none = -1;

/* Handles every side message that has arrived: heartbeats restart the clock, a roll
 * call is answered, rank 0 notes who answered or gave up and acknowledges a report. */
static void side_poll(void) {
    for (;;) {
        int flag = 0, v = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_side, &flag, &st);
        if (!flag) return;
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, g_side, MPI_STATUS_IGNORE);
        const int from = st.MPI_SOURCE;
        switch (st.MPI_TAG) {
        case TAG_ALIVE: g_last_alive = dgnn_now(); break;
        case TAG_ROLL_CALL: side_send(0, TAG_HERE, &k_none); break;
        case TAG_ACK: g_acked = 1; break;
        case TAG_HERE:
            if (g_rank != 0) break;
            if (g_here) g_here[from] = 1;
            if (v >= 0) {
                side_send(from, TAG_ACK, &k_none);
                if (g_gave_up < 0) g_gave_up = from, g_gave_up_after = v;
            }
            break;
        default: break;
        }
    }
}

/* Grace for the roll call and for rank 0's acknowledgement: long enough for a loaded
 * machine to schedule a polling rank, short beside the timeout itself. */
static double grace_seconds(void) {
    double g = g_timeout / 10;
    return g < 3 ? 3 : g > 30 ? 30 : g;
}

/* Ends the job after a wait in `what` saw no progress for `waited` seconds (reporter >= 0:
 * rank 0 was told so by that rank). Rank 0 asks every rank to answer and names those
 * that do not; another rank reports to rank 0 and, when rank 0 does not answer either,
 * says that rank 0 is the silent one. Never returns. */
static void peer_timeout(const char *what, double waited, int reporter) __attribute__((noreturn));
static void peer_timeout(const char *what, double waited, int reporter) {
    const double grace = grace_seconds();
    char limit[160];
    snprintf(limit, sizeof limit, "--comm-timeout SECONDS sets how long a rank waits (now %g s; 0 waits forever)",
             g_timeout);
    if (g_rank == 0) {
        g_here = calloc((size_t)g_size, 1);
        if (!g_here) MPI_Abort(MPI_COMM_WORLD, 1);
        g_here[0] = 1;
        if (reporter > 0) g_here[reporter] = 1;
        for (int q = 1; q < g_size; q++) side_send(q, TAG_ROLL_CALL, &k_none);
        const double t0 = dgnn_now();
        int missing = g_size;
        while (dgnn_now() - t0 < grace && missing > 0) {
            side_poll();
            missing = 0;
            for (int q = 0; q < g_size; q++) missing += !g_here[q];
            nap(NAP_MAX_SECONDS);
        }
        char who[512];
        int n = 0, len = 0;
        who[0] = '\0';
        for (int q = 1; q < g_size; q++)
            if (!g_here[q] && len < (int)sizeof who - 16)
                len += snprintf(who + len, sizeof who - (size_t)len, "%s%d", n++ ? ", " : "", q);
        char why[160];
        if (reporter > 0) snprintf(why, sizeof why, "rank %d gave up after waiting %.0f s", reporter, waited);
        else snprintf(why, sizeof why, "rank 0 waited %.0f s in %s", waited, what);
        if (n > 0)
            fprintf(stderr,
                    "dgnn: rank%s %s did not answer (%s, then %.0f s for a roll call): stopped, hung, or its "
                    "machine is lost; ending the job. %s\n",
                    n > 1 ? "s" : "", who, why, grace, limit);
        else
            fprintf(stderr,
                    "dgnn: %s, yet every rank answers: a rank is doing long work alone or the ranks wait in "
                    "different calls; ending the job. %s\n",
                    why, limit);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    } else {
        static int waited_s;
        waited_s = (int)waited;
        side_send(0, TAG_HERE, &waited_s);
        const double t0 = dgnn_now();
        /* rank 0 takes `grace` for its roll call, then ends the job */
        while (!g_acked && dgnn_now() - t0 < grace + 2) side_poll(), nap(NAP_MAX_SECONDS);
        if (g_acked)
            while (dgnn_now() - t0 < 3 * grace + 5) side_poll(), nap(NAP_MAX_SECONDS);
        if (g_acked)
            fprintf(stderr, "dgnn: rank %d: waited %.0f s in %s; rank 0 answered but did not end the job; ending it. %s\n",
                    g_rank, waited, what, limit);
        else
            fprintf(stderr,
                    "dgnn: rank %d: rank 0 did not answer (rank %d waited %.0f s in %s, then %.0f s for rank 0 to "
                    "acknowledge): rank 0 is stopped, hung, or its machine is lost; ending the job. %s\n",
                    g_rank, g_rank, waited, what, grace + 2, limit);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    exit(1); /* not reached: MPI_Abort does not return */
}

/* Completes n requests (what: the call, for the message), or ends the job after the
 * timeout without progress (no completion, no heartbeat). */
static void wait_for(int n, MPI_Request *req, const char *what) {
    static double side_at; /* the last look at the side channel: at most one per ms */
    const double t0 = dgnn_now();
    double rest = 0, prev = t0;
    g_last_alive = t0;
    for (;;) {
        int done = 0;
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (done) break;
        const double t = dgnn_now();
        if (t - prev > FROZEN_SECONDS) g_last_alive += t - prev; /* this rank was not running */
        prev = t;
        if (t - side_at >= NAP_MAX_SECONDS) {
            side_at = t;
            side_poll();
            if (g_gave_up > 0) peer_timeout(what, g_gave_up_after, g_gave_up);
            if (g_timeout > 0 && t - g_last_alive > g_timeout + g_allow) peer_timeout(what, t - t0, -1);
        }
        if (t - t0 >= SPIN_SECONDS) {
            rest = rest > 0 ? (rest * 2 < NAP_MAX_SECONDS ? rest * 2 : NAP_MAX_SECONDS) : NAP_MIN_SECONDS;
            nap(rest);
        }
    }
    g_allow = 0;
}
#endif

void dgnn_comm_heartbeat(void) {
#if DGNN_HAVE_MPI
    if (g_size == 1) return;
    const double t = dgnn_now(), every = g_timeout > 0 && g_timeout < 4 ? g_timeout / 4 : 1.0;
    if (t - g_heartbeat_at < every) return;
    g_heartbeat_at = t;
    for (int q = 0; q < g_size; q++)
        if (q != g_rank) side_send(q, TAG_ALIVE, &k_none);
    side_poll(); /* a rank may have given up meanwhile */
    if (g_gave_up > 0) peer_timeout("its own work", g_gave_up_after, g_gave_up);
#endif
}

void dgnn_comm_barrier(void) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        MPI_Request r;
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        wait_for(1, &r, "a barrier");
    }
#endif
}

void dgnn_comm_finalize(void) {
#if DGNN_HAVE_MPI
    int fin = 0;
    MPI_Finalized(&fin);
    if (g_inited && !fin) {
        /* MPI_Finalize synchronises the ranks without a timeout: meet them here first */
        if (g_size > 1) {
            MPI_Request r;
            MPI_Ibarrier(MPI_COMM_WORLD, &r);
            wait_for(1, &r, "the end of the run (finalize)");
            side_poll();
        }
        MPI_Finalize();
    }
#endif
    g_inited = 0;
}

#if DGNN_HAVE_MPI
/* In-place all-reduce of n elements in chunks that fit MPI's int counts, counted. */
static void allreduce(void *buf, int64_t n, MPI_Datatype type, int64_t elem, MPI_Op op) {
    if (g_size == 1) return;
    double t0 = dgnn_now();
    for (int64_t off = 0; off < n; off += CHUNK) {
        int64_t c = n - off < CHUNK ? n - off : CHUNK;
        MPI_Request r;
        MPI_Iallreduce(MPI_IN_PLACE, (char *)buf + off * elem, (int)c, type, op, MPI_COMM_WORLD, &r);
        wait_for(1, &r, "an all-reduce");
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
            MPI_Request r;
            MPI_Ibcast((char *)buf + off, (int)c, MPI_BYTE, root, MPI_COMM_WORLD, &r);
            wait_for(1, &r, "a broadcast");
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
        MPI_Request r;
        MPI_Iallgather(&mine, 1, MPI_INT64_T, recv, 1, MPI_INT64_T, MPI_COMM_WORLD, &r);
        wait_for(1, &r, "an all-gather");
        g_stats.bytes_sent += (int64_t)sizeof(int64_t) * (g_size - 1);
        g_stats.wait_seconds += dgnn_now() - t0;
        return;
    }
#endif
    recv[0] = mine;
}

/* The bytes a layout of blocks may span for MPI's int counts and displacements (lowered
 * by the tests, so that the point-to-point path runs on small blocks). */
static int64_t g_int_limit = INT_MAX;
void dgnn_comm_set_int_limit(int64_t bytes) { g_int_limit = bytes > 0 && bytes < INT_MAX ? bytes : INT_MAX; }

#if DGNN_HAVE_MPI
/* int counts and displacements of byte blocks laid end to end: 1 when they fit, else 0
 * (cnt, dsp then partly written). */
static int int_layout(int *cnt, int *dsp, const int64_t *counts) {
    int64_t off = 0;
    for (int q = 0; q < g_size; q++) {
        if (counts[q] < 0 || off + counts[q] > g_int_limit) return 0;
        cnt[q] = (int)counts[q];
        dsp[q] = (int)off;
        off += counts[q];
    }
    return 1;
}

/* A datatype of `bytes` bytes (1 MiB blocks and the rest), so that one message of any
 * size has a count of 1. Committed; the caller frees it once the message is posted. */
static MPI_Datatype bytes_type(int64_t bytes) {
    const int64_t blk = (int64_t)1 << 20, nblk = bytes / blk;
    MPI_Datatype mib, t;
    MPI_Type_contiguous((int)blk, MPI_BYTE, &mib);
    int lens[2] = {(int)nblk, (int)(bytes - nblk * blk)};
    MPI_Aint disp[2] = {0, (MPI_Aint)(nblk * blk)};
    MPI_Datatype types[2] = {mib, MPI_BYTE};
    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&mib);
    return t;
}

#define EXCHANGE_TAG 0x6467 /* on MPI_COMM_WORLD: no other point-to-point message uses it */

/* The exchange of byte blocks as point-to-point messages, for layouts past MPI's ints:
 * scnt[q] bytes at send + sdsp[q] go to rank q, rank q's rcnt[q] bytes land at recv +
 * rdsp[q]; the own block is copied here. Posts into req (2 (P - 1) at most) and returns
 * how many; the caller waits for them. */
static int exchange_p2p(MPI_Request *req, const char *send, const int64_t *scnt, const int64_t *sdsp, char *recv,
                        const int64_t *rcnt, const int64_t *rdsp) {
    int n = 0;
    for (int q = 0; q < g_size; q++) {
        if (q == g_rank) {
            if (rcnt[q] > 0) memmove(recv + rdsp[q], send + sdsp[q], (size_t)rcnt[q]);
            continue;
        }
        MPI_Datatype t;
        if (rcnt[q] > 0) {
            t = bytes_type(rcnt[q]);
            MPI_Irecv(recv + rdsp[q], 1, t, q, EXCHANGE_TAG, MPI_COMM_WORLD, &req[n++]);
            MPI_Type_free(&t); /* freed once the message completes */
        }
        if (scnt[q] > 0) {
            t = bytes_type(scnt[q]);
            MPI_Isend(send + sdsp[q], 1, t, q, EXCHANGE_TAG, MPI_COMM_WORLD, &req[n++]);
            MPI_Type_free(&t);
        }
    }
    return n;
}

/* offs (P) = where each of counts' blocks starts, laid end to end */
static void starts_of(int64_t *offs, const int64_t *counts) {
    for (int64_t q = 0, off = 0; q < g_size; off += counts[q], q++) offs[q] = off;
}

/* The counts' exchange of the all-to-all, and whether its payload goes point-to-point:
 * each rank sends every other {its count for it, its flag}, the flag set where its sends
 * pass g_int_limit / P. No flag set anywhere: every rank sends at most limit / P bytes and
 * so receives at most limit, and the collective's int layouts fit on every rank; a flag
 * set: every rank, having received every flag, takes the point-to-point path. Blocking. */
static int alltoall_counts(int64_t *recv_counts, const int64_t *send_counts) {
    int64_t *x = dgnn_xmalloc(4 * (size_t)g_size * sizeof *x), *in = x + 2 * g_size, total = 0;
    for (int q = 0; q < g_size; q++) total += send_counts[q];
    const int64_t flag = total > g_int_limit / g_size;
    for (int q = 0; q < g_size; q++) x[2 * q] = send_counts[q], x[2 * q + 1] = flag;
    MPI_Request r;
    MPI_Ialltoall(x, 2, MPI_INT64_T, in, 2, MPI_INT64_T, MPI_COMM_WORLD, &r);
    wait_for(1, &r, "an all-to-all");
    int big = 0;
    for (int q = 0; q < g_size; q++) recv_counts[q] = in[2 * q], big |= in[2 * q + 1] != 0;
    free(x);
    return big;
}

/* Posts the all-to-all's payload (counts exchanged) into req: one collective, or the
 * point-to-point messages where big; returns how many requests. v (4 P ints): the
 * collective's counts and displacements, which must stay until it completes. */
static int alltoallv_post(MPI_Request *req, int *v, int big, void *recv, const int64_t *recv_counts, const void *send,
                          const int64_t *send_counts) {
    if (big) {
        int64_t *offs = dgnn_xmalloc(2 * (size_t)g_size * sizeof *offs);
        starts_of(offs, send_counts), starts_of(offs + g_size, recv_counts);
        const int n = exchange_p2p(req, send, send_counts, offs, recv, recv_counts, offs + g_size);
        free(offs);
        return n;
    }
    const int fits = int_layout(v, v + g_size, send_counts) && int_layout(v + 2 * g_size, v + 3 * g_size, recv_counts);
    DGNN_ASSERT(fits); /* alltoall_counts' bound */
    MPI_Ialltoallv(send, v, v + g_size, MPI_BYTE, recv, v + 2 * g_size, v + 3 * g_size, MPI_BYTE, MPI_COMM_WORLD, req);
    return 1;
}
#endif

int64_t dgnn_comm_allgatherv_bytes(void *recv, int64_t *counts, const void *send, int64_t send_bytes) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        double t0 = dgnn_now();
        MPI_Request r;
        MPI_Iallgather(&send_bytes, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD, &r);
        wait_for(1, &r, "an all-gather");
        int64_t total = 0;
        for (int q = 0; q < g_size; q++) total += counts[q];
        int *cnt = dgnn_xmalloc(2 * (size_t)g_size * sizeof(int)), *dsp = cnt + g_size;
        if (int_layout(cnt, dsp, counts)) { /* every rank knows the counts: the same path on all */
            MPI_Iallgatherv(send, (int)send_bytes, MPI_BYTE, recv, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD, &r);
            wait_for(1, &r, "an all-gather");
        } else { /* past MPI's ints: rank q's block to every rank */
            int64_t *x = dgnn_xmalloc(3 * (size_t)g_size * sizeof *x), *scnt = x, *sdsp = x + g_size;
            for (int q = 0; q < g_size; q++) scnt[q] = send_bytes, sdsp[q] = 0;
            starts_of(x + 2 * g_size, counts);
            MPI_Request *req = dgnn_xmalloc(2 * (size_t)g_size * sizeof *req);
            wait_for(exchange_p2p(req, send, scnt, sdsp, recv, counts, x + 2 * g_size), req, "an all-gather");
            free(req), free(x);
        }
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
        const int big = alltoall_counts(recv_counts, send_counts);
        for (int q = 0; q < g_size; q++) total += recv_counts[q];
        if (total > *recv_cap) {
            *recv = dgnn_xrealloc(*recv, (size_t)total);
            *recv_cap = total;
        }
        MPI_Request *req = dgnn_xmalloc(2 * (size_t)g_size * sizeof *req);
        int *v = dgnn_xmalloc(4 * (size_t)g_size * sizeof(int));
        wait_for(alltoallv_post(req, v, big, *recv, recv_counts, send, send_counts), req, "an all-to-all");
        free(req), free(v);
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
static MPI_Request *g_a2a_req; /* the payload's requests in flight (g_a2a_n), 2 P allocated */
static int g_a2a_n, *g_a2a_layout; /* the collective's int layout, kept until it completes */
#endif

int64_t dgnn_comm_ialltoallv_bytes(void **recv, int64_t *recv_cap, int64_t *recv_counts, const void *send,
                                   const int64_t *send_counts) {
#if DGNN_HAVE_MPI
    if (g_size > 1) {
        DGNN_ASSERT(g_a2a_n == 0); /* one in flight */
        double t0 = dgnn_now();
        const int big = alltoall_counts(recv_counts, send_counts);
        int64_t total = 0;
        for (int q = 0; q < g_size; q++) total += recv_counts[q];
        if (total > *recv_cap) {
            *recv = dgnn_xrealloc(*recv, (size_t)total);
            *recv_cap = total;
        }
        if (!g_a2a_req) g_a2a_req = dgnn_xmalloc(2 * (size_t)g_size * sizeof *g_a2a_req);
        if (!g_a2a_layout) g_a2a_layout = dgnn_xmalloc(4 * (size_t)g_size * sizeof(int));
        g_a2a_n = alltoallv_post(g_a2a_req, g_a2a_layout, big, *recv, recv_counts, send, send_counts);
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
    if (g_a2a_n > 0) {
        double t0 = dgnn_now();
        wait_for(g_a2a_n, g_a2a_req, "an all-to-all");
        g_a2a_n = 0;
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
        wait_for(g_nreq, g_req, "the gradient all-reduce");
        g_nreq = 0;
        g_stats.wait_seconds += dgnn_now() - t0;
    }
#endif
}
