// Tiny kernels used only by tests/test_jit.py, so the JIT can be tested on real
// code without depending on the SpMM kernels. Compiled with -default-device, so
// helpers need no __device__ annotation.
#include "jit_selftest.cuh"

// y = a * x + y over n elements; templated so tests exercise name expressions.
template <typename T>
__global__ void axpy(int n, float a, const T* __restrict__ x, T* __restrict__ y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        using namespace vnm_selftest;
        y[i] = from_float<T>(a * to_float(x[i]) + to_float(y[i]));
    }
}

// Copies x to y through dynamic shared memory in reversed order within each
// block; launching it with more than 48 KiB of dynamic shared memory checks that
// the loader raised the kernel's opt-in limit.
__global__ void reverse_blocks(int n, const float* __restrict__ x, float* __restrict__ y) {
    extern __shared__ float buffer[];
    const int base = blockIdx.x * blockDim.x;
    const int i = base + threadIdx.x;
    buffer[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    const int j = base + blockDim.x - 1 - threadIdx.x;
    if (j < n) y[j] = buffer[threadIdx.x];
}

// Reports what the compiler targeted: out[0] = __CUDA_ARCH__, out[1] = 1 when the
// arch-specific sm_90a feature set (wgmma, setmaxnreg) is enabled.
__global__ void arch_probe(int* out) {
#ifdef __CUDA_ARCH__
    out[0] = __CUDA_ARCH__;
#endif
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    out[1] = 1;
#else
    out[1] = 0;
#endif
}
