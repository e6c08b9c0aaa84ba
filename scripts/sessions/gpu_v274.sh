#!/usr/bin/env bash
# v274: V = 16 / 32 patterns without a union (16:2:8, 32:2:8, 16:2:16: the window is the union) at T = 8-256:
# as 2:4 starts at 256 tokens (v269); below, the mma.sp kernel runs them gathered. Prediction: as 2:4 ahead
# from T = 16 (v272: 32:2:16 T = 16 / 32 / 128 as 2:4 1.55 / 1.50 / 1.00 against mma.sp 1.45 / 1.19 / 0.63).
#   OUT=$OUT bash scripts/sessions/gpu_v274.sh      (~60 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v274_small_v_lowT --quick --tokens 8,16,32,64,128,256 \
  --patterns 16:2:8,32:2:8,16:2:16 --paths auto,wgmma_sp_as_2_4,mma_sp --max-path-seconds 2 > "$OUT/log_v274.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v274_small_v_lowT.csv" auto,wgmma_sp_as_2_4,mma_sp
echo "total ${SECONDS}s"
