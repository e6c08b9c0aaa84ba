#!/usr/bin/env bash
# v329 (prepared): V = 256 weights on the 256 x 128 two-block tile with column lists (spmm_wgmma_sp.GATHERED_TWO_BLOCK,
# an experiment switch; NOTES "V = 256 blocks on the 256 x 128 tile"): its GPU test, then `tall` against `auto` (the
# 128 x 256 / persistent tiles, which gather per 128 rows) on the same V = 256 weights, X row-major and feature-major,
# T = 2048 / 8192, 256:2:8 / 256:2:16 / 256:2:32, with --sustain 1. Predicted: half the gathered bytes a MAC, A read
# twice as often: operand energy a MAC -22%, so sustained energy a call ~0.9x `auto`'s at 2:8-2:16 (less at 2:32,
# where the gather is a smaller share); bursts 0.85-1.05x (the gather fill halves against v110-v112's 10-27% per-MAC
# loss of the 256 x 128 tile on 2:4).
# Ran (H100): refuted, the switch and its test removed afterwards; commit 3023636 has them.
#   OUT=$OUT bash scripts/sessions/gpu_v329.sh      (~350 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
if tested_ab v329 gathered_two_block tall --path "tall:spmm_wgmma_sp.GATHERED_TWO_BLOCK=True" \
    --path "tall_xt:spmm_wgmma_sp.GATHERED_TWO_BLOCK=True" \
    -- bench spmm --tokens 2048,8192 --patterns 256:2:8,256:2:16,256:2:32 \
    --shapes llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2 --paths auto,tall,auto_xt,tall_xt --sustain 1.0 --budget-seconds 230; then
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v329_tall.csv" auto tall 2>&1 | tail -8
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v329_tall.csv" auto_xt tall_xt 2>&1 | tail -8
  sed -n '/^## Sustained/,/^## Issue/p' "$OUT/spmm_${CARD}_v329_tall.md" | head -30
fi
echo "total ${SECONDS}s"
