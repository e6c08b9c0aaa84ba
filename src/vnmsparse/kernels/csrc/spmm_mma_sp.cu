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
// count G to Gp, a multiple of KS, and the rows to whole blocks of BLOCK_ROWS):
//   values  [R / BLOCK_ROWS, Gp / KS, BLOCK_ROWS, 2 * KS]  compressed A: per block of rows and pipeline step,
//                       a [BLOCK_ROWS, 2 * KS] tile of the dense [R, 2 * Gp] matrix, its 4 16-byte chunks a row
//                       stored swizzled as mma_stage_frags reads them (swizzle<4>): one contiguous 1 KB copy
//   meta    [R / BLOCK_ROWS, Gp / KS, BLOCK_ROWS, KS / 2]  the canonical 4-bit codes p0 | p1 << 2, two groups
//                       a byte: 16 bits of a row are exactly the mma.sp metadata of that row for 4 groups (16 k);
//                       each 16-row tile's 128 bytes paired as its lanes read them (spmm_mma_sp.pair_codes)
//   cols    [RB, Gp]    the canonical 4 uint8 column offsets of a block's group as one u32
// Padding groups and rows have zero values, code (0, 1) and columns 0..3 (they land past K: zero-filled).
#include "common.cuh"

namespace vnm {

constexpr int KS = 16;         // groups per pipeline stage
constexpr int KROWS = 4 * KS;  // gathered X^T rows (logical k) per stage: 2 mma k-steps of 32
constexpr int BLOCK_ROWS = 16;  // rows of a block of the sm80 layout (spmm_mma_sp.BLOCK_ROWS): the smallest row tile


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

// XGM > 0 (the cp.async kernel gathering from X's rows, spmm_mma_sp's XGM): B's ring holds each stage's window of X
// rows, [BN tokens][KS XGM columns] (m <= XGM), and one more tile G, [BN][KROWS], holds the stage's gathered columns
// for the math (after the codes).
template <int BM, int BN, int STAGES, int XGM = 0>
struct SmemPlan {
  static constexpr int A = BM * 2 * KS;  // elements per stage
  static constexpr int B = (XGM ? KS * XGM : KROWS) * BN;  // elements per stage
  static constexpr int M = BM * KS / 2;  // bytes per stage
  static constexpr int G = XGM ? KROWS * BN : 0;  // elements
  static constexpr int PIPE = STAGES * (A + B) * 2 + STAGES * M + G * 2;
  static constexpr int C_PITCH = BM + 8;  // epilogue tile [BN][BM + 8]: padding breaks bank conflicts
  static constexpr int EPI = BN * C_PITCH * 2;
  static constexpr int BYTES = PIPE > EPI ? PIPE : EPI;
};

// One k-step of math for one warp (a pipeline stage is 2): the A fragments and codes (`load_a`, or `load_a_at` from a
// kept shared-memory address), then the mma.sp over its WM x WN tile (`run`). A
// (compressed values) rows are 2*KS values with the 4-chunk swizzle; `load_b(s, ni, bf)` supplies the B fragment
// of k-step s, n-tile ni (the layout below).
//
// IMAGE: A and metadata are the wgmma.sp fragment image's (spmm_wgmma_sp.build_frag_layout): per
// 64-row block, 4 KB of A registers [k-step][128 threads][4 x u32] at a + a_block b and 512 B of
// metadata words [64 = threads with tig < 2][2] at me + me_block b. wgmma.sp's per-warp register
// layout is mma.sp m16n8k32's (rows gid / gid + 8, groups tig / tig + 4; the metadata word of rows
// gid and gid + 8, groups 4 (tig & 1) ..): m16 tile q of the CTA is warp q % 4 of block q / 4 there.
template <typename T, int WM, int WN, bool IMAGE = false>
struct StepFrags {
  static constexpr int MT = WM / 16, NTILES = WN / 8;
  u32 ew[MT][2];  // (not IMAGE) metadata words of both k-steps, read with k-step 0
  u32 af[MT][4], ef[MT];

  // A fragments and metadata of k-step s.
  __device__ __forceinline__ void load_a(int s, const T* a, const u8* me, int wm, int lane, int me_block = 0,
                                         int a_block = 4096) {
    load_codes(s, me, wm, lane);
#pragma unroll
    for (int mi = 0; mi < MT; ++mi) {
      if constexpr (IMAGE) {
        const int q = (wm * WM) / 16 + mi, thr = 32 * (q & 3) + lane, wc = 16 * (q & 3) + 2 * (lane >> 2) + (lane & 1);
        const uint4 w = *reinterpret_cast<const uint4*>(reinterpret_cast<const u8*>(a) + (q >> 2) * a_block + s * 2048 + thr * 16);
        af[mi][0] = w.x; af[mi][1] = w.y; af[mi][2] = w.z; af[mi][3] = w.w;
        ef[mi] = *reinterpret_cast<const u32*>(me + (q >> 2) * me_block + wc * 8 + 4 * s);
      } else {
        ldmatrix_x4(af[mi], a + a_offset(s, wm, lane) / sizeof(T) + mi * 16 * 2 * KS);
      }
    }
  }
  // The same from a_at, this thread's shared-space address of k-step s's first fragment (a_offset bytes into the
  // stage): the address math of a stage is then one add, the rest immediates.
  __device__ __forceinline__ void load_a_at(int s, u32 a_at, const u8* me, int wm, int lane) {
    load_codes(s, me, wm, lane);
#pragma unroll
    for (int mi = 0; mi < MT; ++mi) ldmatrix_x4(af[mi], a_at + mi * 16 * 2 * KS * sizeof(T));
  }
  // Bytes from a stage's A tile to this thread's ldmatrix row of k-step s, n-tile 0: rows 2*KS values with the
  // 4-chunk swizzle (whose row term, (row / 2) & 3, is the same for every m-tile).
  static __device__ __forceinline__ int a_offset(int s, int wm, int lane) {
    const int r = wm * WM + (lane & 15);
    return (r * 2 * KS + swizzle<4>(r, 2 * s + (lane >> 4)) * 8) * sizeof(T);
  }

  __device__ __forceinline__ void load_codes(int s, const u8* me, int wm, int lane) {
    // Metadata of both k-steps at once: a row's 8 bytes per stage are its codes for 16 groups. Lane
    // tig 0 needs the low 16 bits of each k-step's word for rows gid (low half) and gid + 8 (high
    // half), lane tig 1 the high 16 bits: the layout stores them so (v359: one 8-byte load an m-tile, where a byte
    // permute per k-step from the rows' words cost 8 LDS.64 + 8 PRMT a stage at 128 x 128; H100, 4096^2 x 8192:
    // 128:2:16 -3%, 128:2:8 and 64:2:8 within noise). (IMAGE: the words as stored.)
    if constexpr (!IMAGE) {
      if (s == 0) {
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) {
          // the layout stores them paired (spmm_mma_sp.pair_codes): a 16-row tile's 128 bytes as [gid][tig & 1][s]
          const uint2 w = *reinterpret_cast<const uint2*>(me + (wm * WM + mi * 16) * (KS / 2) + (lane >> 2) * 16 +
                                                          (lane & 1) * 8);
          ew[mi][0] = w.x;
          ew[mi][1] = w.y;
        }
      }
#pragma unroll
      for (int mi = 0; mi < MT; ++mi) ef[mi] = ew[mi][s];
    }
  }

  // The mma.sp of k-step s, each n-tile's B fragment from load_b(s, ni, bf) just before its use.
  template <typename LoadB>
  __device__ __forceinline__ void run(float (&acc)[MT][NTILES][4], int s, LoadB load_b) const {
#pragma unroll
    for (int ni = 0; ni < NTILES; ++ni) {
      u32 bf[4];
      load_b(s, ni, bf);
#pragma unroll
      for (int mi = 0; mi < MT; ++mi) MmaSp<T>::run(acc[mi][ni], af[mi], bf, ef[mi]);
    }
  }
};

// One pipeline stage of math for one warp: both k-steps.
template <typename T, int WM, int WN, bool IMAGE = false, typename LoadB>
__device__ __forceinline__ void mma_stage_frags(float (&acc)[WM / 16][WN / 8][4], const T* a, const u8* me, int wm,
                                                int lane, LoadB load_b, int me_block = 0, int a_block = 4096) {
  StepFrags<T, WM, WN, IMAGE> f;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    f.load_a(s, a, me, wm, lane, me_block, a_block);
    f.run(acc, s, load_b);
  }
}

// B fragment layout: register j of k-step s, n-tile ni holds, for lane (gid = lane / 4, tig =
// lane % 4), logical k-rows 32 s + 8 j + 2 tig + {0, 1} of token 8 ni + gid, the lower k in the
// low half. mma_stage loads it with ldmatrix.trans from a staged B tile of k-rows: rows BPITCH elements
// apart, chunk-swizzled when BSWIZZLE (cp.async path) or padded (bulk-copy path); with XROW from a
// tile of token rows [BN][KROWS] (swizzled), by ldmatrix without .trans: its 8 x 8 matrix j of k-step s
// is k 32 s + 8 j .., its rows tokens.
// Bytes from a staged B tile to this thread's ldmatrix row of k-step s, n-tile ni, as a per-thread part `at(x)` plus
// an immediate `imm(s, ni)`. X^T rows: x = ni (k-step s is 32 rows further, at the same swizzle: 32 rows are whole
// swizzle periods); XROW: x = s (n-tile ni is 8 token rows further, the same swizzle).
template <typename T, int WN, int BN, int BPITCH, bool BSWIZZLE, bool XROW>
struct StageB {
  static constexpr int AT = XROW ? 2 : WN / 8;  // per-thread parts
  static __device__ __forceinline__ int at(int x, int wn, int lane) {
    if constexpr (XROW) {
      const int t = wn * WN + (lane & 7);
      return (t * KROWS + swizzle<KROWS / 8>(t, 4 * x + (lane >> 3)) * 8) * sizeof(T);
    } else {
      const int c = (wn * WN + x * 8) / 8;
      return (lane * BPITCH + (BSWIZZLE ? swizzle<BN / 8>(lane, c) : c) * 8) * sizeof(T);
    }
  }
  static __device__ __forceinline__ constexpr int x(int s, int ni) { return XROW ? s : ni; }
  static __device__ __forceinline__ constexpr int imm(int s, int ni) {
    return (XROW ? ni * 8 * KROWS : 32 * s * BPITCH) * sizeof(T);
  }
  static __device__ __forceinline__ void load(u32 (&bf)[4], u32 addr) {
    if constexpr (XROW) ldmatrix_x4(bf, addr);
    else ldmatrix_x4_trans(bf, addr);
  }
};

template <typename T, int WN, int BN, int BPITCH, bool BSWIZZLE, bool XROW = false>
__device__ __forceinline__ void stage_b_frag(u32 (&bf)[4], const T* b, int s, int ni, int wn, int lane) {
  using SB = StageB<T, WN, BN, BPITCH, BSWIZZLE, XROW>;
  SB::load(bf, smem_addr(b) + SB::at(SB::x(s, ni), wn, lane) + SB::imm(s, ni));
}

template <typename T, int WM, int WN, int BN, int BPITCH, bool BSWIZZLE, bool XROW = false>
__device__ __forceinline__ void mma_stage(float (&acc)[WM / 16][WN / 8][4], const T* a, const T* b, const u8* me,
                                          int wm, int wn, int lane) {
  mma_stage_frags<T, WM, WN>(acc, a, me, wm, lane, [&](int s, int ni, u32 (&bf)[4]) {
    stage_b_frag<T, WN, BN, BPITCH, BSWIZZLE, XROW>(bf, b, s, ni, wn, lane);
  });
}

// A warp's ldmatrix addresses in stage buffer 0 of a ring (Plan's A, B and codes per stage), and the math of buffer
// `buf`: both k-steps. A stage's addresses are these plus one uniform offset (SASS: LDSM [R + UR + imm], no
// arithmetic; v349: from the stage pointers, ptxas rebuilt each one a stage, ~3 instructions).
template <typename T, int WM, int WN, typename SB, typename Plan, bool B_RING = true>
struct StageMath {
  u32 a_at[2], b_at[SB::AT];

