/* cuda.h: the CUDA backend (built only with -DDGNN_CUDA=ON). So far: device discovery
 * and a vector kernel checked against the CPU, the seed of the GPU backend that later
 * issues grow (the GPU versions of the nn kernels, each tested against its CPU reference). */
#ifndef DGNN_CUDA_H
#define DGNN_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when there is no driver or no device). */
int dgnn_cuda_device_count(void);
/* Name of device i into buf; returns 0 on success. */
int dgnn_cuda_device_name(int i, char *buf, int cap);
/* y = a * x + y on the device for n floats (host arrays in and out); 0 on success,
 * -1 on any CUDA error (message on stderr). */
int dgnn_cuda_saxpy(float a, const float *x, float *y, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
