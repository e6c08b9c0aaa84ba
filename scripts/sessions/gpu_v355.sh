#!/usr/bin/env bash
# v355: the cp.async prefill tiles in clusters of two token tiles sharing A and its codes by multicast bulk copies
# (sm_90a; opt-in tile). L2 -> SM bytes of 4096^2 x 8192 128:2:8 1.68 -> 1.41 GB (A 0.54 -> 0.27). (1) the multicast
# GPU tests, (2) sweep: each shape's tile plain / multicast, twice in turns, (3) memcheck of the cp.async launches
# (multicast tiles included). Predicted (v353: ~84% of the L2 probe's rate): 128 x 128 128:2:8 -8..-14%, 128:2:16
# -6..-10%, 2:4 -5..-10% (more math a byte), 64 x 128 64:2:8 -3..-6% (A is a smaller share of a 64-row tile's bytes).
#   OUT=$OUT bash scripts/sessions/gpu_v355.sh      (~300 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py -k "multicast"
mv "$OUT/gpu_tests.txt" "$OUT/tests_multicast_${CARD}_v355.txt"
grep -q " passed" "$OUT/tests_multicast_${CARD}_v355.txt" && ! grep -q "failed" "$OUT/tests_multicast_${CARD}_v355.txt" || exit 1
sweep() { timeout 60 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn; }
{ for i in 1 2; do
  sweep 4096 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,3,0,0,1
  sweep 11008 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,3,0,0,1
  sweep 4096 4096 8192 128:2:16 128,128,64,64,3 128,128,64,64,3,0,0,1
  sweep 4096 4096 8192 2:4 128,128,64,64,3 128,128,64,64,3,0,0,1 128,128,64,64,3/x 128,128,64,64,3,0,0,1/x
  sweep 4096 4096 8192 64:2:8 64,128,32,64,3 64,128,32,64,3,0,0,1
  sweep 4096 4096 2048 128:2:8 128,128,64,64,3 128,128,64,64,3,0,0,1; done; } | tee "$OUT/tile_sweep_${CARD}_v355.txt" | grep -E "tile|dense"
echo "sweep ${SECONDS}s"
SANITIZE_ARGS=--cp-async-only sanitize $((${END:-400} - SECONDS)); mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v355.txt"
echo "total ${SECONDS}s"
