#!/usr/bin/env bash
# v204b: with X's last box as short as T allows (v204), is HALF_RAGGED_MAX (v198-v199: the 64-row staged
# 2:4 tiles only where the last 32/64-token box holds <= 10 rows past T) still needed? v198 blamed the
# 64-row tiles' loss on the rows past T, which the short box no longer reads. Predicted: the 64-row
# tiles now win or tie at every T (gate/up T = 40 28.0 -> ~19 against the 128-row tile's ~21).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x33:2:4,11008x4096x40:2:4,11008x4096x48:2:4,11008x4096x17:2:4,11008x4096x20:2:4,11008x4096x23:2:4
S=$S,13824x5120x40:2:4,13824x5120x20:2:4,11008x4096x56:2:4,11008x4096x64:2:4
timeout 200 python scripts/ab_wgmma.py HALF_RAGGED_MAX=10,64,10,64 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_half_ragged_h200_v204b.txt"
echo "total ${SECONDS}s"
