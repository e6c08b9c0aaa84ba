#!/usr/bin/env bash
# v37b: K splits within one wave (wgmma.sp decode tiles; the cp.async tiles' wave is 2 CTAs per SM),
# the decode regime's grid at T = 1-64 with every path (routes between the decode kernel, the
# cp.async kernel and wgmma.sp to be re-drawn from it), and the cp.async path's splits A/B.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v37b.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 300 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,24,32,48,64 \
  --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v37d > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -20
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 120 python scripts/ab_wgmma.py SPLITS=0,1,2,4,8 --path mma_sp --shapes \
  11008x4096x32:128:2:8,4096x11008x32:128:2:8,4096x4096x64:64:2:8,11008x4096x16:64:2:16,1024x4096x16:128:2:32 2>&1 | tee "$OUT/ab_mma_splits.txt" | tail -6
