// The column gather alone (v326): gathered rows of an L2-resident X^T moved into a ring of shared-memory
// stages at full rate on every SM, no math, no consumer (a slot is refilled once its previous copy has
// landed). scripts/probes/gather_energy.py drives it and reads rate (bytes a clock an SM) and energy
// (board joules a byte at the power limit's regime) per mechanism:
//   mode 0: 16-byte cp.async.cg, one warp instruction per 512 contiguous bytes (the kernel's gather)
//   mode 1: 2-D TMA boxes of h consecutive X^T rows x 64 tokens (128 B), issued by `lanes` lanes of warp 0
//           (h = 1: v320's row boxes; h = 4: the 4 kept columns of a block as one run; h = 64: dense X^T)
//   mode 2: 1-D bulk copies, one per row piece of `row_bytes` (v2's form), issued by the 32 lanes of warp 0
//   mode 3: clusters of 2 CTAs (launched so) each gather half of a stage's rows by 16-byte cp.async and copy that
//           half into the peer's slot by one bulk shared::cta -> shared::cluster copy (v334: an SM-to-SM copy's
//           energy a byte against an L2 read's, for a V = 256 pair of 128-row tiles sharing one gathered B)
//   mode 4: mode 3 without the copies to the peer (its control: the same L2 bytes, barriers and waits)
// A stage is 64 rows of `row_bytes` (the tile's tokens x 2 B); rows come from `rows` (runs of h
// consecutive rows, aligned to h in the table), the token tile from the CTA and the stage.
#include "wgmma.cuh"  // (and common.cuh; the package's csrc/: jit resolves includes there too)
using namespace vnm;

constexpr int SLOTS = 6;
constexpr int STAGE_ROWS = 64;
constexpr int LAG = 2;  // mode 3: a stage's half goes to the peer LAG stages after its gather was issued

// `bytes` of this CTA's shared memory at `src` into a cluster peer's at `remote` (cluster_map), counted on the
// peer's mbarrier `remote_bar` when they land.
__device__ __forceinline__ void bulk_copy_to_peer(u32 remote, const void* src, u32 bytes, u32 remote_bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               ::"r"(remote), "r"(smem_addr(src)), "r"(bytes), "r"(remote_bar) : "memory");
}

