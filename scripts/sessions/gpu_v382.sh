#!/usr/bin/env bash
# v382: the ws kernel's persistent form (128 x 256, 3 stages, one CTA an SM striding over the tiles, the epilogue's tile
# beside the ring): its GPU tests (every ws form; the persistent one on 3 SMs as the launch sees them), memcheck and
# racecheck of the cp.async launches (the persistent one on 2 CTAs), then the tile sweep twice: the ws 128 x 128 form,
# the persistent one, and the persistent one's producers alone (VNM_WS_PROBE=3), 4096^2 x 8192 at 128:2:8 / 16 / 32 and
# 11008 x 4096 x 8192 128:2:8, X^T given. (On an H200, gpu_v380.sh's two parts next, issue 3's checks and grids.)
# Predicted (H100; NOTES, nineteenth session): producers alone 160-170 us at 128:2:8 (A read once per 256 tokens: 0.82
# of the 128 x 128 form's bytes, whose producers alone took 197), the form 188-210 against 229-236; 128:2:16 88-100 and
# 105-120 against 129-131.
#   OUT=$OUT bash scripts/sessions/gpu_v382.sh   (~400 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob spmm_mma_sp_ws &
warm_knob "spmm_mma_sp_ws<__nv_bfloat16, 128, 256, 64, 64, 3, 4, true, true>" VNM_WS_PROBE=3 > /dev/null &
wait; echo "warm ${SECONDS}s"
mma_sp_tests "tests_ws_${CARD}_v382" 150 -k "warp_specialised"
SANITIZE_ARGS=--cp-async-only sanitize 100; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v382.txt"
grep -c "ws4p128x256w64x64s3P" "$OUT/memcheck_cp_async_${CARD}_v382.txt"
specs=(128,128,64,64,4,p4 128,256,64,64,3,p4P VNM_WS_PROBE=3 128,256,64,64,3,p4P defaults)
{ for i in 1 2; do
    for pat in 128:2:8 128:2:16 128:2:32; do
      timeout 60 python scripts/tile_sweep.py 4096 4096 8192 $pat "${specs[@]}" 2>&1 | grep -v Warn; done
    timeout 60 python scripts/tile_sweep.py 11008 4096 8192 128:2:8 "${specs[@]}" 2>&1 | grep -v Warn; done; } \
  | tee "$OUT/tile_sweep_persistent_${CARD}_v382.txt"
echo "sweep ${SECONDS}s"
SANITIZE_ARGS=--cp-async-only sanitize 120 racecheck; mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v382.txt"
grep -c "ws4p128x256w64x64s3P" "$OUT/racecheck_cp_async_${CARD}_v382.txt"
echo "v382 ${SECONDS}s"
