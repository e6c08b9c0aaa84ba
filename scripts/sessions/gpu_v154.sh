#!/usr/bin/env bash
# v154: would two CTAs per SM hide the high-M prefill's epilogue (each CTA's Y stores beside the
# other's gather and math)? The 64-row tiles already run two per SM (wg64x128s6r1: 99 KB, one
# consumer warpgroup) and V = 128 admits them (at twice the gathered-B reads per output). Predicted:
# if the stores are a per-CTA serial phase, 64 x 128 (2/SM) beats 128 x 256 (1/SM) at 2:128 by
# 15-30%; if the SM's store path (~12 B/clk, v150-v153, the DRAM write rate of a plain fill) bounds
# it, even or slower (2x the gathered reads). Then ncu memory totals of two of those calls.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x11008x4096:128:2:128,4096x4096x4096:128:2:64,4096x4096x4096:128:2:32
timeout 200 python scripts/ab_wgmma.py TILE=auto,wg64x128s6r1,wg64x128s6r1p,wg128x128s10r1,auto --path wgmma_sp --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_two_per_sm_prefill_h200_v154.txt"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
N="$OUT/ncu_prefill_memory_h200_v154.txt"
for spec in "11008 4096 8192 128:2:128" "4096 4096 4096 128:2:32"; do
  echo "== $spec" >> "$N"
  timeout 90 ncu --clock-control none -k regex:spmm_wgmma -s 2 -c 1 --metrics $M python scripts/profile_spmm.py $spec wgmma_sp >> "$N" 2>&1
done
grep -E "==|spmm_wgmma_sp<|gpu__|dram__|lts__|l1tex__|sm__|rror" "$N" | cut -c1-150
echo "total ${SECONDS}s"
