#!/usr/bin/env bash
# v267: the README's grid with v266's rule (64:2:8 as 2:4 on many rows from T = 1024), and LLaMA prefill e2e at
# 64:2:8, apart and fused. Prediction: the grid's 64:2:8 T >= 2048 geomean 1.32 -> ~1.35 (gate/up, one of its
# four shapes, 3-9% faster), every other cell as grid v251 within its spread; e2e prefill 64:2:8 fused 1.16 ->
# ~1.22x dense (q/k/v 12288 rows -12%, gate/up 22016 rows -10%; v266), apart 1.22 -> ~1.23.
#   OUT=$OUT bash scripts/sessions/gpu_v267.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
quick_grid 380 h200_v267; rm -f "$OUT/bench.txt"
P="--workloads llama-prefill --patterns 64:2:8 --budget-seconds 60"
e2e 90 h200_e2e_v267_apart $P
e2e 90 h200_e2e_v267_fused $P --fuse-siblings
rm -f "$OUT"/*.png "$OUT"/log_*
echo "total ${SECONDS}s"
