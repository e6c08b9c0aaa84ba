#!/usr/bin/env bash
# v98: what holds the gathered wgmma.sp tile at ~0.4 us a stage at T <= 64 (v95, v96): per-kernel
# times of the call (transpose / SpMM) and ncu of the SpMM on LLaMA gate/up 128:2:8 at T = 1 (86
# CTAs, no K split, 32 stages each).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
timeout 60 python scripts/kernel_times.py 11008x4096x1:128:2:8,11008x4096x64:128:2:8 --splits 1 2>&1 | grep -v Warn | tee "$OUT/kernel_times_v98.txt"
timeout 120 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section LaunchStats --section Occupancy \
  python scripts/probes/gathered_call.py 11008x4096x1:128:2:8 1 > "$OUT/ncu_gathered_t1_v98.txt" 2>&1
echo "ncu exit $?"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Issued Warp|Stall|stalled" "$OUT/ncu_gathered_t1_v98.txt" | head -20
echo "total ${SECONDS}s"