  __device__ __forceinline__ StageMath(const T* sA, const T* sB, int wm, int wn, int lane) {
#pragma unroll
    for (int s = 0; s < 2; ++s) a_at[s] = smem_addr(sA) + StepFrags<T, WM, WN>::a_offset(s, wm, lane);
#pragma unroll
    for (int x = 0; x < SB::AT; ++x) b_at[x] = smem_addr(sB) + SB::at(x, wn, lane);
  }

  __device__ __forceinline__ void run(float (&acc)[WM / 16][WN / 8][4], int buf, const u8* sM, int wm, int lane) const {
    StepFrags<T, WM, WN> f;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      f.load_a_at(s, a_at[s] + buf * (Plan::A * sizeof(T)), sM + buf * Plan::M, wm, lane);
      f.run(acc, s, [&](int ks, int ni, u32 (&bf)[4]) {
        SB::load(bf, b_at[SB::x(ks, ni)] + (B_RING ? buf * (Plan::B * sizeof(T)) : 0) + SB::imm(ks, ni));
      });
    }
  }
};

// Write the accumulators: fp32 partial sums (split-K), or bias + one rounding, staged through
// shared memory as [BN tokens][BM rows] so that rows of Y[t, :] leave in 16-byte stores.
// `sync` orders the staging among the threads that run the epilogue.
template <typename T, int BM, int BN, int WM, int WN, int NT, bool SPLIT, typename Sync>
__device__ __forceinline__ void epilogue(const float (&acc)[WM / 16][WN / 8][4], unsigned char* smem, const T* bias,
                                         T* y, float* partial, int row0, int tok0, int R, int ntok, int wm, int wn,
                                         int tid, Sync sync) {
  constexpr int MT = WM / 16, NTILES = WN / 8, C_PITCH = BM + 8;
  const int lane = tid & 31, gid = lane >> 2, tig = lane & 3;
  if (SPLIT) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = row0 + wm * WM + mi * 16 + gid + (e >= 2 ? 8 : 0);
          const int t = tok0 + wn * WN + ni * 8 + 2 * tig + (e & 1);
          if (r < R && t < ntok) partial[(static_cast<size_t>(blockIdx.z) * ntok + t) * R + r] = acc[mi][ni][e];
        }
    return;
  }
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
          sC[t * C_PITCH + r] = Elem<T>::from_float(acc[mi][ni][2 * h + e] + bv);
        }
    }
  }
  sync();
  store_staged<T, BM, BN, C_PITCH, NT>(sC, y, row0, tok0, R, ntok, tid);
}

#ifndef VNM_CLUSTER_SPLITS
#define VNM_CLUSTER_SPLITS 0
#endif

struct BlockSync {
  __device__ void operator()() const { __syncthreads(); }
};

// The K splits of one tile as a thread-block cluster (grid z = cluster z = splits <= 8, sm_90; the host's
// spmm_mma_sp.CLUSTER_SPLITS, which compiles the kernels it launches so with VNM_CLUSTER_SPLITS = 1: the others'
// code stays as measured): each CTA stages its fp32 sums [BN tokens][BM rows] in its own shared memory, and after a
// cluster barrier each rank sums its share of the tile's 8-row chunks over the ranks in order (bias first, as
// splitk_reduce: deterministic), rounds once and stores Y. No fp32 partials through L2, no reduction launch. Every
// thread of every CTA of the cluster runs it (the cluster barriers).
template <typename T, int BM, int BN, int WM, int WN, int NT, int SMEM_BYTES>
__device__ __forceinline__ void cluster_split_epilogue(const float (&acc)[WM / 16][WN / 8][4], unsigned char* smem,
                                                       const T* bias, T* y, int row0, int tok0, int R, int ntok,
                                                       int wm, int wn, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int P_PITCH = BM + 4;  // (+4: a warp's stores hit 32 banks)
  static_assert(BN * P_PITCH * 4 <= SMEM_BYTES, "a cluster's split sums staged in the kernel's shared memory");
  const int lane = tid & 31, gid = lane >> 2, tig = lane & 3;
  float* sP = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int mi = 0; mi < WM / 16; ++mi)
#pragma unroll
    for (int ni = 0; ni < WN / 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        sP[(wn * WN + ni * 8 + 2 * tig + (e & 1)) * P_PITCH + wm * WM + mi * 16 + gid + (e >= 2 ? 8 : 0)] =
            acc[mi][ni][e];
  cluster_sync();  // every rank's sums staged
  const int ranks = static_cast<int>(cluster_nranks()), rank = static_cast<int>(cluster_rank());
  for (int i = rank * NT + tid; i < BN * (BM / 8); i += NT * ranks) {
    const int t = i / (BM / 8), c = i % (BM / 8);
    const int gt = tok0 + t, gr = row0 + c * 8;
    if (gt >= ntok || gr >= R) continue;
    float s[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) s[e] = (bias != nullptr && gr + e < R) ? Elem<T>::to_float(bias[gr + e]) : 0.f;
    for (int q = 0; q < ranks; ++q) {
      const u32 at = cluster_map(sP + t * P_PITCH + c * 8, q);
      const float4 a = ld_cluster_f32x4(at), b = ld_cluster_f32x4(at + 16);
      s[0] += a.x, s[1] += a.y, s[2] += a.z, s[3] += a.w, s[4] += b.x, s[5] += b.y, s[6] += b.z, s[7] += b.w;
    }
    T* out = y + static_cast<size_t>(gt) * R + gr;
    if ((R & 7) == 0) {
      uint4 packed;
      T* h = reinterpret_cast<T*>(&packed);
#pragma unroll
      for (int e = 0; e < 8; ++e) h[e] = Elem<T>::from_float(s[e]);
      *reinterpret_cast<uint4*>(out) = packed;
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (gr + e < R) out[e] = Elem<T>::from_float(s[e]);
    }
  }
  cluster_sync();  // no CTA leaves while a peer still reads its shared memory
#endif
}

