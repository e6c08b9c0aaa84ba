#!/usr/bin/env bash
# v150: (1) where a persistent 2:128 tile's time goes now (v149's rule keeps persistence to tiles of
# <= 2 k-steps): stage and epilogue clocks of LLaMA gate/up at T = 8192; v148's 2:32 trace had the
# epilogue's four passes at ~9k cycles (stores issued at ~12 B/clk per SM beside the next tile's
# gathers). (2) Y by TMA stores from the persistent tiles (EPI_TMA, v29: 6-15% slower then) again,
# on the tiles that stay persistent. Predicted: -0..-5% where the stores queue behind the gathers.
# (3) the README's grid on the current code (v149's rule, v139-v148), cuBLAS and cuSPARSELt beside.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
timeout 40 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 2>&1 | grep -v Warn > "$OUT/trace_persistent_2to128_h200_v150.txt"
grep -E "median|epilogue of tile [0-3]:" "$OUT/trace_persistent_2to128_h200_v150.txt"
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,1024x4096x8192:128:2:128,4096x4096x2048:128:2:64
for xt in 0 1; do
  timeout 90 python scripts/ab_wgmma.py EPI_TMA=0,1,0,1 --path auto --xt $xt --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_epi_tma_h200_v150.txt"
done
echo "A/B took ${SECONDS}s"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v150 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
