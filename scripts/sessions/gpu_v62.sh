#!/usr/bin/env bash
# v62: staged 2:4 tiles of 32 and 16 tokens (wgmma N = 32 / 16, X by TMA only): at T <= 32 the
# 64-token tile's X slots hold padding; narrower X stages leave room for 16 / 19 stages of A
# (ncu v61: cuBLAS moves 34.5 GB/s per CTA with 126 KB of weights in flight, ours 25.5 with 108).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 100 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "every_tile and (x32s or x16s)" 2>&1 | tail -1
S=11008x4096x16:2:4,11008x4096x32:2:4,11008x4096x12:2:4,4096x4096x16:2:4,4096x4096x32:2:4,4096x11008x16:2:4,4096x11008x32:2:4
timeout 100 python scripts/ab_wgmma.py TILE=wg128x64s12t1,wg128x32s16t1,wg128x16s19t1,wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v62.txt"
echo "total ${SECONDS}s"
