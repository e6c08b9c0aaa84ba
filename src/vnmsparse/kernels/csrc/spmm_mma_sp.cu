// V:N:M SpMM on Sparse Tensor Cores with warp-level mma.sp (sm_80 and newer).
//
//   Y[t, r] = sum_k X[t, k] * W[r, k] (+ bias[r])
//
// W is the sparse (A) operand of mma.sp.m16n8k32, one CTA row tile inside one V-row block, so a
// whole CTA shares the block's 4 kept columns per group. X comes feature-major (X^T[k, t], tokens
// contiguous): the 4 kept columns of a group are then 4 rows of X^T, gathered with 16-byte
// cp.async straight into the B tile, and no byte of X that the math does not use is moved.
//
// Operand layouts (the "sm80" layout, derived from the canonical storage by padding the group
// count G to Gp, a multiple of KS):
//   values  [R, Gp, 2]  compressed A, row-major: a dense [R, 2*Gp] matrix, loaded like a dense A
//   meta    [R, Gp/2]   the canonical 4-bit codes p0 | p1 << 2, two groups per byte: 16 bits of a
//                       row are exactly the mma.sp metadata of that row for 4 groups (16 k)
//   cols    [RB, Gp]    the canonical 4 uint8 column offsets of a block's group as one u32
// Padding groups have zero values, code (0, 1) and columns 0..3 (they land past K: zero-filled).
#include "common.cuh"

namespace vnm {

constexpr int KS = 16;         // groups per pipeline stage
constexpr int KROWS = 4 * KS;  // gathered X^T rows (logical k) per stage: 2 mma k-steps of 32

template <typename T> struct MmaSp;
#define VNM_MMA_SP(CTYPE, PTXTYPE)                                                                      \
  template <> struct MmaSp<CTYPE> {                                                                     \
    static __device__ __forceinline__ void run(float (&d)[4], const u32 (&a)[4], const u32 (&b)[4],     \
                                               u32 e) {                                                 \
      asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32." PTXTYPE "." PTXTYPE  \
                   ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;\n"     \
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                     \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),      \
                     "r"(b[3]), "r"(e));                                                                \
    }                                                                                                   \
  };
VNM_MMA_SP(__half, "f16")
VNM_MMA_SP(__nv_bfloat16, "bf16")
#undef VNM_MMA_SP

// Column word used for plain 2:4 (m == 4): every group keeps columns 0, 1, 2, 3.
constexpr u32 IDENTITY_COLUMNS = 0x03020100u;

template <int BM, int BN, int STAGES>
struct SmemPlan {
  static constexpr int A = BM * 2 * KS;  // elements per stage
  static constexpr int B = KROWS * BN;   // elements per stage
  static constexpr int M = BM * KS / 2;  // bytes per stage
  static constexpr int PIPE = STAGES * (A + B) * 2 + STAGES * M;
  static constexpr int C_PITCH = BM + 8;  // epilogue tile [BN][BM + 8]: padding breaks bank conflicts
  static constexpr int EPI = BN * C_PITCH * 2;
  static constexpr int BYTES = PIPE > EPI ? PIPE : EPI;
};

