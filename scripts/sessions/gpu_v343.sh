#!/usr/bin/env bash
# v343: cells to fit a wave rule with K in it for the cp.async kernel's wide prefill tile (v341: a wide wave cost
# 1.29-1.56 narrow ones by shape; at equal waves 4096^2 and 4096 x 11008 at T = 8192 picked differently). Narrow
# (128 x 64) and wide (128 x 256) on LLaMA-7B/13B/70B and BERT-large shapes at T = 2048 / 4096 / 8192, 128:2:8 and
# 2:4 (X^T given). Predicted: the wide tile's share of wins grows with K (its per-CTA pipeline fill and 128 x 256
# epilogue amortised over more steps) and with how empty the narrow grid's last wave is.
#   OUT=$OUT bash scripts/sessions/gpu_v343.sh      (~450 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm > /dev/null
{ for p in 128:2:8 2:4; do for s in "4096 4096" "11008 4096" "4096 11008" "13824 5120" "5120 13824" "28672 8192" \
  "8192 28672" "1024 4096" "4096 1024"; do for t in 2048 4096 8192; do
  timeout 40 python scripts/tile_sweep.py $s $t $p 128,64,64,32,4 128,256,64,64,3 2>&1 | grep -v Warn
done; done; done; } > "$OUT/tile_sweep_${CARD}_v343.txt"
grep -c tile "$OUT/tile_sweep_${CARD}_v343.txt"
python scripts/wave_fit.py "$OUT/tile_sweep_${CARD}_v343.txt" | tee "$OUT/wave_fit_${CARD}_v343.txt"
echo "total ${SECONDS}s"
