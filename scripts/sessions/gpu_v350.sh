#!/usr/bin/env bash
# v350: the warp-specialised mma.sp kernel with v349's address treatment (producer loop 276 -> 147 instructions a
# stage, consumer 178 -> 148; A copies of both kernels from ACopies' per-thread offsets). Main's kernel against the
# branch's in one tile sweep (4096^2 x 8192, X^T given), then the kernel file's GPU tests, then memcheck of the
# cp.async kernels (classic, wide, ws). Predicted: ws 128 x 128 128:2:8 from ~classic (~300 us) to ~230-260
# (-15..-25%: a scheduler's issue 454 -> 295 of 512 mma.sp cycles); classic within +-3% (its loop 183 -> 182).
# v351 knob VNM_WS_PIPE=1 (the consumer's next stage waited for and its A loaded between a stage's k-steps, k-step
# 1's B before the wait): a further -5..-10% on ws tiles (a stage's start, ~60-80 of ~512 cycles, hidden).
#   (from main: git archive the branch into build/ws, carry it)  cd build/ws && OUT=$OUT bash scripts/sessions/gpu_v350.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
main() { PYTHONPATH=$PWD/../../src timeout 60 python ../../scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn | sed "s/^/[main] /"; }
branch() { timeout 80 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn; }
{ main 4096 4096 8192 128:2:8 128,64,64,32,4 128,128,64,64,6,0,4
  branch 4096 4096 8192 128:2:8 128,64,64,32,4 128,128,64,64,3 128,128,64,64,6,0,4 VNM_WS_PIPE=1 128,128,64,64,6,0,4
  main 4096 4096 8192 64:2:8 64,128,32,32,4 64,256,64,64,5,0,4
  branch 4096 4096 8192 64:2:8 64,128,32,32,4 64,256,64,64,5,0,4 VNM_WS_PIPE=1 64,256,64,64,5,0,4
  branch 4096 4096 8192 128:2:16 128,64,64,32,4 128,128,64,64,6,0,4 VNM_WS_PIPE=1 128,128,64,64,6,0,4
  branch 4096 4096 8192 2:4 128,64,64,32,4 128,128,64,64,6,0,4 VNM_WS_PIPE=1 128,128,64,64,6,0,4; } | tee "$OUT/tile_sweep_${CARD}_v350.txt" | grep -E "tile|dense"
echo "sweep ${SECONDS}s"
gpu_tests $((${TESTS_END:-330} - SECONDS)) tests/test_spmm_mma_sp.py -k "every_tile or row_major_x_on_every or test_patterns or split_k or warp_specialised"
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v350.txt"
SANITIZE_ARGS=--cp-async-only sanitize $((${END:-560} - SECONDS)); mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v350.txt"
echo "total ${SECONDS}s"
