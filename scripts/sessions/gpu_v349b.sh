#!/usr/bin/env bash
# v349b: gpu_v349.sh cut to ~330 s (for the session's last device time): one sweep of main's kernel against the
# branch's (knob 0 and 3 with FRAG_ADDR, 128 x 64 / 128 x 128 / 128 x 256, 64:2:8, 2:4), then the kernel file's GPU tests.
#   (from main: git archive the branch into build/ef, carry it)  cd build/ef && OUT=$OUT bash scripts/sessions/gpu_v349b.sh
# (Ran on branch mma-sp-early-frags at 58be8a3; its knobs were removed when it merged, knob 0 with FRAG_ADDR kept.)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
main() { PYTHONPATH=$PWD/../../src timeout 50 python ../../scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn | sed "s/^/[main] /"; }
branch() { timeout 70 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn; }
{ main 4096 4096 8192 128:2:8 128,64,64,32,4 128,256,64,64,3
  branch 4096 4096 8192 128:2:8 VNM_EARLY_FRAGS=0 128,64,64,32,4 128,128,64,64,3 128,256,64,64,3 VNM_EARLY_FRAGS=3 \
    128,64,64,32,4 128,256,64,64,3
  main 4096 4096 8192 64:2:8 64,128,32,32,4
  branch 4096 4096 8192 64:2:8 VNM_EARLY_FRAGS=0 64,128,32,32,4
  main 4096 4096 8192 2:4 128,64,64,32,4
  branch 4096 4096 8192 2:4 VNM_EARLY_FRAGS=0 128,64,64,32,4; } | tee "$OUT/tile_sweep_${CARD}_v349.txt" | grep -E "tile|VNM|dense"
echo "sweep ${SECONDS}s"
gpu_tests $((330 - SECONDS)) tests/test_spmm_mma_sp.py -k "every_tile or row_major_x_on_every or test_patterns or split_k"
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v349.txt"
echo "total ${SECONDS}s"