template <int A, int B>
__device__ __forceinline__ void zero(float (&acc)[A][B][4]) {
#pragma unroll
  for (int i = 0; i < A; ++i)
#pragma unroll
    for (int j = 0; j < B; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
}

// Resident CTAs an SM that the tile tables plan for (spmm_mma_sp.TileConfig.ctas_per_sm: sm_90's 228 KB of shared
// memory, 1 KB reserved a CTA; 64K registers, a thread ~96 besides its accumulators): the kernels' __launch_bounds__
// minimum, so that ptxas fits its registers to the plan (v354: left to itself it gave some 168-register tiles 128
// and spilled, 12 bf16 variants in all).
constexpr int ctas_by_smem(int smem) { return 233472 / (smem + 1024); }
constexpr int planned_ctas(int threads, int smem, int acc_regs) {
  const int by_smem = ctas_by_smem(smem), by_regs = 65536 / (threads * (96 + acc_regs));
  return by_smem < by_regs ? (by_smem > 1 ? by_smem : 1) : (by_regs > 1 ? by_regs : 1);
}

// Shared-space destinations of a thread's B copies: copy j lands at row r0 + j STEP of a stage's tile (rows PITCH
// elements, its chunk c swizzled over CPR chunks a row). The swizzle repeats every 8 rows, so a destination is one of
// DPER per-thread bases, the stage's offset and an immediate (v354: the copies' LEA / IADD3 rebuilt each one).
template <typename T, int PITCH, int CPR, int STEP, bool SWIZZLED = true>
struct BDest {
  static constexpr int DPER = STEP % 8 == 0 ? 1 : 8 / STEP;  // copies a period of the swizzle
  static_assert(STEP % 8 == 0 || 8 % STEP == 0, "copies whole periods of the swizzle apart");
  u32 d[DPER];

  __device__ __forceinline__ BDest(const void* tile, int r0, int c) {
#pragma unroll
    for (int p = 0; p < DPER; ++p) {
      const int r = r0 + STEP * p;
      d[p] = smem_addr(tile) + (r * PITCH + (SWIZZLED ? swizzle<CPR>(r, c) : c) * 8) * sizeof(T);
    }
  }
  __device__ __forceinline__ u32 at(int j, u32 stage) const {
    return d[j % DPER] + stage + (j / DPER) * (DPER * STEP * PITCH * sizeof(T));
  }
};

// One stage of A (the compressed values: 2*KS per row, 4 swizzled 16-byte chunks) and of the codes
// (KS/2 bytes per row) into shared memory by cp.async. The layout keeps each block's stage contiguous
// (1 KB of A, 128 B of codes), so that a warp's copy instruction asks L2 for 4 whole lines: a 128-row
// stage is 64 + 8 requests, where rows of the row-major form (v338's ncu: L2's request rate is the
// bound) took 128 + 128. Blocks past the layout's get zero values and its last block's codes: valid
// ordered metadata, multiplied by zeros. Each thread's copies are fixed at its start: a byte offset from the
// CTA's first block at step 0, so that a stage's copy source is one add onto a per-thread pointer (made opaque,
// as the B copies' in spmm_mma_sp: v350, the compiler re-selected each offset and re-added the arguments' base).
template <typename T, int BM, int NT>
struct ACopies {
  static constexpr int A_CPR = 2 * KS * 2 / 16, A_CPB = BLOCK_ROWS * A_CPR, A_COPIES = BM * A_CPR;
  static constexpr int C_CPB = BLOCK_ROWS * (KS / 2) / 16, C_COPIES = BM * (KS / 2) / 16;
  static constexpr int AJ = (A_COPIES + NT - 1) / NT, CJ = (C_COPIES + NT - 1) / NT;
  static constexpr u32 A_STEP = BLOCK_ROWS * 2 * KS * sizeof(T), C_STEP = BLOCK_ROWS * KS / 2;  // a block's bytes a step
  static_assert(A_CPR == 4, "the A swizzle (mma_stage_frags' swizzle<4>) assumes 4 chunks per row");
  static_assert(BM % BLOCK_ROWS == 0, "a row tile of whole layout blocks");
  const char* va;
  const char* vc;
  u32 aoff[AJ], coff[CJ];
  bool aok[AJ];

  __device__ __forceinline__ ACopies(const T* values, const u8* meta, int row0, int R, int steps, int tid) {
    const int blk0 = row0 / BLOCK_ROWS, blocks = (R + BLOCK_ROWS - 1) / BLOCK_ROWS - blk0;  // blocks in the layout
    va = reinterpret_cast<const char*>(values) + static_cast<size_t>(blk0) * steps * A_STEP;
    vc = reinterpret_cast<const char*>(meta) + static_cast<size_t>(blk0) * steps * C_STEP;
#pragma unroll
    for (int j = 0; j < AJ; ++j) {
      const int i = tid + j * NT, b = i / A_CPB;
      aok[j] = b < blocks;
      aoff[j] = aok[j] ? static_cast<u32>(b * steps) * A_STEP + (i % A_CPB) * 16 : 0;
    }
#pragma unroll
    for (int j = 0; j < CJ; ++j) {
      const int i = tid + j * NT;
      coff[j] = static_cast<u32>(min(i / C_CPB, blocks - 1) * steps) * C_STEP + (i % C_CPB) * 16;
    }
    asm("" : "+l"(va));
    asm("" : "+l"(vc));
  }

  __device__ __forceinline__ void load(T* a, u8* codes, int step, int tid) const {
    const char* sa = va + static_cast<u32>(step) * A_STEP;
    const char* sc = vc + static_cast<u32>(step) * C_STEP;
#pragma unroll
    for (int j = 0; j < AJ; ++j) {
      const int i = tid + j * NT;
      if (A_COPIES % NT == 0 || i < A_COPIES) cp_async16(a + i * 8, sa + aoff[j], aok[j]);
    }
#pragma unroll
    for (int j = 0; j < CJ; ++j) {
      const int i = tid + j * NT;
      if (C_COPIES % NT == 0 || i < C_COPIES) cp_async16(codes + i * 16, sc + coff[j], true);
    }
  }
};

// Grid: x = row tiles of BM rows (BM divides V), y = token tiles of BN, z = K splits.
// Without SPLIT the CTA writes y (bias fused); with SPLIT it writes fp32 partial sums
// partial[z][t][r] and splitk_reduce finishes.
// XROW (plain 2:4 only: m == 4, no column lists): `xt` is X itself, row-major with row stride ldx, K % 8 == 0.
// Nothing is gathered there, so B is staged as [BN tokens][KROWS k] rows (X's own 128-byte runs) and read by
// ldmatrix without .trans: the call needs no transpose of X (4 T K bytes through DRAM; v344, H100, 4096^2 x 8192:
// 762 -> 650 us, the transpose's ~49 and a kernel that reads X's rows faster than X^T's).
// XGM > 0 (with HAS_COLS and XROW; m <= XGM, no union layout; spmm_mma_sp.GATHER_ROWS): X row-major as above, the
// columns gathered in the kernel: each stage copies the window of X's rows that its KS groups span (KS m columns from
// g0 m, 16-byte runs), then the CTA picks each group's 4 kept columns out of shared memory into a [BN][KROWS] tile
// that the math reads as XROW's: no transpose launch (the decode calls' first of three).
template <typename T, int BM, int BN, int WM, int WN, int STAGES, bool HAS_COLS, bool SPLIT, bool XROW = false,
          int XGM = 0>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32,
                                  planned_ctas((BM / WM) * (BN / WN) * 32, SmemPlan<BM, BN, STAGES, XGM>::BYTES,
                                               WM * WN / 32))
    spmm_mma_sp(const T* __restrict__ values, const u8* __restrict__ meta, const u32* __restrict__ cols,
                const T* __restrict__ xt, const T* __restrict__ bias, T* __restrict__ y,
                float* __restrict__ partial, int R, int K, int ntok, int ntok_load, int ldx, int Gp, int m,
                int v, int steps_per_split) {
  constexpr int WARPS_N = BN / WN;
  constexpr int NT = (BM / WM) * WARPS_N * 32;
  constexpr int MT = WM / 16, NTILES = WN / 8;
  constexpr bool GATHER_ROWS = XGM > 0;
  // 16-byte chunks a staged B row (a k-row of X^T, or a token of X: KROWS columns, or the window of XGM-column groups)
  constexpr int B_CPR = (XROW ? (GATHER_ROWS ? KS * XGM : KROWS) : BN) / 8;
  // B copies: one thread per 16-byte chunk of a gathered row, so that a warp's copy instruction asks L2 for whole
  // 128-byte lines. v338 (H100, ncu): with TPR = 2 threads a row, each copying 4 chunks, L2's tag
  // requests were 91% busy (sectors 55%); whole lines cut a 128 x 64 stage's requests 512 -> 320 and the prefill's
  // time 9-27% (4096^2 x 8192: 128:2:8 497 -> 445 us, 2:4 991 -> 834), once v337 had made each copy's address cheap
  // (v20's whole lines had lost 10-30% to that address math).
  constexpr int B_TASKS = (XROW ? BN : KROWS) * B_CPR;
  static_assert(XROW ? HAS_COLS == GATHER_ROWS : !GATHER_ROWS,
                "X row-major: plain 2:4 as it is, or gathered in the kernel (XGM > 0) where there are column lists");
  using SB = StageB<T, WN, BN, BN, true, XROW>;
  constexpr int B_ITERS = (B_TASKS + NT - 1) / NT;
  using Plan = SmemPlan<BM, BN, STAGES, XGM>;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");

  extern __shared__ __align__(128) unsigned char smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + STAGES * Plan::A;
  u8* sM = reinterpret_cast<u8*>(sB + STAGES * Plan::B);
  T* sG = reinterpret_cast<T*>(sM + STAGES * Plan::M);  // (GATHER_ROWS: the stage's gathered columns)

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int row0 = blockIdx.x * BM, tok0 = blockIdx.y * BN;
  const int total_steps = Gp / KS;
  // m's high half: log2 of the groups that share one M window (the union layout: the kept columns of
  // several V-row blocks as one list of 4-column groups per window, on 64-row tiles only), 0 otherwise
  constexpr bool UNION = HAS_COLS && !XROW && BM <= 64;
  const int gshift = UNION ? m >> 16 : 0;
  m &= 0xffff;
  const int kbeg = SPLIT ? blockIdx.z * steps_per_split : 0;
  const int kend = SPLIT ? min(total_steps, kbeg + steps_per_split) : total_steps;
  const u32* colrow = HAS_COLS ? cols + static_cast<size_t>(row0 / v) * Gp : nullptr;

  // The chunk that each of this thread's B copies moves (NT is a multiple of B_CPR) and what of its address
  // is the same every stage: the copy's own part is one multiply-add of its X^T row. Copy j's k-row is
  // kr0 + j KR_STEP: its column word is j KR_STEP / 4 words after the thread's first, the same byte of each.
  constexpr int KR_STEP = NT / B_CPR;
  static_assert(NT % B_CPR == 0 && (XROW || B_ITERS == 1 || KR_STEP % 4 == 0),
                "a thread's B copies: one chunk, one byte of their column words");
  const int bc = tid % B_CPR, kr0 = tid / B_CPR;
  // Column words of the groups whose B rows this thread copies, fetched one stage ahead so that
  // their global-load latency hides behind a stage of math. With B_CPR >= 8 a warp's rows of one copy lie in one
  // group, so its copies' words differ only by j: lane j holds word j, the others read it by shuffle (one register,
  // not B_ITERS: v354, no spill in any variant).
  constexpr bool SHUFFLED = HAS_COLS && !XROW && B_CPR >= 8 && B_TASKS % NT == 0 && B_ITERS > 1 && B_ITERS <= 32;
  static_assert(!GATHER_ROWS || (B_CPR == 16 || B_CPR == 32), "GATHER_ROWS: a window of 8 or 16 columns a group");
  constexpr int WORDS = SHUFFLED ? 1 : B_ITERS;
  u32 colw[WORDS];
#pragma unroll
  for (int j = 0; j < WORDS; ++j) colw[j] = IDENTITY_COLUMNS;  // (no column list: plain 2:4)
  const u32 col_byte = 0x4440u | (kr0 & 3);  // __byte_perm selector: that byte, zero-extended
  const u32* colt = HAS_COLS ? colrow + kr0 / 4 : nullptr;
  const bool tok_ok = tok0 + bc * 8 < ntok_load;
  // A copy's source: one 32 x 32 -> 64-bit multiply-add onto a per-thread pointer (X^T: this chunk's tokens in row 0;
  // XROW: this thread's first token row), made opaque so that the compiler does not rebuild it from the kernel's
  // arguments at every copy (~10 instructions each). A zero-filled copy reads nothing: its offset is 0, inside X.
  const char* xcol = reinterpret_cast<const char*>(xt + (tok_ok ? tok0 + bc * 8 : 0));
  const char* xrow = reinterpret_cast<const char*>(xt + static_cast<size_t>(min(tok0 + kr0, ntok_load - 1)) * ldx);
  const u32 ldx_bytes = static_cast<u32>(ldx) * sizeof(T);  // (a row of X or X^T: < 4 GB)
  // XROW: a thread's copies are KR_STEP token rows apart (the host keeps ldx under 2^26: KR_STEP <= 16 rows of X are
  // under 4 GB); the CTA's tile is whole but for the last token tile
  static_assert(!XROW || KR_STEP <= 16, "XROW: copies within 4 GB of X (spmm_mma_sp.reads_rows' stride bound)");
  const u32 row_step = KR_STEP * ldx_bytes;
  const bool whole_tile = tok0 + BN <= ntok_load;
  asm("" : "+l"(xcol));
  asm("" : "+l"(xrow));
  auto fetch_columns = [&](int step) {
    if (!HAS_COLS || XROW || step >= kend) return;  // (past the last stage: no copies read them)
    if constexpr (SHUFFLED) {
      colw[0] = __ldg(colt + step * KS + (lane % B_ITERS) * (KR_STEP / 4));
    } else {
#pragma unroll
      for (int j = 0; j < B_ITERS; ++j)
        if (B_TASKS % NT == 0 || tid + j * NT < B_TASKS) colw[j] = __ldg(colt + step * KS + j * (KR_STEP / 4));
    }
  };
  // (XROW: rows are tokens, KROWS elements; GATHER_ROWS: the window, unswizzled, as the gather reads it)
  const BDest<T, B_CPR * 8, B_CPR, KR_STEP, !GATHER_ROWS> b_dest(sB, kr0, bc);

  const ACopies<T, BM, NT> a_copies(values, meta, row0, R, total_steps, tid);
  auto load_stage = [&](int buf, int step) {
    a_copies.load(sA + buf * Plan::A, sM + buf * Plan::M, step, tid);
    const int g0 = step * KS;
    const u32 stage = buf * (Plan::B * sizeof(T));
    if constexpr (XROW) {
      const int k = g0 * (GATHER_ROWS ? m : 4) + bc * 8;  // (group g holds columns m g ..; plain 2:4: m == 4)
      const bool k_ok = k < K && (!GATHER_ROWS || bc * 8 < KS * m);
      const char* src = xrow + (k_ok ? k * sizeof(T) : 0);
      asm("" : "+l"(src));  // (else ptxas adds j's rows to k first, then X: two more adds a copy)
      if (whole_tile) {  // every token row real: copy j is j KR_STEP rows after the first, one IMAD.WIDE
#pragma unroll
        for (int j = 0; j < B_ITERS; ++j)
          if (B_TASKS % NT == 0 || tid + j * NT < B_TASKS)
            cp_async16(b_dest.at(j, stage), src + mul_wide(j, row_step), k_ok);
      } else {
#pragma unroll
        for (int j = 0; j < B_ITERS; ++j) {
          const bool ok = k_ok && tok0 + kr0 + j * KR_STEP < ntok_load;
          if (B_TASKS % NT == 0 || tid + j * NT < B_TASKS)
            cp_async16(b_dest.at(j, stage), ok ? src + mul_wide(j, row_step) : xrow, ok);
        }
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < B_ITERS; ++j) {
      if (!(B_TASKS % NT == 0 || tid + j * NT < B_TASKS)) continue;
      const u32 word = SHUFFLED ? __shfl_sync(0xffffffffu, colw[0], j) : colw[j % WORDS];
      const int g = g0 + kr0 / 4 + j * (KR_STEP / 4);  // (not (kr0 + j KR_STEP) / 4: ptxas kept each j's k-row)
      const u32 byte = HAS_COLS ? __byte_perm(word, 0, col_byte) : kr0 & 3;
      const u32 k = (UNION ? g >> gshift : g) * m + byte;
      const bool ok = tok_ok && k < static_cast<u32>(K);
      cp_async16(b_dest.at(j, stage), xcol + mul_wide(ok ? k : 0, ldx_bytes), ok);
    }
  };

  // Launched with PDL (sm_90), the CTA may start while X's transpose still runs: until the wait it
  // only asks L2 for its column words and its first stages' A and codes, so that the prologue's
  // DRAM misses (v179: the first column word's is the hottest stall) overlap that kernel (spread
  // PDL launches of 4096^2 64:2:8 T = 64: 14.1 us without it in v184, 13.3-13.8 with it in v183/v185).
  if (HAS_COLS)
    for (int i = tid * 32; i < (kend - kbeg) * KS; i += NT * 32) prefetch_l2(colrow + kbeg * KS + i);
  {  // the first stages of each block: A's 1 KB (8 lines) and the codes' 128 B (1 line) a step, contiguous
    const int pre = min(kend - kbeg, STAGES - 1), blk0 = row0 / BLOCK_ROWS;
    const int nb = min(BM / BLOCK_ROWS, (R + BLOCK_ROWS - 1) / BLOCK_ROWS - blk0);
    for (int i = tid; i < nb * pre * 9; i += NT) {
      const int b = i / (pre * 9), l = i % (pre * 9);
      const size_t at = static_cast<size_t>(blk0 + b) * total_steps + kbeg;
      prefetch_l2(l < pre * 8 ? reinterpret_cast<const u8*>(values + at * (BLOCK_ROWS * 2 * KS)) + l * 128
                              : meta + at * (BLOCK_ROWS * KS / 2) + (l - pre * 8) * 128);
    }
  }
  grid_dependency_wait();

  float acc[MT][NTILES][4];
  zero(acc);
  const StageMath<T, WM, WN, SB, Plan, !GATHER_ROWS> math(sA, GATHER_ROWS ? sG : sB, wm, wn, lane);

  // GATHER_ROWS: a thread builds word `lane` of the gathered tile's token rows warp, warp + NW, ..: its k-rows 2 lane
  // and 2 lane + 1 are group lane / 2's kept columns 2 (lane & 1) and 2 (lane & 1) + 1 (their bytes of the group's
  // column word, fetched a step ahead). A warp reads one token row of the window (<= 4-way bank conflicts: 64 of its
  // KS m columns) and writes its 32 words (conflict-free). Loads go in batches ahead of their stores (the compiler
  // cannot tell the window from the tile, so a store would hold back every later load), and a store's address is one
  // of GP per-thread bases plus an immediate (rows 8 apart share the tile's swizzle).
  constexpr int NW = NT / 32, GJ = BN / NW, GBATCH = GJ < 8 ? GJ : 8, GP = 8 / NW < GJ ? 8 / NW : GJ;
  u32 gword = 0;
  u32* gdst[GP];
#pragma unroll
  for (int p = 0; p < GP; ++p) {
    const int t = warp + NW * p;
    gdst[p] = reinterpret_cast<u32*>(sG) + (t * KROWS + (((lane >> 2) ^ (t & 7)) << 3)) / 2 + (lane & 3);
  }
  auto fetch_gather_word = [&](int step) {
    if (GATHER_ROWS && step < kend) gword = __ldg(colrow + step * KS + (lane >> 1));
  };
  auto gather = [&](int buf, u32 word) {
    const int shift = 16 * (lane & 1), base = (lane >> 1) * m;
    const int o0 = base + ((word >> shift) & 0xff), o1 = base + ((word >> (shift + 8)) & 0xff);
    const unsigned short* win = reinterpret_cast<const unsigned short*>(sB + buf * Plan::B) + warp * (B_CPR * 8);
#pragma unroll
    for (int j0 = 0; j0 < GJ; j0 += GBATCH) {
      u32 w[GBATCH];
#pragma unroll
      for (int b = 0; b < GBATCH; ++b) {
        const unsigned short* row = win + (j0 + b) * NW * (B_CPR * 8);
        w[b] = row[o0] | (static_cast<u32>(row[o1]) << 16);
      }
#pragma unroll
      for (int b = 0; b < GBATCH; ++b) gdst[(j0 + b) % GP][(j0 + b) / GP * (8 * KROWS / 2)] = w[b];
    }
  };

  // Multistage cp.async pipeline: STAGES-1 stages in flight while one is consumed.
  fetch_columns(kbeg);
  fetch_gather_word(kbeg);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (kbeg + s < kend) {
      load_stage(s, kbeg + s);
      fetch_columns(kbeg + s + 1);
    }
    cp_async_commit();
  }
  auto step_body = [&](int step, int math_buf) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // stage `step` visible to all; everyone is done reading stage step-1
    const int next = step + STAGES - 1;
    if (next < kend) {
      load_stage((next - kbeg) % STAGES, next);
      fetch_columns(next + 1);
    }
    cp_async_commit();
    if constexpr (GATHER_ROWS) {
      const u32 word = gword;
      fetch_gather_word(step + 1);
      gather(math_buf, word);
      __syncthreads();  // the gathered tile whole (everyone was done reading the last one: the barrier above)
    }
    math.run(acc, math_buf, sM, wm, lane);
  };
  for (int step = kbeg; step < kend; ++step) step_body(step, (step - kbeg) % STAGES);
  cp_async_wait<0>();
  __syncthreads();

