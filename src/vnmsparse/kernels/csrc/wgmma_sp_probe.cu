// Single-instruction probes of wgmma.mma_async.sp (sm_90a): one warpgroup, one instruction, so that
// every operand layout the Hopper V:N:M kernel will rely on is proven in isolation first.
//
//   D[64 x N] (fp32) = A[64 x 32] (2:4 sparse, 64 x 16 stored) * B[32 x N]
//
// The host side (vnmsparse/kernels/wgmma_sp_layout.py) builds every input in the exact order the
// instruction consumes it and decodes the output; its docstrings state the layout formulas. In brief
// (t = threadIdx.x = 32 w + 4 gid + tig; all per warpgroup):
//   A regs     a_regs[t][i], i = 0..3: two stored values (low half = lower column) of row
//              16 w + gid + 8 (i & 1), group (= 4-wide chunk) tig + 4 (i >> 1) of the k32 step
//   A smem     compressed [64 x 16*KSTEPS] tile, K-major, swizzled (descriptor a_lbo/a_sbo); one
//              k32 step is a_koff bytes into it
//   metadata   meta[t]: used only where (tig >> 1) == SEL; bits 0-15 = 4-bit codes p0 | p1 << 2
//              of row 16 w + gid, groups 4 (tig & 1) .. +3; bits 16-31 the same for row + 8
//   B smem     swizzled K-major (B_MN = 0) or MN-major (B_MN = 1) image (descriptor b_lbo/b_sbo);
//              the k32 step starts b_koff bytes into it
//   D          d[t * N/2 + i] = accumulator i: row 16 w + gid + 8 ((i >> 1) & 1),
//              column 8 (i >> 2) + 2 tig + (i & 1)
// The accumulators start as NaN and the instruction runs with scale-d = 0 (D = A*B), so a NaN in
// the output means a lane or register the instruction did not write.
#include "wgmma.cuh"

namespace vnm {

// One warpgroup (128 threads, one CTA), exactly one wgmma.mma_async.sp.
//   T        __half or __nv_bfloat16          N         64, 128 or 256
//   A_SMEM   false: A from a_regs; true: A from the a_img shared-memory image (K-major, A_SW swizzle)
//   A_SW     swizzle of the A image in bytes (0, 32, 64, 128); ignored when !A_SMEM
//   B_MN     false: B image K-major; true: MN-major (rows of X^T, what a V:N:M gather produces)
//   B_SW     swizzle of the B image in bytes (0, 32, 64, 128)
//   SEL      sparsity selector, 0 or 1
// Arguments (all images are copied verbatim into 1024-byte aligned shared memory; sizes are
// multiples of 16 bytes):
//   a_regs [128][4] u32, meta [128] u32, a_img (a_bytes), a_lbo/a_sbo descriptor byte offsets,
//   a_koff byte offset of the k32 step inside a_img, b_img (b_bytes), b_lbo/b_sbo, b_koff likewise,
//   d [128][N/2] fp32 output in register order.
// Dynamic shared memory: 1024 + round_up(b_bytes, 1024) + a_bytes.
template <typename T, int N, bool A_SMEM, int A_SW, bool B_MN, int B_SW, int SEL>
__global__ void __launch_bounds__(128)
    wgmma_sp_probe(const u32* __restrict__ a_regs, const u32* __restrict__ meta, const uint4* __restrict__ a_img,
                   int a_bytes, int a_lbo, int a_sbo, int a_koff, const uint4* __restrict__ b_img, int b_bytes,
                   int b_lbo, int b_sbo, int b_koff, float* __restrict__ d) {
#if VNM_HAS_WGMMA
  static_assert(N == 64 || N == 128 || N == 256, "probe N");
  static_assert(SEL == 0 || SEL == 1, "16-bit wgmma.sp takes sparsity selector 0 or 1");
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzle patterns are functions of absolute shared addresses: align every image to 1024 B.
  const u32 raw = smem_addr(smem_raw);
  unsigned char* sb = smem_raw + (((raw + 1023u) & ~1023u) - raw);
  unsigned char* sa = sb + ((b_bytes + 1023) & ~1023);
  const int tid = threadIdx.x;

  for (int i = tid; i < b_bytes / 16; i += 128) reinterpret_cast<uint4*>(sb)[i] = b_img[i];
  if (A_SMEM)
    for (int i = tid; i < a_bytes / 16; i += 128) reinterpret_cast<uint4*>(sa)[i] = a_img[i];
  u32 a[4] = {0u, 0u, 0u, 0u};
  if (!A_SMEM)
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = a_regs[tid * 4 + i];
  const u32 e = meta[tid];
  fence_proxy_async_smem();
  __syncthreads();

  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = __int_as_float(0x7fc00000);  // NaN; scale-d = 0 ignores it

  const u64 b_desc = gmma_desc<B_SW>(smem_addr(sb) + b_koff, b_lbo, b_sbo);
  wgmma_fence();
  if constexpr (A_SMEM) {
    const u64 a_desc = gmma_desc<A_SW>(smem_addr(sa) + a_koff, a_lbo, a_sbo);
    WgmmaSp<T, N>::template ss<SEL, B_MN ? 1 : 0>(acc, a_desc, b_desc, e, 0);
  } else {
    WgmmaSp<T, N>::template rs<SEL, B_MN ? 1 : 0>(acc, a, b_desc, e, 0);
  }
  wgmma_commit();
  wgmma_wait<0>();

#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[tid * (N / 2) + i] = acc[i];
#endif
}

}  // namespace vnm
