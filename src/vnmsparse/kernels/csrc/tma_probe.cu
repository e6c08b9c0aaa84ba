// Single-instruction probe (sm_90): does a TMA box that is narrower than a 128B-swizzle atom get
// the swizzle of its destination address? The gathered B operand of the wgmma.sp kernel is built
// from single k-rows of X^T (128 B each = one line of an 8-line atom); TMA could fetch them (one
// box {64 elements, 1 row} per line, deep request queues, no LSU) only if a box written at
// atom + r*128 has its 16-byte chunks XORed with r, as a whole-atom box would.
//
// One CTA: thread 0 loads rows[0..7] of a [rows, 64] 2-byte tensor, box {64, 1}, 128B swizzle, into
// lines 0..7 of one 1024-byte aligned atom, then the atom is copied out raw to out[512].
#include "common.cuh"

namespace vnm {

__global__ void tma_row_probe(const __grid_constant__ TensorMap map, const int* __restrict__ rows,
                              unsigned short* __restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ __align__(1024) unsigned char atom[1024];
  __shared__ u64 bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, 1024);
    for (int r = 0; r < 8; ++r) tma_load_2d(smem_addr(atom) + r * 128, &map, 0, rows[r], &bar);
  }
  mbar_wait(&bar, 0);
  const unsigned short* img = reinterpret_cast<const unsigned short*>(atom);
  for (int i = threadIdx.x; i < 512; i += blockDim.x) out[i] = img[i];
#endif
}

}  // namespace vnm