#if VNM_CLUSTER_SPLITS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (SPLIT) {
    if (cluster_nranks() > 1) {
      cluster_split_epilogue<T, BM, BN, WM, WN, NT, Plan::BYTES>(acc, smem, bias, y, row0, tok0, R, ntok, wm, wn, tid);
      return;
    }
  }
#endif
  epilogue<T, BM, BN, WM, WN, NT, SPLIT>(acc, smem, bias, y, partial, row0, tok0, R, ntok, wm, wn, tid, BlockSync{});
}

// ------------------------------------------------------------------------------------------------
// Warp-specialised prefill (sm_80+; NOTES "The mma.sp ceiling with its operands in shared
// memory"): the classic kernel above stalls at its per-stage __syncthreads and cp.async.wait
// (ncu v17: a quarter of the samples each) and its 32 x 32 / 64 x 32 warp tiles need more
// shared-memory bandwidth for ldmatrix than the mma.sp rate leaves. Here PW producer warps fill
// an mbarrier ring (A and codes by ACopies, B as gathered rows of X^T, one 16-byte chunk
// per thread and row) and arrive on the stage's full barrier when their copies land
// (cp.async.mbarrier.arrive.noinc); the consumer warps (64 x 64 warp tiles: 3/64 bytes of fragments per MAC) wait
// on it, run mma_stage and release the stage on its empty barrier. Nobody waits for a block
// barrier in the main loop. Same operands, layout and grid as spmm_mma_sp; no split-K (prefill).
// The epilogue's sync among the NC consumer threads of a warp-specialised kernel (producers have
// their own work, or have left).
template <int NC>
struct ConsumerSync {
  __device__ void operator()() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    named_barrier_sync(1, NC);
#endif
  }
};

// Experiment knob, what bounds the ws form's main loop (results are wrong for 1-3; scripts/tile_sweep.py times them):
// 1 the consumers' loop alone (no copies, no barriers: ldmatrix and mma.sp on whatever the ring holds), 2 its mma.sp
// alone (stage 0's fragments held in registers), 3 the producers alone (copies and barriers, no math).
#ifndef VNM_WS_PROBE
#define VNM_WS_PROBE 0
#endif

#ifndef VNM_MMA_WS_LOOKAHEAD
#define VNM_MMA_WS_LOOKAHEAD 4  // stages of look-ahead for the producers' column words
#endif

// CTAs an SM the warp-specialised kernel plans for (TileConfig.ctas_per_sm): what shared memory holds (its ring and
// 2 mbarriers a stage), at most 2. v363: two CTAs give a scheduler two consumer warps (a warp issues an mma.sp at most
// every 8 cycles), as one CTA of 8 consumer warps does; their 64 x 64 warp tiles need more than the 128 / 168 registers
// a thread that 2 x 8 / 12 warps get at entry, so on sm_90a the producer warpgroup(s) give their share to the
// consumer ones (setmaxnreg: WS_PRODUCER_REGS, and the rest): such tiles need whole warpgroups of each.
// PERSIST: the epilogue's tile in shared memory of its own after the ring (which the producers keep filling for the
// CTA's next tile meanwhile), else over the ring; then the full and empty mbarriers.
template <int BM, int BN, int STAGES, bool PERSIST>
struct WsPlan {
  using Plan = SmemPlan<BM, BN, STAGES>;
  static constexpr int C_OFF = PERSIST ? (Plan::PIPE + 127) & ~127 : 0;
  static constexpr int BAR_OFF = ((PERSIST ? C_OFF + Plan::EPI : Plan::BYTES) + 15) & ~15;
  static constexpr int BYTES = BAR_OFF + 16 * STAGES;
};
template <int BM, int BN, int STAGES, bool PERSIST>
constexpr int ws_planned_ctas() {
  const int by_smem = ctas_by_smem(WsPlan<BM, BN, STAGES, PERSIST>::BYTES);
  return by_smem > 2 ? 2 : by_smem > 1 ? by_smem : 1;
}
constexpr int WS_PRODUCER_REGS = 40;

template <typename T, int BM, int BN, int WM, int WN, int STAGES, int PW, bool HAS_COLS, bool PERSIST = false>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32 + PW * 32,
                                  ws_planned_ctas<BM, BN, STAGES, PERSIST>())
    spmm_mma_sp_ws(const T* __restrict__ values, const u8* __restrict__ meta, const u32* __restrict__ cols,
                   const T* __restrict__ xt, const T* __restrict__ bias, T* __restrict__ y,
                   float* __restrict__ partial, int R, int K, int ntok, int ntok_load, int ldx, int Gp, int m,
                   int v, int steps_per_split) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int WARPS_N = BN / WN;
  constexpr int NCW = (BM / WM) * WARPS_N;  // consumer warps
  constexpr int NC = NCW * 32, NP = PW * 32;
  constexpr int MT = WM / 16, NTILES = WN / 8;
  constexpr int B_CPR = BN / 8;                           // 16-byte chunks per gathered row
  // One producer thread per 16-byte chunk of a gathered row: a warp's copy covers whole 128-byte
  // lines (v20; the 64 x 256 tile ran 26% faster than with two threads per row, 128 x 128 -4%/+4%).
  constexpr int TPR = B_CPR;                              // producer threads per gathered row
  constexpr int RPT = KROWS * TPR / NP;                   // gathered rows per producer thread and stage
  constexpr int LOOKAHEAD = VNM_MMA_WS_LOOKAHEAD;
  using Plan = SmemPlan<BM, BN, STAGES>;
  static_assert(KROWS * TPR % NP == 0 && (NP / TPR) % 4 == 0, "rows split evenly over producers");
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
  static_assert(LOOKAHEAD >= 1 && LOOKAHEAD <= 8, "column-word look-ahead of 1..8 stages");
  using Ws = WsPlan<BM, BN, STAGES, PERSIST>;

  extern __shared__ __align__(128) unsigned char smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + STAGES * Plan::A;
  u8* sM = reinterpret_cast<u8*>(sB + STAGES * Plan::B);
  u64* full = reinterpret_cast<u64*>(smem + Ws::BAR_OFF);
  u64* empty = full + STAGES;

  const int tid = threadIdx.x;
  const int nsteps = Gp / KS;
  // Tiles row-tile-first (a grid of every tile runs one each, its x the row tile, y the token tile); PERSIST: the grid
  // strides over them, the ring's stage count g running on across a CTA's tiles.
  const int rtiles = (R + BM - 1) / BM, ntiles = rtiles * ((ntok + BN - 1) / BN);
  const int first = blockIdx.x + blockIdx.y * gridDim.x, stride = PERSIST ? gridDim.x * gridDim.y : ntiles;
  // (PERSIST or not, a loop: !PERSIST leaves it after one tile, so no state of it outlives the K loop)
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], NP);     // every producer thread, once its copies of the stage landed
      mbar_init(&empty[s], NCW);   // every consumer warp, once it read the stage
    }
  }
  grid_dependency_wait();  // launched with PDL: X^T and the output are the previous kernels' until here
  __syncthreads();

  constexpr int CTAS = ws_planned_ctas<BM, BN, STAGES, PERSIST>();
  // Registers a thread at entry: a scheduler's 16K over the warps it holds (the SM's warps of CTAS CTAs, 4 schedulers)
  constexpr int WARPS = (NC + NP) / 32, ENTRY_REGS = 16384 / ((CTAS * WARPS + 3) / 4 * 32) & ~7;
  constexpr int WS_CONSUMER_REGS = (WARPS * ENTRY_REGS - NP / 32 * WS_PRODUCER_REGS) / (NC / 32) & ~7;
  constexpr bool REALLOC = ENTRY_REGS < 232;  // (64 x 64 warp tiles need ~190-240)
#if VNM_HAS_SETMAXNREG
  static_assert(!REALLOC || (NC % 128 == 0 && NP % 128 == 0 && WS_CONSUMER_REGS <= 256),
                "setmaxnreg: consumer and producer warpgroups");
  if constexpr (REALLOC) {
    if (tid >= NC) setmaxnreg_dec<WS_PRODUCER_REGS>();
    else setmaxnreg_inc<WS_CONSUMER_REGS>();
  }
