#!/usr/bin/env bash
# v315: does the gathered prefill re-read X^T from DRAM? (an energy lever if so: v312 put the gather at 28-36% of a
# call's energy). ncu (clocks not locked, L2 flushed before the kernel: X^T starts in DRAM) of the wgmma.sp kernel,
# `auto` on row-major X (the transpose kernel is not counted): DRAM bytes read / written, L2 hit rate, duration.
# Predicted: 4096^2 x 8192 128:2:8 reads ~80-120 MB (X^T 64 MB + the weight ~10 MB, some re-reads), 8192^3 ~150-250
# MB (X^T 128 MB): if the reads exceed ~2x that floor, raster order is worth an energy A/B.
#   OUT=$OUT bash scripts/sessions/gpu_v315.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,lts__t_bytes.sum
for s in "4096 4096 8192 128:2:8" "4096 4096 8192 128:2:16" "4096 4096 8192 64:2:16" "4096 4096 8192 2:4" "8192 8192 8192 128:2:8"; do
  echo "== $s"
  timeout 90 ncu --clock-control none --metrics $M -k regex:spmm_wgmma --launch-skip 3 --launch-count 1 \
    python scripts/profile_spmm.py $s auto 2>&1 | grep -E "spmm_wgmma|dram__|lts__|gpu__time" | sed 's/  */ /g'
done | tee "$OUT/ncu_dram_${CARD}_v315.txt"
echo "total ${SECONDS}s"
