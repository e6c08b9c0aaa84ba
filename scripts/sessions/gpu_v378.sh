#!/usr/bin/env bash
# v376 + v378 (knobs VNM_WS_BULK_A, VNM_WS_BULK_B; off, not measured), one call (~560 s), replacing gpu_v377.sh:
# (1) the ws tests (forms bulk_a, bulk_b, bulk_ab), memcheck of the cp.async launches (cases "bulk A / B / AB"), the
#     sweep twice: classic, ws, ws with A, with B, with both by bulk copies. v375 counted ~2.3 L1 data-pipe wavefronts a
#     HMMA.SP (ldmatrix 1.5, cp.async writes ~0.8: A and codes ~0.3, B ~0.5) against the tensor pipe's ~2 cycles.
#     Predicted (H100, X^T given, 4096^2 x 8192 128:2:8, ws 235-241 us): A 220-235; B 215-230 if the TMA unit keeps
#     up with 64 row copies of 256 B a stage (v2's bulk kernel, one producer warp, did not); both 200-220 (the data
#     pipe then ~1.5 a HMMA: the tensor pipe the bound). Refuted if the bulk writes load the same pipe (no change) or
#     the copies' issue is the new bound (B slower than ws).
# (2) ncu of the ws 128 x 128 form, default and with both knobs: tensor pipe and LSU data-pipe wavefronts (v374's
#     question; predicted: default tensor ~60-65%, data pipe within 5 points; both knobs: data pipe ~15 points under).
# (3) issue 3's grid on the v373 route with the time left (v373's; predicted against v367: 128-row T >= 2048 +0.5..+2%).
#   OUT=$OUT bash scripts/sessions/gpu_v378.sh
source "$(dirname "$0")/../gpu_lib.sh"
ws_knob_ab v378 "bulk" VNM_WS_BULK_A=1 VNM_WS_BULK_B=1 VNM_WS_BULK_A=1,VNM_WS_BULK_B=1
mkdir -p /tmp/ncu_v378
OUT=/tmp/ncu_v378 bash "$(dirname "$0")/../gpu_profile.sh" \
  ncu_ws_${CARD}_v378_128x128 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp \
  ncu_ws_${CARD}_v378_128x128_bulk_ab spmm_mma_sp_ws 4096 4096 8192 128:2:8 \
  "mma_sp spmm_mma_sp.DEFINES={'VNM_WS_BULK_A':1,'VNM_WS_BULK_B':1}" 2>&1 | grep -E "Duration|SM Frequency|Throughput" | head -16
grep -E "Pipe Tensor Cycles Active|Data Pipe Lsu Wavefronts|L2 Cache Throughput" /tmp/ncu_v378/*.txt | head -12
tar czf "$OUT/ncu_ws_${CARD}_v378.tgz" -C /tmp/ncu_v378 . ; echo "ncu ${SECONDS}s"
END=580 prefill_grid v373
echo "total ${SECONDS}s"
