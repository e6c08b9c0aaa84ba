#!/usr/bin/env bash
# v318 (prepared, not run): why v317's wider two-block limits lost on some weights: ncu of a loser and a winner of the
# same T x m, each on the narrow wgmma.sp tile (the route now) and on two-block decode CTAs (the wide limits):
# 10240 x 8192 64:2:16 T = 6 (v317: 13.22 -> 15.28 us) against 6144 x 8192 64:2:16 T = 6 (10.73 -> 8.40).
# Predicted: the loser's decode plan leaves SMs idle or runs a second wave (80 row tiles of 128 x its splits against
# 48 for the winner), visible as achieved occupancy and DRAM throughput; if both plans look alike, the X slices'
# L2 traffic (sectors per request) is next.
#   OUT=$OUT bash scripts/sessions/gpu_v318.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
WIDE="spmm_wgmma_sp.DECODE_TWO_BLOCKS_OVER_NARROW=(128, 9961472, 42991616)"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
for r in 10240 6144; do
  for limits in route wide; do
    echo "== ${r} x 8192 64:2:16 T = 6, ${limits}"
    set_arg=(); [ $limits = wide ] && set_arg=("$WIDE")
    timeout 90 ncu --clock-control none $S -k regex:"spmm_mma_sp_decode|spmm_wgmma_sp|splitk" --launch-skip 6 --launch-count 2 \
      python scripts/profile_spmm.py $r 8192 6 64:2:16 auto ${set_arg[@]+"${set_arg[@]}"} 2>&1 | grep -v "^==PROF==" | grep -E \
      "spmm_|splitk|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Waves Per SM|Grid Size|Registers|L2 Hit|Eligible|Issued Warp"
  done
done | tee "$OUT/ncu_two_block_${CARD}_v318.txt"
echo "total ${SECONDS}s"
