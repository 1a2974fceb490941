/* comm.c: the only file that calls MPI. Large buffers are sent in chunks of at most
 * 2^30 elements because MPI counts are ints. */
#include "dgnn/comm.h"

#include "dgnn/base.h"

#if DGNN_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_inited = 0;

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

void dgnn_comm_allreduce_sum_f32(float *buf, int64_t n) {
#if DGNN_HAVE_MPI
    if (g_size > 1)
        for (int64_t off = 0; off < n; off += CHUNK) {
            int64_t c = n - off < CHUNK ? n - off : CHUNK;
            MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
#else
    (void)buf;
    (void)n;
#endif
}

void dgnn_comm_allreduce_sum_f64(double *buf, int64_t n) {
#if DGNN_HAVE_MPI
    if (g_size > 1)
        for (int64_t off = 0; off < n; off += CHUNK) {
            int64_t c = n - off < CHUNK ? n - off : CHUNK;
            MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
#else
    (void)buf;
    (void)n;
#endif
}

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
