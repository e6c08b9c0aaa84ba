// V:N:M SpMM on Hopper's Sparse Tensor Cores with wgmma.mma_async.sp (sm_90a only).
//
//   Y[t, r] = sum_k X[t, k] * W[r, k] (+ bias[r])
//
// Same contract as the cp.async mma.sp kernel (spmm_mma_sp.cu). Operands: with AREG (below, the
// default tiles) the fragment image of spmm_wgmma_sp.build_frag_layout; without, the row-major form of
// the "sm80" layout (spmm_mma_sp.build_rows): values [R, Gp, 2], meta [R, Gp/2] (canonical 4-bit codes). Both: cols [RB, Gp]
// (a block's 4 column offsets per group as one u32), X row-major (TMA_X) or X^T[K, ldx].
//
// CTA = BM rows inside one V-row block (64 x MB rows per consumer warpgroup: BM = 128 shares one
// gathered B tile between two consumer warpgroups; MB = 2 gives each two m64 blocks, BM = 256, for
// plain 2:4) x BN tokens (the wgmma N: 16, 32, 64, 128 or 256). Warpgroup 0 is the producer (setmaxnreg
// down to 72 registers, 56 when it only issues TMA); warpgroups 1.. are consumers.
//
// One pipeline stage = KS = 16 groups = 64 gathered k rows = two k32 wgmma.sp per consumer.
// Shared-memory images of a stage (formulas: vnmsparse/kernels/wgmma_sp_layout.py, proven on an
// H200 by the single-instruction probes of wgmma_sp_probe.cu):
//   B  MN-major, 128B swizzle: 64-token slabs of 64 k rows x 128 B (8 KB, LBO = 8192), 8-row k
//      groups 1024 B apart (SBO); element (k, n) at slab*8192 + k*128 + 16*((n%64/8) ^ (k&7)) + 2*(n%8).
//      k32 step ks starts 4*SBO = 4096 B in. 1024-byte aligned. (16- and 32-token tiles: one slab
//      of 32- or 64-byte rows, swizzled at that width: wg::GatherB.) With TMA_X (plain 2:4, X read
//      whole by TMA): K-major instead, token n's 64 k at n*128 B (128B swizzle, SBO = 1024), k32
//      step ks at +64 B.
//   A  (without AREG; with it A and its metadata words never pass through shared memory)
//      the stored values, K-major, 64B swizzle: row r's 32 values (64 B) at r*64, 16-byte chunk c
//      at chunk c ^ ((r >> 1) & 3) (= swizzle<4> of common.cuh); SBO = 512. Consumer c's m64
//      sub-tile starts c*4096 B in, k32 step ks 32 B in. 1024-byte aligned. This is what one
//      TMA box {32 values, BM rows} of the row-major [R, 2*Gp] values lands as with the 64B
//      swizzle (`amap`; rows past R zero-filled), so A comes by TMA (v14: 7-20% faster than
//      16-byte cp.async from the producer, which filled the LSU's shared-memory pipe).
//   M  the stage's codes, 8 bytes per row (row r at r*8): bytes 4ks..4ks+3 are the codes of
//      groups 8ks..8ks+7; the metadata word is one byte permute of rows gid and gid + 8.
//
// Ordering of the generic-proxy cp.async writes before the async-proxy (wgmma) reads: each
// producer thread ends a stage with cp.async.mbarrier.arrive.noinc on the stage's full barrier
// (count 128, + 1 for the TMA issuer's expect_tx: A, and X with TMA_X), which arrives once the
// thread's copies have landed, so the producer never waits for its own copies (v5 waited with
// cp.async.wait_group + fence.proxy.async before a plain arrive: ~2600 clk per stage against ~700
// of math, latency-bound). Consumers wait (acquire) on
// the barrier, then execute fence.proxy.async.shared::cta, so that their wgmma (async proxy)
// reads see the writes they acquired. Consumers keep one wgmma group in flight and release a
// stage (one arrival per warp on its empty barrier) after wgmma.wait_group 1 retired it.
//
// Launch forms: one tile per CTA (grid = row tiles x token tiles x K splits); PERSIST (v24, the
// default from M = 64): a grid of what runs at once, each CTA looping over tiles with the ring
// running on, the epilogue staged apart from it; CLUSTER (v25, opt-in, plain 2:4 by TMA): the row
// tiles of a cluster share each X box by multicast and release stages on every CTA's barriers.
#include "wgmma.cuh"

