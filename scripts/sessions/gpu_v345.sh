#!/usr/bin/env bash
# v345: what the gathered prefill's bytes meet. (1) L2 -> SM read bandwidth alone (l2_probe.py: ld.global.cg and
# 16-byte cp.async over an 8 / 24 MB L2-resident buffer, every SM, no math). Predicted ~5.5-7 TB/s (the 128 x 64
# mma.sp tile already moves ~6 TB/s at 4096^2 x 8192 128:2:8: 2.2 GB in 374 us). (2) the transpose of X for the
# gathered forms alone against a copy of the same bytes, and the SpMM on row-major X against X^T given
# (transpose_time.py; v344: plain 2:4's transpose path cost 112 us at 4096^2 x 8192, more than its ~45 us of
# bytes). Predicted transpose ~50-60 us (2.1-2.6 TB/s), copy ~43 us. (3) ncu of the narrow 128 x 64 tile (v342's
# failed): predicted L2 throughput 75-90%, the stalls long scoreboard / barrier.
#   OUT=$OUT bash scripts/sessions/gpu_v345.sh      (~200 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm > /dev/null
{ timeout 60 python scripts/l2_probe.py
  timeout 150 python scripts/transpose_time.py
  timeout 60 python scripts/transpose_time.py --shapes 8192x4096 --pattern 128:2:32; } 2>&1 | grep -v Warn \
  | tee "$OUT/l2_transpose_${CARD}_v345.txt"
bash "$(dirname "$0")/../gpu_profile.sh" \
  ncu_mma_sp_${CARD}_v345_narrow spmm_mma_sp 4096 4096 8192 128:2:8 "mma_sp spmm_mma_sp.WIDE_PREFILL_COST=9" 2>&1 | tail -12
grep -E "L2 Cache Throughput|lts__t_|Memory Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Stall (Wait|Long|Short|Barrier|Math)" \
  "$OUT"/ncu_*_v345_*.txt | head -20
echo "total ${SECONDS}s"
