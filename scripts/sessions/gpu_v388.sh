#!/usr/bin/env bash
# v388: issue 3's decode bar on the H200 (v380: `mma_sp` at T <= 64 min 0.75 at 2:8, 0.90 at 2:16) fails on BERT-large's
# K = 1024 layers at T = 32-64 (dense ~4.5-5.2 us there; ours 5.5-7.0: transpose, SpMM with 2-4 K splits of 2 steps,
# reduction = three launches). (1) Where the time goes: graph_gaps of the mma_sp path on four cells. (2) Same-run A/B of
# the split rule: default / no K splits (MIN_SPLIT_STEPS=1000) / at most steps/4 splits (MIN_SPLIT_STEPS=4) / the 128-row
# tile at T 33-64 (DECODE_64_ROWS=False) / the one-launch decode kernel, over the BERT layers and two LLaMA-7B ones.
# Predicted (H100 or H200): the three kernels ~1.5-2 / ~2.5-3.5 / ~1-1.5 us with PDL overlap; no splits -10..-20% on
# K = 1024 at T = 32-64 and +20-50% on K = 4096 / 11008 (a quarter of the CTAs); the decode kernel slower at T = 32-64.
#   OUT=$OUT bash scripts/sessions/gpu_v388.sh      (~300 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 150
python scripts/graph_gaps.py 4096x1024x64:128:2:8,3072x1024x64:64:2:8,1024x1024x32:128:2:16,4096x4096x64:128:2:8 mma_sp \
  2>&1 | grep -v Warn | tee "$OUT/gaps_mma_sp_${CARD}_v388.txt"
echo "gaps ${SECONDS}s"
timeout 300 python scripts/bench_ab.py \
  --path "mma_sp_s1@mma_sp:spmm_mma_sp.MIN_SPLIT_STEPS=1000" \
  --path "mma_sp_s4@mma_sp:spmm_mma_sp.MIN_SPLIT_STEPS=4" \
  --path "mma_sp_r128@mma_sp:spmm_mma_sp.DECODE_64_ROWS=False" \
  -- bench spmm --shapes bert,llama7b.qkvo,llama7b.down --tokens 1,8,16,32,64 \
  --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32 --paths mma_sp,mma_sp_s1,mma_sp_s4,mma_sp_r128,mma_sp_decode \
  --budget-seconds 240 --no-plot --out "$OUT" --tag "${CARD}_v388_splits" > "$OUT/log_v388.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v388_splits.md"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v388_splits.csv" mma_sp mma_sp_s1 mma_sp_s4 mma_sp_r128 mma_sp_decode dense \
  --min 0.05 > "$OUT/ab_splits_${CARD}_v388.txt"; tail -6 "$OUT/ab_splits_${CARD}_v388.txt"
echo "total ${SECONDS}s"
