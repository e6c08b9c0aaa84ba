#!/usr/bin/env bash
# v111 (run with commit 7f5b5a5's kernel files restored for the call): ncu per-SASS stall samples
# of v110's four-warpgroup tile (wg256x128s6t1) beside 128 x 256 at 4096^2 x 8192, plain 2:4.
source scripts/gpu_lib.sh
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for tile in wg256x128s6t1 wg128x256s6r1; do
  timeout 120 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
    -f -o /tmp/p_$tile python scripts/probes/gathered_call.py 4096x4096x8192:2:4 1 $tile > /dev/null 2>&1
  ncu --import /tmp/p_$tile.ncu-rep --page details > "$OUT/sol_$tile.txt" 2>&1
  ncu --import /tmp/p_$tile.ncu-rep --page source --print-source sass --csv > "$OUT/sass_$tile.csv" 2>&1
  grep -E "Duration|Compute \(SM\)|L1/TEX Cache|L2 Cache|Warp Cycles Per Issued" "$OUT/sol_$tile.txt" | head -6
done
