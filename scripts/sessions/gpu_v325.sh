#!/usr/bin/env bash
# v325 (prepared, not run): what bounds the slab tiles (NOTES Next 5; v322 and v324 ruled out the copy and the step's
# serial chain). ncu of LLaMA-7B gate/up (11008 x 4096) 128:2:8 at T = 16 and 32 (the slab's step grows by ~190 ns
# from one to the other), the narrow tile on X^T (the route) against its slab form (SLAB_X on). Predicted: the slab
# kernel's L2 -> shared bytes ~2x the narrow tile's (M / 4 = 2 at M = 8), TMA-bound at ~10 B/clk an SM (v320: ~17
# cycles a one-row box; a slab box is BN rows of 128 bytes), visible as low issue activity with the producer waiting
# on slab_full; if instead the consumers wait on full with the slabs landed, the copy's stores are the next suspect.
#   OUT=$OUT bash scripts/sessions/gpu_v325.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats"
for t in 16 32; do
  for slab in False True; do
    echo "== 11008 x 4096 128:2:8 T = ${t}, SLAB_X = ${slab}"
    timeout 90 ncu --clock-control none $S \
      -k regex:"spmm_wgmma_sp" --launch-skip 6 --launch-count 1 \
      python scripts/profile_spmm.py 11008 4096 $t 128:2:8 auto "spmm_wgmma_sp.SLAB_X=${slab}" 2>&1 | grep -v "^==PROF==" | grep -E \
      "spmm_|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Memory Throughput|Issued Warp|No Eligible|Stall"
  done
done | tee "$OUT/ncu_slab_${CARD}_v325.txt"
echo "total ${SECONDS}s"