#endif
  if (tid >= NC) {
    // ---------------------------------------------------------------- producer warps
    if (VNM_WS_PROBE == 1 || VNM_WS_PROBE == 2) return;
    const int ptid = tid - NC, lane = tid & 31;
    // Row kr = kr0 + KR_STEP j of every stage (group kr / 4, kept column kr % 4 of that group: the same byte of
    // each column word), chunk c of it.
    constexpr int KR_STEP = NP / TPR;
    const int kr0 = ptid / TPR, c = ptid % TPR;
    const u32 col_byte = 0x4440u | (kr0 & 3);  // __byte_perm selector: that byte, zero-extended
    const u32 ldx_bytes = static_cast<u32>(ldx) * sizeof(T);
    const BDest<T, BN, B_CPR, KR_STEP> b_dest(sB, kr0, c);
    // With TPR >= 8 a warp's rows of one copy lie in one group, so its rows' words differ only by
    // j: lane j holds word j and the others read it by shuffle (1 register per slot, not RPT).
    constexpr bool SHUFFLED = TPR >= 8 && RPT <= 32;
    constexpr int WPT = SHUFFLED ? 1 : RPT;  // column words per thread and look-ahead slot
    int g = 0;
    for (int tile = first; tile < ntiles; tile += stride) {
      const int row0 = tile % rtiles * BM, tok0 = tile / rtiles * BN;
      const u32* colrow = HAS_COLS ? cols + static_cast<size_t>(row0 / v) * Gp + kr0 / 4 : nullptr;
      // As spmm_mma_sp's copies (v349): the source is one multiply-add onto a per-thread pointer made opaque, a
      // zero-filled copy's offset 0 (inside X); the destination by BDest. v350: the producer's loop was 276
      // instructions a stage (~18 a copy), its warp sharing a scheduler with a consumer warp's 178 against 512 cycles
      // of mma.sp.
      const bool tok_ok = tok0 + c * 8 < ntok_load;  // tokens past ntok_load are zero-filled
      const char* xcol = reinterpret_cast<const char*>(xt + (tok_ok ? tok0 + c * 8 : 0));
      asm("" : "+l"(xcol));
      const ACopies<T, BM, NP> a_copies(values, meta, row0, R, nsteps, ptid);
      auto column_word = [&](int step, int j) -> u32 {
        if (SHUFFLED) j = lane % RPT;
        return (HAS_COLS && step < nsteps) ? __ldg(colrow + step * KS + j * (KR_STEP / 4)) : IDENTITY_COLUMNS;
      };
      // Words run LOOKAHEAD stages ahead in slots read and reloaded in place (for_unrolled).
      u32 wq[LOOKAHEAD][WPT];
#pragma unroll
      for (int i = 0; i < LOOKAHEAD; ++i)
#pragma unroll
        for (int j = 0; j < WPT; ++j) wq[i][j] = column_word(i, j);
      for_unrolled<LOOKAHEAD>(nsteps, [&](int it, int q) {
        const int gi = (PERSIST ? g : 0) + it, s = gi % STAGES;
        if (gi >= STAGES) mbar_wait(&empty[s], ((gi / STAGES) & 1) ^ 1);
        a_copies.load(sA + s * Plan::A, sM + s * Plan::M, it, ptid);
        const u32 stage = s * (Plan::B * sizeof(T));
        const u32 k0 = static_cast<u32>(it * KS + kr0 / 4) * m;  // row kr0's group's first column
#pragma unroll
        for (int j = 0; j < RPT; ++j) {
          const u32 word = SHUFFLED ? __shfl_sync(0xffffffffu, wq[q][0], j) : wq[q][j];
          const u32 k = k0 + j * (KR_STEP / 4) * m + __byte_perm(word, 0, col_byte);
          const bool ok = tok_ok && k < static_cast<u32>(K);
          cp_async16(b_dest.at(j, stage), xcol + mul_wide(ok ? k : 0, ldx_bytes), ok);
        }
        cp_async_mbar_arrive_noinc(&full[s]);
#pragma unroll
        for (int j = 0; j < WPT; ++j) wq[q][j] = column_word(it + LOOKAHEAD, j);
      });
      g += nsteps;
      if (!PERSIST) break;
    }
    cp_async_wait<0>();  // the asynchronous arrivals must not outlive the thread
    return;
  }

  // ------------------------------------------------------------------ consumer warps
  const int lane = tid & 31, warp = tid >> 5;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  // (v350: the addresses kept, as spmm_mma_sp's: the consumer's loop 178 -> 148 instructions a stage)
  const StageMath<T, WM, WN, StageB<T, WN, BN, BN, true, false>, Plan> math(sA, sB, wm, wn, lane);
  int g = 0;
  for (int tile = first; tile < ntiles; tile += stride) {
    const int row0 = tile % rtiles * BM, tok0 = tile / rtiles * BN;
    float acc[MT][NTILES][4];
    zero(acc);
    if constexpr (VNM_WS_PROBE == 2) {
      StepFrags<T, WM, WN> f;
      u32 bq[NTILES][4];
      f.load_a_at(0, math.a_at[0], sM, wm, lane);
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni) ldmatrix_x4_trans(bq[ni], math.b_at[ni]);
#pragma unroll 1
      for (int it = 0; it < nsteps; ++it)
#pragma unroll
        for (int s = 0; s < 2; ++s)
          f.run(acc, s, [&](int, int ni, u32 (&bf)[4]) {
#pragma unroll
            for (int e = 0; e < 4; ++e) bf[e] = bq[ni][e];
          });
    } else {
#pragma unroll 1
      for (int it = 0; it < nsteps; ++it) {
        const int gi = (PERSIST ? g : 0) + it, s = gi % STAGES;
        if (VNM_WS_PROBE == 0 || VNM_WS_PROBE == 3) mbar_wait(&full[s], (gi / STAGES) & 1);
        if (VNM_WS_PROBE != 3 || ntok < 0) math.run(acc, s, sM, wm, lane);  // (3: kept, else the producers spill)
        __syncwarp();  // every lane's fragments of the stage are in registers
        if (lane == 0 && (VNM_WS_PROBE == 0 || VNM_WS_PROBE == 3)) mbar_arrive(&empty[s]);
      }
    }
    g += nsteps;
    // Every consumer is done with what the staging tile held (the ring, or PERSIST the previous tile's output)
    named_barrier_sync(1, NC);
    epilogue<T, BM, BN, WM, WN, NC, false>(acc, smem + Ws::C_OFF, bias, y, partial, row0, tok0, R, ntok, wm, wn, tid,
                                           ConsumerSync<NC>{});
    if (!PERSIST) break;
  }
#endif
}

// ------------------------------------------------------------------------------------------------
// Decode (T <= 64, sm_90): one launch per call, and every load a CTA needs issued before its first
// mma (since v34 the A tiles of its first `ring` steps, the rest as slots free up). At decode a CTA runs a few steps of little math, so what costs is the latency of its loads
// and how many bytes the SM keeps in flight: the cp.async version of this kernel (a ring of
// stages, X transposed through registers) took 11-14 us at 4096^2, T = 1, 64:2:8, where the
// weights' bytes need 3 us, and 54 us at T = 64, where the transpose waited on each load in turn.
//
// Operands in the "sm90" layout (below: each (row tile, step) A tile and its codes contiguous and
// pre-swizzled), so a CTA's whole share of the weight is one contiguous run: with a row-major A
// (64-byte pieces of 64 rows, 2 KB apart) the same kernel streamed ~1 TB/s (v12). Each CTA (row
// tile of BM rows, K range of `per` steps) takes
//   - A: one bulk copy per step (4 KB at BM = 64; GROUPED, on the fragment image: per `group`
//     steps, v245) into one of its slots, one mbarrier each; the codes of all its steps in one
//     more, counted on the first slot's barrier;
//   - column words and X[t, c0 .. c0 + width) (row-major, zeros past K): cp.async, one group,
//     waited for once;
// then builds each B fragment from the row-major X slice with 16-bit shared loads at the gathered
// columns (no transpose), and runs the steps as their A tiles land. Warps split the tokens before
// the rows (WARPS_N = BN / 16 up to 4): each B fragment is built by one warp only. The K splits of one row tile
// form a thread-block cluster (grid z = cluster z = splits <= 8): the tile's 8-row units are
// owned by the ranks in turn, each rank pushes its fp32 part of every unit into the owner's
// shared memory (st.async, counted on the owner's receive mbarrier), and each owner sums its
// units over the ranks in order: deterministic, as splitk_reduce.
// Without splits (gridDim.z == 1) the usual epilogue runs.
//
// With ring < per (v34) the A tiles pass through `ring` steps of slots instead: a slot is refilled
// with the next group of steps once every warp has its last step's fragments in registers, so a
// CTA's shared memory no longer grows with its K range and one wave of CTAs can hold a layer whose
// weights exceed the GPU's shared memory (LLaMA gate/up at 2:8: ~25 MB of A against ~30 MB of
// shared memory, which at all-resident ran 1.14 waves).
//
// Shared memory: A [ring][BM][2*KS] | codes [per][BM][KS/2] | column words [per][KS] |
// X slice [BN][width + 8] | received parts (K splits) | mbarriers; the epilogue (no splits) reuses
// the base once the K loop is done. The received parts stay clear of everything the K loop
// uses: a peer may push before this CTA's last step.
// Experiment knob, what a decode call's fixed cost is made of (scripts/decode_floor.py; results
// are wrong for 1 and 2): 1 returns after the PDL wait (launch, mbarrier init, L2 prefetch
// issue), 2 loads and waits for everything but runs no mma and no epilogue, 9 runs in full and
// printf's from thread 0 of each CTA of row tile 0 the SM clock at each stage of the call.
#ifndef VNM_DEC_PROBE
#define VNM_DEC_PROBE 0
#endif
// Steps of a CTA's share asked of L2 before the PDL wait (32: all). v285, H200, T = 1, us, all -> 1: LLaMA-7B
// gate/up 64:2:8 11.9 -> 10.4, down 10.8 -> 9.8, 11008 x 4096 128:2:8 10.7 -> 9.4, 4096^2 128:2:8 5.9 -> 5.5, the
// rest within ~5% (1024 x 4096 64:2:8 3.0 -> 3.2): the whole weight's prefetch delayed the X slice behind it.
#ifndef VNM_DEC_PREFETCH_STEPS
#define VNM_DEC_PREFETCH_STEPS 1
#endif
// The weight's loads that need no X (A's register queue, or the first slots' bulk copies and the codes; the
// column words) go out before the PDL wait, while the previous kernel finishes: v296, H100, T = 1, us, 0 -> 1:
// 4096^2 64:2:8 6.2 -> 5.6, 64:2:16 4.6 -> 3.9, 1024 x 4096 64:2:8 3.2 -> 2.6, 11008 x 4096 128:2:8 10.8 -> 10.3,
// 128:2:128 2.6 -> 2.2 (2:4 and 4096^2 128:2:8 even). So the host launches it with PDL only on settled weights
// (jit.settle: made by a layout builder and fenced), which no kernel still running can be writing.
#ifndef VNM_DEC_EARLY
#define VNM_DEC_EARLY 1
#endif
// The X slice asked of L2 before the PDL wait too. X is the previous kernel's output, but a prefetch into L2 can
// never leave a stale copy (common.cuh), so where X is not in L2 already its lines come from there after the wait, not
// from HBM: v300, H100, x cold (the bench's rotation), 0 -> 1, x cuBLAS: 128-row tiles +2-5% (128:2:8 T = 1 2.93 ->
// 3.07, 128:2:128 T = 4 5.98 -> 6.30), 64-row ones and 2:4 even.
#ifndef VNM_DEC_X_PREFETCH
#define VNM_DEC_X_PREFETCH 1
#endif
#if VNM_DEC_PROBE == 9
#define VNM_DEC_MARK(i) (tr[i] = clock64())
#else
#define VNM_DEC_MARK(i)
#endif

