#!/usr/bin/env bash
# v365 measured (H100, grid, `spmm_h100_v365_prefill.md`): mma_sp x cuBLAS at T >= 2048, v359 -> v365: 128:2:8 0.97 ->
# 1.04, 128:2:16 1.48 -> 1.57, 128:2:32 2.06 -> 2.14, 128:2:64 2.59 -> 2.67, 128:2:128 2.96 -> 3.01 (2:4 0.69 -> 0.73,
# V = 64 +0..+2%: the run's spread). v366: where else the two-CTA ws form pays: (1) the 64-row gathered prefill, classic
# 64 x 128 / 32 x 64 / 3 against ws 64 x 256 / 3 (two CTAs; a grid of half the token tiles) on the grid's shapes at
# T = 2048 and 8192; (2) the 128-row route's low end, T = 512-1024 (grids of 1-4 CTAs an SM).
# Predicted: 64 x 256 -3..-6% where its grid fills two CTAs an SM (4096^2 and 11008 x 4096 at T = 8192), worse where it
# leaves SMs idle (1024 x 4096 at T = 2048: 16 x 8 = 128 CTAs against 264 slots); 128 x 128 ws -2..-6% at T = 1024.
#   OUT=$OUT bash scripts/sessions/gpu_v366.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
s() { timeout 40 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn; }
{ for p in 64:2:8 64:2:16; do
    for shape in "4096 4096 2048" "4096 4096 8192" "11008 4096 2048" "11008 4096 8192" "4096 11008 2048" \
                 "1024 4096 2048" "1024 4096 8192"; do
      s $shape $p 64,128,32,64,3 64,256,64,64,3,p4; done; done
  for shape in "4096 4096 1024" "4096 4096 512" "11008 4096 512" "11008 4096 1024" "4096 11008 1024"; do
    s $shape 128:2:8 128,128,64,64,3 128,128,64,64,4,p4; done; } | tee "$OUT/tile_sweep_${CARD}_v366.txt" | grep -E "tile|dense"
echo "total ${SECONDS}s"
