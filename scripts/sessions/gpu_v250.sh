#!/usr/bin/env bash
# v250: the decode planner's 64-row rule (DECODE_MIN_SPLIT_STEPS_64 = 4 while row tiles x splits fill the SMs),
# old (1) and new (4) in turns on every 64-row cell of v247's shapes, then the decode tests.
# Prediction: 4096^2 64:2:16 -8..-13%, 5120^2 64:2:16 -18..-23%, 64:2:32 cells -5..-15%, the rest within 2%.
#   OUT=$OUT bash scripts/sessions/gpu_v250.sh      (~100 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=$(python - <<'PY'
shapes = ["4096x4096", "11008x4096", "4096x11008", "1024x4096", "5120x5120", "2048x8192"]
print(",".join(f"{s}x{t}:64:2:{m}" for s in shapes for m in (8, 16, 32) for t in (1, 2, 4, 8)))
PY
)
timeout 200 python scripts/ab_decode.py DECODE_MIN_SPLIT_STEPS_64=1,4,1,4 --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_min64_v250.txt" | awk '{print $1, $2, $4, $6, $8}'
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  -k "decode" > "$OUT/tests_decode_v250.txt" 2>&1; tail -1 "$OUT/tests_decode_v250.txt"
echo "total ${SECONDS}s"
