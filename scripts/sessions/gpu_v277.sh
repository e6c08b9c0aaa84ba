#!/usr/bin/env bash
# v277: small V as 2:4 on the mma.sp kernel (the sm_80-89 route; measured on the H200). Prediction: as 2:4
# (the kernel's 2:4 rate, ~0.31x cuBLAS at T >= 2048 here) ahead of the gathered form at 16:2:8, 32:2:8, 16:2:16
# (0.13-0.27x at T = 256, v274) from T ~ 64; behind the union at 16:2:32 / 32:2:16 (union 0.51 at T >= 1024).
#   OUT=$OUT bash scripts/sessions/gpu_v277.sh      (~150 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "as_2_4_path or union_paths"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v277_mma_sp_as_2_4 --quick \
  --tokens 1,8,16,64,256,2048,8192 --patterns 16:2:8,32:2:8,16:2:16,32:2:16,16:2:32 \
  --paths mma_sp,mma_sp_as_2_4,mma_sp_union --max-path-seconds 2 > "$OUT/log_v277.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v277_mma_sp_as_2_4.csv" mma_sp,mma_sp_as_2_4,mma_sp_union | grep -v "^skip"
echo "total ${SECONDS}s"