template <int BM, int BN>
struct DecodePlan {
  static constexpr int A = BM * 2 * KS * 2;  // bytes of one step's A tile (one bulk copy; IMAGE: one per 64 rows)
  static constexpr int M = BM * KS / 2;      // bytes of one step's codes (IMAGE: metadata words, as many)
  static constexpr int EPI = BN * (BM + 8) * 2;
  static constexpr int UNITS = BM / 8;       // 8-row units of the tile, owned by the cluster's ranks in turn
  static constexpr int MAX_STEPS = 32;       // per <= this: one mbarrier per slot (+ one to receive)
  static constexpr int MAX_RANKS = 8;        // K splits: the portable cluster size (DECODE_MAX_SPLITS)
  // Regions in order: A slots (`ring` steps), codes (`cs` steps: per, or 0 where A and its codes go
  // to registers), column words (`cws` steps: per for each V-row block of the tile) and the X slice,
  // the split parts, the barriers.
  __host__ __device__ static constexpr int codes(int ring) { return ring * A; }
  __host__ __device__ static constexpr int colw(int cs, int ring) { return ring * A + cs * M; }
  __host__ __device__ static constexpr int xs(int cws, int cs, int ring) { return colw(cs, ring) + cws * KS * 4; }
  // K splits: every rank's fp32 part of each unit, pushed to its owner: [splits][units per owner][8][BN]
  __host__ __device__ static constexpr int recv(int cws, int cs, int width, int ring) {
    return xs(cws, cs, ring) + BN * (width + 8) * 2;
  }
  __host__ __device__ static constexpr int recv_bytes(int splits) {
    return splits > 1 ? splits * ((UNITS + splits - 1) / splits) * 8 * BN * 4 : 0;
  }
  __host__ __device__ static constexpr int bars(int cws, int cs, int width, int ring, int splits) {
    const int body = recv(cws, cs, width, ring) + recv_bytes(splits);
    return body > EPI ? body : EPI;
  }
};

template <typename T, int BM, int BN, int WM, int WN, bool HAS_COLS, bool IMAGE = false, bool GROUPED = false,
          int AREG = 0>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    spmm_mma_sp_decode(const T* __restrict__ values_t, const u8* __restrict__ meta_t, const u32* __restrict__ cols,
                       const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ y, int R, int K, int ntok,
                       int ldx, int Gp, int m, int v, int per, int width, int ring, int group_arg) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Plan = DecodePlan<BM, BN>;
  constexpr int WARPS_N = BN / WN, NT = (BM / WM) * WARPS_N * 32, MT = WM / 16, NTILES = WN / 8;
  static_assert(!IMAGE || BM % 64 == 0, "the fragment image is in 64-row blocks");
  static_assert(!GROUPED || IMAGE, "copies of several steps: the fragment image only");
  static_assert(!AREG || (IMAGE && !GROUPED), "A into registers: from the fragment image, not copies");
  static_assert(BM % WM == 0 && WM % 16 == 0 && BN % WN == 0 && WN % 8 == 0, "bad tile");

  extern __shared__ __align__(128) unsigned char smem[];
  const int cs = AREG ? 0 : per;  // steps of codes in shared memory (AREG: the host's ring is 0 too)
  // V-row blocks of the tile, each with its own column words: two at V = 64 on 128-row tiles of the fragment
  // image (one X slice for both; each warp's rows lie in one block, the host's rule), else one
  const int vblocks = HAS_COLS && IMAGE && BM == 128 && v == 64 ? 2 : 1;
  const int cws = per * vblocks;
  u8* sM = smem + Plan::codes(ring);
  u32* cw = reinterpret_cast<u32*>(smem + Plan::colw(cs, ring));
  T* xs = reinterpret_cast<T*>(smem + Plan::xs(cws, cs, ring));
  const int splits = gridDim.z;
  u64* bars = reinterpret_cast<u64*>(smem + Plan::bars(cws, cs, width, ring, splits));
  u64* rbar = bars + Plan::MAX_STEPS;  // K splits: this rank's units from every other rank
  float* recv = reinterpret_cast<float*>(smem + Plan::recv(cws, cs, width, ring));
  const int xp = width + 8;  // elements per slice row: rows 16 bytes apart mod 128, 4 banks

  const int tid = threadIdx.x, lane = tid & 31, wm = (tid >> 5) / WARPS_N, wn = (tid >> 5) % WARPS_N;
  const int gid = lane >> 2, tig = lane & 3;
  const int row0 = blockIdx.x * BM, total_steps = Gp / KS;
  const int kbeg = blockIdx.z * per;
  const int nsteps = min(total_steps, kbeg + per) - kbeg;
  const int c0 = kbeg * KS * m;  // first X column of the slice
  // A comes in copies of `group` steps (v240: a CTA's bulk copies run ~230 ns apart at 4 KB, v239),
  // through `slots` slots of `group` steps each (the host's `ring` is their steps, a multiple of
  // group or at least the CTA's steps). Without GROUPED, group is the constant 1: that code is v239's
  // (a runtime 1 cost the 128-row tiles 4-10%, v244: the compiler serialised their mma.sp on reused
  // fragment registers).
  const int group = GROUPED ? group_arg : 1;
  const int ngroups = GROUPED ? (nsteps + group - 1) / group : nsteps;
  const int slots = AREG ? 0 : min(ngroups, GROUPED ? ring / group : ring);
  const size_t first = static_cast<size_t>(blockIdx.x) * total_steps + kbeg;  // (tile, step) index
  // IMAGE: (64-row block, step) index of the CTA's first block and step; blocks total_steps apart
  const size_t first64 = static_cast<size_t>(blockIdx.x) * (BM / 64) * total_steps + kbeg;
  const int a_block = group * 4096;  // IMAGE: a slot holds each 64-row block's steps together
  // A of group `gi` (its steps: the CTA's gi * group ..) into slot `slot_`, by bulk copy counted on `bar`
  auto steps_of = [&](int gi) { return GROUPED ? min(group, nsteps - gi * group) : 1; };
  auto copy_a = [&](int slot_, int gi, u64* bar) {
    const int step = gi * group, cnt = steps_of(gi);
    if constexpr (IMAGE) {
#pragma unroll
      for (int b = 0; b < BM / 64; ++b)
        bulk_copy(smem + slot_ * group * Plan::A + b * a_block, values_t + (first64 + b * total_steps + step) * 2048,
                  4096 * cnt, bar);
    } else {  // (never grouped)
      bulk_copy(smem + slot_ * Plan::A, values_t + (first + step) * (Plan::A / 2), Plan::A, bar);
    }
  };
  const int rank = splits > 1 ? static_cast<int>(cluster_rank()) : 0;
  const int per_owner = (Plan::UNITS + splits - 1) / splits;
  const int mine = (Plan::UNITS - rank + splits - 1) / splits;  // units rank, rank + splits, ...
#if VNM_DEC_PROBE == 9
  long long tr[9] = {};
  u64 gt0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt0));
#endif
  VNM_DEC_MARK(0);

  if (tid == 0) {
    // The CTA's share of the weight (its first VNM_DEC_PREFETCH_STEPS steps) into L2 while an earlier
    // kernel may still run (PDL)
    const int pf = min(nsteps, VNM_DEC_PREFETCH_STEPS);
    if (IMAGE && pf > 0) {
#pragma unroll
      for (int b = 0; b < BM / 64; ++b) {
        bulk_prefetch_l2(values_t + (first64 + b * total_steps) * 2048, pf * 4096);
        bulk_prefetch_l2(meta_t + (first64 + b * total_steps) * 512, pf * 512);
      }
    } else if (pf > 0) {
      bulk_prefetch_l2(values_t + first * (Plan::A / 2), pf * Plan::A);
      bulk_prefetch_l2(meta_t + first * Plan::M, pf * Plan::M);
    }
    if (HAS_COLS)
      for (int b = 0; b < vblocks && row0 + b * v < R; ++b)
        bulk_prefetch_l2(cols + static_cast<size_t>(row0 / v + b) * Gp + kbeg * KS, nsteps * KS * 4);
    if (VNM_DEC_X_PREFETCH && (reinterpret_cast<size_t>(x) & 15) == 0 && ldx % 8 == 0 && c0 < K) {
      const u32 bytes = (min(width, K - c0) * static_cast<int>(sizeof(T))) & ~15;
      for (int t = 0; t < ntok && bytes > 0; ++t) bulk_prefetch_l2(x + static_cast<size_t>(t) * ldx + c0, bytes);
    }
    for (int s = 0; s < slots; ++s) mbar_init(&bars[s], 1);
    if (splits > 1) {
      mbar_init(rbar, 1);
      mbar_arrive_expect_tx(rbar, (splits - 1) * mine * 8 * BN * 4);
    }
    mbar_init_fence();
  }
  if (splits > 1) cluster_arrive_relaxed();  // waited for before the first push, long after
  // AREG: every lane loads its own A fragments and metadata words of AREG steps ahead straight from
  // the fragment image into registers (v239: a CTA's bulk copies run ~230 ns apart whatever the
  // ring; these loads keep AREG steps of every warp in flight without the TMA unit). The first
  // ones go out before the slice's, which the compiler would otherwise wait for first.
  constexpr int QD = AREG > 0 ? AREG : 1;
  uint4 qa[QD][MT][2];
  uint2 qm[QD][MT];
  const u8* ag[MT];
  const u8* mg[MT];
#pragma unroll
  for (int mi = 0; mi < MT; ++mi) {  // m16 tile q is warp q % 4 of 64-row block q / 4 (mma_stage_frags)
    const int q = (wm * WM) / 16 + mi;
    const size_t blk = first64 + static_cast<size_t>(q >> 2) * total_steps;
    ag[mi] = reinterpret_cast<const u8*>(values_t) + blk * 4096 + (32 * (q & 3) + lane) * 16;
    mg[mi] = meta_t + blk * 512 + (16 * (q & 3) + 2 * (lane >> 2) + (lane & 1)) * 8;
  }
  auto load_a = [&](uint4 (&a)[MT][2], uint2 (&e)[MT], int step) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi) {
      a[mi][0] = ldg_stream_v4(ag[mi] + static_cast<size_t>(step) * 4096);
      a[mi][1] = ldg_stream_v4(ag[mi] + static_cast<size_t>(step) * 4096 + 2048);
      e[mi] = ldg_stream_v2(mg[mi] + static_cast<size_t>(step) * 512);
    }
  };
  auto weight_loads = [&] {  // what needs no X: A's queue (AREG) and the column words
    if constexpr (AREG > 0) {
#pragma unroll
      for (int d = 0; d < AREG; ++d)
        if (d < nsteps) load_a(qa[d], qm[d], d);
    }
    if (HAS_COLS) {  // 16-byte aligned: Gp is a multiple of KS; a block past R reads zero words (column 0)
      for (int b = 0; b < vblocks; ++b) {
        const bool real = row0 + b * v < R;
        const u32* colrow = real ? cols + static_cast<size_t>(row0 / v + b) * Gp + kbeg * KS : cols;
        for (int i = tid; i < nsteps * KS / 4; i += NT) cp_async16(cw + b * per * KS + 4 * i, colrow + (real ? 4 * i : 0), real);
      }
    }
  };
  // The slots' first A copies and the codes (tid 0, after its barriers' init)
  auto slot_copies = [&] {
    if (!AREG && tid == 0) {
      mbar_arrive_expect_tx(&bars[0], steps_of(0) * Plan::A + nsteps * Plan::M);
      if constexpr (IMAGE) {  // block b's words of all steps at sM + b * per * 512
#pragma unroll
        for (int b = 0; b < BM / 64; ++b)
          bulk_copy(sM + b * per * 512, meta_t + (first64 + b * total_steps) * 512, nsteps * 512, &bars[0]);
      } else {
        bulk_copy(sM, meta_t + first * Plan::M, nsteps * Plan::M, &bars[0]);
      }
      for (int s = 0; s < slots; ++s) {
        if (s > 0) mbar_arrive_expect_tx(&bars[s], steps_of(s) * Plan::A);
        copy_a(s, s, &bars[s]);
      }
    }
  };
  if (VNM_DEC_EARLY) {
    weight_loads();
    slot_copies();
  }
  grid_dependency_wait();
  __syncthreads();
  if (VNM_DEC_PROBE == 1) return;
  VNM_DEC_MARK(1);
  if (!VNM_DEC_EARLY) weight_loads();
  const int cpr = width / 8;
  const bool vec = ldx % 8 == 0 && (reinterpret_cast<size_t>(x) & 15) == 0;
  for (int i = tid; i < ntok * cpr; i += NT) {
    const int t = i / cpr, c = i % cpr, gk = c0 + 8 * c;
    T* dst = xs + t * xp + 8 * c;
    const T* src = x + static_cast<size_t>(t) * ldx + gk;
    if (gk >= K || (vec && gk + 8 <= K)) {
      cp_async16(dst, gk < K ? src : x, gk < K);  // past K: zero fill
    } else {  // the ragged chunk at K, or rows without 16-byte alignment
#pragma unroll
      for (int j = 0; j < 8; ++j) dst[j] = gk + j < K ? src[j] : T(0.f);
    }
  }
  cp_async_commit();
  // The X slice's loads go out before the A copies (v47: the first mma waits for the slice;
  // A is on its way into L2 since the prefetch above).
  if (!VNM_DEC_EARLY) slot_copies();
  cp_async_wait<0>();
  __syncthreads();
  VNM_DEC_MARK(2);

  float acc[MT][NTILES][4];
  zero(acc);
  const u16* xrow[NTILES];  // this lane's token row per n-tile (tokens past ntok read the last one)
