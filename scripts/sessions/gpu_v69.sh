#!/usr/bin/env bash
# v69: v67's step-major image against the row-block-major one (ab_baseline/src: main at "v62
# routed", exported for this call, not committed), both through vnmsparse.spmm, alternating
# processes, with as many rotating weights as the grid (> 2x L2: v67's A/B had 3 sets, and
# 4096^2 weights stayed in L2). Grid v68 against v59 read decode T <= 8 +3..6%, prefill +1..2%,
# but gathered T = 16 / 64 -3% and LLaMA q/k/v/o 2:4 T = 64 -11%: which of these are real?
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PWD/scripts
S=4096x4096x64:2:4,11008x4096x64:2:4,4096x11008x64:2:4,4096x4096x64:128:2:8,11008x4096x16:128:2:8,4096x11008x64:128:2:16,4096x4096x1:128:2:32,11008x4096x1:64:2:8,1024x4096x16:128:2:8,11008x4096x4096:2:4,4096x4096x4096:128:2:8
for tree in ab_baseline/src src ab_baseline/src src; do
  echo "== $tree"
  PYTHONPATH=$PWD/$tree:$PWD/scripts timeout 150 python scripts/ab_wgmma.py PATH=auto --path auto --shapes $S 2>&1 | grep -v Warn
done | tee "$OUT/ab_v69.txt"
echo "total ${SECONDS}s"