extern "C" __global__ void __launch_bounds__(128) gather_probe(const unsigned char* xt, const __grid_constant__ TensorMap map,
                                                            const int* rows, int table_mask, int mode, int h, int lanes,
                                                            int row_bytes, int ld_bytes, int tiles, int iters,
                                                            long long* cycles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  u64* full = reinterpret_cast<u64*>(smem);
  unsigned char* ring = smem + 1024;
  const int stage_bytes = STAGE_ROWS * row_bytes;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) {
    for (int s = 0; s < SLOTS; ++s) mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (mode >= 3) cluster_sync();  // the peer's barriers exist before any copy counts on them
  const long long t0 = clock64();
  auto first_row = [&](int i) { return (static_cast<int>(blockIdx.x) * 977 + i) * STAGE_ROWS; };
  auto tok_bytes = [&](int i) { return ((static_cast<int>(blockIdx.x) + i) % tiles) * row_bytes; };
  // 16-byte cp.async of this warp's `per_warp` rows of a stage (or of its half at dst): table rows from r0 on
  auto gather = [&](unsigned char* dst, int r0, int tok, int per_warp) {
    const int cpr = row_bytes / 16, rpi = 32 / cpr;  // chunks a row, rows an instruction
    const int c = lane % cpr, rsub = lane / cpr;
    for (int r = warp * per_warp + rsub; r < (warp + 1) * per_warp; r += rpi) {
      const int k = rows[(r0 + r) & table_mask];
      cp_async16(dst + r * row_bytes + c * 16, xt + static_cast<size_t>(k) * ld_bytes + tok + c * 16, true);
    }
    cp_async_commit();
  };
  if (mode == 0) {
    for (int i = 0; i < iters; ++i) {
      gather(ring + (i % SLOTS) * stage_bytes, first_row(i), tok_bytes(i), STAGE_ROWS / 4);
      cp_async_wait<SLOTS - 1>();  // the slot refilled next has landed (each warp owns its rows of a slot)
    }
    cp_async_wait<0>();
  } else if (mode >= 3) {
    // Slot s holds stage i's rows: this CTA's half (rows 32 rank ..) by its own cp.async, the other half by the
    // peer's bulk copy, counted on full[s] (armed by thread 0 with the half's bytes; mode 4: none come).
    const int rank = static_cast<int>(cluster_rank()), peer = rank ^ 1, half = stage_bytes / 2;
    const u32 expect = mode == 3 ? half : 0;
    auto forward = [&](int j) {  // stage j's own half into the peer's slot, once it has landed here
      if (mode != 3) return;
      const int s = j % SLOTS;
      const unsigned char* mine = ring + s * stage_bytes + rank * half;
      fence_proxy_async_smem();  // (this CTA's cp.async writes, made visible by the barrier before, to the bulk copy)
      if (tid == 0) {
        bulk_copy_to_peer(cluster_map(mine, peer), mine, half, cluster_map(&full[s], peer));
        asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
      }
    };
    for (int i = 0; i < iters; ++i) {
      const int s = i % SLOTS;
      if (i >= SLOTS) mbar_wait(&full[s], ((i / SLOTS) - 1) & 1);  // the peer's half of stage i - SLOTS is in
      if (tid == 0) {
        // this CTA's half of stage i - SLOTS has been read by its copy to the peer
        asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(SLOTS - LAG - 1) : "memory");
        mbar_arrive_expect_tx(&full[s], expect);
      }
      cluster_sync();  // both armed stage i, both done with stage i - SLOTS
      gather(ring + s * stage_bytes + rank * half, first_row(i) + rank * (STAGE_ROWS / 2), tok_bytes(i), STAGE_ROWS / 8);
      if (i >= LAG) {
        cp_async_wait<LAG>();
        __syncthreads();
        forward(i - LAG);
      }
    }
    cp_async_wait<0>();
    __syncthreads();
    for (int j = max(iters - LAG, 0); j < iters; ++j) forward(j);
    for (int j = max(iters - SLOTS, 0); j < iters; ++j) mbar_wait(&full[j % SLOTS], (j / SLOTS) & 1);
    if (tid == 0) asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
    cluster_sync();  // no CTA leaves while its peer may still copy into it
  } else if (warp == 0) {
    const int slabs = row_bytes / 128, boxes = mode == 1 ? (STAGE_ROWS / h) * slabs : STAGE_ROWS;
    for (int i = 0; i < iters; ++i) {
      const int s = i % SLOTS;
      if (i >= SLOTS) mbar_wait(&full[s], ((i / SLOTS) - 1) & 1);
      if (lane == 0) mbar_arrive_expect_tx(&full[s], stage_bytes);
      __syncwarp();
      unsigned char* dst = ring + s * stage_bytes;
      const int r0 = first_row(i), tok = tok_bytes(i);
      if (lane < lanes) {
        for (int b = lane; b < boxes; b += lanes) {
          if (mode == 1) {
            const int run = b / slabs, slab = b % slabs;  // a slab: 64 tokens of every stage row
            const int k = rows[(r0 + run * h) & table_mask];
            tma_load_2d(smem_addr(dst + slab * (STAGE_ROWS * 128) + run * h * 128), &map, tok / 2 + slab * 64, k, &full[s]);
          } else {
            const int k = rows[(r0 + b) & table_mask];
            bulk_copy(dst + b * row_bytes, xt + static_cast<size_t>(k) * ld_bytes + tok, row_bytes, &full[s]);
          }
        }
      }
    }
    for (int i = max(iters - SLOTS, 0); i < iters; ++i) mbar_wait(&full[i % SLOTS], (i / SLOTS) & 1);
  }
  __syncthreads();
  if (tid == 0) cycles[blockIdx.x] = clock64() - t0;
}
