#!/usr/bin/env bash
# v272: the union layout at few tokens (T = 1-128), to set its route's lower bound; which tests ran (-v).
# Prediction: union ahead of the mma.sp kernel and the decode kernel from T = 16 at M / (64 / V) >= 16
# (as at T = 64, v271), behind the decode kernel at T <= 8 (one launch against transpose + SpMM).
#   OUT=$OUT bash scripts/sessions/gpu_v272.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 150
timeout 120 python -m pytest -v -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k union > "$OUT/tests_union_h200_v272.txt" 2>&1
grep -E "PASS|FAIL|^E  |passed|failed" "$OUT/tests_union_h200_v272.txt" | head -12; echo "tests ${SECONDS}s"
timeout 400 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v272_union_lowT --quick --tokens 1,4,8,16,32,128 \
  --patterns 16:2:32,32:2:16,32:2:32,16:2:64,32:2:64,16:2:128,32:2:128,32:2:256 \
  --paths auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp,mma_sp_union,mma_sp_decode --max-path-seconds 2 > "$OUT/log_v272.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v272_union_lowT.csv" auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp,mma_sp_union,mma_sp_decode
echo "total ${SECONDS}s"
