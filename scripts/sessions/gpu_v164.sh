#!/usr/bin/env bash
# v164 (prepared in the sixteenth session, not yet run): the epilogue's staging by stmatrix
# (VNM_WG_EPI_STMATRIX=1: four 8 x 8 accumulator blocks a warp per instruction, .trans into Y's
# [tokens][rows] staging) against one 2-byte shared store per element (0). The v161 trace put a
# persistent 2:128 tile's 64-token pass at ~0.6-1.0k cycles of staging + ~0.9k of stores.
# Predicted: gate/up 2:128 T = 8192 (auto_xt ~100 us) -8..-15%, 4096^3 2:32 -3..-6%, 2:4 and 2:8
# prefill -1..-3%, decode within the noise. Then the wgmma suites with the macro on, and memcheck.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x4096x4096:128:2:32,4096x4096x8192:128:2:8,4096x4096x8192:2:4,4096x4096x16:128:2:8,11008x4096x64:64:2:8
for xt in 1 0; do
  timeout 130 python scripts/ab_wgmma.py VNM_WG_EPI_STMATRIX=0,1,0,1 --path auto --xt $xt --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_epi_stmatrix_h200_v164.txt"
done
# v165 (prepared with it, not yet run): the next tile's A registers loaded before the epilogue's last
# pass's stores (VNM_WG_PRELOAD_LATE=2) against after them (1, the default). Predicted: persistent
# 2:128 -3..-8% if the ~1.9k cycles after the epilogue (v161 trace) are those loads' latency, else even.
S2=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x11008x4096:128:2:128,4096x4096x4096:128:2:32
timeout 90 python scripts/ab_wgmma.py VNM_WG_PRELOAD_LATE=1,2,1,2 --path auto --xt 1 --shapes $S2 2>&1 | grep -v Warn | tee "$OUT/ab_preload_late2_h200_v165.txt"
timeout 200 python -c "
import sys, pytest
from vnmsparse.kernels import spmm_wgmma_sp as W, spmm_mma_sp as K
W.DEFINES = K.DEFINES = {'VNM_WG_EPI_STMATRIX': 1}
sys.exit(pytest.main(['-q', '-m', 'gpu', '-p', 'no:cacheprovider', '-x', 'tests/test_spmm_wgmma_sp.py',
                      '-k', 'persistent or every_tile or feature_major or patterns or split_k or llm_shapes or x_by_tma']))" > "$OUT/gpu_tests.txt" 2>&1
tail -3 "$OUT/gpu_tests.txt"
echo "total ${SECONDS}s"
