#!/usr/bin/env bash
# v54: 2:4 prefill, ours against cuSPARSELt's algorithms under ncu (4096^2 x 8192): speed of light,
# warp states, scheduler and instruction statistics side by side (NOTES "Next GPU session" 3).
source "$(dirname "$0")/../gpu_lib.sh"
timeout 60 python -m vnmsparse.cli cache warm --arch sm_90a 2>&1 | tail -1
timeout 200 ncu --clock-control none -k "regex:sm90_xmma|spmm_wgmma" --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy \
  python scripts/ncu_vs_cslt.py 4096x4096x8192 > "$OUT/ncu_vs_cslt_v54.txt" 2>&1
grep -E "sm90_xmma|spmm_wgmma|Duration|SM Frequency|Issue Slots Busy|Issued Ipc|No Eligible|Eligible Warps|Active Warps Per|Warp Cycles Per Issued|Stall|Executed Instructions  |Registers Per|Block Size|Grid Size|Cluster" "$OUT/ncu_vs_cslt_v54.txt" | head -120
echo "total ${SECONDS}s"
