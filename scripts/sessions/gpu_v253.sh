#!/usr/bin/env bash
# v253: autotune (VNM_AUTOTUNE / the bench's auto_tuned path) times the decode kernel at every split count beside
# the wgmma.sp tiles at T <= 8. Tests (every tuned decode plan right, poisoned Y, R not a multiple of V), memcheck
# of them, then auto vs auto_tuned on the README's shapes at T = 1, 4, 8.
# v253b: the tuner times each candidate as 16 calls in a CUDA graph, L2 flushed before each (v253's eager
# events, one call at a time, measured launches: auto_tuned 0.69x against auto's 1.64x at 2:4, 7-14% behind at V:2:M).
# Prediction: auto_tuned >= auto on every cell within 3% (the heuristic is a candidate), 5-25% ahead on
# 4096^2 V = 64 at T = 4-8, 11008 x 4096 128:2:32 / 2:128 at T = 4-8; T <= 8 geomeans +2..+6%.
#   OUT=$OUT bash scripts/sessions/gpu_v253.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_autotune.py > "$OUT/tests_autotune_v253.txt" 2>&1
tail -1 "$OUT/tests_autotune_v253.txt"
timeout 150 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python -m pytest -q -m gpu \
  -p no:cacheprovider tests/test_autotune.py -k "decode_plan" > "$OUT/memcheck_autotune_v253.txt" 2>&1
echo "memcheck exit $? $(tail -1 "$OUT/memcheck_autotune_v253.txt")"
timeout 250 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16 --paths auto,auto_tuned \
  --tag h200_v253_tuned > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -20; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
