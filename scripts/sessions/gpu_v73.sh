#!/usr/bin/env bash
# v73: main with v72's routing (plain 2:4 at T <= 64 on 64-row staged tiles where 128-row tiles
# number between half the SMs and all of them): the wgmma.sp suite, memcheck (a gate/up-sized
# case added), vnmsparse.spmm on the routed shapes, then (if the tests pass) the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 150 90 tests/test_spmm_wgmma_sp.py tests/test_ops.py || exit 1
timeout 60 python scripts/ab_wgmma.py PATH=auto --path auto --shapes 11008x4096x16:2:4,11008x4096x32:2:4,11008x4096x64:2:4,4096x4096x64:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_v73.txt"
quick_grid 270 h200_v73; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
