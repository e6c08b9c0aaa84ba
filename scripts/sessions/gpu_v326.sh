#!/usr/bin/env bash
# v326: the column gather alone, by mechanism (scripts/probes/gather_energy.py): rate and energy a gathered byte of
# 16-byte cp.async (the kernel's), TMA boxes of 1 / 2 / 4 / 8 / 64 consecutive X^T rows, 1-D bulk copies. Predicted
# (v312's marginal ~43 pJ a byte for cp.async, ~11 for dense TMA boxes; v320's ~17 cycles a one-row box): cp.async
# ~20-25 B/clk an SM; TMA 1-row ~7.5, 4-row ~25-30 if a box's cost is mostly per box, 64-row ~45; energy at load:
# cp.async ~2-3x the dense boxes a byte, 4-row boxes between. Then, on an H200 only, v323's decode grid.
#   OUT=$OUT bash scripts/sessions/gpu_v326.sh      (~40 s warm; ~240 s more on an H200)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
timeout 150 python scripts/probes/gather_energy.py 2>&1 | tee "$OUT/gather_energy_${CARD}_v326.txt"
echo "probe ${SECONDS}s"
[ "$CARD" = h200 ] && bash scripts/sessions/gpu_v323.sh
echo "total ${SECONDS}s"
