#!/usr/bin/env bash
# v340: the sm80 layout in blocks of 16 rows, each block's stage contiguous (A 1 KB, codes 128 B), so that every copy
# instruction of the cp.async mma.sp kernel asks L2 for 4 whole lines: a 128 x 64 stage 320 -> 136 requests (A 128
# -> 64, codes 128 -> 8, B 64); main loop 327 -> 302 SASS instructions, same 9 copies a thread, registers 165 -> 168.
# v338's ncu had L2's tag requests 91% busy (sectors 55%) and whole-line B (512 -> 320) gave -9..-16% on 128 x 64.
# Predicted: prefill -5..-15% (128 x 64 and 128 x 256), decode tiles even or better; the sectors (then ~70-80%) the
# next bound. (1) the GPU tests of the mma.sp kernels, the ops / nn / autotune ones that run them, v20's SMEM_A tiles (now given
# the row-major form by rows_of), and memcheck; (2) tile_sweep, v339's code (build/old, carried)
# against this, alternating; (3) the quick grid's `mma_sp` path if time remains.
#   (git archive HEAD~N src | tar -x -C build/old)   OUT=$OUT bash scripts/sessions/gpu_v340.sh      (~520 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
gpu_tests 200 tests/test_autotune.py tests/test_nn.py tests/test_ops.py tests/test_serialization.py \
  tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py::test_every_smem_a_tile
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v340.txt"
sanitize 70; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v340.txt"
sweep() {  # sweep R K T PATTERN TILES...: old then new, twice
  for rep in 1 2; do for tree in old new; do
    src=$PWD/src; [ $tree = old ] && src=$PWD/build/old/src
    echo "[$tree]"; PYTHONPATH=$src timeout 60 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn
  done; done
}
{ sweep 4096 4096 8192 128:2:8 128,64,64,32,4 128,256,64,64,3
  sweep 4096 4096 8192 128:2:16 128,64,64,32,4 128,256,64,64,3
  sweep 4096 4096 8192 2:4 128,64,64,32,4 128,256,64,64,3
  sweep 4096 4096 8192 64:2:8 64,128,32,32,4
  sweep 4096 4096 64 128:2:8 64,64,16,64,3 128,64,32,64,6
  sweep 11008 4096 2048 128:2:8 128,64,64,32,4; } | tee "$OUT/tile_sweep_${CARD}_v340.txt" | grep -E "^\[|tile"
echo "sweep ${SECONDS}s"
left=$((560 - SECONDS))
if [ $left -gt 60 ]; then
  timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 16,64,1024,2048,8192 \
    --paths mma_sp --budget-seconds $((left - 15)) --tag ${CARD}_v340_mma_sp > "$OUT/log_v340.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v340_mma_sp.md" | grep "^|" | head -24
fi
echo "total ${SECONDS}s"
