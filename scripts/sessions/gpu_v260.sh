#!/usr/bin/env bash
# v260 (measured, refuted; the trial knob RASTER_ROWS_GRID was removed after, so this no longer runs as is):
# one-tile-per-CTA launches numbered in bands of row tiles (RASTER_ROWS_GRID; 0 = row tile fastest, as before). v259: 64:2:8 at K = 4096, T = 2048 loses per FLOP as R grows (4096^2 1097 TFLOPS, 11008 / 12288 rows
# 953, 22016 rows 834): its 64 x 256 tile runs row tile fastest, one CTA an SM, so the CTAs at work span all row
# tiles and A (26-51 MB) comes from DRAM once per token tile. Bands of n row tiles: the CTAs at work hold n row
# tiles of A and 132 / n token tiles of X^T. Prediction: 22016 x 4096 at T = 2048 -8..-15% at n = 1-4, 11008 x 4096
# -5..-10%, 4096^2 within 2%; at T = 8192 (X^T 64 MB > L2) n = 1 worse, n = 16 best.
#   OUT=$OUT bash scripts/sessions/gpu_v260.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
S=4096x4096x2048:64:2:8,11008x4096x2048:64:2:8,22016x4096x2048:64:2:8,12288x4096x2048:64:2:8,4096x11008x2048:64:2:8
S=$S,11008x4096x8192:64:2:8,4096x4096x8192:64:2:8,11008x4096x2048:128:2:8,11008x4096x2048:64:2:16,22016x4096x2048:128:2:16
timeout 400 python scripts/ab_wgmma.py RASTER_ROWS_GRID=0,1,4,16,0 --path auto --shapes $S > "$OUT/ab_raster_grid_v260.txt" 2>&1
echo "ab exit $?"; tail -16 "$OUT/ab_raster_grid_v260.txt"
echo "total ${SECONDS}s"
