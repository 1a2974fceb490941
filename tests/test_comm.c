/* test_comm.c: the comm module under 1 process (ctest) and under mpirun -np 2/4
 * (tests/cli_mpi.sh): all-reduce sums, broadcast from a non-zero root. Each rank
 * checks the exact expected values. */
#include "check.h"
#include "dgnn/base.h"
#include "dgnn/comm.h"

int main(int argc, char **argv) {
    dgnn_comm_init(&argc, &argv);
    int r = dgnn_comm_rank(), P = dgnn_comm_size();
    CHECK(r >= 0 && r < P);
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
    dgnn_comm_barrier();
    int fails = check_fail_;
    if (r == 0 || fails) printf("rank %d of %d: ", r, P);
    int rc = (r == 0 || fails) ? check_done() : (fails != 0);
    dgnn_comm_finalize();
    return rc;
}
