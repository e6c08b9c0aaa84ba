#!/usr/bin/env bash
# v81: (1) the decode kernel up to T = 16 at M >= 8 on weights of at most 8 row tiles
# (DECODE_FEW_ROWS_MAX_TOKENS 8 -> 16; v79 measured it at T = 16 on 1024 x 4096 only): T = 12 and
# 16, and controls that must not move (2048 rows, T = 8 / 24, plain 2:4). Predicted -5..-20% on the
# 1024-row M >= 8 shapes, controls even. (2) every GPU suite and memcheck on main after v80
# (plain 2:4 prefill on the mma.sp 128-row tiles).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=1024x4096x12:64:2:8,1024x4096x12:128:2:8,1024x4096x12:64:2:16,1024x4096x12:128:2:16,1024x4096x12:128:2:32,1024x4096x12:2:4,1024x4096x16:64:2:8,1024x4096x16:128:2:8,1024x4096x16:64:2:16,1024x4096x16:128:2:16,1024x4096x16:128:2:32,1024x4096x16:2:4,2048x4096x16:128:2:16,1024x4096x8:128:2:8,1024x4096x24:128:2:8
timeout 120 python scripts/ab_wgmma.py DECODE_FEW_ROWS_MAX_TOKENS=8,16,8,16 --path auto --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v81.txt"
checks 330 120 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_nn.py tests/test_spmm_mma_sp.py
echo "total ${SECONDS}s"