namespace vnm {

namespace wg {

// cp.async of 16 bytes to a shared-window address (zero-filled when !valid, reading nothing).
__device__ __forceinline__ void cp_async16_s(u32 dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}

// Experiment knobs that leave one side of the pipeline out (results are wrong; times are the
// other side's rate): VNM_WG_SKIP_B=1 copies no B (the consumers run on whatever the ring holds),
// VNM_WG_SKIP_MMA=1 issues no wgmma (the consumers only wait and release stages).
#ifndef VNM_WG_SKIP_B
#define VNM_WG_SKIP_B 0
#endif
#ifndef VNM_WG_SKIP_MMA
#define VNM_WG_SKIP_MMA 0
#endif
// Experiment knob VNM_WG_TRACE=1: the CTA of tile (0, 0) of a launch without K splits records SM
// clocks into `partial` (int64 [4][256], the host's spmm_wgmma_sp.TRACE): [0][g] the producer holds
// ring stage g's slot (after its empty wait), [1][g] consumer thread 0 passed stage g's full barrier,
// [2][g] it issued stage g's wgmma group and the previous group retired, [3][0] the CTA's start.
// Results are unchanged; the stores cost a little time.
#ifndef VNM_WG_TRACE
#define VNM_WG_TRACE 0
#endif
#define VNM_WG_MARK(row, g)                                                                     \
  do {                                                                                          \
    if (VNM_WG_TRACE && !SPLIT && blockIdx.x == 0 && blockIdx.y == 0 && (g) < 256)              \
      reinterpret_cast<long long*>(partial)[(row) * 256 + (g)] = clock64();                     \
  } while (0)
// ... and [3][1 + 16 i + p] consumer thread 0 reached epilogue point p of the CTA's i-th tile (0: its
// last wgmma group retired, 1: the next tile's A preloads issued, 2 + 2 q / 3 + 2 q: pass q's
// staging written / its stores issued).
#define VNM_WG_MARK_EPI(p)                                                                      \
  do {                                                                                          \
    if (VNM_WG_TRACE && ct == 0) VNM_WG_MARK(3, 1 + 16 * ((tile - first) / stride) + (p));      \
  } while (0)

// The staged fragment image's bulk copies (AREG 2) issued by producer thread 32 (1), which adds their
// bytes to the stage's full barrier itself, not by thread 0 after X's TMA boxes (0): with both in thread
// 0 the cluster tile took slot g only as stage g - 1 landed (one stage's loads in flight, v233). H200
// v235 (0 / 1, 4096^2 x 8192 2:4 pc2): the producer runs ahead (P[g] - W[g-5] 2855 -> 1056 cycles), the
// cadence 775 -> 722; in turns 2:4 prefill -0.5..-1.4% (295.3 -> 292.5 us, 8192^3 1171 -> 1159), gathered
// even; sustained 0.435 -> 0.427 M cycles at a lower clock, the same energy a call (the power limit).
// All 128 producer threads stay in the ring: with only threads 0 and 32 (a full barrier of count 2) the
// stages landed later and the tile ran 12% slower (v236), as v227's one issuer did.
#ifndef VNM_WG_SPLIT_ISSUE
#define VNM_WG_SPLIT_ISSUE 1
#endif

// Registers of the producer warpgroup after setmaxnreg (the consumers get the rest).
#ifndef VNM_WG_PRODUCER_REGS
#define VNM_WG_PRODUCER_REGS 72
#endif

// Gathered row addresses as 32-bit byte offsets from X^T's base (1) instead of 64-bit pointers
// (0): about half the producer's instructions per copy, 5-14% faster on the H200 (NOTES v18).
// Needs X^T under 4 GB; the host runs larger ones in token chunks (spmm_wgmma_sp.py).
#ifndef VNM_WG_GATHER_OFF32
#define VNM_WG_GATHER_OFF32 1
#endif

// AREG: register sets of the consumers' A / metadata ring (loads run SETS - 1 stages ahead; by
// default 5 with one m64 block per consumer, +0-9% over 3 on the H200, NOTES v21; 9 for the
// decode tiles, BN = 64, whose few accumulators leave room for more bytes in flight; 3 with two
// m64 blocks, where 4 already spills), and the stages ahead at which the producer prefetches a stage's
// fragments into L2 (0: none; +2% on 2:4, -2% gathered: within the noise, off).
#ifndef VNM_WG_AREG_PREFETCH
#define VNM_WG_AREG_PREFETCH 0
#endif

// Persistent tiles with A from global memory (the staged ones of v170 load none) load the next
// tile's first A register sets after the epilogue (1) instead of before it (0): there the
// consumers' loads queued behind the producer's copies of the next tile's stages and held the
// epilogue ~4.9k cycles (v147 trace, 4096^3 128:2:32: 13.5k cycles from a tile's last wgmma to
// the next one's first, against 4.7k for its 8 stages). Loading them before the last pass's
// stores instead (v165) was even (H200, persistent 2:128/2:32: 100.4 -> 100.6 us).
#ifndef VNM_WG_PRELOAD_LATE
#define VNM_WG_PRELOAD_LATE 1
#endif

// Each consumer warpgroup stages and stores its own 64-row block of Y between barriers of its own 128
// threads (1), not all consumers together (0), so that one's staging writes run beside the other's
// stores (v150 trace: a persistent 2:128 tile's 4 passes ~2.1k cycles each, ~0.8-1k of it staging and
// barrier). H200 v158 (0/1 in turns, twice, us): gate/up 2:128 T = 8192 108.8/110.4 -> 99.9/103.3,
// 4096^3 2:128 23.9 -> 22.0, 2:4 T = 8192 283.6/299.6 -> 273.5/287.4, others even. Tiles of one m64
// block per consumer only (the 256 x 128 persistent Y^T variant spilled 4 bytes).
#ifndef VNM_WG_EPI_PER_WG
#define VNM_WG_EPI_PER_WG 1
#endif

// X by TMA (TMA_X = 1) in boxes of at most this many tokens, of which only those that start
// before T are loaded (spmm_wgmma_sp.x_box mirrors it): a box whose rows lie mostly past the
// tensor's end took the TMA unit longer than a full one (H200 v192, LLaMA gate/up 2:4, 172 CTAs of
// 128 x 256 tiles: T = 512 65 us, 384 87, 300 104).
#ifndef VNM_WG_X_BOX
#define VNM_WG_X_BOX 64
#endif
// ... and the last box, where T ends inside it, as a box of its rows rounded up to 8 (`xtail`, which the
// host makes for that row count) (1), not a whole XB-token box zero-filled past T (0): the TMA unit
// took longer over a box's rows past the tensor's end than over loaded ones (v204: LLaMA-70B gate/up,
// 128 x 256 tiles, T = 200 181 us against T = 256 130, the last box 8 of 64 rows).
#ifndef VNM_WG_X_TAIL
#define VNM_WG_X_TAIL 1
#endif

// The epilogue stages Y (and Y^T) by stmatrix (1), four 8 x 8 blocks of the accumulators per
// instruction a warp (transposed for Y's [tokens][rows] staging), not one 2-byte shared store per
// element (0; v161 trace, persistent 2:128: a 64-token pass ~0.6-1.0k cycles of staging, 32 stores
// a thread). H200 v164 (0/1 in turns, twice, us, auto_xt): gate/up 2:128 T = 8192 99.2/99.5 ->
// 92.8/93.2, 4096^3 2:128 22.0 -> 20.7, 2:32 35.1 -> 33.5, 2:8 and 2:4 prefill and decode within the
// noise. Not with two m64 blocks per consumer (256 x 128: spilled).
#ifndef VNM_WG_EPI_STMATRIX
#define VNM_WG_EPI_STMATRIX 1
#endif

// Stages of look-ahead for the gather's column words (a compile-time knob: -D for experiments).
// 8 (H200 v96, against 3): LLaMA gate/up and down at T = 1-64 -3..-5% (128:2:8 gate/up T = 16 14.2
// -> 13.7 us), 4096-row shapes and prefill even (v17a had found 3-5 even at prefill). Gathered
// tiles only (HAS_COLS): see the producer.
#ifndef VNM_WG_COLUMN_LOOKAHEAD
#define VNM_WG_COLUMN_LOOKAHEAD 8
#endif

constexpr int KS = 16;         // groups per pipeline stage
// Steps of a CTA's first tile prefetched into L2 before it waits for the previous kernel (PDL).
// Few: the prefetch competes with the ring's own first copies for DRAM (H200 v83/v83b, 0 / 4 / 16 /
// 64 / all: LLaMA 2:4 T = 64 18.2 / 18.2 / 18.9 / 23.7 / 24.7 us, 4096^2 2:4 T = 64 9.7 / 9.6 /
// 10.9 / 10.9, 128:2:16 T = 64 9.6 / 9.1 / 9.8 / 9.8, 2:4 prefill 139 / 139 / 142 / 151 us).
#ifndef VNM_WG_PDL_PREFETCH_STEPS
#define VNM_WG_PDL_PREFETCH_STEPS 4
#endif
constexpr int PDL_PREFETCH_STEPS = VNM_WG_PDL_PREFETCH_STEPS;
constexpr int KROWS = 4 * KS;  // gathered X^T rows per stage
constexpr u32 IDENTITY_COLUMNS = 0x03020100u;  // m == 4: every group keeps columns 0..3

// AREG: 0 = A by TMA and metadata by cp.async into shared memory, the wgmma reads A there (v20);
// 1 = A and metadata from the fragment image in global memory into registers (v21); 2 = the
// fragment image's blocks by bulk copy into the ring, then into registers by 16-byte shared loads
// just before the wgmma (v22: as deep in flight as X, no register ring).
// CS (AREG 2): ring stages per bulk copy of the fragment image. A 64-row block's steps lie together
// in the image, so CS stages of it come as one copy of CS x 4 KB (and one of its metadata) on the
// first stage's full barrier; the stages of such a group lie together in the ring,
// [group][64-row block][stage]. The stream probe (NOTES v77) streamed ~1 TB/s at 86 CTAs with one
// 4 KB copy a phase, 3.6 with one of 16 KB; CS = 4 took LLaMA gate/up 128:2:8 at T = 16 from 15.3 to
// 12.6 us (v100), and loses where a CTA has few steps (v101: 4096^2 2:16, 4 steps a split, +6%).
// The gathered B image of a BN-token tile (MN-major): slabs of SW / 2 tokens (64, or BN under 64:
// a 16- or 32-token tile has 32- or 64-byte rows, swizzled at that width), KROWS rows of SW bytes
// each; the 16-byte chunk c of row kr lands in slab c / CHUNKS at chunk (c % CHUNKS) ^ ((kr >>
// ROW_SHIFT) % CHUNKS) (wgmma_sp_layout.mnmajor_offsets). LBO = one slab, SBO = 8 rows.
template <int BN>
struct GatherB {
  static constexpr int SW = BN >= 64 ? 128 : 2 * BN;  // swizzle and row width in bytes
  static constexpr int CHUNKS = SW / 16;
  static constexpr int CHUNK_SHIFT = SW == 128 ? 3 : SW == 64 ? 2 : 1;
  static constexpr int ROW_SHIFT = SW == 128 ? 0 : SW == 64 ? 1 : 2;  // the swizzle's row bits: address bits 7..
  static_assert(SW == 32 || SW == 64 || SW == 128, "gathered token tiles of 16, 32 or a multiple of 64");
};

template <int BM, int BN, int STAGES, int MB = 1, int AREG = 0, bool PERSIST = false, int CS = 1, bool YT = false>
struct Plan {
  static constexpr int NC = (BM / (64 * MB)) * 128;  // consumer threads (MB m64 blocks each)
  static constexpr int NT = NC + 128;                // + one producer warpgroup
  static constexpr int B = KROWS * BN * 2;           // bytes per stage (multiple of 1024)
  static constexpr int A = AREG == 1 ? 0 : BM * 2 * KS * 2;  // bytes per stage (multiple of 1024)
  static constexpr int M = AREG == 1 ? 0 : AREG == 2 ? BM * 8 : BM * KS / 2;  // bytes per stage
  static constexpr int OFF_A = STAGES * B;
  static constexpr int OFF_M = OFF_A + STAGES * A;
  static constexpr int OFF_BAR = OFF_M + STAGES * M;
  static constexpr int PIPE = OFF_BAR + 2 * STAGES * 8;
  // Epilogue staging [EPI_TOK][BM + 8] elements, EPI_TOK tokens per pass (YT: [BM][EPI_TOK + 8]). One
  // pass over the ring's bytes when a CTA owns one tile; PERSIST keeps it apart (64-token passes) so
  // that the producer fills the ring with the next tile's stages during the epilogue.
  static constexpr int EPI_TOK = PERSIST ? 64 : BN;
  static constexpr int C_PITCH = YT ? EPI_TOK + 8 : BM + 8;
  // (PERSIST: 1024-byte aligned, the layout every persistent tile was measured with.)
  static constexpr int OFF_EPI = PERSIST ? (PIPE + 1023) / 1024 * 1024 : 0;
  // Two CTAs per SM where a consumer fits in 128 registers (one warpgroup, N <= 128).
  static constexpr int CTAS_PER_SM = (BM == 64 && BN <= 128) ? 2 : 1;
  static constexpr int EPI = (YT ? BM : EPI_TOK) * C_PITCH * 2;
  // Dynamic shared memory of a launch: + 1024 to align the base (swizzles need 1024-byte images).
  static constexpr int BYTES = (PERSIST ? OFF_EPI + EPI : PIPE > EPI ? PIPE : EPI) + 1024;
  static_assert(STAGES >= 2, "one stage in the math, one being filled");
  static_assert(BM / MB == 64 || BM / MB == 128, "64 x MB rows per consumer warpgroup, one or two of them");
  static_assert(MB == 1 || AREG, "two m64 blocks per consumer only with A in registers");
  static_assert(AREG >= 0 && AREG <= 2, "AREG: 0 shared memory, 1 global to registers, 2 staged");
  static_assert(BN == 16 || BN == 32 || BN == 64 || BN == 128 || BN == 256, "BN is the wgmma N");
  static_assert(CS == 1 || (AREG == 2 && !PERSIST && STAGES % CS == 0 && STAGES / CS >= 2),
                "grouped copies: the staged ring (AREG 2), one tile per CTA, two or more whole groups in the ring");
  // AREG 2: where block b's part of stage s lies in the A / metadata ring
  static __device__ __forceinline__ int a_at(int s, int b) {
    return CS == 1 ? s * A + b * 4096 : (s / CS * (BM / 64) + b) * CS * 4096 + s % CS * 4096;
  }
  static __device__ __forceinline__ int m_at(int s, int b) {
    return CS == 1 ? s * M + b * 512 : (s / CS * (BM / 64) + b) * CS * 512 + s % CS * 512;
  }
};

}  // namespace wg

// Grid: x = row tiles of BM rows (BM divides V), y = token tiles of BN, z = K splits.
// Without SPLIT the CTA writes y (bias fused); with SPLIT, fp32 partial sums partial[z][t][r]
// that splitk_reduce (spmm_mma_sp.cu) finishes.
//
// TMA_X (m = 4 only: no column gather): B is X itself, loaded per stage by TMA from `xmap`
// (zero fill past K and T), no X^T is made: 1 = X row-major [T, K], boxes of 64 k x min(BN,
// VNM_WG_X_BOX) tokens (128B swizzle, K-major image); 2 = X feature-major (X^T [K, ldx], as a previous call's Y^T
// leaves it), boxes of 64 k x min(BN, 64) tokens that land as GatherB's slabs (MN-major image).
// 0: `xmap` is unused and B is gathered from X^T (`xt`).
//
// AREG (v21): A and its metadata come from global memory straight into the consumers' registers
// (wgmma.sp with A from registers), from the fragment-order image of build_frag_layout
// (spmm_wgmma_sp.py): values = u32 afrag[RB64][steps][2][128][4] (k32 step ks of a 64-row block:
// thread t's 4 A registers at t*16 B), meta = u32 mfrag[RB64][steps][64][2] (the two metadata
// words of thread 32w + 4 gid + h, h < 2, at (16w + 2 gid + h)*8 B: the pair that sparsity
// selector 0 reads; threads tig = 2, 3 load their partner's, v52). The wgmma.sp operands
// otherwise fill the shared memory's bandwidth (NOTES v21: A by TMA is written once and read by
// the wgmma once, 16 of the 113 KB that a 128 x 256 stage moves).
// Consumers load them a few stages ahead into a ring of register sets (VNM_WG_AREG_SETS). MB = 2 gives each
// consumer two m64 blocks (a 256 x 128 tile: B is written once per 256 rows, not 128).
template <typename T, int BM, int BN, int STAGES, bool HAS_COLS, bool SPLIT, int TMA_X, int MB = 1, int AREG = 0,
          bool PERSIST = false, int CLUSTER = 1, int COPY_STEPS = 1, bool YT = false>
__global__ void __launch_bounds__(wg::Plan<BM, BN, STAGES, MB, AREG, PERSIST>::NT,
                                  wg::Plan<BM, BN, STAGES, MB, AREG, PERSIST>::CTAS_PER_SM)
    spmm_wgmma_sp(const T* __restrict__ values, const u8* __restrict__ meta, const u32* __restrict__ cols,
                  const T* __restrict__ xt, const T* __restrict__ bias, T* __restrict__ y,
                  float* __restrict__ partial, int R, int K, int ntok, int ntok_load, int ldx, int Gp, int m,
                  int v, int steps_per_split, int raster, const __grid_constant__ TensorMap xmap,
                  const __grid_constant__ TensorMap amap, const __grid_constant__ TensorMap xtail) {
  constexpr bool X_TMA = TMA_X == 1 || TMA_X == 2;    // B is X itself, by TMA
  static_assert(!(X_TMA && HAS_COLS), "TMA_X 1 / 2 loads X whole: only for m = 4 (no column offsets)");
  static_assert(!(PERSIST && SPLIT), "split-K runs one tile per CTA");
  static_assert(!(YT && SPLIT), "Y^T from the epilogue of whole tiles (K splits write partial sums)");
  static_assert(TMA_X >= 0 && TMA_X <= 2, "TMA_X: 0 gathered, 1 X row-major by TMA, 2 X^T by TMA");
  static_assert(CLUSTER == 1 || (TMA_X == 1 && !SPLIT && BM <= 128 && (CLUSTER == 2 || CLUSTER == 4)),
                "X multicast over a cluster of row tiles: plain 2:4 by TMA, no K splits");
#if VNM_HAS_WGMMA
  // m's high half: log2 of the groups that share one M window (the union layout, as in spmm_mma_sp.cu)
  const int gshift = m >> 16;
  m &= 0xffff;
  using P = wg::Plan<BM, BN, STAGES, MB, AREG, PERSIST, COPY_STEPS, YT>;
  // (the 256 x 128 tile's X^T variant spilled 12 bytes with the late preload)
  constexpr bool PRELOAD_LATE = VNM_WG_PRELOAD_LATE && MB == 1;
  using GB = wg::GatherB<BN>;
  // X by TMA: tokens per box (TMA_X = 1: VNM_WG_X_BOX, as the host's tensor map; 2: GatherB's slab)
  constexpr int XB = TMA_X == 2 ? (BN < 64 ? BN : 64) : (BN < VNM_WG_X_BOX ? BN : VNM_WG_X_BOX);
  static_assert(BN % XB == 0, "whole X boxes per stage");
  using wg::KS;
  using wg::cp_async16_s;
  constexpr int NC = P::NC;
  // Register budget per role: entry cap = 65536 / (NT * CTAS_PER_SM); the producer gives back,
  // the consumers take: 128*72 + 256*216 = 384*168 (BM = 128), 128*72 + 128*184 = 256*128
  // (BM = 64, two CTAs per SM). Measured (NOTES v17): 88/208 and 56/224 are 5-16% slower on
  // gathered shapes; the row-wise gather of v4 spilled at 40 and 56. BM = 64, BN = 256
  // (one CTA of 256 threads per SM) needs no reallocation: its entry count already covers the
  // consumer (ptxas reports it), so only the producer shrinks (an .inc to at most the current
  // count would be ill-formed).
  // (AREG 1 + TMA_X: one TMA per stage)
  constexpr int PRODUCER_REGS = (AREG == 1 && X_TMA) ? 56 : VNM_WG_PRODUCER_REGS;
  constexpr int ENTRY_REGS = (65536 / (P::NT * P::CTAS_PER_SM)) & ~7;  // what __launch_bounds__ grants
  constexpr int CONSUMER_REGS =
      (NC == 256 || P::CTAS_PER_SM == 2) ? ((P::NT / 128 * ENTRY_REGS - PRODUCER_REGS) / (NC / 128)) & ~7 : 0;
  static_assert(CONSUMER_REGS == 0 || (CONSUMER_REGS >= ENTRY_REGS && CONSUMER_REGS <= 256), "setmaxnreg range");

  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const u32 raw = smem_addr(smem_raw);
  unsigned char* smem = smem_raw + (((raw + 1023u) & ~1023u) - raw);
  unsigned char* sB = smem;
  unsigned char* sA = smem + P::OFF_A;
  unsigned char* sM = smem + P::OFF_M;
  u64* full = reinterpret_cast<u64*>(smem + P::OFF_BAR);
  u64* empty = full + STAGES;

  const int tid = threadIdx.x;
  // Without PERSIST a CTA runs the one tile (blockIdx.x, blockIdx.y). With it the grid is what
  // fits on the GPU at once, and CTA blockIdx.x runs tiles blockIdx.x, + gridDim.x, ... numbered
  // row tile fastest; the ring's stage and phase run on across tiles (g: stages of earlier tiles).
  // CLUSTER: the row tiles sharing a token tile run as one cluster, each loading 1/CLUSTER of the
  // X box and multicasting it to all (with PERSIST the grid is whole clusters, so the CTAs of a
  // cluster step through their tiles together); row tiles are padded to whole clusters (a padding
  // tile reads zero rows of the fragment image, which the host checks it lies in, and writes nothing).
  const int row_tiles = ((R + BM - 1) / BM + CLUSTER - 1) / CLUSTER * CLUSTER;
  const int ntiles = PERSIST ? row_tiles * ((ntok + BN - 1) / BN) : 1;
  const int first = PERSIST ? blockIdx.x : 0, stride = PERSIST ? gridDim.x : 1;
  // PERSIST with raster > 0 (no cluster): tiles numbered in bands of `raster` row tiles, row tile
  // fastest inside a band, so that the CTAs running at once share a few row tiles of A and a few
  // token tiles of X (an L2 working set of bands, not all of A); raster = 0: one band of all rows.
  auto tile_rt = [&](int tile, bool row) {
    if (!PERSIST) return static_cast<int>(row ? blockIdx.x : blockIdx.y);
    const int band_rows = (CLUSTER == 1 && raster > 0) ? raster : row_tiles;
    const int per_band = band_rows * ((ntok + BN - 1) / BN), band = tile / per_band, in = tile - band * per_band;
    const int rows_here = min(band_rows, row_tiles - band * band_rows);
    return row ? band * band_rows + in % rows_here : in / rows_here;
  };
  auto row_of = [&](int tile) { return tile_rt(tile, true) * BM; };
  auto tok_of = [&](int tile) { return tile_rt(tile, false) * BN; };
  const int total_steps = Gp / KS;
  // The fragment image's 4 KB block of (64-row block rb, step): a row block's steps lie together.
  auto frag_block = [&](size_t rb, int step) { return rb * total_steps + step; };
  const int kbeg = SPLIT ? blockIdx.z * steps_per_split : 0;
  const int kend = SPLIT ? min(total_steps, kbeg + steps_per_split) : total_steps;
  const int nsteps = kend - kbeg;

  if (tid == 0) {
    VNM_WG_MARK(3, 0);
    // The first tile's first steps into L2 while an earlier kernel may still run (PDL)
    if (AREG > 0 && wg::PDL_PREFETCH_STEPS > 0 && first < ntiles) {
      const int ahead = min(nsteps, wg::PDL_PREFETCH_STEPS);
#pragma unroll
      for (int b = 0; b < BM / 64; ++b) {
        const size_t blk = frag_block(row_of(first) / 64 + b, kbeg);
        bulk_prefetch_l2(reinterpret_cast<const u32*>(values) + blk * 1024, ahead * 4096);
        bulk_prefetch_l2(reinterpret_cast<const u32*>(meta) + blk * 128, ahead * 512);
      }
    }
    for (int s = 0; s < STAGES; ++s) {
      // every producer thread arrives after its copies landed (+ the TMA issuer's expect_tx)
      mbar_init(&full[s], 129);
      mbar_init(&empty[s], CLUSTER * NC / 32);  // one arrival per consumer warp of the cluster
    }
    mbar_init_fence();
  }
  if constexpr (CLUSTER > 1) {
    cluster_sync();  // every CTA's barriers exist before any multicast signals them
  } else {
    __syncthreads();
  }
  grid_dependency_wait();

  if (tid < 128) {
    // ------------------------------------------------------------------ producer warpgroup
    setmaxnreg_dec<PRODUCER_REGS>();
    // B: one warp instruction copies whole gathered rows of X^T (CPR consecutive 16-byte chunks
    // per row, RPI rows per instruction): 512 contiguous bytes in 4 lines at BN = 256, where v4
    // (two threads per row) touched 32 lines per instruction and was bound by the LSU's address
    // processing, not by L2 bandwidth. Warp w fills stage rows 16w .. 16w + 15;
    // lane l (< 16) computes the X^T row of stage row 16w + l and the others read it by shuffle.
    // Chunk c of stage row kr lands where GatherB says (BN >= 64: slab c >> 3, column (c & 7) ^ (kr & 7)).
    constexpr int CPR = BN / 8;
    constexpr int RPI = 32 / CPR;
    constexpr int RPW = wg::KROWS / 4;
    const int warp = tid >> 5, lane = tid & 31;
    const int c = lane % CPR, rsub = lane / CPR;
    const char* xbytes = reinterpret_cast<const char*>(xt);
    const u32 row_bytes = static_cast<u32>(ldx) * sizeof(T);
    const u32 b_lane = smem_addr(sB) + (c >> GB::CHUNK_SHIFT) * (wg::KROWS * GB::SW) + warp * RPW * GB::SW;
    const int myrow = lane & (RPW - 1);  // stage row 16w + myrow: group 4w + myrow / 4, slot myrow % 4
    // (this lane's X column, from its group's column word: slot myrow % 4 of group g0 + 4w + myrow / 4;
    // and where chunk c of stage row `row` lands in B)
    // (a union layout's groups share M windows: group g's window is g >> gshift; a stage's KS groups
    // start at a multiple of KS >= 1 << gshift, so (g0 + j) >> gshift = g0 >> gshift + j >> gshift, and
    // the per-stage term is a constant: kept as two registers, the per-lane one and the step's)
    const int lane_base = ((warp * (RPW / 4) + myrow / 4) >> gshift) * m, step_columns = (KS >> gshift) * m;
    auto lane_column = [&](int step, u32 word) {
      return step * step_columns + lane_base + static_cast<int>((word >> (8 * (myrow & 3))) & 0xffu);
    };
    auto chunk_at = [&](u32 stage_base, int row) {
      return stage_base + row * GB::SW + 16 * ((c & (GB::CHUNKS - 1)) ^ ((row >> GB::ROW_SHIFT) & (GB::CHUNKS - 1)));
    };
    int g = 0;
    for (int tile = first; tile < ntiles; tile += stride, g += nsteps) {
      const int row0 = row_of(tile), tok0 = tok_of(tile);
      const bool ok_t = 8 * c < ntok_load - tok0;
      const T* xcol = xt + static_cast<size_t>(tok0) + 8 * c;
      const u32 col_bytes = static_cast<u32>(tok0 + 8 * c) * sizeof(T);
      const u32* colrow = HAS_COLS ? cols + static_cast<size_t>(row0 / v) * Gp + warp * (RPW / 4) + myrow / 4 : nullptr;
      auto column_word = [&](int step) -> u32 {
        return (HAS_COLS && step < kend) ? __ldg(colrow + step * KS) : wg::IDENTITY_COLUMNS;
      };
      // Column words run LOOKAHEAD stages ahead: with one stage of look-ahead the producer was a
      // chain of dependent L2 loads (word -> row addresses -> copies -> next word), one stage per L2
      // round trip (NOTES v7). The queue must not be shifted through registers either: a move of a
      // word whose load is still in flight waits for it (SASS of v8-v14: IMAD.MOV of the previous
      // stage's LDG at the loop head, a full L2 latency per stage, so look-ahead 3 changed nothing).
      // So the loop is unrolled LOOKAHEAD times (for_unrolled) and slot q is read, then reloaded, in place.
      // (Without column lists the words are constants and the look-ahead only unrolls the loop:
      // 3, as measured before v97; 8 spilled the persistent 256 x 128 tile under NVRTC 13.0.)
      constexpr int LOOKAHEAD = HAS_COLS ? VNM_WG_COLUMN_LOOKAHEAD : 3;
      static_assert(LOOKAHEAD >= 1 && LOOKAHEAD <= 8, "column-word look-ahead of 1..8 stages");
      u32 wq[LOOKAHEAD];
#pragma unroll
      for (int i = 0; i < LOOKAHEAD; ++i) wq[i] = column_word(kbeg + i);
      for_unrolled<LOOKAHEAD>(nsteps, [&](int it, int q) {
        const int step = kbeg + it, gi = g + it, s = gi % STAGES, g0 = step * KS;
        const u32 wcur = wq[q];
        // AREG 2: the first stage of a copy group also waits for the group's last slot (consumers
        // release stages in order, so that one's phase means the whole group's)
        const int copied = AREG != 2 ? 0 : COPY_STEPS == 1 ? 1 : it % COPY_STEPS == 0 ? min(COPY_STEPS, nsteps - it) : 0;
        if (COPY_STEPS > 1 && copied > 0 && gi + copied - 1 >= STAGES)
          mbar_wait(&empty[(gi + copied - 1) % STAGES], (((gi + copied - 1) / STAGES) & 1) ^ 1);
        if (gi >= STAGES) mbar_wait(&empty[s], ((gi / STAGES) & 1) ^ 1);
        // the fragment image's blocks of `copied` stages: 4 KB of A, 512 B of metadata each
        auto copy_frag = [&]() {
#pragma unroll
          for (int b = 0; b < BM / 64; ++b) {
            const size_t blk = frag_block(row0 / 64 + b, step);
            bulk_copy(sA + P::a_at(s, b), reinterpret_cast<const u32*>(values) + blk * 1024, copied * 4096, &full[s]);
            bulk_copy(sM + P::m_at(s, b), reinterpret_cast<const u32*>(meta) + blk * 128, copied * 512, &full[s]);
          }
        };
        constexpr bool SPLIT_ISSUE = VNM_WG_SPLIT_ISSUE && AREG == 2;
        if (SPLIT_ISSUE && tid == 32 && copied > 0) {
          mbar_expect_tx(&full[s], copied * (P::A + P::M));
          copy_frag();
        }
        if (tid == 0) {  // the TMA boxes of the stage; their bytes complete the phase
          VNM_WG_MARK(0, gi);
          // X's boxes of XB tokens that start before T (`xboxes` of BN / XB): the rest of the stage
          // keeps stale data, which only feeds accumulator columns of tokens that are never stored
          const int xboxes = CLUSTER > 1 ? BN / XB : min(BN / XB, (ntok - tok0 + XB - 1) / XB);
          // ... the last of them, where T ends inside it, as a box of its rows rounded up to 8 from `xtail`
          // where that is fewer than XB (TMA_X = 1; VNM_WG_X_TAIL)
          const int tail = TMA_X == 1 && CLUSTER == 1 && VNM_WG_X_TAIL ? (ntok - tok0 - (xboxes - 1) * XB + 7) & ~7 : XB;
          mbar_arrive_expect_tx(&full[s], (X_TMA && !VNM_WG_SKIP_B ? xboxes * (P::B / (BN / XB)) - (tail < XB ? (XB - tail) * 128 : 0) : 0) +
                                              (AREG != 2 ? P::A : SPLIT_ISSUE ? 0 : copied * (P::A + P::M)));
          if (X_TMA && !VNM_WG_SKIP_B) {
            if constexpr (CLUSTER > 1) {  // this CTA's 1/CLUSTER of the tokens, into every CTA's stage s
              const int part = static_cast<int>(cluster_rank()) * (BN / CLUSTER);
              tma_load_2d_multicast(smem_addr(sB) + s * P::B + part * 128, &xmap, step * wg::KROWS, tok0 + part,
                                    &full[s], static_cast<u16>((1u << CLUSTER) - 1));
            } else {
#pragma unroll
              for (int j = 0; j < BN / XB; ++j) {
                if (j >= xboxes) break;
                if constexpr (TMA_X == 2)  // X^T: a box per GatherB slab of 64 (or BN) tokens
                  tma_load_2d(smem_addr(sB) + s * P::B + j * (wg::KROWS * GB::SW), &xmap, tok0 + XB * j, step * wg::KROWS, &full[s]);
                else  // X: 8-token atoms of 64 k (1024 B), XB tokens a box
                  tma_load_2d(smem_addr(sB) + s * P::B + j * XB * 128, j == xboxes - 1 && tail < XB ? &xtail : &xmap,
                              step * wg::KROWS, tok0 + XB * j, &full[s]);
              }
            }
          }
          if (!AREG) tma_load_2d(smem_addr(sA) + s * P::A, &amap, g0 * 2, row0, &full[s]);
          if (AREG == 2 && !SPLIT_ISSUE && copied > 0) copy_frag();
          if (AREG == 1 && VNM_WG_AREG_PREFETCH > 0 && step + VNM_WG_AREG_PREFETCH < kend) {
#pragma unroll
            for (int b = 0; b < BM / 64; ++b) {
              const size_t blk = frag_block(row0 / 64 + b, step + VNM_WG_AREG_PREFETCH);
              bulk_prefetch_l2(reinterpret_cast<const u32*>(values) + blk * 1024, 4096);
              bulk_prefetch_l2(reinterpret_cast<const u32*>(meta) + blk * 128, 512);
            }
          }
        }
        if constexpr (!TMA_X && !VNM_WG_SKIP_B) {  // B: gathered rows of X^T; rows past K and tokens past ntok_load are zero-filled
          const int kmine = lane_column(step, wcur);
          const u32 base = b_lane + s * P::B;
#pragma unroll
          for (int i = 0; i < RPW / RPI; ++i) {
            const int row = i * RPI + rsub;  // stage row 16w + row; (16w + row) & 7 == row & 7
            const int k = __shfl_sync(0xffffffffu, kmine, row);
            const bool ok = ok_t && k < K;
            const void* src = VNM_WG_GATHER_OFF32
                                  ? static_cast<const void*>(xbytes + (ok ? static_cast<u32>(k) * row_bytes + col_bytes : 0u))
                                  : static_cast<const void*>(ok ? xcol + static_cast<size_t>(k) * ldx : xt);
            cp_async16_s(chunk_at(base, row), src, ok);
          }
        }
        // Codes: 8 bytes per row. Rows past R reuse row R-1's (valid) codes; their values are zero.
        if (!AREG && tid < BM) {
          const int grow = min(row0 + tid, R - 1);
          cp_async8(sM + s * P::M + tid * 8, meta + static_cast<size_t>(grow) * (Gp / 2) + g0 / 2, true);
        }
        cp_async_mbar_arrive_noinc(&full[s]);
        wq[q] = column_word(step + LOOKAHEAD);
      });
    }
    cp_async_wait<0>();  // the async arrivals above must not outlive the thread
  } else {
    // ------------------------------------------------------------------ consumer warpgroups
    if constexpr (CONSUMER_REGS > 0) setmaxnreg_inc<CONSUMER_REGS>();
    const int ct = tid - 128;              // consumer thread
    const int cw = ct >> 7;                // consumer warpgroup: m64 blocks MB*cw .. MB*cw + MB - 1
    const int lane = ct & 31, warp = (ct >> 5) & 3, gid = lane >> 2, tig = lane & 3;
    float acc[MB][BN / 2];

    // B image: MN-major (rows of X^T, gathered or by TMA (TMA_X = 2): GatherB's slabs, LBO = one
    // slab) or, with TMA_X = 1, K-major (a row of 64 k per token, 8-token atoms 1024 B apart); k32 step ks at ks * B_KSTEP.
    const u64 b_desc0 = TMA_X == 1 ? gmma_desc<128>(smem_addr(sB), 16, 1024)
                              : gmma_desc<GB::SW>(smem_addr(sB), wg::KROWS * GB::SW, 8 * GB::SW);
    constexpr int B_MN = TMA_X == 1 ? 0 : 1;
    constexpr u32 B_KSTEP = TMA_X == 1 ? 64 : 32 * GB::SW;
    const int mrow = 64 * MB * cw + 16 * warp + gid;  // rows mrow + 64 b (+ 8) of m64 block b
    const int wt = ct & 127;
    // The epilogue's storing groups (VNM_WG_EPI_PER_WG): each warpgroup its own EROWS rows from erow0,
    // with its ENT threads (et: this one), or all consumers all BM rows.
    constexpr bool EPI_WG = VNM_WG_EPI_PER_WG && NC > 128 && MB == 1;
    constexpr int EROWS = EPI_WG ? 64 * MB : BM, ENT = EPI_WG ? 128 : NC;
    const int erow0 = EPI_WG ? 64 * MB * cw : 0, et = EPI_WG ? wt : ct;
    // (a pass's barrier among its group; `all`: every consumer, where the staging overlaps the ring)
    auto epi_sync = [&](bool all) {
      if (EPI_WG && !all) {
        named_barrier_sync(2 + cw, 128);
      } else {
        named_barrier_sync(1, NC);
      }
    };
    // its metadata word pair in the image: thread tig & 1's of its quad (selector 0 reads those)
    const int wc = 16 * (wt >> 5) + 2 * ((wt >> 2) & 7) + (wt & 1);

    // AREG: a stage's A registers and metadata words (MB m64 blocks x 2 k32 steps). `keep` holds a
    // set in its registers up to here (the asynchronous wgmma reads them until its group retires);
    // `issue` runs stage s's wgmma group on a set and retires the previous group.
    auto keep = [&](u32 (&a)[MB][2][4], u32 (&e)[MB][2]) {
#pragma unroll
      for (int b = 0; b < MB; ++b)
#pragma unroll
        for (int ks = 0; ks < 2; ++ks) {
          asm volatile("" : "+r"(a[b][ks][0]), "+r"(a[b][ks][1]), "+r"(a[b][ks][2]), "+r"(a[b][ks][3]), "+r"(e[b][ks]));
        }
    };
    auto issue = [&](u32 (&a)[MB][2][4], u32 (&e)[MB][2], int s) {
      const u64 b_desc = b_desc0 + static_cast<u64>((s * P::B) >> 4);
#pragma unroll
      for (int b = 0; b < MB; ++b) wgmma_fence_operand(acc[b]);
      wgmma_fence();
      if constexpr (!VNM_WG_SKIP_MMA) {
#pragma unroll
        for (int b = 0; b < MB; ++b)
#pragma unroll
          for (int ks = 0; ks < 2; ++ks)
            WgmmaSp<T, BN>::template rs<0, B_MN>(acc[b], a[b][ks], b_desc + ((ks * B_KSTEP) >> 4), e[b][ks], 1);
      }
      wgmma_commit();
      wgmma_wait<1>();  // the previous stage's group has retired: its stage and registers are free
    };
    // Stage gi's full barrier (phase from its round of the ring), then the fence that orders the
    // acquired cp.async writes before this thread's wgmma reads (TMA writes need none).
    auto acquire_stage = [&](int gi) {
      mbar_wait(&full[gi % STAGES], (gi / STAGES) & 1);
      if (!X_TMA) fence_proxy_async_smem();
    };
    auto release_stage = [&](int gi) {  // one arrival per consumer warp on its empty barrier(s)
      __syncwarp();
      if (lane == 0) {
        if constexpr (CLUSTER > 1) {  // every CTA of the cluster multicasts into this stage
#pragma unroll
          for (int r = 0; r < CLUSTER; ++r) mbar_arrive_cluster(&empty[gi % STAGES], r);
        } else {
          mbar_arrive(&empty[gi % STAGES]);
        }
      }
    };

    // AREG 1: A registers and metadata words of a stage (MB blocks x 2 k32 steps) from the
    // fragment image, in a ring of NS sets (one in flight, the others landing); set
    // (q + NS - 1) % NS is reloaded only after the wait_group that retired its reader (the empty
    // asm keeps it in its registers until then). A tile's first NS - 1 sets are loaded before the
    // previous tile's epilogue.
#ifdef VNM_WG_AREG_SETS
    constexpr int NS = AREG == 1 ? VNM_WG_AREG_SETS : 1;
#else
    constexpr int NS = AREG != 1 ? 1 : MB == 2 ? 3 : BN <= 64 ? 9 : 5;
#endif
    static_assert(AREG != 1 || (NS >= 2 && NS <= 10), "2..10 register sets");
    u32 ar[NS][MB][2][4], er[NS][MB][2];
    auto load = [&](u32 (&a)[MB][2][4], u32 (&e)[MB][2], size_t rb0, int step) {
      const u32* ag = reinterpret_cast<const u32*>(values);
      const u32* mg = reinterpret_cast<const u32*>(meta);
#pragma unroll
      for (int b = 0; b < MB; ++b) {
        const size_t blk = frag_block(rb0 + b, step);
#pragma unroll
        for (int ks = 0; ks < 2; ++ks) {
          const uint4 w = __ldg(reinterpret_cast<const uint4*>(ag + ((blk * 2 + ks) * 128 + wt) * 4));
          a[b][ks][0] = w.x; a[b][ks][1] = w.y; a[b][ks][2] = w.z; a[b][ks][3] = w.w;
        }
        const uint2 m2 = __ldg(reinterpret_cast<const uint2*>(mg + (blk * 64 + wc) * 2));
        e[b][0] = m2.x; e[b][1] = m2.y;
      }
    };
    auto block_of = [&](int tile) { return static_cast<size_t>(row_of(tile) / 64 + MB * cw); };
    auto preload = [&](int tile) {
      if constexpr (AREG == 1) {
#pragma unroll
        for (int q = 0; q < NS - 1; ++q)
          if (q < nsteps) load(ar[q], er[q], block_of(tile), kbeg + q);
      }
    };
    preload(first);

    int g = 0;
    // g stays the constant 0 with one tile per CTA (a runtime g cost the decode tile ~11 instructions a
    // stage; the producer keeps it: constant there, some gathered variants spilled)
    for (int tile = first; tile < ntiles; tile += stride, g += PERSIST ? nsteps : 0) {
      const int row0 = row_of(tile), tok0 = tok_of(tile);
#pragma unroll
      for (int b = 0; b < MB; ++b)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) acc[b][i] = 0.f;

      if constexpr (AREG == 2) {
        // Two register sets alternate between even and odd stages. Stage it + 1's set is loaded
        // from its shared memory right after stage it's wgmma is issued and the group before it
        // retired (its full barrier waited for there), not just before its own wgmma: ptxas sank
        // such late loads between the wgmma fence and the second wgmma and serialised the pipeline.
        u32 sr[2][MB][2][4], se[2][MB][2];
        auto acquire = [&](u32 (&a)[MB][2][4], u32 (&e)[MB][2], int it) {  // stage it's barrier, then its A
          const int s = (g + it) % STAGES;
          acquire_stage(g + it);
          if (ct == 0) VNM_WG_MARK(1, g + it);
#pragma unroll
          for (int b = 0; b < MB; ++b) {
            const unsigned char* ab = sA + P::a_at(s, MB * cw + b) + wt * 16;
#pragma unroll
            for (int ks = 0; ks < 2; ++ks) {
              const uint4 w = *reinterpret_cast<const uint4*>(ab + ks * 2048);
              a[b][ks][0] = w.x; a[b][ks][1] = w.y; a[b][ks][2] = w.z; a[b][ks][3] = w.w;
            }
            const uint2 m2 = *reinterpret_cast<const uint2*>(sM + P::m_at(s, MB * cw + b) + wc * 8);
            e[b][0] = m2.x; e[b][1] = m2.y;
          }
        };
        acquire(sr[0], se[0], 0);
        for_unrolled<2>(nsteps, [&](int it, int q) {
          issue(sr[q], se[q], (g + it) % STAGES);
          if (ct == 0) VNM_WG_MARK(2, g + it);
          keep(sr[q ^ 1], se[q ^ 1]);
          if (it > 0) release_stage(g + it - 1);
          if (it + 1 < nsteps) acquire(sr[q ^ 1], se[q ^ 1], it + 1);
        });
        wgmma_wait<0>();
#pragma unroll
        for (int b = 0; b < MB; ++b) wgmma_fence_operand(acc[b]);
        keep(sr[0], se[0]);
        keep(sr[1], se[1]);
      } else if constexpr (AREG == 1) {
        const size_t rb0 = block_of(tile);
        for_unrolled<NS>(nsteps, [&](int it, int q) {
          acquire_stage(g + it);
          if (ct == 0) VNM_WG_MARK(1, g + it);
          issue(ar[q], er[q], (g + it) % STAGES);
          if (ct == 0) VNM_WG_MARK(2, g + it);
          const int qf = (q + NS - 1) % NS;
          keep(ar[qf], er[qf]);
          if (it + NS - 1 < nsteps) load(ar[qf], er[qf], rb0, kbeg + it + NS - 1);
          if (it > 0) release_stage(g + it - 1);
        });
        wgmma_wait<0>();
#pragma unroll
        for (int b = 0; b < MB; ++b) wgmma_fence_operand(acc[b]);
#pragma unroll
        for (int q = 0; q < NS; ++q) keep(ar[q], er[q]);
      } else {
      // Descriptors of stage 0, k32 step 0; stage s / step ks add (bytes >> 4) to the address field.
      const u64 a_desc0 = gmma_desc<64>(smem_addr(sA) + cw * 64 * 64, 16, 512);
      const u32 perm = (tig & 1) ? 0x7632u : 0x5410u;
      // The metadata words are read by the asynchronous wgmma like an A fragment: their registers
      // must keep the values until the group that reads them retires. With one set of variables the
      // compiler loaded stage i+1's words into the registers stage i's group was still reading
      // (wrong 16-row slices at random, first seen with the 128 x 128 tile). So two sets alternate
      // between even and odd stages, and each set is touched again only after the wait_group that
      // retired its reader; the empty asm keeps the set live (in its registers) until then.
      u32 ea0 = 0, ea1 = 0, eb0 = 0, eb1 = 0;
      auto stage = [&](int it, u32& e0, u32& e1, u32& o0, u32& o1) {
        const int s = (g + it) % STAGES;
        acquire_stage(g + it);
        const unsigned char* me = sM + s * P::M;
        const uint2 lo = *reinterpret_cast<const uint2*>(me + mrow * 8);
        const uint2 hi = *reinterpret_cast<const uint2*>(me + (mrow + 8) * 8);
        e0 = __byte_perm(lo.x, hi.x, perm);
        e1 = __byte_perm(lo.y, hi.y, perm);
        const u64 a_desc = a_desc0 + static_cast<u64>((s * P::A) >> 4);
        const u64 b_desc = b_desc0 + static_cast<u64>((s * P::B) >> 4);
        wgmma_fence_operand(acc[0]);
        wgmma_fence();
        if constexpr (!VNM_WG_SKIP_MMA) {
          WgmmaSp<T, BN>::template ss<0, B_MN>(acc[0], a_desc, b_desc, e0, 1);
          WgmmaSp<T, BN>::template ss<0, B_MN>(acc[0], a_desc + (32 >> 4), b_desc + (B_KSTEP >> 4), e1, 1);
        }
        wgmma_commit();
        wgmma_wait<1>();  // the previous stage's group has retired: its buffers are free
        asm volatile("" : "+r"(o0), "+r"(o1));  // ... and so are the words it read
        if (it > 0) release_stage(g + it - 1);
      };
      int it = 0;
#pragma unroll 1
      for (; it + 1 < nsteps; it += 2) {
        stage(it, ea0, ea1, eb0, eb1);
        stage(it + 1, eb0, eb1, ea0, ea1);
      }
      if (it < nsteps) stage(it, ea0, ea1, eb0, eb1);
      wgmma_wait<0>();
      wgmma_fence_operand(acc[0]);
      asm volatile("" : "+r"(ea0), "+r"(ea1), "+r"(eb0), "+r"(eb1));
      }
      VNM_WG_MARK_EPI(0);
      if (PERSIST) release_stage(g + nsteps - 1);  // the last stage: the producer may be waiting for it
      // The next tile's first A registers: here or after the epilogue (VNM_WG_PRELOAD_LATE).
      if (PERSIST && !PRELOAD_LATE && tile + stride < ntiles) preload(tile + stride);
      VNM_WG_MARK_EPI(1);

      if (SPLIT) {
#pragma unroll
        for (int b = 0; b < MB; ++b)
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) {
            const int r = row0 + mrow + 64 * b + 8 * ((i >> 1) & 1);
            const int t = tok0 + 8 * (i >> 2) + 2 * tig + (i & 1);
            if (r < R && t < ntok) partial[(static_cast<size_t>(blockIdx.z) * ntok + t) * R + r] = acc[b][i];
          }
        continue;
      }

      // Epilogue: bias + one rounding, staged EPI_TOK tokens at a time as [tokens][BM rows] so Y
      // rows leave in 16-byte stores (Y by TMA stores instead: v29, v150, v172, v219, v230 slower).
      // Each pass's first barrier: the previous pass's (or tile's) reads of the staging are done
      // and, where it overlaps the ring (one tile per CTA), every consumer's wgmma too.
      T* const sC = reinterpret_cast<T*>(smem + P::OFF_EPI);
      constexpr int ET = P::EPI_TOK;
      constexpr bool STSM = VNM_WG_EPI_STMATRIX && MB == 1;  // (MB = 2 spilled 36 bytes)
      static_assert(!STSM || ET % 16 == 0, "stmatrix stages 16 tokens (two 8 x 8 blocks) at a time");
      // With STSM the thread's stmatrix address terms are derived here from a fresh read of %tid.x:
      // derived from the consumer's variables, ptxas hoisted them out of the tile loop and spilled them.
      int e_tig = tig, e_mrow = mrow;
      if constexpr (STSM) {
        int tid_now;
        asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(tid_now));
        e_tig = tid_now & 3;
        e_mrow = 64 * MB * ((tid_now - 128) >> 7) + 16 * ((tid_now >> 5) & 3) + ((tid_now >> 2) & 7);
      }
      auto staged = [&](int t, int r) -> int {  // element index of (token t of the pass, tile row r)
        if constexpr (YT) {
          return r * P::C_PITCH + t;
        } else {
          return t * P::C_PITCH + r;
        }
      };
      float bv[MB][2];
#pragma unroll
      for (int b = 0; b < MB; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = row0 + mrow + 64 * b + 8 * h;
          bv[b][h] = (bias != nullptr && r < R) ? Elem<T>::to_float(bias[r]) : 0.f;
        }
      // Passes run as a loop (unrolled, ptxas put the accumulators on the stack); each writes the
      // accumulators of its tokens, picked by a predicate so that their indices stay constants.
#pragma unroll 1
      for (int pass = 0; pass < BN / ET; ++pass) {
        epi_sync(!PERSIST && pass == 0);
        if constexpr (STSM) {
          // matrix (j + q / 2, rows 8 (q & 1) on) of each m64 block: this lane gives row lane & 7 of
          // matrix q = lane >> 3 its address (in Y's staging, that row is a token: .trans); from
          // e_tig and e_mrow (lane = 4 (e_mrow & 7) + e_tig; e_mrow - (e_mrow & 7): the warp's rows)
          const int e_lane = 4 * (e_mrow & 7) + e_tig, q = e_lane >> 3;
          const int row = e_mrow - (e_mrow & 7) + 8 * (q & 1);
#pragma unroll
          for (int j = 0; j < BN / 8; j += 2) {
            if (j / (ET / 8) != pass) continue;
            const int tok = 8 * (j % (ET / 8)) + 8 * (q >> 1);
#pragma unroll
            for (int b = 0; b < MB; ++b) {
              u32 r[4];
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                const int a0 = 4 * (j + (i >> 1)) + 2 * (i & 1);
                r[i] = Elem<T>::pack(acc[b][a0] + bv[b][i & 1], acc[b][a0 + 1] + bv[b][i & 1]);
              }
              if constexpr (YT) {
                stmatrix_x4(r, sC + (row + 64 * b + (e_lane & 7)) * P::C_PITCH + tok);
              } else {
                stmatrix_x4_trans(r, sC + (tok + (e_lane & 7)) * P::C_PITCH + row + 64 * b);
              }
            }
          }
        } else {
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            if (j / (ET / 8) != pass) continue;
#pragma unroll
            for (int b = 0; b < MB; ++b)
#pragma unroll
              for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                  const int t = 8 * (j % (ET / 8)) + 2 * e_tig + e;
                  sC[staged(t, e_mrow + 64 * b + 8 * h)] = Elem<T>::from_float(acc[b][4 * j + 2 * h + e] + bv[b][h]);
                }
          }
        }
        VNM_WG_MARK_EPI(2 + 2 * pass);
        epi_sync(false);
        if constexpr (YT) {  // y is Y^T [R][ntok]: staged rows are tile rows, tokens run along them
          store_staged<T, ET, EROWS, P::C_PITCH, ENT>(sC + erow0 * P::C_PITCH, y, tok0 + pass * ET, row0 + erow0, ntok, R, et);
        } else {
          store_staged<T, EROWS, ET, P::C_PITCH, ENT>(sC + erow0, y, row0 + erow0, tok0 + pass * ET, R, ntok, et);
        }
        VNM_WG_MARK_EPI(3 + 2 * pass);
      }
      if (PERSIST && PRELOAD_LATE && tile + stride < ntiles) preload(tile + stride);
    }
  }
  if constexpr (CLUSTER > 1) cluster_sync();  // no CTA leaves while a peer may still signal its barriers
#endif
}

}  // namespace vnm
