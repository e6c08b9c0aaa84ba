#!/usr/bin/env bash
# v380, in two calls on one warm machine. PART=1 (any card): what bounds the ws form's main loop (VNM_WS_PROBE 1-3 beside
# the form, 4096^2 x 8192 128:2:8 and 128:2:16, X^T given, two turns), then on an H200 issue 3's checks: the mma.sp
# kernel file's GPU tests, memcheck and racecheck of the cp.async launches, the decode grid (T <= 64, every shape).
# PART=2 (H200 only): issue 3's prefill grid (T = 2048, 4096, 8192: the Spatha points at 4096), mma_sp (and on X^T
# given, Spatha's terms) and cuSPARSELt.
# Predicted (H100, 128:2:8; the form ~235 us = 0.61 of one HMMA.SP every 8 cycles a scheduler): 1, the consumers' loop
# alone, 205-225 us (v17's shared-memory-fed ceiling ~0.74 of the register one); 2, its mma.sp alone, 160-175 us
# (~0.87 of the pipe with two warps a scheduler, performance.md); 3, the producers alone, 190-240 us (1.68 GB from L2
# at 7-8.6 TB/s): if 1 and 3 both come near the form's time, the loop and the copies bound it together.
#   OUT=$OUT PART=1 bash scripts/sessions/gpu_v380.sh   (H100 ~80 s; H200 ~400 s)
#   OUT=$OUT PART=2 bash scripts/sessions/gpu_v380.sh   (H200 ~200 s)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "${PART:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  for p in 1 2 3; do
    timeout 90 python -m vnmsparse.cli cache warm --arch sm_90a --match "spmm_mma_sp_ws<__nv_bfloat16, 128, 128, 64, 64, 4, 4" \
      --define VNM_WS_PROBE=$p > /dev/null 2>&1 &
  done; wait; echo "probes compiled ${SECONDS}s"
  probes=(128,128,64,64,4,p4 VNM_WS_PROBE=1 128,128,64,64,4,p4 VNM_WS_PROBE=2 128,128,64,64,4,p4
          VNM_WS_PROBE=3 128,128,64,64,4,p4 defaults 128,128,64,64,4,p4)
  { for i in 1 2; do for pat in 128:2:8 128:2:16; do
      timeout 100 python scripts/tile_sweep.py 4096 4096 8192 $pat "${probes[@]}" 2>&1 | grep -v Warn; done; done; } \
    | tee "$OUT/tile_sweep_probe_${CARD}_v380.txt"
  echo "probes ${SECONDS}s"
  [ "$CARD" = h200 ] || { echo "card: ${CARD:-none}, not an H200: issue 3's checks not run"; exit 0; }
  warm 150 > /dev/null; echo "warm ${SECONDS}s"
  mma_sp_tests "tests_mma_sp_${CARD}_v380" 130
  SANITIZE_ARGS=--cp-async-only sanitize 80; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v380.txt"
  SANITIZE_ARGS=--cp-async-only sanitize $((${RACE_END:-480} - SECONDS)) racecheck
  mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v380.txt"
  grep -cE "rel err" "$OUT/racecheck_cp_async_${CARD}_v380.txt"
  left=$((${END:-585} - SECONDS))
  timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 1,8,32,64 --paths mma_sp,cslt \
    --budget-seconds $((left - 25)) --tag "${CARD}_v380_decode" --no-plot > /dev/null 2>&1
  echo "decode grid exit $? ${SECONDS}s"
  sed -n '/^## Issue/,$p' "$OUT/spmm_${CARD}_v380_decode.md" | grep "decode" | head -4
else
  [ "$CARD" = h200 ] || { echo "card: ${CARD:-none}, not an H200: nothing run"; exit 0; }
  left=$((${END:-560} - SECONDS))
  timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 2048,4096,8192 --paths mma_sp,mma_sp_xt,cslt \
    --budget-seconds $((left - 40)) --tag "${CARD}_v380_prefill" --no-plot > /dev/null 2>&1
  echo "prefill grid exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v380_prefill.md"
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v380_prefill.md" | grep "^|" | head -14
  sed -n '/^## Against the original Spatha/,/^## /p' "$OUT/spmm_${CARD}_v380_prefill.md" | grep "^|" | head -24
fi
echo "total ${SECONDS}s"
