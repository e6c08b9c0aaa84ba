#!/usr/bin/env bash
# v372: the route's ws rule of v371 (WS_MIN_FILL {128: 0.6, 64: 1.0}, WS_OVER_NARROW) against v367's (1.0, False), every
# shape, T = 256-8192, side by side (`mma_sp` / `mma_sp_v367`), after the mma.sp GPU tests on the new route.
# Predicted (H100): 128-row cells whose ws grid fills 0.6-1.0 of the SMs -5..-12% (q/k/v/o and down T = 512, gate/up
# T = 128-512), where v367 took the narrow tile (gate/up T = 2048 and the like) -8..-14%; the rest even (same
# kernels); T >= 2048 geomean 128:2:8 +1..+3%; the 64-row patterns unchanged.
#   OUT=$OUT bash scripts/sessions/gpu_v372.sh      (~300 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm
mma_sp_tests "tests_mma_sp_${CARD}_v372" 150
timeout 330 python scripts/bench_ab.py \
  --path "mma_sp_v367@mma_sp:spmm_mma_sp.WS_MIN_FILL={128: 1.0, 64: 1.0};spmm_mma_sp.WS_OVER_NARROW=False" \
  -- bench spmm --tokens 256,512,1024,2048,8192 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:64 \
  --paths mma_sp,mma_sp_v367 --budget-seconds 300 --out "$OUT" --no-plot --tag "${CARD}_v372_route" > "$OUT/log_v372.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; tail -2 "$OUT/log_v372.txt"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v372_route.csv" mma_sp mma_sp_v367 --min 0.03 | tail -60
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v372_route.csv" mma_sp,mma_sp_v367 | tail -40
echo "total ${SECONDS}s"
