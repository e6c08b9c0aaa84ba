#!/usr/bin/env bash
# v346: the cp.async mma.sp kernel loads k-step 0's fragments (A and B ldmatrix, metadata) right after the stage's
# barrier, before it issues the next stage's copies (v345's ncu of the 128 x 64 tile: tensor pipe 38% active, 48% of
# cycles no eligible warp, the SASS issuing ~100 instructions of copies between the barrier and the first ldmatrix,
# which the copies' shared-memory writes kept behind them). Same registers on the gathered 128 x 64 tile (168);
# XROW 2:4 168 -> 198-204 (2 CTAs an SM); decode tiles +0..+40. Predicted: 128 x 64 -5..-12%, 128 x 256 0..-5%,
# decode tiles +-3%; XROW 2:4 uncertain (occupancy). (1) GPU tests of the kernel file; (2) tile_sweep, knob
# VNM_EARLY_FRAGS 0 / 1 alternating, X^T given; (3) bench_ab: `mma_sp` against itself with the knob off, 2:4 and
# 128:2:8 (row-major X: 2:4 on XROW). Knob 2 (also in the sweep) splits the copies too: A and codes after k-step
# 0's fragments, B after k-step 1's (registers as 1; XROW 2:4 192). Knob 3 spreads the next stage's copies over the
# stage's mma.sp (VNM_COPY_SLOTS groups after n-tile groups), with each B copy's address one multiply-add: loop 302 ->
# 301 / 323 instructions for 2 / 4 slots (knob 0 now 283), 32 HMMA.SP. Predicted: knob 3 the fastest at 128 x 64
# (-10..-25%: the copies' ~170 instructions issue in the tensor pipe's shadow instead of before it).
#   OUT=$OUT bash scripts/sessions/gpu_v346.sh      (~420 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
gpu_tests 150 tests/test_spmm_mma_sp.py
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v346.txt"
sweep() {  # sweep R K T PATTERN TILES...: knob off then on, twice
  for rep in 1 2; do
    timeout 150 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn | sed "s/^/[$rep] /"
  done
}
{ sweep 4096 4096 8192 128:2:8 VNM_EARLY_FRAGS=0 128,64,64,32,4 128,256,64,64,3 VNM_EARLY_FRAGS=1 128,64,64,32,4 \
    VNM_EARLY_FRAGS=3 VNM_COPY_SLOTS=2 128,64,64,32,4 VNM_COPY_SLOTS=4 128,64,64,32,4 128,256,64,64,3 128,128,64,64,3
  sweep 4096 4096 8192 64:2:8 VNM_EARLY_FRAGS=0 64,128,32,32,4 VNM_EARLY_FRAGS=3 64,128,32,32,4
  sweep 4096 4096 8192 2:4 VNM_EARLY_FRAGS=0 128,64,64,32,4 VNM_EARLY_FRAGS=3 128,64,64,32,4
  sweep 4096 4096 64 128:2:8 VNM_EARLY_FRAGS=0 64,64,16,64,3 128,64,32,64,6 VNM_EARLY_FRAGS=3 64,64,16,64,3 128,64,32,64,6; } \
  | tee "$OUT/tile_sweep_${CARD}_v346.txt" | grep -E "tile|EARLY|dense"
echo "sweep ${SECONDS}s"
timeout 40 python scripts/l2_probe.py 2>&1 | grep -v Warn | tee "$OUT/l2_probe_${CARD}_v346.txt"  # (v345's, its loop fixed)
left=$((${V346_S:-330} - SECONDS))
if [ $left -gt 60 ]; then
  timeout $left python scripts/bench_ab.py --path "mma_sp_late@mma_sp:spmm_mma_sp.DEFINES={'VNM_EARLY_FRAGS': 0}" -- \
    bench spmm --quick --patterns 2:4,128:2:8 --tokens 16,64,2048,8192 --paths mma_sp,mma_sp_late \
    --budget-seconds $((left - 15)) --out "$OUT" --no-plot --tag ${CARD}_v346_early > "$OUT/log_v346.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v346_early.md" | grep "^|" | head -12
fi
echo "total ${SECONDS}s"
