#!/usr/bin/env bash
# v373: (1) v370's ncu of the routed two-CTA ws 128 x 128 form (4096^2 x 8192 128:2:8; prediction in gpu_v370.sh:
# tensor pipe ~60-65%, L2 ~65-70%, consumers stalled at the full-barrier wait rather than at the mma.sp), (2) issue
# 3's grid on the final route (v373: the ws form over the narrow tile but for 1-2 CTAs an SM). Predicted against
# v367: 128-row patterns at T >= 2048 +0.5..+2% (gate/up T = 2048 and the BERT shapes change tile), the rest even.
#   OUT=$OUT bash scripts/sessions/gpu_v373.sh      (~380 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm
bash "$(dirname "$0")/../gpu_profile.sh" ncu_ws_${CARD}_v373_128x128 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp 2>&1 | tail -14
grep -E "L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Registers Per|Compute \(SM\)" \
  "$OUT"/ncu_ws_*_v373_*.txt | head -12
echo "ncu ${SECONDS}s"
END=390 prefill_grid v373
echo "total ${SECONDS}s"