// Grid: x = row tiles of BM rows (BM divides V), y = token tiles of BN, z = K splits.
// Without SPLIT the CTA writes y (bias fused); with SPLIT it writes fp32 partial sums
// partial[z][t][r] and splitk_reduce finishes.
template <typename T, int BM, int BN, int WM, int WN, int STAGES, bool HAS_COLS, bool SPLIT>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    spmm_mma_sp(const T* __restrict__ values, const u8* __restrict__ meta, const u32* __restrict__ cols,
                const T* __restrict__ xt, const T* __restrict__ bias, T* __restrict__ y,
                float* __restrict__ partial, int R, int K, int ntok, int ntok_load, int ldx, int Gp, int m,
                int v, int steps_per_split) {
  constexpr int WARPS_N = BN / WN;
  constexpr int NT = (BM / WM) * WARPS_N * 32;
  constexpr int MT = WM / 16, NTILES = WN / 8;
  constexpr int A_CPR = 2 * KS * 2 / 16;  // 16-byte chunks per A row per stage
  constexpr int B_CPR = BN / 8;
  constexpr int B_COPIES = KROWS * B_CPR;
  constexpr int B_ITERS = (B_COPIES + NT - 1) / NT;
  using Plan = SmemPlan<BM, BN, STAGES>;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
  static_assert(A_CPR == 4, "the A swizzle assumes 4 chunks per row");

  extern __shared__ __align__(128) unsigned char smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + STAGES * Plan::A;
  u8* sM = reinterpret_cast<u8*>(sB + STAGES * Plan::B);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int row0 = blockIdx.x * BM, tok0 = blockIdx.y * BN;
  const int total_steps = Gp / KS;
  const int kbeg = SPLIT ? blockIdx.z * steps_per_split : 0;
  const int kend = SPLIT ? min(total_steps, kbeg + steps_per_split) : total_steps;
  const u32* colrow = HAS_COLS ? cols + static_cast<size_t>(row0 / v) * Gp : nullptr;

  // Column words of the groups whose B rows this thread copies, fetched one stage ahead so that
  // their global-load latency hides behind a stage of math.
  u32 colw[B_ITERS];
  auto fetch_columns = [&](int step) {
#pragma unroll
    for (int j = 0; j < B_ITERS; ++j) {
      const int i = tid + j * NT;
      const int g = step * KS + (i / B_CPR) / 4;
      colw[j] = (HAS_COLS && i < B_COPIES && step < kend) ? __ldg(colrow + g) : IDENTITY_COLUMNS;
    }
  };

  auto load_stage = [&](int buf, int step) {
    const int g0 = step * KS;
    T* a = sA + buf * Plan::A;
#pragma unroll
    for (int i = tid; i < BM * A_CPR; i += NT) {
      const int r = i / A_CPR, c = i % A_CPR, grow = row0 + r;
      const bool ok = grow < R;
      const T* src = values + (static_cast<size_t>(ok ? grow : 0) * Gp + g0) * 2 + c * 8;
      cp_async16(a + r * 2 * KS + swizzle<A_CPR>(r, c) * 8, src, ok);
    }
    // Rows past R reuse row R-1's codes: valid ordered metadata, multiplied by zero-filled values.
#pragma unroll
    for (int r = tid; r < BM; r += NT) {
      const int grow = min(row0 + r, R - 1);
      cp_async8(sM + buf * Plan::M + r * (KS / 2), meta + static_cast<size_t>(grow) * (Gp / 2) + g0 / 2, true);
    }
    T* b = sB + buf * Plan::B;
#pragma unroll
    for (int j = 0; j < B_ITERS; ++j) {
      const int i = tid + j * NT;
      if (i < B_COPIES) {
        const int kr = i / B_CPR, c = i % B_CPR;
        const int k = (g0 + kr / 4) * m + static_cast<int>((colw[j] >> (8 * (kr & 3))) & 0xffu);
        const int t = tok0 + c * 8;
        const bool ok = k < K && t < ntok_load;
        const T* src = xt + (ok ? static_cast<size_t>(k) * ldx + t : 0);
        cp_async16(b + kr * BN + swizzle<B_CPR>(kr, c) * 8, src, ok);
      }
    }
  };

  float acc[MT][NTILES][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NTILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

  auto compute_stage = [&](int buf) {
    const T* a = sA + buf * Plan::A;
    const T* b = sB + buf * Plan::B;
    const u8* me = sM + buf * Plan::M;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      u32 af[MT][4], ef[MT];
#pragma unroll
      for (int mi = 0; mi < MT; ++mi) {
        const int r = wm * WM + mi * 16 + (lane & 15);
        ldmatrix_x4(af[mi], a + r * 2 * KS + swizzle<A_CPR>(r, 2 * s + (lane >> 4)) * 8);
        // Selector 0: lanes with tig 0 and 1 supply the metadata of k 0-15 and 16-31; the low
        // half of the word is row gid, the high half row gid + 8.
        const int rr = wm * WM + mi * 16 + (lane >> 2);
        const int off = 4 * s + 2 * (lane & 1);
        const u32 lo = *reinterpret_cast<const u16*>(me + rr * (KS / 2) + off);
        const u32 hi = *reinterpret_cast<const u16*>(me + (rr + 8) * (KS / 2) + off);
        ef[mi] = lo | (hi << 16);
      }
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni) {
        u32 bf[4];
        const int kr = 32 * s + lane;
        ldmatrix_x4_trans(bf, b + kr * BN + swizzle<B_CPR>(kr, (wn * WN + ni * 8) / 8) * 8);
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) MmaSp<T>::run(acc[mi][ni], af[mi], bf, ef[mi]);
      }
    }
  };

  // Multistage cp.async pipeline: STAGES-1 stages in flight while one is consumed.
  fetch_columns(kbeg);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (kbeg + s < kend) {
      load_stage(s, kbeg + s);
      fetch_columns(kbeg + s + 1);
    }
    cp_async_commit();
  }
  for (int step = kbeg; step < kend; ++step) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // stage `step` visible to all; everyone is done reading stage step-1
    const int next = step + STAGES - 1;
    if (next < kend) {
      load_stage((next - kbeg) % STAGES, next);
      fetch_columns(next + 1);
    }
    cp_async_commit();
    compute_stage((step - kbeg) % STAGES);
  }
  cp_async_wait<0>();
  __syncthreads();

  const int gid = lane >> 2, tig = lane & 3;
  if (SPLIT) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = row0 + wm * WM + mi * 16 + gid + (e >= 2 ? 8 : 0);
          const int t = tok0 + wn * WN + ni * 8 + 2 * tig + (e & 1);
          if (r < R && t < ntok)
            partial[(static_cast<size_t>(blockIdx.z) * ntok + t) * R + r] = acc[mi][ni][e];
        }
    return;
  }

  // Epilogue: bias in fp32, one rounding, then through shared memory as [BN tokens][BM rows] so
  // that rows of Y[t, :] leave in 16-byte stores.
  T* sC = reinterpret_cast<T*>(smem);
