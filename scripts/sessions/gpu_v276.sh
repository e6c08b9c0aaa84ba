#!/usr/bin/env bash
# v276: GPU tests of the small-V route changes (as 2:4 from 2 tokens where the window is the union, union from
# 9 tokens at effective M = 8) and `auto` on the small-V few-token grid beside the paths it should pick.
#   OUT=$OUT bash scripts/sessions/gpu_v276.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_nn.py tests/test_ops.py
timeout 90 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v276_small_v_auto --quick --tokens 1,2,8,12,64 \
  --patterns 16:2:8,32:2:8,16:2:16,32:2:16,16:2:32 --paths auto,wgmma_sp_as_2_4,wgmma_sp_union --max-path-seconds 2 > "$OUT/log_v276.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v276_small_v_auto.csv" auto,wgmma_sp_as_2_4,wgmma_sp_union | grep -v "^skip"
echo "total ${SECONDS}s"
