/* vec.h: DGNN_VEC_CLONES, for the few element-wise kernels whose loops the
 * compiler vectorises well but the build's baseline target (x86-64: SSE2, 2 doubles or 4
 * floats a vector, no FMA) keeps narrow. Such a function is compiled three times, for
 * AVX-512F (with FMA), for AVX2 and for the baseline, and the loader picks the widest one
 * the CPU has (GCC's target_clones, an ifunc). Put it on a function that
 * holds the loop itself, not on one that opens an OpenMP region: the region's body is
 * outlined into a separate function that the attribute does not reach. The clones are
 * chosen by ISA feature (avx512f, which brings FMA with it; avx2), not by CPU model
 * ("arch=haswell" is picked by the CPU's model number, which virtual machines that report
 * a generic Xeon fail, so they got the baseline clone).
 *
 * The clones round differently (FMA contracts a * b + c): results then differ between
 * CPUs in the last bits, as the OpenBLAS kernels already make them (docs/determinism.md).
 * Off under the sanitizers (their instrumentation does not reach an ifunc resolver, which
 * runs before they start) and with compilers that lack the attribute. */
#ifndef DGNN_NN_VEC_H
#define DGNN_NN_VEC_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(DGNN_NO_VEC_CLONES)
#if defined(DGNN_VEC_MAX_AVX2) /* a build that behaves as on an AVX2 machine (for the suite) */
#define DGNN_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DGNN_VEC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#else
#define DGNN_VEC_CLONES
#endif

/* For the helpers such a function calls: GCC inlines a function of the baseline target
 * into a clone only when it is always_inline (else each call stays a call, and the loop
 * around it scalar). */
#if defined(__GNUC__)
#define DGNN_VEC_INLINE static inline __attribute__((always_inline))
#else
#define DGNN_VEC_INLINE static inline
#endif

#endif
