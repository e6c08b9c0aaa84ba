#!/usr/bin/env bash
# v230: the cluster tile's epilogue bubble. v228's trace of pc2: ~7.5k of a tile's ~54.7k cycles pass between
# the last stage's wgmma and the next tile's first (the consumers stage and store 64 KB of Y at ~12 B/clk an
# SM, tensor cores idle). The TMA-store epilogue (EPI_TMA) through 3 staging boxes fits beside a 4-stage
# ring (218 KB): the consumers stage 3 passes and go on while the boxes drain by TMA during the next tile's
# mainloop. Prediction: consumer epilogue ~7k -> ~2.5k cycles, s4 + 3 boxes -5..-8% against s5 (v229);
# risk: the stores slow the ring's fill or block the TMA unit (v150-v151 at 2:128: +4..+22%).
source "$(dirname "$0")/../gpu_lib.sh"
S4=wg128x256s4t1pc2 S5=wg128x256s5t1pc2
for v in "$S5" "$S4 EPI_TMA=1 EPI_TMA_BUFS=3"; do
  f="$OUT/trace_pc2_$(echo $v | tr ' =' '__').txt"
  timeout 90 python scripts/probes/trace_stages.py 4096x4096x8192:2:4 $v 2>&1 | grep -v "Warn\|warn" > "$f"
  grep -E "^median|stages traced|epilogue of tile [23]" "$f"
done
S=4096x4096x8192:2:4,4096x11008x8192:2:4,8192x8192x4096:2:4,4096x4096x2048:2:4
T3="$S4+EPI_TMA=1+EPI_TMA_BUFS=3" T2="$S4+EPI_TMA=1+EPI_TMA_BUFS=2" T1="$S5+EPI_TMA=1"
timeout 200 python scripts/ab_wgmma.py TILE=$S5,$T3,$T2,$T1,$S5,$T3 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_pc2_epi_tma_v230.txt"
echo "total ${SECONDS}s"
