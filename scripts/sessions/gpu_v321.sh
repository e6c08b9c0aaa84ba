#!/usr/bin/env bash
# v321: the README's quick grid at T >= 2048 with `--sustain 1.5` (new): each path (cuBLAS, cuSPARSELt, auto on a
# row-major X, auto_xt on a feature-major one) replayed alone for 1.5 s after the usual turns, so the grid gets
# the power-limited regime beside the bursts, side by side in one run. Predicted (v311-v313's five cells): every path
# at ~700 W; sustained `auto` over cuBLAS above the burst ratios of grid v314 where the kernel is power-bound
# (T = 8192: 2:4 ~1.4, 128:2:8 ~1.6-1.7, 128:2:16 ~2.4; `auto_xt` 128:2:8 ~2.0, 128:2:16 ~3.3), about the bursts'
# at 2:32-2:128 (bound by X's traffic, not power); cuSPARSELt's best 2:4 ~1.35-1.4.
#   OUT=$OUT bash scripts/sessions/gpu_v321.sh      (~350 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 500 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 2048,8192 --paths auto,auto_xt,cslt \
  --sustain 1.5 --tag ${CARD}_v321_sustained > "$OUT/log_v321.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v321_sustained.md" | head -60
echo "total ${SECONDS}s"
