#!/usr/bin/env bash
# v280: the decode kernel's A (and its codes) straight into registers on the fragment image, DECODE_AREG steps
# ahead (no bulk copies: v239 found a CTA's 4 KB bulk copies ~230 ns apart whatever the ring), at token tiles
# of 8 / 16. Decode tests (the new one at depths 2 / 4 / 8), memcheck of it at depth 4, the kernel before / after
# this change at DECODE_AREG = 0 (old_src: c53fdc3's src, a temporary copy), then the depths in turns.
# Prediction: depth 4 -10..-20% at T = 1 on 64:2:8 / 128:2:8 (CTAs of >= 4 steps: one round trip instead of a
# chain of copies), -5..-10% at 2:16-2:32 (fewer steps a CTA), T = 8 less; old / new at 0 within 2%.
#   OUT=$OUT bash scripts/sessions/gpu_v280.sh      (~400 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py -k "decode" > "$OUT/tests_decode_v280.txt" 2>&1
tail -1 "$OUT/tests_decode_v280.txt"; grep -E "^FAILED|^E  " "$OUT/tests_decode_v280.txt" | head -8
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python -m pytest -q -m gpu \
  -p no:cacheprovider tests/test_spmm_mma_sp.py -k "a_in_registers and 4" > "$OUT/memcheck_areg_v280.txt" 2>&1
echo "memcheck exit $? $(tail -1 "$OUT/memcheck_areg_v280.txt") ${SECONDS}s"
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,4096x4096x1:64:2:16,4096x4096x1:128:2:16,4096x4096x1:128:2:32
S=$S,11008x4096x1:64:2:8,4096x11008x1:64:2:8,11008x4096x1:128:2:16,1024x4096x1:64:2:8,13824x5120x1:64:2:8
S=$S,4096x4096x8:64:2:8,4096x4096x8:128:2:16,11008x4096x4:64:2:8,1024x4096x16:128:2:16
timeout 200 python scripts/ab_decode.py DECODE_AREG=0,2,4,8,0 --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_areg_v280.txt" | cut -c1-110
echo "ab ${SECONDS}s"
S2=4096x4096x1:64:2:8,4096x4096x1:128:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8,1024x4096x1:64:2:8
for i in 1 2; do
  PYTHONPATH=$PWD/old_src/src timeout 40 python scripts/ab_decode.py DECODE_GROUP=2 --shapes $S2 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v280.txt" | cut -c1-48
  timeout 40 python scripts/ab_decode.py DECODE_AREG=0 --shapes $S2 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v280.txt" | cut -c1-48
done
echo "total ${SECONDS}s"
