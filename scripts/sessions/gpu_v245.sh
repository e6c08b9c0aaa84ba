#!/usr/bin/env bash
# v245: v244 found the runtime group cost 128-row decode tiles 4-10% (SASS: their mma.sp reordered); the
# copies of several steps are now a template flag (GROUPED, fragment image only) and the other kernels
# compile as v239's (opcode sequences within ~5% of aaede43's). Decode tests (grouped rings on the image),
# memcheck of the ring test, and the old / new A/B again (old_src: aaede43's src, a temporary copy).
# Prediction: old = new within 1-2% on the 128-row cells; 64-row cells with >= 8 steps -5..-10%.
#   OUT=$OUT bash scripts/sessions/gpu_v245.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  -k "decode" > "$OUT/tests_decode_v245.txt" 2>&1; tail -1 "$OUT/tests_decode_v245.txt"
timeout 100 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python -m pytest -q -m gpu \
  -p no:cacheprovider tests/test_spmm_mma_sp.py -k "decode_kernel_ring" > "$OUT/memcheck_ring_v245.txt" 2>&1
echo "memcheck exit $? $(tail -1 "$OUT/memcheck_ring_v245.txt")"
S=4096x4096x1:128:2:8,4096x4096x8:128:2:8,1024x4096x1:128:2:8,1024x4096x1:128:2:16,11008x4096x1:128:2:8
S=$S,4096x4096x1:64:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8,2048x8192x1:64:2:8,1024x4096x4:128:2:8
for i in 1 2; do
  PYTHONPATH=$PWD/old_src/src timeout 60 python scripts/ab_decode.py DECODE_RING=2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v245.txt" | cut -c1-48
  timeout 60 python scripts/ab_decode.py DECODE_GROUP=2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v245.txt" | cut -c1-48
done
echo "total ${SECONDS}s"
