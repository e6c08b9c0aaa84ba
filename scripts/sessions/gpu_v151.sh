#!/usr/bin/env bash
# v151: the TMA-store epilogue with up to 4 staging boxes used in turn (EPI_TMA_BUFS; 128 x 256
# persistent tiles fit 2 beside their 6 stages, 128 x 128 ones 4). v150's trace: a persistent 2:128
# tile spends ~8.4k of its ~11k cycles in the epilogue's 4 passes (stores leaving at ~13 B/clk per
# SM), and with one TMA box each pass waited for the previous one's stores (v150: +4..+22%).
# Predicted: LLaMA gate/up 2:128 T = 8192 108 -> ~75-85 us (xt), 4096^3 2:128 -10..-20%; even where
# the tile is not persistent. Then the persistent tests (with 1 and 4 boxes) on the GPU.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,1024x4096x8192:128:2:128,4096x4096x2048:128:2:64
for xt in 1 0; do
  timeout 90 python scripts/ab_wgmma.py EPI_TMA=0,1,0,1 --define EPI_TMA_BUFS=4 --path auto --xt $xt --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_epi_tma_bufs_h200_v151.txt"
done
timeout 60 python scripts/ab_wgmma.py EPI_TMA=0,1 --define EPI_TMA_BUFS=4 --define TILE=wg128x128s10r1p --xt 1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_epi_tma_bufs_h200_v151.txt"
timeout 40 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 EPI_TMA=1 EPI_TMA_BUFS=4 2>&1 | grep -v Warn > "$OUT/trace_epi_tma_bufs_h200_v151.txt"
grep -E "median W|epilogue of tile [0-3]:" "$OUT/trace_epi_tma_bufs_h200_v151.txt"
echo "A/B took ${SECONDS}s"
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "persistent_tile_loops"
echo "total ${SECONDS}s"
