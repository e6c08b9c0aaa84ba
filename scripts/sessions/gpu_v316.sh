#!/usr/bin/env bash
# v316 (data for a later rule, no change): where autotune, which times the decode kernel at both row tiles of a V = 64
# weight (64, and 128 = two V-row blocks a CTA) and its K splits, beats the heuristic route, over the LLaMA / BERT
# shapes and v311's six others, 64:2:8 / 64:2:16, T = 1 / 4 / 8. Its choices (autotune.json) come back with the
# times. Predicted: `auto_tuned` 1.00-1.05x `auto` in geomean, its 128-row picks on v309's winners (7B gate/up and q/k/v
# 64:2:8) and not on v311's losers (10240 x 8192 64:2:16, 9216 x 2048).
#   OUT=$OUT bash scripts/sessions/gpu_v316.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 280 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tokens 1,4,8 --patterns 64:2:8,64:2:16 \
  --shapes bert,llama7b,llama13b,llama70b,15360x5120,10240x8192,14336x4096,16384x4096,9216x2048,10240x2560 \
  --paths auto,auto_tuned --tag ${CARD}_v316_tuned > "$OUT/log_v316.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
cp "$VNM_CACHE_DIR/autotune.json" "$OUT/autotune_${CARD}_v316.json" 2>/dev/null || find "$VNM_CACHE_DIR" -name autotune.json -exec cp {} "$OUT/autotune_${CARD}_v316.json" \;
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v316_tuned.csv" auto auto_tuned --min 0.03
echo "total ${SECONDS}s"
