// Small device helpers shared by the SpMM kernels: types, cp.async, ldmatrix, swizzles.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace vnm {

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// Element traits: the PTX type name of the tensor-core operands and fp32 conversions.
template <typename T> struct Elem;
// (pack: two values rounded into one 32-bit word, lo in the low half: an mma fragment's column pair)
template <> struct Elem<__half> {
  static __device__ __forceinline__ __half from_float(float x) { return __float2half_rn(x); }
  static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const u32*>(&h);
  }
};
template <> struct Elem<__nv_bfloat16> {
  static __device__ __forceinline__ __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
  static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const u32*>(&h);
  }
};

__device__ __forceinline__ u32 smem_addr(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

// a * b as 64 bits by one mul.wide.u32 (v354: ptxas kept the zero high half of a 64 x 64 multiply as one more add)
__device__ __forceinline__ u64 mul_wide(u32 a, u32 b) {
  u64 r;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
}

// 16-byte global->shared copy that bypasses L1 (.cg); bytes past src_bytes are zero-filled, so a
// predicated-off copy (src_bytes = 0) writes zeros and reads nothing.
// (at a shared-space address, or at a generic pointer into shared memory)
__device__ __forceinline__ void cp_async16(u32 dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool valid) {
  cp_async16(smem_addr(dst), src, valid);
}
__device__ __forceinline__ void cp_async8(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(valid ? 8 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Programmatic dependent launch (sm_90; no-ops before). A kernel launched with the PDL
// attribute (jit's `pdl=True`) may start while the previous kernel in the stream still runs:
// before grid_dependency_wait() it may only touch what no earlier kernel writes (most kernels only
// prefetch their weights into L2: L2 is where the GPU's memory is coherent, so a prefetch can never
// leave a stale copy; the decode kernel also loads its weight, which its host launches with PDL
// only where the weight is settled, jit.settle); after it, everything earlier kernels wrote is visible. Triggering
// after the wait keeps at most one launch waiting ahead (a chain would fill L2 with prefetches).
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Streamed read-only global loads, not allocated in L1 (v281: even to 3% faster), kept in the order
// written (asm volatile): __ldg's sank below the barrier that follows them, and so waited for
// everything before it (v280's SASS).
__device__ __forceinline__ uint4 ldg_stream_v4(const void* p) {
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}
__device__ __forceinline__ uint2 ldg_stream_v2(const void* p) {
  uint2 r;
  asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];\n" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}

// Ask L2 for the 128-byte line holding p (any arch): what a kernel may touch before its
// grid_dependency_wait(), since L2 never keeps a stale copy.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
}

// (at a shared-space address, or at a generic pointer into shared memory)
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], const void* p) { ldmatrix_x4(r, smem_addr(p)); }
__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], const void* p) { ldmatrix_x4_trans(r, smem_addr(p)); }

// XOR swizzle of 16-byte chunks inside rows of CPR chunks, so that the 8 rows an ldmatrix phase
// reads at one chunk column land in 8 different 16-byte bank groups.
template <int CPR> __device__ __forceinline__ int swizzle(int row, int chunk) {
  if constexpr (CPR >= 8) return chunk ^ (row & 7);
  else return chunk ^ ((row / (8 / CPR)) & (CPR - 1));
}

// A TMA descriptor (CUtensorMap, encoded on the host by jit.tensor_map_2d), passed by value
// (`const __grid_constant__ TensorMap`).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// Warpgroup register reallocation, sm_90a only (VNM_HAS_SETMAXNREG): every warp of the warpgroup executes it; the
// kernel must have a register cap at entry, __launch_bounds__(threads, min_blocks).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define VNM_HAS_SETMAXNREG 1
template <int REGS> __device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
#else
#define VNM_HAS_SETMAXNREG 0
#endif

// body(it, q) for it = 0 .. n - 1, the loop unrolled U times so that q = it % U is a constant in
// each copy: a producer's per-stage register slots (wq[q]) are then read and reloaded in place,
// never shifted through a register move, which would wait for a load still in flight (NOTES v17).
template <int U, typename Body>
__device__ __forceinline__ void for_unrolled(int n, Body&& body) {
#pragma unroll 1
  for (int it0 = 0; it0 < n; it0 += U) {
#pragma unroll
    for (int q = 0; q < U; ++q) {
      if (it0 + q >= n) break;
      body(it0 + q, q);
    }
  }
}

