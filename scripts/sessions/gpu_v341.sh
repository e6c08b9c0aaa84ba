#!/usr/bin/env bash
# v341: on v340's blocked layout, (1) the rest of the GPU suite (v340 ran the tests that reach the changed layout:
# 226 passed), (2) the wave rule's cost of a wide wave re-fitted: v340's sweep has 128 x 64 now as fast as 128 x 256
# at 4096^2 x 8192 (128:2:8 368 / 383 us; it was 445 / 410 in v338), i.e. a wide wave costs ~1.4 narrow ones, not
# 1.25; here wide / narrow on the v339 cells. Predicted: narrow faster or within 3% wherever the waves are within 1.4x.
#   OUT=$OUT bash scripts/sessions/gpu_v341.sh      (~330 s)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 230 tests/test_bench.py tests/test_cli.py tests/test_demo.py tests/test_format.py tests/test_jit.py \
  tests/test_prune.py tests/test_spmm_wgmma_sp.py tests/test_wgmma_sp_layout.py
mv "$OUT/gpu_tests.txt" "$OUT/tests_rest_${CARD}_v341.txt"
{ for s in "4096 4096" "11008 4096" "4096 11008" "1024 4096"; do for t in 2048 8192; do
  timeout 40 python scripts/tile_sweep.py $s $t 128:2:8 128,64,64,32,4 128,256,64,64,3 2>&1 | grep -v Warn
done; done; } | tee "$OUT/tile_sweep_${CARD}_v341.txt"
echo "total ${SECONDS}s"
