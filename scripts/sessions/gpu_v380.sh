#!/usr/bin/env bash
# v380, in two calls on one warm machine.
# PART=1: on an H200, issue 3's checks and grids, most needed first: the mma.sp kernel file's GPU tests, memcheck of the
# cp.async launches, the decode grid (T <= 64, every shape), the prefill grid (T = 2048, 4096, 8192: the Spatha points
# at 4096), mma_sp and cuSPARSELt beside cuBLAS. On any other card: the probes below.
# PART=2 (H200 only): the probes, racecheck of the cp.async launches, and mma_sp on X^T given (Spatha's terms) at its points.
# The probes: what bounds the ws form's main loop (VNM_WS_PROBE 1-3 beside the form, 4096^2 x 8192 128:2:8 and 128:2:16,
# X^T given, two turns). Predicted (H100, 128:2:8; the form ~235 us = 0.61 of one HMMA.SP every 8 cycles a scheduler):
# 1, the consumers' loop alone, 205-225 us (v17's shared-memory-fed ceiling ~0.74 of the register one); 2, its mma.sp
# alone, 160-175 us (~0.87 of the pipe with two warps a scheduler, performance.md); 3, the producers alone, 190-240 us
# (1.68 GB from L2 at 7-8.6 TB/s): if 1 and 3 both come near the form's time, the loop and the copies bound it together.
#   OUT=$OUT PART=1 bash scripts/sessions/gpu_v380.sh   (H100 ~80 s; H200 ~430 s)
#   OUT=$OUT PART=2 bash scripts/sessions/gpu_v380.sh   (H200 ~300 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
probes() {
  for p in 1 2 3; do warm_knob "spmm_mma_sp_ws<__nv_bfloat16, 128, 128, 64, 64, 4, 4" VNM_WS_PROBE=$p > /dev/null & done
  wait; echo "probes compiled ${SECONDS}s"
  # (128 x 256, one CTA an SM: do its producers alone fall to ~160 us at 128:2:8, A read once per 256 tokens?)
  local specs=(128,128,64,64,4,p4 VNM_WS_PROBE=1 128,128,64,64,4,p4 VNM_WS_PROBE=2 128,128,64,64,4,p4
               VNM_WS_PROBE=3 128,128,64,64,4,p4 128,256,64,64,3,p4 defaults 128,128,64,64,4,p4 128,256,64,64,3,p4)
  { for i in 1 2; do for pat in 128:2:8 128:2:16; do
      timeout 100 python scripts/tile_sweep.py 4096 4096 8192 $pat "${specs[@]}" 2>&1 | grep -v Warn; done; done; } \
    | tee "$OUT/tile_sweep_probe_${CARD}_v380.txt"
  echo "probes ${SECONDS}s"
}
if [ "${PART:-1}" = 1 ]; then
  [ "$CARD" = h200 ] || { probes; echo "card: ${CARD:-none}, not an H200: issue 3's checks not run"; exit 0; }
  warm 150 > /dev/null; echo "warm ${SECONDS}s"
  mma_sp_tests "tests_mma_sp_${CARD}_v380" 130
  SANITIZE_ARGS=--cp-async-only sanitize 80; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v380.txt"
  grid v380_decode 1,8,32,64 mma_sp,cslt $((SECONDS + 55))
  sed -n '/^## Issue/,$p' "$OUT/spmm_${CARD}_v380_decode.md" | grep "decode" | head -4
  grid v380_prefill 2048,4096,8192 mma_sp,cslt ${END:-430}
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v380_prefill.md" | grep "^|" | head -14
else
  [ "$CARD" = h200 ] || { echo "card: ${CARD:-none}, not an H200: nothing run"; exit 0; }
  probes
  SANITIZE_ARGS=--cp-async-only sanitize 150 racecheck
  mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v380.txt"
  grep -cE "rel err" "$OUT/racecheck_cp_async_${CARD}_v380.txt"; tail -1 "$OUT/racecheck_cp_async_${CARD}_v380.txt"
  grid v380_spatha 4096,8192 mma_sp_xt ${END:-560} --shapes bert.ffn1,bert.ffn2,llama7b.qkvo,8192x8192
  sed -n '/^## Against the original Spatha/,/^## /p' "$OUT/spmm_${CARD}_v380_spatha.md" | grep "^|" | head -30
fi
echo "total ${SECONDS}s"
