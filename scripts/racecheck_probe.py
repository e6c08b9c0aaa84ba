"""Does compute-sanitizer's racecheck see mbarrier ordering? A two-warp ring buffer, on the GPU.

  compute-sanitizer --tool racecheck python scripts/racecheck_probe.py ordered   # the kernels' protocol
  compute-sanitizer --tool racecheck python scripts/racecheck_probe.py racy      # control: a real race

`ordered` is the hand-off our pipelines use: the consumer warp reads the slot with plain shared
loads, __syncwarp, lane 0 arrives on `empty`; the producer waits on `empty` (try_wait.parity,
acquire) before its plain stores refill the slot. No hazard is possible; if racecheck still reports
one, its reports on the SpMM pipelines at the same hand-off are the tool's, not the kernels'.
`racy` drops the producer's wait: a real write-after-read race, which racecheck must report.
The results are checked either way, so the probe also proves the protocol delivers every round.
"""
import sys

import cupy as cp

SOURCE = r"""
__device__ unsigned sa(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ void init(unsigned long long* b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sa(b)), "r"(n) : "memory");
}
__device__ void arrive(unsigned long long* b) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" :: "r"(sa(b)) : "memory");
}
__device__ void wait(unsigned long long* b, int parity) {
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
               :: "r"(sa(b)), "r"(parity) : "memory");
}
extern "C" __global__ void ring(int* out, int rounds, int racy) {
  __shared__ __align__(8) unsigned long long full, empty;
  __shared__ int slot[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) {
    init(&full, 32);
    init(&empty, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (warp == 0) {
      if (r > 0 && !racy) wait(&empty, (r - 1) & 1);
      slot[lane] = 100 * r + lane;
      arrive(&full);
    } else {
      wait(&full, r & 1);
      out[32 * r + lane] = slot[(lane + 1) & 31];
      __syncwarp();
      if (lane == 0) arrive(&empty);
      if (racy) break;  // one round: the unsynchronised refill is the race, not a hang
    }
  }
}
"""

mode = sys.argv[1] if len(sys.argv) > 1 else "ordered"
if mode not in ("ordered", "racy"):
    raise SystemExit("usage: racecheck_probe.py ordered|racy")
racy = mode == "racy"
rounds = 2 if racy else 8
kernel = cp.RawKernel(SOURCE, "ring", options=("-arch=sm_90",))
out = cp.full(32 * rounds, -1, dtype=cp.int32)
kernel((1,), (64,), (out, cp.int32(rounds), cp.int32(racy)))
cp.cuda.Device().synchronize()
if not racy:
    want = cp.asarray([100 * r + (lane + 1) % 32 for r in range(rounds) for lane in range(32)], dtype=cp.int32)
    assert bool((out == want).all()), out.get()
print(f"racecheck probe {mode}: ran {rounds} rounds" + ("" if racy else ", every value delivered"))
