#!/usr/bin/env bash
# v359 (knob VNM_CODES_PAIRED, off by default): the layouts' codes stored as each lane reads them (pair_codes), so a
# thread's metadata words are one 8-byte load an m-tile with no byte permutes. SASS (sm_90a, bf16), loop instructions
# a stage, off -> on: 128 x 128 gathered 246 -> 232, 64 x 128 191 -> 185, decode 64 x 64 138 -> 135; no spills.
# (1) the kernel file's GPU tests with the knob on (the layouts built with it), (2) sweep off / on in one process per
# shape (tile_sweep re-packs the weight after a knob), twice. Predicted 128 x 128 128:2:8 -3..-5%, 64:2:8 -1..-3%.
# v360 (knob VNM_MMA_UNROLL_STAGES, off by default) in the same sweep: the main loop unrolled by STAGES, its buffers'
# offsets immediates; 64 x 128 191 -> 173 instructions a stage (166 with v359), 128 x 128 246 -> 227 (212) but with
# 8-48 bytes of spills on the 128-row tiles. Predicted 64:2:8 -5..-8%, 128 x 128 even or worse (the spill).
# Then, with the time left, issue 3's grid (gpu_v356.sh's) on the default code.
#   OUT=$OUT bash scripts/sessions/gpu_v359.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
timeout 240 python -c "
import sys, pytest
from vnmsparse.kernels import spmm_mma_sp as K
K.DEFINES['VNM_CODES_PAIRED'] = 1
sys.exit(pytest.main(['-q', '-m', 'gpu', '-p', 'no:cacheprovider', 'tests/test_spmm_mma_sp.py', '-k',
                      'every_tile or row_major_x_on_every or test_patterns or split_k or warp_specialised']))
" > "$OUT/tests_paired_${CARD}_v359.txt" 2>&1
tail -2 "$OUT/tests_paired_${CARD}_v359.txt"; echo "tests ${SECONDS}s"
sweep() {  # plain, paired codes, paired + unrolled (v360), unrolled
  timeout 80 python scripts/tile_sweep.py "$@" VNM_CODES_PAIRED=1 "${@:5}" VNM_MMA_UNROLL_STAGES=1 "${@:5}" \
    VNM_CODES_PAIRED=0 "${@:5}" 2>&1 | grep -v Warn; }
{ for i in 1 2; do
  sweep 4096 4096 8192 128:2:8 128,128,64,64,3
  sweep 4096 4096 8192 128:2:16 128,128,64,64,3
  sweep 4096 4096 8192 64:2:8 64,128,32,64,3
  sweep 4096 4096 64 64:2:8 64,64,16,64,3; done; } | tee "$OUT/tile_sweep_${CARD}_v359.txt" | grep -E "tile|dense|PAIRED"
echo "sweep ${SECONDS}s"
left=$((${END:-585} - SECONDS))
[ $left -gt 120 ] || { echo "no time left for the grid (${SECONDS}s)"; exit 0; }
timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 2048,8192 --paths mma_sp,cslt \
  --budget-seconds $((left - 30)) --tag ${CARD}_v359_prefill --no-plot > /dev/null 2>&1
echo "bench exit $? ${SECONDS}s"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v359_prefill.md" | grep "^|" | head -14
echo "total ${SECONDS}s"
