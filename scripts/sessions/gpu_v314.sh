#!/usr/bin/env bash
# v314: the README's quick grid (cuBLAS and cuSPARSELt in the same run) on the session's final code, on whichever card
# the device tool lends (asked for an H200; the last sessions got H100s): T = 1-64 and 2048-8192, every path.
# Predicted (H100): T >= 2048 `auto` near the H200 grid v251 / v267's ratios (2:4 ~1.3, 128:2:8 ~1.55, 128:2:16 ~2.3,
# 128:2:32 ~3), T <= 64 the decode fractions of v298 (2:4 0.93, 64:2:8 ~0.7, 128:2:16 ~0.5).
#   OUT=$OUT bash scripts/sessions/gpu_v314.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
quick_grid 480 ${CARD}_v314
grep "weight-byte" "$OUT/spmm_${CARD}_v314.md" | head -12
echo "total ${SECONDS}s"
