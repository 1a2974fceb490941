/* test_cuda.c: built only with -DDGNN_CUDA=ON. Skips (77) without a device; otherwise
 * checks the device saxpy against the CPU. */
#include "check.h"
#include "dgnn/cuda.h"

int main(void) {
    int n = dgnn_cuda_device_count();
    if (n == 0) {
        printf("skip: no CUDA device\n");
        return 77;
    }
    char name[256];
    CHECK(dgnn_cuda_device_name(0, name, sizeof name) == 0);
    printf("device 0: %s (%d devices)\n", name, n);
    enum { N = 100003 };
    static float x[N], y[N], ref[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = ref[i] = (float)(i % 7);
    for (int i = 0; i < N; i++) ref[i] = 2.0f * x[i] + ref[i];
    CHECK(dgnn_cuda_saxpy(2.0f, x, y, N) == 0);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= y[i] == ref[i];
    CHECK(ok);
    return check_done();
}
