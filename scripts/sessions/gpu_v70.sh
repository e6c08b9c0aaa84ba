#!/usr/bin/env bash
# v70: main after v62 (narrow staged 2:4 tiles at T <= 32), back on the row-block-major image
# (v69): the GPU suites, memcheck, the narrow tiles A/B'd with the honest rotation (> 2x L2), then
# (if the tests pass) the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 220 90 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "not sass" || exit 1
S=4096x4096x16:2:4,4096x4096x32:2:4,11008x4096x16:2:4,11008x4096x32:2:4,4096x11008x16:2:4,4096x11008x32:2:4,1024x4096x16:2:4
timeout 90 python scripts/ab_wgmma.py TILE=wg128x64s12t1,wg128x32s16t1,wg128x16s19t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v70.txt"
quick_grid 270 h200_v70; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
