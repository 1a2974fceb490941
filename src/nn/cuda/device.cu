// device.cu: CUDA device discovery and a saxpy kernel (see include/dgnn/cuda.h).
#include <cstdio>
#include <cstring>

#include "dgnn/cuda.h"

extern "C" int dgnn_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}

extern "C" int dgnn_cuda_device_name(int i, char *buf, int cap) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) return -1;
    snprintf(buf, (size_t)cap, "%s", p.name);
    return 0;
}

__global__ static void saxpy_kernel(float a, const float *x, float *y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

#define CU(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "dgnn: CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            rc = -1;                                                                      \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

extern "C" int dgnn_cuda_saxpy(float a, const float *x, float *y, int64_t n) {
    int rc = 0;
    if (n <= 0) return 0; /* nothing to do, and a zero-sized grid is a launch error */
    float *dx = nullptr, *dy = nullptr;
    size_t bytes = (size_t)n * sizeof(float);
    int64_t blocks = (n + 255) / 256;
    CU(cudaMalloc(&dx, bytes));
    CU(cudaMalloc(&dy, bytes));
    CU(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    saxpy_kernel<<<(unsigned)blocks, 256>>>(a, dx, dy, n);
    CU(cudaGetLastError());
    CU(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
done:
    cudaFree(dx);
    cudaFree(dy);
    return rc;
}
