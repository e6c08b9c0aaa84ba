#!/usr/bin/env bash
# v366 measured (H100, `tile_sweep_h100_v366.txt`): the 64-row two-CTA ws form (64 x 256 / 3) against the classic
# 64 x 128 / 32 x 64 / 3, 64:2:8 and 64:2:16 on the grid's shapes at T = 2048 / 8192: -3..-25%, +7% only on 1024 x 4096
# at T = 2048 (128 CTAs of 64 x 256: not routed, fewer than SMs); the 128-row form at T = 512-1024 -1..-30%.
# v367: the route takes the 64-row form too. (1) the kernel file's GPU tests, (2) issue 3's grid (T >= 2048).
# Predicted against grid v365 (H100): 64:2:8 0.86 -> ~0.93, 64:2:16 1.34 -> ~1.45, 64:2:32 1.89 -> ~2.0, 128-row
# patterns unchanged.
#   OUT=$OUT bash scripts/sessions/gpu_v367.sh
source "$(dirname "$0")/../gpu_lib.sh"
card_warm
mma_sp_tests "tests_mma_sp_${CARD}_v367" 150
prefill_grid v367
echo "total ${SECONDS}s"