#pragma unroll
  for (int ni = 0; ni < NTILES; ++ni)
    xrow[ni] = reinterpret_cast<const u16*>(xs + min(wn * WN + 8 * ni + gid, ntok - 1) * xp);
  // Slice columns of this lane's B elements of step s: k-row 32 ks + 8 j + 2 tig + e is slot
  // 2 (tig & 1) + e of the CTA's local group g = s KS + 8 ks + 2 j + tig / 2, column g m + offset (c0 cancels).
  const u32* wcw = cw + (vblocks > 1 ? (wm * WM) / 64 * per * KS : 0);  // the column words of this warp's block
  auto columns = [&](int s, int (&col)[2][4][2]) {
#pragma unroll
    for (int ks = 0; ks < 2; ++ks)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int g = s * KS + 8 * ks + 2 * j + (tig >> 1);
        const u32 w = HAS_COLS ? wcw[g] : IDENTITY_COLUMNS;
#pragma unroll
        for (int e = 0; e < 2; ++e) col[ks][j][e] = g * m + static_cast<int>((w >> (8 * (2 * (tig & 1) + e))) & 0xffu);
      }
  };
  auto b_frag = [&](const int (&col)[2][4][2], int ks, int ni, u32 (&bf)[4]) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      bf[j] = static_cast<u32>(xrow[ni][col[ks][j][0]]) | (static_cast<u32>(xrow[ni][col[ks][j][1]]) << 16);
  };
  if constexpr (AREG > 0) {
    // Step s0 + d is queue entry d (a compile-time index: the queue stays in registers); its entry
    // is refilled with step s0 + d + AREG right after its mma.sp read it.
    for (int s0 = 0; s0 < nsteps; s0 += AREG) {
#pragma unroll
      for (int d = 0; d < AREG; ++d) {
        const int s = s0 + d;
        if (s >= nsteps) break;
        int col[2][4][2];
        columns(s, col);
        if (VNM_DEC_PROBE != 2) {
#pragma unroll
          for (int ks = 0; ks < 2; ++ks)
#pragma unroll
            for (int ni = 0; ni < NTILES; ++ni) {
              u32 bf[4];
              b_frag(col, ks, ni, bf);
#pragma unroll
              for (int mi = 0; mi < MT; ++mi) {
                const uint4 w = qa[d][mi][ks];
                const u32 af[4] = {w.x, w.y, w.z, w.w};
                MmaSp<T>::run(acc[mi][ni], af, bf, ks ? qm[d][mi].y : qm[d][mi].x);
              }
            }
        }
        if (s + AREG < nsteps) load_a(qa[d], qm[d], s + AREG);
      }
    }
  }
  // step s: group gi = s / group, its jg-th step; slot gi % slots and its pass's parity, advanced without a division
  int slot = 0, phase = 0, gi = 0, jg = 0;
  for (int s = 0; s < (AREG ? 0 : nsteps); ++s) {
    int col[2][4][2];
    columns(s, col);
    mbar_wait(&bars[slot], phase);
    if (s == 0) VNM_DEC_MARK(3);
    if (VNM_DEC_PROBE != 2)
      mma_stage_frags<T, WM, WN, IMAGE>(acc, reinterpret_cast<const T*>(smem + slot * group * Plan::A + jg * 4096),
                                        sM + s * (IMAGE ? 512 : Plan::M), wm, lane,
                                 [&](int ks, int ni, u32 (&bf)[4]) { b_frag(col, ks, ni, bf); }, per * 512, a_block);
    if (!GROUPED || ++jg == group || s + 1 == nsteps) {  // the group's last step
      const int g = GROUPED ? gi : s;  // (one induction variable where groups are single steps)
      if (g + slots < ngroups) {  // the same for every thread: the barrier is uniform
        __syncthreads();          // every warp holds this slot's fragments: refill it with group g + slots
        if (tid == 0) {
          mbar_arrive_expect_tx(&bars[slot], steps_of(g + slots) * Plan::A);
          copy_a(slot, g + slots, &bars[slot]);
        }
      }
      if constexpr (GROUPED) jg = 0, ++gi;
      if (++slot == slots) slot = 0, phase ^= 1;
    }
  }
  __syncthreads();  // every warp is done with A and the slice: the base takes the output tile
  if (VNM_DEC_PROBE == 2) return;
  VNM_DEC_MARK(4);

  if (gridDim.z == 1) {
    epilogue<T, BM, BN, WM, WN, NT, false>(acc, smem, bias, y, nullptr, row0, 0, R, ntok, wm, wn, tid, BlockSync{});
    return;
  }
  // K splits: each rank pushes its part of every 8-row unit to the unit's owner (st.async, counted
  // on the owner's receive barrier), then sums bias + ranks 0..splits-1 of its own units in order
  // (deterministic, as splitk_reduce). No cluster barrier after the K loop: a pull by distributed
  // shared-memory loads needed two (release arrives: MEMBAR.ALL.GPU each, ncu v41), and a CTA's
  // exit after its receive barrier completes leaves no peer writing into it.
  cluster_wait();  // every rank's receive barrier is initialised
  VNM_DEC_MARK(5);
  // The warp's units u = u0, u0 + 1, ... (two per 16-row block): owner u % splits and slot
  // u / splits advanced without a division per unit (integer divisions by a runtime value
  // are ~20 instructions each).
  int owner = (wm * WM / 8) % splits, slot_u = (wm * WM / 8) / splits;
#pragma unroll
  for (int mi = 0; mi < MT; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int ni = 0; ni < NTILES; ++ni) {
        const int idx = ((rank * per_owner + slot_u) * 8 + gid) * BN + wn * WN + ni * 8 + 2 * tig;
        if (owner == rank) {
          *reinterpret_cast<float2*>(recv + idx) = make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
        } else {
          st_async_f32x2(cluster_map(recv + idx, owner), acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1],
                         cluster_map(rbar, owner));
        }
      }
      if (++owner == splits) owner = 0, ++slot_u;
    }
  VNM_DEC_MARK(6);
  mbar_wait(rbar, 0);
  __syncthreads();  // this rank's own part, stored directly
  VNM_DEC_MARK(7);
  // Item (t, j) of this rank's ntok x 8 mine outputs, walked with one division up front; the
  // ranks' parts are summed in rank order (deterministic), their loads unrolled.
  // (A rank may own no unit: 16-row tiles have 2, clusters up to 8 ranks.)
  const int rows_mine = max(mine * 8, 1), t_step = NT / rows_mine, j_step = NT % rows_mine;
  for (int t = mine > 0 ? tid / rows_mine : ntok, j = tid % rows_mine; t < ntok; t += t_step, j += j_step) {
    if (j >= rows_mine) j -= rows_mine, ++t;
    if (t >= ntok) break;
    const int r = (j / 8 * splits + rank) * 8 + j % 8;
    if (row0 + r >= R) continue;
    const float* part = recv + j * BN + t;  // rank q's part of it at q * per_owner * 8 * BN
    float sum = bias != nullptr ? Elem<T>::to_float(bias[row0 + r]) : 0.f;
#pragma unroll
    for (int q = 0; q < Plan::MAX_RANKS; ++q)
      if (q < splits) sum += part[q * per_owner * 8 * BN];
    y[static_cast<size_t>(t) * R + row0 + r] = Elem<T>::from_float(sum);
  }
#if VNM_DEC_PROBE == 9
  VNM_DEC_MARK(8);
  if (tid == 0 && blockIdx.x == 0)
    printf("VNMTRACE %llu %d %lld %lld %lld %lld %lld %lld %lld %lld\n", gt0, rank, tr[1] - tr[0], tr[2] - tr[0],
           tr[3] - tr[0], tr[4] - tr[0], tr[5] - tr[0], tr[6] - tr[0], tr[7] - tr[0], tr[8] - tr[0]);
#endif
#endif
}

// ------------------------------------------------------------------------------------------------
// sm_90: the same math fed by bulk copies (cp.async.bulk, one instruction per gathered row segment)
// from a producer warp through an mbarrier ring. On Hopper, 16-byte cp.async costs more issue
// slots than the Sparse Tensor Cores leave free (ncu: issue-bound at IPC 2.5); a bulk copy moves a
// whole BN-token row of X^T, and A / metadata arrive as one pre-swizzled tile each.
//
// "sm90" layout: the sm80 layout's form in blocks of the row tile BM instead of BLOCK_ROWS, so that a
// stage's A tile and its codes are one contiguous run each:
//   values_t [ceil(R/BM), Gp/KS, BM, 2*KS],  meta_t [ceil(R/BM), Gp/KS, BM, KS/2],  cols [RB, Gp]
template <int BM, int BN, int STAGES>
struct BulkPlan {
  static constexpr int B_PITCH = BN + 8;  // elements: a 16-byte pad makes ldmatrix.trans conflict-free
  static constexpr int A = BM * 2 * KS;   // elements
  static constexpr int B = KROWS * B_PITCH;
  static constexpr int M = BM * KS / 2;   // bytes
  static constexpr int STAGE = (A + B) * 2 + M;
  static constexpr int BARS = ((2 * STAGES * 8 + 127) / 128) * 128;
  static constexpr int EPI = BN * (BM + 8) * 2;
  static constexpr int BYTES = BARS + (STAGES * STAGE > EPI ? STAGES * STAGE : EPI);
  static_assert(STAGE % 16 == 0, "stages must keep 16-byte alignment");
};

