#!/usr/bin/env bash
# v374 (gpu_v370's ncu, without the grid: little device time left): what bounds the routed two-CTA ws forms,
# 4096^2 x 8192, 128 x 128 at 128:2:8 and 64 x 256 at 64:2:8. Predicted (gpu_v370.sh): 128 x 128 tensor pipe ~60-65%,
# L2 ~65-70% of ncu's peak, the consumers' stalls at the full-barrier wait rather than at the mma.sp.
#   OUT=$OUT bash scripts/sessions/gpu_v374.sh      (~150 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash "$(dirname "$0")/../gpu_profile.sh" ncu_ws_${CARD}_v374_128x128 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp \
  ncu_ws_${CARD}_v374_64x256 spmm_mma_sp_ws 4096 4096 8192 64:2:8 mma_sp 2>&1 | grep -v "^-\|^total\|^d" | tail -24
grep -E "L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Compute \(SM\)" \
  "$OUT"/ncu_ws_*_v374_*.txt | head -12
echo "total ${SECONDS}s"