#pragma unroll
  for (int mi = 0; mi < MT; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = wm * WM + mi * 16 + gid + 8 * h;
      const float bv = (bias != nullptr && row0 + r < R) ? Elem<T>::to_float(bias[row0 + r]) : 0.f;
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int t = wn * WN + ni * 8 + 2 * tig + e;
          sC[t * Plan::C_PITCH + r] = Elem<T>::from_float(acc[mi][ni][2 * h + e] + bv);
        }
    }
  }
  __syncthreads();
  if ((R & 7) == 0) {
#pragma unroll
    for (int i = tid; i < BN * (BM / 8); i += NT) {
      const int t = i / (BM / 8), c = i % (BM / 8);
      const int gt = tok0 + t, gr = row0 + c * 8;
      if (gt < ntok && gr < R)
        *reinterpret_cast<uint4*>(y + static_cast<size_t>(gt) * R + gr) =
            *reinterpret_cast<const uint4*>(sC + t * Plan::C_PITCH + c * 8);
    }
  } else {
    for (int i = tid; i < BN * BM; i += NT) {
      const int t = i / BM, r = i % BM;
      const int gt = tok0 + t, gr = row0 + r;
      if (gt < ntok && gr < R) y[static_cast<size_t>(gt) * R + gr] = sC[t * Plan::C_PITCH + r];
    }
  }
}

// y[t, r] = sum_z partial[z, t, r] + bias[r], in a fixed order (deterministic).
template <typename T>
__global__ void splitk_reduce(const float* __restrict__ partial, const T* __restrict__ bias, T* __restrict__ y,
                              int splits, int ntok, int R) {
  const size_t n = static_cast<size_t>(ntok) * R;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float s = bias != nullptr ? Elem<T>::to_float(bias[i % R]) : 0.f;
    for (int z = 0; z < splits; ++z) s += partial[static_cast<size_t>(z) * n + i];
    y[i] = Elem<T>::from_float(s);
  }
}

// xt[k, t] = x[t, k] for t < ntok, 0 for ntok <= t < ldxt: the feature-major, token-padded copy
// of X that the gather wants. 64x64 tiles; 32-bit accesses on both sides when K is even.
template <typename T>
__global__ void __launch_bounds__(256)
    transpose_pad(const T* __restrict__ x, T* __restrict__ xt, int ntok, int K, int ldx_in, int ldxt) {
  __shared__ T tile[64][64 + 2];
  const int t0 = blockIdx.x * 64, k0 = blockIdx.y * 64;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;  // 32 x 8
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int t = t0 + ty + 8 * i;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int k = k0 + 2 * tx + h;
      tile[ty + 8 * i][2 * tx + h] = (t < ntok && k < K) ? x[static_cast<size_t>(t) * ldx_in + k] : T(0.f);
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int k = k0 + ty + 8 * i;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int t = t0 + 2 * tx + h;
      if (k < K && t < ldxt) xt[static_cast<size_t>(k) * ldxt + t] = tile[2 * tx + h][ty + 8 * i];
    }
  }
}

}  // namespace vnm
