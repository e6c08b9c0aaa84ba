#!/usr/bin/env bash
# v326: (1) the column gather alone, by mechanism (scripts/probes/gather_energy.py): rate and energy a gathered byte
# of 16-byte cp.async (the kernel's), TMA boxes of 1 / 2 / 4 / 8 / 64 consecutive X^T rows, 1-D bulk copies.
# Predicted (v312's marginal ~43 pJ a byte for cp.async, ~11 for dense TMA boxes; v320's ~17 cycles a one-row box):
# cp.async ~20-25 B/clk an SM; TMA 1-row ~7.5, 4-row ~25-30 if a box's cost is mostly per box, 64-row ~45; energy
# at load: cp.async ~2-3x the dense boxes a byte, 4-row boxes between.
# (2) VNM_WG_TMA_RUNS=1 (a group's run of 4 X^T rows as one TMA box) on weights whose blocks keep 4 consecutive
# columns (`bench spmm --column-runs`): its GPU test, then `runs` against `auto` (and both on a feature-major X) in
# the same turns with --sustain 1, T = 2048 / 8192, 128:2:8 / 128:2:16 / 64:2:16. Predicted: bursts within ~5% of
# auto (the box count is a quarter of v320's, whose one-row boxes ran 2.2-3.4x slower); sustained energy a call
# 128:2:8 on X^T ~0.8-0.85 of auto_xt's (v312: the gather 46 of 134 mJ at ~43 pJ a byte), row-major ~0.85-0.9.
# Ran on an H100 (NOTES v326): the probe refuted the runs; the knob, vnm_mask's column_runs and bench's --column-runs
# are removed (commit c99405f has them), so part (2) no longer runs on this tree; so is the warm-up script it
# called, scripts/warm_defines.py (`cache warm` under experiment defines; no other script used it).
#   OUT=$OUT bash scripts/sessions/gpu_v326.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
timeout 120 python scripts/probes/gather_energy.py 2>&1 | tee "$OUT/gather_energy_${CARD}_v326.txt"
echo "probe ${SECONDS}s"
warm
timeout 120 python scripts/warm_defines.py VNM_WG_TMA_RUNS=1 --tiles \
  wg128x64s12r1,wg128x128s10r1,wg128x256s6r1,wg64x64s12r1,wg64x128s6r1,wg64x256s6r1,wg128x256s4t1,wg128x128s7t1,wg64x128s4t1 2>&1 | tail -1
if tested_ab v326 tma_runs runs --path "runs:spmm_wgmma_sp.DEFINES={'VNM_WG_TMA_RUNS': 1}" \
    --path "runs_xt:spmm_wgmma_sp.DEFINES={'VNM_WG_TMA_RUNS': 1}" \
    -- bench spmm --column-runs --tokens 2048,8192 --patterns 128:2:8,128:2:16,64:2:16 \
    --shapes llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2 --paths auto,runs,auto_xt,runs_xt --sustain 1.0 --budget-seconds 230; then
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v326_runs.csv" auto runs 2>&1 | tail -8
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v326_runs.csv" auto_xt runs_xt 2>&1 | tail -8
  sed -n '/^## Sustained/,/^## Issue/p' "$OUT/spmm_${CARD}_v326_runs.md" | head -30
fi
echo "total ${SECONDS}s"
