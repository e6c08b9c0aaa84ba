#!/usr/bin/env bash
# v206: the X^T transpose writes only the rows a gathered weight reads (TRANSPOSE_READ_ROWS); its
# tests, initcheck, A/B on 2:32-2:128; then NOTES' first lever: X^T by TMA's token tail (--xt 1, T = 200 vs 256).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "read_rows or feature_major or test_patterns or token_chunks"
timeout 90 compute-sanitizer --tool initcheck --report-api-errors no --error-exitcode 9 python scripts/probes/read_rows_initcheck.py > "$OUT/initcheck.txt" 2>&1
echo "initcheck: exit $? $(tail -2 "$OUT/initcheck.txt" | tr '\n' ' ')"
S=1024x4096x8192:128:2:128,1024x4096x2048:128:2:128,4096x4096x8192:128:2:128,4096x4096x2048:128:2:128,1024x4096x8192:128:2:64,4096x4096x8192:128:2:64,1024x4096x8192:128:2:32,11008x4096x8192:128:2:128
timeout 200 python scripts/ab_wgmma.py TRANSPOSE_READ_ROWS=0,1,0,1 --path auto --shapes $S 2>&1 | tee "$OUT/ab_read_rows.txt"
timeout 60 python scripts/ab_wgmma.py TRANSPOSE_READ_ROWS=0,1 --path mma_sp --shapes 1024x4096x8192:128:2:128,4096x4096x8192:128:2:128 2>&1 | tee "$OUT/ab_read_rows_mma_sp.txt"
X=11008x4096x200:2:4,11008x4096x256:2:4,4096x4096x200:2:4,4096x4096x256:2:4,4096x11008x200:2:4,4096x11008x256:2:4
{ timeout 60 python scripts/ab_wgmma.py PATH=auto,auto --xt 1 --shapes $X; timeout 60 python scripts/ab_wgmma.py PATH=auto,auto --shapes $X; } 2>&1 | tee "$OUT/ab_xt_tail.txt"
echo "total ${SECONDS}s"
