// Math-only wgmma loops for scripts/probes/power_peak.py: what the sparse and the dense tensor cores
// sustain at the card's power limit, with nothing else moving (no global or shared-memory traffic
// past the first fill). Two consumer warpgroups per CTA, one CTA per SM, as the prefill tiles; A in
// registers, B read from a 64 KB 128B-swizzled K-major image (two 256-token stages of 64 k, as the
// X-by-TMA tile's), random bf16 everywhere (tensor-core power depends on the operand bits).
#include "wgmma.cuh"

namespace vnm {

#if VNM_HAS_WGMMA
// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16, A from registers, D += A * B (the dense
// form that wgmma.cuh has no wrapper for: the library's kernels are all sparse)
__device__ __forceinline__ void wgmma_dense_rs(float (&d)[128], const u32 (&a)[4], u64 b_desc) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " VNM_WGMMA_D256
               ", {%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"
               : VNM_WGMMA_F256(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(1)
               : "memory");
}
#endif

// Each iteration a warpgroup multiplies 64 rows by 256 tokens by 64 k (2.1 dense-equivalent MFLOP):
// two k32 wgmma.sp or four k16 wgmma, one group in flight, as the kernels' mainloop.
template <bool SPARSE>
__global__ void __launch_bounds__(256, 1) peak_probe(const u32* a_in, const u32* e_in, const uint4* b_in, int iters,
                                                     float* out) {
#if VNM_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
  for (int i = threadIdx.x; i < 65536 / 16; i += blockDim.x) reinterpret_cast<uint4*>(smem)[i] = b_in[i];
  fence_proxy_async_smem();
  __syncthreads();
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  u32 a[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = a_in[4 * t + i];
  const u32 e = e_in[t];
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  const u64 desc0 = gmma_desc<128>(smem_addr(smem), 16, 1024);
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    const u64 desc = desc0 + static_cast<u64>(((it & 1) * 32768) >> 4);
    wgmma_fence_operand(d);
    wgmma_fence();
    if constexpr (SPARSE) {
#pragma unroll
      for (int j = 0; j < 2; ++j) WgmmaSp<__nv_bfloat16, 256>::rs<0, 0>(d, a, desc + ((j * 64) >> 4), e, 1);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) wgmma_dense_rs(d, a, desc + ((j * 32) >> 4));
    }
    wgmma_commit();
    wgmma_wait<1>();
    wgmma_fence_operand(d);
  }
  wgmma_wait<0>();
  wgmma_fence_operand(d);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  out[t] = s;
#endif
}

}  // namespace vnm
