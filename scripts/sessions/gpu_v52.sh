#!/usr/bin/env bash
# v52: the decode kernel on the wgmma.sp fragment image (one weight image for every T; compiled
# graphs take the decode kernel at 1-8 tokens), the image's metadata halved (only the words that
# sparsity selector 0 reads). GPU suites of the wgmma.sp / decode paths, memcheck, A/B against
# the "sm90" image, kernel times at T = 16-64 (compare v51a).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
gpu_tests 260 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "not sass"
sanitize 100
timeout 100 python scripts/ab_image_decode.py 2>&1 | grep -v Warn | tee "$OUT/ab_v52.txt"
timeout 60 python scripts/kernel_times.py 4096x4096x16:128:2:8,4096x4096x64:128:2:8,11008x4096x64:128:2:8,4096x4096x1:128:2:8 2>&1 | grep -v Warn | tee -a "$OUT/ab_v52.txt"
echo "total ${SECONDS}s"
