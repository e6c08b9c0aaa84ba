#!/usr/bin/env bash
# The next session's first call (~560 s), what this one prepared and could not run (no device time):
# (1) v376 (knob VNM_WS_BULK_A): the ws tests with the bulk_a form, memcheck, the A/B sweep (gpu_v376.sh's
#     predictions: 128:2:8 235-241 -> 220-235 us; refuted if the bulk writes load the same L1 data pipe);
# (2) v374: ncu of the routed two-CTA ws 128 x 128 form at 4096^2 x 8192 128:2:8, without and with the knob (v375's
#     count: LSU data-pipe wavefronts as busy as the tensor pipe; predicted for the ws form: tensor ~60-65%, data pipe
#     within 5 points of it; with the knob the data pipe ~10 points under the tensor pipe if the TMA's writes leave it);
# (3) v373: issue 3's grid on the final route (predicted against v367: 128-row patterns at T >= 2048 +0.5..+2%).
# Files: tests, memcheck, sweep, one tarball of the ncu reports' text, the grid's csv and md (6 of the 8 allowed).
#   OUT=$OUT bash scripts/sessions/gpu_v377.sh
source "$(dirname "$0")/../gpu_lib.sh"
ws_knob_ab v376 "bulk A" VNM_WS_BULK_A=1
mkdir -p /tmp/ncu_v377
OUT=/tmp/ncu_v377 bash "$(dirname "$0")/../gpu_profile.sh" \
  ncu_ws_${CARD}_v377_128x128 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp \
  ncu_ws_${CARD}_v377_128x128_bulk_a spmm_mma_sp_ws 4096 4096 8192 128:2:8 "mma_sp spmm_mma_sp.DEFINES={'VNM_WS_BULK_A':1}" \
  2>&1 | grep -E "Duration|SM Frequency|Throughput" | head -16
grep -E "Pipe Tensor Cycles Active|Data Pipe Lsu Wavefronts|L2 Cache Throughput" /tmp/ncu_v377/*.txt | head -12
tar czf "$OUT/ncu_ws_${CARD}_v377.tgz" -C /tmp/ncu_v377 . ; echo "ncu ${SECONDS}s"
END=580 prefill_grid v373
echo "total ${SECONDS}s"
