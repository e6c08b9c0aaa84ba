#!/usr/bin/env bash
# The first device call of the next session (NOTES.md, "Next GPU session"): probes, GPU tests,
# sanitizers and the quick grid with the new decode path, the TMA-gather A/B if the probe allows it,
# and the two profiles. Leaves <= 8 files in $OUT. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
python scripts/tma_row_probe.py 2>&1 | tee "$OUT/probes.txt" | tail -1
VNM_SANITIZERS="memcheck synccheck" OUT=$OUT bash scripts/gpu_check.sh --quick --no-plot \
  --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v11q 2>&1 | grep -E "passed|failed|sanitizer|^\| (2:4|64:2:8|128:2:8|128:2:32) " | head -30
cat "$OUT/memcheck.txt" "$OUT/synccheck.txt" > "$OUT/sanitize.txt" 2>/dev/null; rm -f "$OUT/memcheck.txt" "$OUT/synccheck.txt" "$OUT/env.txt"
if grep -q "fits the wgmma B image" "$OUT/probes.txt"; then
  timeout 150 python scripts/ab_wgmma.py VNM_WG_TMA_GATHER=0,1 --shapes \
    4096x4096x8192:128:2:8,4096x4096x8192:64:2:16,11008x4096x4096:128:2:16,1000x1003x300:64:2:8 2>&1 | tee -a "$OUT/probes.txt"
fi
NCU="ncu --clock-control none --launch-skip 2 -c 1"
timeout 120 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis_Chart \
  -k regex:spmm_wgmma python scripts/profile_spmm.py 4096 4096 8192 2:4 wgmma_sp > "$OUT/ncu.txt" 2>&1
timeout 90 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:decode \
  python scripts/profile_spmm.py 4096 4096 1 64:2:8 mma_sp_decode >> "$OUT/ncu.txt" 2>&1
ls "$OUT"
