#!/usr/bin/env bash
# v170: the persistent 2:128 tile with A staged through the ring by the producer's bulk copies (the
# v22 "t" tiles, read into registers from shared memory) instead of the consumers' global loads after
# the epilogue. v169's trace: ~1.7k cycles from the epilogue's last stores to the next tile's first
# full barrier, the consumers' A loads queued behind their own Y stores (the SM's ~12 B/clk).
# Predicted: if those loads are the gap, gate/up 2:128 -10..-15%; if shared loads queue too, even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x4096x8192:128:2:128,1024x4096x8192:128:2:128
timeout 150 python scripts/ab_wgmma.py TILE=auto,wg128x256s4t1p,wg128x256s5t1p,auto --path wgmma_sp --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_staged_persistent_h200_v170.txt"
timeout 60 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 wg128x256s5t1p 2>&1 | grep -v Warn > "$OUT/trace_staged_persistent_h200_v170.txt"
grep median "$OUT/trace_staged_persistent_h200_v170.txt"; tail -4 "$OUT/trace_staged_persistent_h200_v170.txt"
echo "total ${SECONDS}s"
