#!/usr/bin/env bash
# After v367 (NOTES "Next" (1)): what bounds the two-CTA ws forms that the gathered prefill runs on sm_90a. ncu of the
# routed 128 x 128 tile (4096^2 x 8192 128:2:8: 235 us, ~7 TB/s from L2) and of the 64 x 256 one (64:2:8: 286 us,
# ~8.4 TB/s), each with the per-instruction stall samples (.hot.txt). Predicted: 128 x 128 tensor pipe ~60-65% (v353's
# classic 51%), L2 ~65-70% of ncu's peak, the consumers' stalls at the full-barrier wait (the producers' ring
# running dry) rather than at the mma.sp; if instead the consumers wait on their fragments (short scoreboard at
# the first HMMA of a stage), the next lever is the consumer's stage start, not bytes (v369's multicast).
#   OUT=$OUT bash scripts/sessions/gpu_v370.sh      (~200 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm > /dev/null
bash "$(dirname "$0")/../gpu_profile.sh" ncu_ws_${CARD}_v370_128x128 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp \
  ncu_ws_${CARD}_v370_64x256 spmm_mma_sp_ws 4096 4096 8192 64:2:8 mma_sp 2>&1 | tail -24
grep -E "L2 Cache Throughput|Memory Throughput|Achieved Occupancy|No Eligible|Stall (Wait|Long|Short|Barrier|Math)|pipe_tensor|Tensor" \
  "$OUT"/ncu_ws_*_v370_*.txt | head -30
echo "total ${SECONDS}s"
