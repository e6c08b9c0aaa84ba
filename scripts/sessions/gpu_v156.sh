#!/usr/bin/env bash
# (Measured and reverted: VNM_Y_STORE_CS is no longer in the kernel; NOTES v156.)
# v156: Y's 16-byte epilogue stores as st.global.cs (STG.E.EF: evict first) against plain ones
# (VNM_Y_STORE_CS). v154's ncu: LLaMA gate/up 2:128 T = 8192 wrote 154 of its 180 MB of Y to DRAM
# within the kernel, L2 hit rate 78%, nothing saturated; the epilogue stores leave at ~12 B/clk per
# SM. Predicted: -0..-5% where Y is large against X (gate/up 2:128), +-2% elsewhere.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x8192:128:2:128,4096x11008x4096:128:2:128,4096x4096x4096:128:2:32,4096x4096x8192:128:2:8,4096x4096x8192:2:4,11008x4096x16:128:2:8,4096x4096x64:128:2:16
timeout 200 python scripts/ab_wgmma.py VNM_Y_STORE_CS=0,1,0,1 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_y_store_cs_h200_v156.txt"
echo "total ${SECONDS}s"
