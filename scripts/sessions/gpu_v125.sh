#!/usr/bin/env bash
# (The o2 tiles and WgTile.ctas were reverted after this run: commit 5775999 has them.)
# v125: 128-row decode tiles built for two CTAs per SM (WgTile.ctas = 2: 80 registers a thread, half
# the shared memory), so that gathered calls on fewer row tiles than SMs (LLaMA gate/up: 86 / 108 /
# 224 row tiles on 7B / 13B / 70B) reach every SM with K splits over 2 x 132 slots. Predicted: 7B
# gate/up 128:2:8 T = 16 10.7 -> ~8.5 us, 13B -10%, 70B (one wave of two per SM, not 1.7 waves)
# -10..-15%; 4096-row weights (32 row tiles, splits already fill) even or slower. Then where a
# narrow call's time goes inside a graph (transpose, SpMM, no reduction).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 1 8 16; do for d in 11008x4096 13824x5120 28672x8192 4096x11008 4096x4096; do S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16"; done; done
timeout 260 python scripts/ab_wgmma.py TILE=auto,wg128x16s8t1g4o2,wg128x16s10t1o2,auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v125a.txt"
S=""; for t in 32 64; do for d in 11008x4096 13824x5120 28672x8192; do S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16"; done; done
timeout 150 python scripts/ab_wgmma.py TILE=auto,wg128x32s8t1g4o2,wg128x64s6t1o2,wg128x64s6t1g3o2 --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v125b.txt"
timeout 60 python scripts/graph_gaps.py 11008x4096x16:128:2:8,11008x4096x16:2:4,28672x8192x8:128:2:8 2>&1 | grep -v Warn > "$OUT/gaps_v125.txt"; tail -30 "$OUT/gaps_v125.txt"
echo "total ${SECONDS}s"