// An epilogue's staged output tile [TOKENS][PITCH] (token-major, rows row0 .. row0 + BM - 1,
// tokens tok0 ..) to Y[t, r]: 16-byte stores where R % 8 == 0, else element by element; the
// threads tid, tid + NT, ... share the work.
template <typename T, int BM, int TOKENS, int PITCH, int NT>
__device__ __forceinline__ void store_staged(const T* sC, T* y, int row0, int tok0, int R, int ntok, int tid) {
  if ((R & 7) == 0) {
#pragma unroll
    for (int i = tid; i < TOKENS * (BM / 8); i += NT) {
      const int t = i / (BM / 8), c = i % (BM / 8);
      const int gt = tok0 + t, gr = row0 + c * 8;
      if (gt < ntok && gr < R)
        *reinterpret_cast<uint4*>(y + static_cast<size_t>(gt) * R + gr) = *reinterpret_cast<const uint4*>(sC + t * PITCH + c * 8);
    }
  } else {
    for (int i = tid; i < TOKENS * BM; i += NT) {
      const int t = i / BM, r = i % BM;
      const int gt = tok0 + t, gr = row0 + r;
      if (gt < ntok && gr < R) y[static_cast<size_t>(gt) * R + gr] = sC[t * PITCH + r];
    }
  }
}

// ---- sm_80: mbarriers (init, arrive, cp.async arrival, phase wait) and named barriers ----------
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ void mbar_init(u64* bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(u64* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// Arrive on the mbarrier once every cp.async this thread issued so far has landed; .noinc: the
// arrival is one of the barrier's expected count.
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(u64* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// Wait until the barrier's phase of this parity has completed by polling (test_wait returns at once).
__device__ __forceinline__ void mbar_poll(u64* bar, u32 parity) {
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
// ... by try_wait on sm_90, which suspends the thread (sm_80 has test_wait only). Experiment knob
// VNM_MBAR_SPIN=1: polling on sm_90 too (v239: it does not pace a ring's stages; prefill +4%).
#ifndef VNM_MBAR_SPIN
#define VNM_MBAR_SPIN 0
#endif
__device__ __forceinline__ void mbar_wait(u64* bar, u32 parity) {
#if __CUDA_ARCH__ >= 900 && !VNM_MBAR_SPIN
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
#else
  mbar_poll(bar, parity);
#endif
}
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#endif

// ---- sm_90: mbarrier transactions, clusters and bulk (TMA, non-tensor) copies -----------------
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::);
}
__device__ __forceinline__ void mbar_arrive_expect_tx(u64* bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Expect `bytes` more on the barrier's current phase without arriving (a second issuer of a phase's
// copies; its own later arrival keeps the phase open until this has counted).
__device__ __forceinline__ void mbar_expect_tx(u64* bar, u32 bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Thread-block clusters: this CTA's rank, a cluster-wide barrier (release / acquire: the shared-
// memory writes before it are visible to every CTA of the cluster after it), and the address of
// the same shared-memory offset in CTA `rank` (distributed shared memory).
__device__ __forceinline__ u32 cluster_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ u32 cluster_nranks() {
  u32 n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}
__device__ __forceinline__ float4 ld_cluster_f32x4(u32 remote) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(remote) : "memory");
  return v;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ u32 cluster_map(const void* p, int rank) {
  u32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(smem_addr(p)), "r"(rank));
  return remote;
}
// The two halves of cluster_sync apart, with no memory ordering on the arrive: for a barrier
// that only says "every CTA has started" (its mbarriers are initialised, fenced by
// mbar_init_fence): arrive early, wait late, and no release (a release arrive is a
// MEMBAR.ALL.GPU in SASS, which waits for the CTA's outstanding memory operations).
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory"); }
// Two floats into the shared memory of a CTA of the cluster (`remote`, from cluster_map), counted
// on that CTA's mbarrier (`remote_bar`, also mapped) when they land: a push that needs no cluster
// barrier after it, the receiver waits on its own mbarrier.
__device__ __forceinline__ void st_async_f32x2(u32 remote, float a, float b, u32 remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];\n" ::"r"(remote),
               "r"(__float_as_uint(a)), "r"(__float_as_uint(b)), "r"(remote_bar)
               : "memory");
}
// One 2-D TMA box (c0 along the contiguous dimension) into shared memory, counted on `bar`.
__device__ __forceinline__ void tma_load_2d(u32 dst, const TensorMap* map, int c0, int c1, u64* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}
// The same box into the shared memory of every CTA in `mask` (cluster ranks), at the same offset,
// each landing counted on that CTA's mbarrier at `bar`'s offset.
__device__ __forceinline__ void tma_load_2d_multicast(u32 dst, const TensorMap* map, int c0, int c1, u64* bar,
                                                      u16 mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(smem_addr(bar)), "h"(mask)
      : "memory");
}
// Arrive on the mbarrier at `bar`'s offset in CTA `rank` of the cluster (release at CTA scope, as
// CUTLASS's ClusterBarrier: .release.cluster waited for this thread's loads in flight, v25 2x slower).
__device__ __forceinline__ void mbar_arrive_cluster(u64* bar, int rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_map(bar, rank)) : "memory");
}
// bytes (a multiple of 16, 16-byte aligned both sides) from global to this CTA's shared memory,
// counted on the mbarrier's transaction count when they land.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, u32 bytes, u64* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
          smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// Start moving bytes (a multiple of 16, 16-byte aligned) of global memory into L2, asynchronously.
__device__ __forceinline__ void bulk_prefetch_l2(const void* src, u32 bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(src), "r"(bytes) : "memory");
}
#endif

}  // namespace vnm
