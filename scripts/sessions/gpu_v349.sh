#!/usr/bin/env bash
# v349: the cp.async mma.sp loop with fewer instructions (v349 final: knob 0 + FRAG_ADDR 183, knob 3 216; XROW 2:4 220 -> 171). Each thread keeps its ldmatrix addresses of stage buffer 0
# in registers (VNM_FRAG_ADDR=1: a stage's are one add each, the rest immediates), and A's swizzle term is computed
# once for all m-tiles. SASS sm_90a, the gathered 128 x 64 tile's loop (32 HMMA.SP): knob 0 (v344's order) 283 -> 264
# (addresses from pointers) / 243 (FRAG_ADDR), knob 3 (v346's copies spread over 4 slots) 323 -> 303 / 267; 64 x 128
# knob 0 217 -> 200 (16 HMMA.SP), 128 x 256 451 -> 436 (64). Registers 154-166 (3 CTAs an SM) at 128 x 64.
# Predicted (4096^2 x 8192, X^T given, v345 374 us at 128 x 64 128:2:8 on an H100): if issue-bound (v345: 0.45
# instructions a cycle a scheduler, the warps' copies before their HMMAs), time follows instructions a stage:
# knob 0 + FRAG_ADDR -10..-15%, knob 3 + FRAG_ADDR -15..-25%; 64:2:8 64 x 128 -5..-10%; 2:4 -5..-10%.
# (1) tile_sweep of both knobs, twice; (2) the L2 -> SM probe; (3) the kernel file's GPU tests at the branch's
# defaults (knob 3, FRAG_ADDR 1).
#   (from main: git archive the branch into build/ef, carry it)  cd build/ef && OUT=$OUT bash scripts/sessions/gpu_v349.sh  (~560 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
sweep() {  # sweep LIMIT R K T PATTERN [NAME=INT] TILES...: twice
  local limit=$1; shift
  for rep in 1 2; do timeout "$limit" python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn | sed "s/^/[$rep] /"; done
}
E0="VNM_EARLY_FRAGS=0" E3="VNM_EARLY_FRAGS=3" A0="VNM_FRAG_ADDR=0" A1="VNM_FRAG_ADDR=1"
main() {  # main's kernel (v344, the tree this copy of the branch sits in), the same script
  PYTHONPATH=$PWD/../../src timeout 60 python ../../scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn | sed "s/^/[main] /"
}
{ main 4096 4096 8192 128:2:8 128,64,64,32,4 128,256,64,64,3
  sweep 90 4096 4096 8192 128:2:8 $E0 $A0 128,64,64,32,4 $A1 128,64,64,32,4 $E3 $A0 128,64,64,32,4 $A1 128,64,64,32,4 \
    128,128,64,64,3 128,256,64,64,3 $E0 128,128,64,64,3 128,256,64,64,3
  main 4096 4096 8192 64:2:8 64,128,32,32,4
  sweep 50 4096 4096 8192 64:2:8 $E0 $A0 64,128,32,32,4 $A1 64,128,32,32,4 $E3 64,128,32,32,4
  main 4096 4096 8192 2:4 128,64,64,32,4
  sweep 50 4096 4096 8192 2:4 $E0 $A0 128,64,64,32,4 $A1 128,64,64,32,4 $E3 128,64,64,32,4
  main 4096 4096 64 128:2:8 64,64,16,64,3 128,64,32,64,6
  sweep 40 4096 4096 64 128:2:8 $E0 $A0 64,64,16,64,3 128,64,32,64,6 $E3 $A1 64,64,16,64,3 128,64,32,64,6; } \
  | tee "$OUT/tile_sweep_${CARD}_v349.txt" | grep -E "tile|VNM|dense"
echo "sweep ${SECONDS}s"
timeout 30 python scripts/l2_probe.py --threads 1024 --mb 16,32 2>&1 | grep -v Warn | tee "$OUT/l2_probe_${CARD}_v349.txt"
gpu_tests $((${V349_S:-400} - SECONDS)) tests/test_spmm_mma_sp.py
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v349.txt"
left=$((${V349_END:-560} - SECONDS))
[ $left -gt 60 ] && SANITIZE_ARGS=--cp-async-only sanitize $left  # (a zero-filled copy's address now inside X, not X itself)
echo "total ${SECONDS}s"
