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
#include "common.cuh"

// wgmma needs the arch-specific sm_90a target; on anything else the probes compile to nothing.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define VNM_HAS_WGMMA 1
#else
#define VNM_HAS_WGMMA 0
#endif

namespace vnm {

// =================================================================================================
// wgmma helpers. Self-contained so that the lead can move this whole section into common.cuh.
// =================================================================================================
#if VNM_HAS_WGMMA

// Descriptor layout-type codes (bits 62-63) by swizzle width in bytes: 0 = no swizzle
// ("interleave": 8 x 16-byte core matrices), 128 -> 1, 64 -> 2, 32 -> 3.
__host__ __device__ constexpr int gmma_layout_type(int swizzle_bytes) {
  return swizzle_bytes == 128 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 3 : 0;
}

// Shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4      bits 16-29  leading-dimension byte offset >> 4
//   bits 32-45  stride-dimension byte offset >> 4
//   bits 49-51  base offset (0: every swizzle atom of the image is aligned to its repeat,
//               1024 B for 128B swizzle, 512 B for 64B, 256 B for 32B)
//   bits 62-63  layout type, gmma_layout_type()
// addr is a shared-window byte address (smem_addr()); lbo/sbo are in bytes.
template <int SWIZZLE_BYTES>
__device__ __forceinline__ u64 gmma_desc(u32 addr, u32 lbo, u32 sbo) {
  return static_cast<u64>((addr & 0x3FFFFu) >> 4) | (static_cast<u64>((lbo >> 4) & 0x3FFFu) << 16) |
         (static_cast<u64>((sbo >> 4) & 0x3FFFu) << 32) |
         (static_cast<u64>(gmma_layout_type(SWIZZLE_BYTES)) << 62);
}

// Order generic-proxy writes to shared memory (st.shared, ldmatrix-side staging) before the async
// proxy (wgmma operand reads, TMA) sees them.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Operand lists of the accumulator fragment (generated; N/2 fp32 registers for m64nNk32).
#define VNM_WGMMA_D64 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define VNM_WGMMA_SS_TAIL64 ", %32, %33, %34, %36, p, 1, 1, 0, %37;\n"
#define VNM_WGMMA_SS_PRED64 "setp.ne.b32 p, %35, 0;\n"
#define VNM_WGMMA_RS_TAIL64 ", {%32, %33, %34, %35}, %36, %37, %39, p, 1, 1, %40;\n"
#define VNM_WGMMA_RS_PRED64 "setp.ne.b32 p, %38, 0;\n"
#define VNM_WGMMA_D128 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define VNM_WGMMA_SS_TAIL128 ", %64, %65, %66, %68, p, 1, 1, 0, %69;\n"
#define VNM_WGMMA_SS_PRED128 "setp.ne.b32 p, %67, 0;\n"
#define VNM_WGMMA_RS_TAIL128 ", {%64, %65, %66, %67}, %68, %69, %71, p, 1, 1, %72;\n"
#define VNM_WGMMA_RS_PRED128 "setp.ne.b32 p, %70, 0;\n"
#define VNM_WGMMA_D256 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" ", " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" ", " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" ", " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" ", " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define VNM_WGMMA_SS_TAIL256 ", %128, %129, %130, %132, p, 1, 1, 0, %133;\n"
#define VNM_WGMMA_SS_PRED256 "setp.ne.b32 p, %131, 0;\n"
#define VNM_WGMMA_RS_TAIL256 ", {%128, %129, %130, %131}, %132, %133, %135, p, 1, 1, %136;\n"
#define VNM_WGMMA_RS_PRED256 "setp.ne.b32 p, %134, 0;\n"


#define VNM_F4(d, i) "+f"(d[i]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define VNM_F16(d, i) VNM_F4(d, i), VNM_F4(d, (i) + 4), VNM_F4(d, (i) + 8), VNM_F4(d, (i) + 12)
#define VNM_WGMMA_F64(d) VNM_F16(d, 0), VNM_F16(d, 16)
#define VNM_WGMMA_F128(d) VNM_WGMMA_F64(d), VNM_F16(d, 32), VNM_F16(d, 48)
#define VNM_WGMMA_F256(d) VNM_WGMMA_F128(d), VNM_F16(d, 64), VNM_F16(d, 80), VNM_F16(d, 96), VNM_F16(d, 112)

// WgmmaSp<T, N>: wgmma.mma_async.sp.sync.aligned.m64nNk32.f32.T.T with
//   ss: A from shared memory (descriptor, K-major: imm-trans-a = 0)
//   rs: A from registers (4 x b32, two stored 16-bit values each)
// SEL is the sparsity selector (0: lanes tig 0,1 of each quad give the metadata; 1: tig 2,3),
// TRANS_B = 0 for a K-major B image, 1 for MN-major. scale_d = 0 computes D = A*B (the old
// accumulator values are ignored), 1 computes D += A*B. Issue between wgmma_fence() and
// wgmma_commit(); the accumulators are valid after wgmma_wait().
template <typename T, int N> struct WgmmaSp;
#define VNM_WGMMA_SP(N, CTYPE, PTXT)                                                                      \
  template <> struct WgmmaSp<CTYPE, N> {                                                                  \
    template <int SEL, int TRANS_B>                                                                       \
    static __device__ __forceinline__ void ss(float (&d)[N / 2], u64 a_desc, u64 b_desc, u32 e,          \
                                              int scale_d) {                                              \
      asm volatile("{\n.reg .pred p;\n" VNM_WGMMA_SS_PRED##N                                              \
                   "wgmma.mma_async.sp.sync.aligned.m64n" #N "k32.f32." PTXT "." PTXT " " VNM_WGMMA_D##N \
                   VNM_WGMMA_SS_TAIL##N "}\n"                                                             \
                   : VNM_WGMMA_F##N(d)                                                                    \
                   : "l"(a_desc), "l"(b_desc), "r"(e), "r"(scale_d), "n"(SEL), "n"(TRANS_B)               \
                   : "memory");                                                                           \
    }                                                                                                     \
    template <int SEL, int TRANS_B>                                                                       \
    static __device__ __forceinline__ void rs(float (&d)[N / 2], const u32 (&a)[4], u64 b_desc, u32 e,   \
                                              int scale_d) {                                              \
      asm volatile("{\n.reg .pred p;\n" VNM_WGMMA_RS_PRED##N                                              \
                   "wgmma.mma_async.sp.sync.aligned.m64n" #N "k32.f32." PTXT "." PTXT " " VNM_WGMMA_D##N \
                   VNM_WGMMA_RS_TAIL##N "}\n"                                                             \
                   : VNM_WGMMA_F##N(d)                                                                    \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(e), "r"(scale_d),       \
                     "n"(SEL), "n"(TRANS_B)                                                               \
                   : "memory");                                                                           \
    }                                                                                                     \
  };
VNM_WGMMA_SP(64, __half, "f16")
VNM_WGMMA_SP(128, __half, "f16")
VNM_WGMMA_SP(256, __half, "f16")
VNM_WGMMA_SP(64, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(128, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(256, __nv_bfloat16, "bf16")
#undef VNM_WGMMA_SP

#endif  // VNM_HAS_WGMMA
// =================================================================================================
// end of wgmma helpers
// =================================================================================================

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
