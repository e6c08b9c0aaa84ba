// The weight stream alone (v77): how fast DRAM feeds a ring of bulk copies / TMA boxes under the
// access patterns a T <= 64 kernel can give its weights; no math, one producer thread, one
// consumer warp that only releases slots. scripts/stream_probe.py drives it.
//   mode 0: CTA c reads `pieces` streams of its own (like the fragment image's 64-row blocks)
//   mode 1: the same chunks interleaved over CTAs (all CTAs at step i read adjacent chunks)
//   mode 2: a 2-D TMA box of 64 bf16 x rows_per_cta rows of a row-major matrix (cuBLAS's pattern)
// variant (v77b): 0 arrive.expect_tx (.release, as the kernels), 1 the same .relaxed, 2 each
// stage issued by lane i % 32 of the producer warp, 3 as 0 plus an L2 prefetch half a ring ahead;
// (v239) 4 as 0 with both sides polling by test_wait instead of try_wait, 5 no ring: every copy of
// the CTA issued at once onto one barrier (the same slots overwritten), waited for once at the end
// (the CTA's bytes < 1 MB: an mbarrier's transaction count)
#include "common.cuh"  // (the package's csrc/: jit resolves includes there too)
using namespace vnm;

extern "C" __global__ void __launch_bounds__(64) stream_probe(const unsigned char* base, const __grid_constant__ TensorMap map,
                                                          int mode, int pieces, int chunk, int slots, int iters,
                                                          long long stream_len, int rows_per_cta, int variant) {
  extern __shared__ __align__(1024) unsigned char smem[];
  u64* full = reinterpret_cast<u64*>(smem);
  u64* empty = full + 64;
  unsigned char* ring = smem + 1024;
  const int stage = mode == 2 ? 128 * rows_per_cta : pieces * chunk;
  if (threadIdx.x == 0) {
    for (int s = 0; s < slots; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 1);
    }
    mbar_init_fence();
  }
  __syncthreads();
  auto at = [&](int i, int p) {
    return mode == 0 ? static_cast<size_t>(blockIdx.x * pieces + p) * stream_len + static_cast<size_t>(i) * chunk
                     : ((static_cast<size_t>(i) * gridDim.x + blockIdx.x) * pieces + p) * chunk;
  };
  if (variant == 5) {  // every copy in flight at once: the TMA unit's own rate for this CTA
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full[0], static_cast<u32>(iters) * stage);
      for (int i = 0; i < iters; ++i)
        for (int p = 0; p < pieces; ++p) bulk_copy(ring + (i % slots) * stage + p * chunk, base + at(i, p), chunk, &full[0]);
      mbar_wait(&full[0], 0);
    }
    return;
  }
  if (threadIdx.x < 32 && (threadIdx.x == 0 || variant == 2)) {
    for (int i = 0; i < iters; ++i) {
      const int s = i % slots;
      if (i >= slots) {
        if (variant == 4) mbar_poll(&empty[s], ((i / slots) & 1) ^ 1);
        else mbar_wait(&empty[s], ((i / slots) & 1) ^ 1);
      }
      if (variant == 2 && threadIdx.x != i % 32) continue;
      if (variant == 1) {
        asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(&full[s])),
                     "r"(stage) : "memory");
      } else {
        mbar_arrive_expect_tx(&full[s], stage);
      }
      unsigned char* dst = ring + s * stage;
      if (mode == 2) {
        tma_load_2d(smem_addr(dst), &map, i * 64, blockIdx.x * rows_per_cta, &full[s]);
      } else {
        for (int p = 0; p < pieces; ++p) {
          bulk_copy(dst + p * chunk, base + at(i, p), chunk, &full[s]);
          if (variant == 3 && i + slots / 2 < iters) bulk_prefetch_l2(base + at(i + slots / 2, p), chunk);
        }
      }
    }
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < iters; ++i) {
      if (variant == 4) mbar_poll(&full[i % slots], (i / slots) & 1);
      else mbar_wait(&full[i % slots], (i / slots) & 1);
      mbar_arrive(&empty[i % slots]);
    }
  }
}
