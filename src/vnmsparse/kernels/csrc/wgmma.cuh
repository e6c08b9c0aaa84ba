// wgmma.mma_async(.sp) helpers for sm_90a: descriptors, fences, commit/wait, and the WgmmaSp
// wrappers of wgmma.mma_async.sp.sync.aligned.m64nNk32.f32.{f16,bf16}. Layouts and formulas:
// vnmsparse/kernels/wgmma_sp_layout.py (proven by the single-instruction probes of
// wgmma_sp_probe.cu). Every helper exists only where VNM_HAS_WGMMA is 1 (device pass for sm_90a).
#pragma once
#include "common.cuh"

// wgmma and setmaxnreg need the arch-specific sm_90a target; kernels built on them compile to empty
// bodies on anything else (guard them with #if VNM_HAS_WGMMA).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define VNM_HAS_WGMMA 1
#else
#define VNM_HAS_WGMMA 0
#endif

namespace vnm {

// =================================================================================================
// wgmma helpers
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
// Four 8 x 8 b16 matrices from a warp's fragments (register i: matrix i, the mma layout: lane
// 4 r + c holds row r, columns 2c and 2c + 1) into shared memory, row j of matrix i at the 16-byte
// address lane 8 i + j gives; .trans stores each transposed (fragment column j at that address).
__device__ __forceinline__ void stmatrix_x4(const u32 (&r)[4], const void* p) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"(smem_addr(p)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}
__device__ __forceinline__ void stmatrix_x4_trans(const u32 (&r)[4], const void* p) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"(smem_addr(p)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Operand lists of the accumulator fragment (generated; N/2 fp32 registers for m64nNk32).
#define VNM_WGMMA_D16 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define VNM_WGMMA_SS_TAIL16 ", %8, %9, %10, %12, p, 1, 1, 0, %13;\n"
#define VNM_WGMMA_SS_PRED16 "setp.ne.b32 p, %11, 0;\n"
#define VNM_WGMMA_RS_TAIL16 ", {%8, %9, %10, %11}, %12, %13, %15, p, 1, 1, %16;\n"
#define VNM_WGMMA_RS_PRED16 "setp.ne.b32 p, %14, 0;\n"
#define VNM_WGMMA_D32 "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" "}"
#define VNM_WGMMA_SS_TAIL32 ", %16, %17, %18, %20, p, 1, 1, 0, %21;\n"
#define VNM_WGMMA_SS_PRED32 "setp.ne.b32 p, %19, 0;\n"
#define VNM_WGMMA_RS_TAIL32 ", {%16, %17, %18, %19}, %20, %21, %23, p, 1, 1, %24;\n"
#define VNM_WGMMA_RS_PRED32 "setp.ne.b32 p, %22, 0;\n"
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
#define VNM_WGMMA_F16(d) VNM_F4(d, 0), VNM_F4(d, 4)
#define VNM_WGMMA_F32(d) VNM_F16(d, 0)
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
VNM_WGMMA_SP(16, __half, "f16")
VNM_WGMMA_SP(32, __half, "f16")
VNM_WGMMA_SP(64, __half, "f16")
VNM_WGMMA_SP(128, __half, "f16")
VNM_WGMMA_SP(256, __half, "f16")
VNM_WGMMA_SP(16, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(32, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(64, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(128, __nv_bfloat16, "bf16")
VNM_WGMMA_SP(256, __nv_bfloat16, "bf16")
#undef VNM_WGMMA_SP

// Keep the compiler from moving accumulator registers across an in-flight wgmma (CUTLASS's
// warpgroup_fence_operand): an empty asm that "reads and writes" each register.
template <int N> __device__ __forceinline__ void wgmma_fence_operand(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#endif  // VNM_HAS_WGMMA
// =================================================================================================
// end of wgmma helpers
// =================================================================================================

}  // namespace vnm