template <typename T, int BM, int BN, int WM, int WN, int STAGES, bool HAS_COLS, bool SPLIT>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32 + 32,
                                  planned_ctas((BM / WM) * (BN / WN) * 32 + 32, BulkPlan<BM, BN, STAGES>::BYTES,
                                               WM * WN / 32))
    spmm_mma_sp_bulk(const T* __restrict__ values_t, const u8* __restrict__ meta_t, const u32* __restrict__ cols,
                     const T* __restrict__ xt, const T* __restrict__ bias, T* __restrict__ y,
                     float* __restrict__ partial, int R, int K, int ntok, int ntok_load, int ldx, int Gp, int m,
                     int v, int steps_per_split) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int NC = (BM / WM) * (BN / WN) * 32;  // consumer threads; one producer warp follows
  constexpr int WARPS_N = BN / WN;
  using Plan = BulkPlan<BM, BN, STAGES>;
  extern __shared__ __align__(128) unsigned char smem[];
  u64* full = reinterpret_cast<u64*>(smem);
  u64* empty = full + STAGES;
  unsigned char* stages = smem + Plan::BARS;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row0 = blockIdx.x * BM, tok0 = blockIdx.y * BN;
  const int total_steps = Gp / KS;
  const int kbeg = SPLIT ? blockIdx.z * steps_per_split : 0;
  const int kend = SPLIT ? min(total_steps, kbeg + steps_per_split) : total_steps;

  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 32);        // every producer lane arrives (its zero-fills are released)
      mbar_init(&empty[s], NC / 32);  // one arrival per consumer warp
    }
    mbar_init_fence();
  }
  grid_dependency_wait();  // launched with PDL: X^T and the output are the previous kernels' until here
  __syncthreads();

  if (warp == NC / 32) {
    // Producer warp: lane j gathers rows j and j + 32 of each stage's 64-row B tile.
    const u32 a_bytes = Plan::A * 2, m_bytes = Plan::M;
    const int tile_bytes = max(0, min(BN, ntok_load - tok0)) * 2;
    const T* a_src = values_t + static_cast<size_t>(blockIdx.x) * total_steps * Plan::A;
    const u8* m_src = meta_t + static_cast<size_t>(blockIdx.x) * total_steps * Plan::M;
    const u32* colrow = HAS_COLS ? cols + static_cast<size_t>(row0 / v) * Gp : nullptr;
    // Column words one stage ahead, so their load latency hides behind the wait for a free slot.
    auto columns_of = [&](int step, int j) -> u32 {
      return (HAS_COLS && step < kend) ? __ldg(colrow + step * KS + (lane + 32 * j) / 4) : IDENTITY_COLUMNS;
    };
    u32 wcur[2] = {columns_of(kbeg, 0), columns_of(kbeg, 1)};
    for (int step = kbeg, it = 0; step < kend; ++step, ++it) {
      const int s = it % STAGES;
      const u32 wnext[2] = {columns_of(step + 1, 0), columns_of(step + 1, 1)};
      if (it >= STAGES) mbar_wait(&empty[s], ((it / STAGES) & 1) ^ 1);
      T* sa = reinterpret_cast<T*>(stages + s * Plan::STAGE);
      T* sb = sa + Plan::A;
      u8* sm = reinterpret_cast<u8*>(sb + Plan::B);
      int krow[2];
      u32 mine = 0;
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int kr = lane + 32 * j;
        krow[j] = (step * KS + kr / 4) * m + static_cast<int>((wcur[j] >> (8 * (kr & 3))) & 0xffu);
        if (krow[j] < K) {
          mine += tile_bytes;
        } else {  // past K: zeros, since stale NaNs times zero weights would poison real outputs
          uint4* row = reinterpret_cast<uint4*>(sb + kr * Plan::B_PITCH);
#pragma unroll
          for (int c = 0; c < BN / 8; ++c) row[c] = make_uint4(0, 0, 0, 0);
        }
      }
      const u32 total = __reduce_add_sync(0xffffffffu, mine);
      if (lane == 0)
        mbar_arrive_expect_tx(&full[s], total + a_bytes + m_bytes);
      else
        mbar_arrive(&full[s]);
      if (lane == 0) {
        bulk_copy(sa, a_src + static_cast<size_t>(step) * Plan::A, a_bytes, &full[s]);
        bulk_copy(sm, m_src + static_cast<size_t>(step) * Plan::M, m_bytes, &full[s]);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j)
        if (krow[j] < K && tile_bytes > 0)
          bulk_copy(sb + (lane + 32 * j) * Plan::B_PITCH, xt + static_cast<size_t>(krow[j]) * ldx + tok0,
                    tile_bytes, &full[s]);
      wcur[0] = wnext[0];
      wcur[1] = wnext[1];
    }
    return;
  }

  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  float acc[WM / 16][WN / 8][4];
  zero(acc);
  for (int step = kbeg, it = 0; step < kend; ++step, ++it) {
    const int s = it % STAGES;
    mbar_wait(&full[s], (it / STAGES) & 1);
    const T* sa = reinterpret_cast<const T*>(stages + s * Plan::STAGE);
    mma_stage<T, WM, WN, BN, Plan::B_PITCH, false>(acc, sa, sa + Plan::A,
                                                   reinterpret_cast<const u8*>(sa + Plan::A + Plan::B), wm, wn, lane);
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[s]);
  }
  epilogue<T, BM, BN, WM, WN, NC, SPLIT>(acc, stages, bias, y, partial, row0, tok0, R, ntok, wm, wn, tid,
                                         ConsumerSync<NC>{});
#endif
}

// y[t, r] = sum_z partial[z, t, r] + bias[r], in a fixed order (deterministic). VEC (R % 4 == 0,
// y and bias 8-byte aligned: the host's to check): 4 consecutive outputs per thread, 16-byte
// partial loads and an 8-byte store (v56: scalar loads and a 64-bit modulo per output before).
// YT (not with VEC): y holds Y^T ([R, ntok], a feature-major output) and each output's store is
// token-strided: for few tokens, where splitk_reduce_t's shared memory keeps it from starting
// beside the SpMM under PDL (v142: 4096^2 T = 16 1.4 us over Y with this form, 3.9 with that one).
template <typename T, bool VEC = false, bool YT = false>
__global__ void splitk_reduce(const float* __restrict__ partial, const T* __restrict__ bias, T* __restrict__ y,
                              int splits, int ntok, int R) {
  static_assert(!(VEC && YT), "Y^T stores one output per thread");
  grid_dependency_wait();
  const size_t n = static_cast<size_t>(ntok) * R;
  if constexpr (YT) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
      const size_t t = i / R, r = i - t * R;
      float s = bias != nullptr ? Elem<T>::to_float(bias[r]) : 0.f;
      for (int z = 0; z < splits; ++z) s += partial[static_cast<size_t>(z) * n + i];
      y[r * ntok + t] = Elem<T>::from_float(s);
    }
    return;
  }
  if constexpr (VEC) {
    const size_t n4 = n / 4;
    const int r4 = R / 4;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
      float s[4] = {0.f, 0.f, 0.f, 0.f};
      if (bias != nullptr) {
        const int r = static_cast<int>(i % r4) * 4;
#pragma unroll
        for (int e = 0; e < 4; ++e) s[e] = Elem<T>::to_float(bias[r + e]);
      }
      for (int z = 0; z < splits; ++z) {
        const float4 p = reinterpret_cast<const float4*>(partial + static_cast<size_t>(z) * n)[i];
        s[0] += p.x; s[1] += p.y; s[2] += p.z; s[3] += p.w;
      }
      union { T e[4]; uint2 u; } out;
#pragma unroll
      for (int e = 0; e < 4; ++e) out.e[e] = Elem<T>::from_float(s[e]);
      reinterpret_cast<uint2*>(y)[i] = out.u;
    }
    return;
  }
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float s = bias != nullptr ? Elem<T>::to_float(bias[i % R]) : 0.f;
    for (int z = 0; z < splits; ++z) s += partial[static_cast<size_t>(z) * n + i];
    y[i] = Elem<T>::from_float(s);
  }
}

// splitk_reduce into Y^T ([R, ntok], a feature-major output): 32-token x 32-row tiles through
// shared memory, so that the partial loads run along rows and the stores along tokens (one
// token-strided store per output took 4096 x 4096 2:4 at T = 256 from 19 to 40 us, v140; this
// one 20.0, Y row-major 18.6, v142).
// Grid (row tiles, token tiles), 32 x 8 threads.
template <typename T>
__global__ void __launch_bounds__(256)
    splitk_reduce_t(const float* __restrict__ partial, const T* __restrict__ bias, T* __restrict__ yt, int splits,
                    int ntok, int R) {
  __shared__ float tile[32][33];
  grid_dependency_wait();
  const size_t n = static_cast<size_t>(ntok) * R;
  const int r0 = blockIdx.x * 32, t0 = blockIdx.y * 32, tx = threadIdx.x, r = r0 + tx;
  // a thread's 4 outputs summed side by side: their loads of one split are in flight together
  float s[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) s[i] = bias != nullptr && r < R ? Elem<T>::to_float(bias[r]) : 0.f;
  for (int z = 0; z < splits; ++z) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int t = t0 + threadIdx.y + 8 * i;
      if (t < ntok && r < R) s[i] += partial[static_cast<size_t>(z) * n + static_cast<size_t>(t) * R + r];
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) tile[threadIdx.y + 8 * i][tx] = s[i];
  __syncthreads();
#pragma unroll
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int rj = r0 + j, t = t0 + tx;
    if (t < ntok && rj < R) yt[static_cast<size_t>(rj) * ntok + t] = Elem<T>::from_float(tile[tx][j]);
  }
}

// Whether a transpose tile of rows k0 .. k0 + 63 has a row to write: every one without a mask of
// the rows that are read (`reads`, one byte per row of xt: a gathered weight's kept columns),
// else those it marks. A tile with none skips its loads too. All threads must call it.
__device__ __forceinline__ bool transpose_tile_read(const unsigned char* __restrict__ reads, int k0, int K) {
  if (reads == nullptr) return true;
  const int k = k0 + (threadIdx.x & 63);
  return __syncthreads_or(k < K && reads[k]) != 0;
}

// xt[k, t] = x[t, k] for t < ntok, 0 for ntok <= t < ldxt: the feature-major, token-padded copy
// of X that the gather wants, only of the rows that `reads` marks where it is given (the rows the
// gather never reads stay unwritten: v206). 64x64 tiles; 32-bit accesses on both sides when K is even.
template <typename T>
__global__ void __launch_bounds__(256)
    transpose_pad(const T* __restrict__ x, T* __restrict__ xt, int ntok, int K, int ldx_in, int ldxt,
                  const unsigned char* __restrict__ reads) {
  grid_dependency_wait();
  __shared__ T tile[64][64 + 2];
  const int t0 = blockIdx.x * 64, k0 = blockIdx.y * 64;
  if (!transpose_tile_read(reads, k0, K)) return;
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
      if (k < K && t < ldxt && (reads == nullptr || reads[k])) xt[static_cast<size_t>(k) * ldxt + t] = tile[2 * tx + h][ty + 8 * i];
    }
  }
}

// The same transpose with 16-byte global accesses on both sides, for rows of X that are 16-byte
// aligned (K and the row stride multiples of 8 elements, base 16-byte aligned: the host checks).
// transpose_pad above moves 2-4 bytes per thread and access (~2.7 TB/s on an H200, read + write);
// here each thread loads 8 k of a token row and stores 8 tokens of an X^T row. The tile [k][t]
// has a 66-element pitch: the 16-bit scatter of the load phase and the 32-bit reads of the store
// phase both hit 32 distinct banks per warp.
template <typename T>
__global__ void __launch_bounds__(256)
    transpose_pad16(const T* __restrict__ x, T* __restrict__ xt, int ntok, int K, int ldx_in, int ldxt,
                    const unsigned char* __restrict__ reads) {
  grid_dependency_wait();
  constexpr int P = 66;
  __shared__ __align__(16) T tile[64 * P];
  const int t0 = blockIdx.x * 64, k0 = blockIdx.y * 64;
  if (!transpose_tile_read(reads, k0, K)) return;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int c = threadIdx.x + 256 * h, r = c >> 3, kc = c & 7;
    const int t = t0 + r, k = k0 + 8 * kc;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (t < ntok && k < K) v = __ldg(reinterpret_cast<const uint4*>(x + static_cast<size_t>(t) * ldx_in + k));
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int j = 0; j < 8; ++j) tile[(8 * kc + j) * P + r] = e[j];
  }
  __syncthreads();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int c = threadIdx.x + 256 * h, kr = c >> 3, tc = c & 7;
    const int k = k0 + kr, t = t0 + 8 * tc;
    uint4 v;
    u32* w = reinterpret_cast<u32*>(&v);
#pragma unroll
    for (int q = 0; q < 4; ++q) w[q] = *reinterpret_cast<const u32*>(tile + kr * P + 8 * tc + 2 * q);
    if (k < K && t < ldxt && (reads == nullptr || reads[k])) *reinterpret_cast<uint4*>(xt + static_cast<size_t>(k) * ldxt + t) = v;
  }
}

// xt[k, t] = x[k * ldx_in + t] for t < ntok, 0 for ntok <= t < ldxt: a feature-major X (token-
// contiguous rows ldx_in apart, a multiple of 8; 16-byte aligned base: the host checks) copied to rows
// of whole 128-byte lines, which TMA reads at its full rate (v207-v208). 16 bytes a thread.
template <typename T>
__global__ void __launch_bounds__(256)
    repitch16(const T* __restrict__ x, T* __restrict__ xt, int ntok, int K, int ldx_in, int ldxt) {
  grid_dependency_wait();
  const int per_row = ldxt / 8;
  const long long c = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x;
  if (c >= static_cast<long long>(K) * per_row) return;
  const int k = static_cast<int>(c / per_row), t = 8 * static_cast<int>(c % per_row);
  uint4 v = make_uint4(0, 0, 0, 0);
  if (t < ntok) {
    v = __ldg(reinterpret_cast<const uint4*>(x + static_cast<size_t>(k) * ldx_in + t));
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (t + j >= ntok) e[j] = T(0.f);  // (the source's own padding)
  }
  *reinterpret_cast<uint4*>(xt + static_cast<size_t>(k) * ldxt + t) = v;
}

}  // namespace vnm
