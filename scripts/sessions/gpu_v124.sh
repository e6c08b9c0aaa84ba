#!/usr/bin/env bash
# v124: the gather's column words prefetched into L2 with the PDL prefetch (VNM_WG_PDL_PREFETCH_COLS:
# the v123 trace of the 16-token gathered tile had its first stage waiting ~2300 cycles on them,
# against ~300 a stage for plain 2:4). SASS: the 42 fragment-image variants with column lists
# changed, no spills. Predicted: -3..-7% at T = 2-32 where a gathered staged tile runs (the
# decode kernel at T = 1 on LLaMA-7B is a control), prefill even. The wgmma.sp GPU suite and
# memcheck first.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 150 60 tests/test_spmm_wgmma_sp.py || exit 1
S="11008x4096x1:128:2:8,11008x4096x8:128:2:8,11008x4096x16:128:2:8,11008x4096x32:128:2:8,4096x11008x8:128:2:8,4096x11008x16:128:2:8"
S="$S,28672x8192x2:128:2:8,28672x8192x16:128:2:8,4096x4096x16:128:2:16,11008x4096x16:64:2:8,4096x4096x64:128:2:8,4096x4096x4096:128:2:8"
timeout 90 python scripts/ab_wgmma.py VNM_WG_PDL_PREFETCH_COLS=0,1,0,1 --path auto --shapes "$S" 2>&1 | grep -v Warn | tee "$OUT/ab_v124.txt"
echo "total ${SECONDS}s"
