#!/usr/bin/env bash
# v99 (prepared, not run): the gathered tile at T = 1 with A through the staged ring (wg128x64s12t1,
# v95: no faster than A in registers) beside plain 2:4's staged tile on the same rows (3.1 TB/s on
# LLaMA gate/up at T = 1, v89), ncu of each: where the gathered producer's stages go (stall
# reasons, L2 sectors per request of the 64 gathered X^T rows, SM active cycles). Compare with
# v98's profile of the register tile (`results/profiles/ncu_gathered_t1_v98.txt`).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SourceCounters --section LaunchStats"
timeout 120 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 3 --launch-count 1 $sections \
  python scripts/probes/gathered_call.py 11008x4096x1:128:2:8 1 wg128x64s12t1 > "$OUT/ncu_gathered_t1_staged_v99.txt" 2>&1
timeout 120 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 3 --launch-count 1 $sections \
  python scripts/probes/gathered_call.py 11008x4096x1:2:4 1 > "$OUT/ncu_2to4_t1_staged_v99.txt" 2>&1
for f in "$OUT"/ncu_*_v99.txt; do echo "== $f"; grep -E "Duration|DRAM Throughput|SM Active|Grid Size|Issued Warp" "$f"; done
echo "total ${SECONDS}s"
