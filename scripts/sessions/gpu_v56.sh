#!/usr/bin/env bash
# v56 (branch reduce-vec): the split-K reduction with 16-byte partial loads, 4 outputs per thread.
# Its test and the split tests, memcheck, A/B REDUCE_VEC 0 (scalar) / threads per block where T = 9-64 splits K.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  -k "reduce or split" > "$OUT/gpu_tests.txt" 2>&1; tail -2 "$OUT/gpu_tests.txt"
sanitize 100
S=4096x4096x16:128:2:8,4096x4096x64:128:2:8,4096x4096x64:64:2:16,4096x11008x64:128:2:8,1024x4096x64:128:2:32,4096x4096x32:2:4
timeout 120 python scripts/ab_wgmma.py REDUCE_VEC=0,256,128,64,0,64 --path auto --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v56.txt"
timeout 60 python scripts/kernel_times.py 4096x4096x64:128:2:8,4096x11008x64:128:2:8 2>&1 | grep -v Warn | tee -a "$OUT/ab_v56.txt"
echo "total ${SECONDS}s"
