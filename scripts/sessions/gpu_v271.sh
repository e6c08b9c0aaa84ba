#!/usr/bin/env bash
# v271: the union layout (V < 64 on 64-row tiles, the blocks' column union as 2:4 groups, both kernels).
# Prediction (T >= 2048, x cuBLAS): union ~ the gathered V = 64 kernel at M / (64 / V): 16:2:64 and 32:2:32
# ~1.7 (as 2:4 1.3), 16:2:128 and 32:2:64 ~2.5 (as 2:4 1.3), 32:2:128 ~3 (gathered mma.sp ~1.1);
# 16:2:32 and 32:2:16 about as 2:4 (~1.3). mma.sp union over mma.sp gathered: 1.3-1.6x at every M.
#   OUT=$OUT bash scripts/sessions/gpu_v271.sh      (~400 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 150
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py \
  tests/test_spmm_mma_sp.py -k "union or as_2_4 or routes or (test_patterns and (16- or 64-8 or 128-100))" \
  > "$OUT/tests_union_h200_v271.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/tests_union_h200_v271.txt" | head -12; echo "tests ${SECONDS}s"
timeout 330 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v271_union --quick --tokens 64,256,1024,2048,8192 \
  --patterns 16:2:32,32:2:16,32:2:32,16:2:64,32:2:64,16:2:128,32:2:128 --paths auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp,mma_sp_union \
  --max-path-seconds 2 > "$OUT/log_v271.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v271_union.csv" auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp,mma_sp_union
echo "total ${SECONDS}s"
