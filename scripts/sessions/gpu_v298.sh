#!/usr/bin/env bash
# v298: the quick grid at T <= 64 with VNM_DEC_EARLY on (the default since v297) against it off (`late`, the same
# kernels as v295), in the same turns; `wgmma_sp` first to take the first place. Prediction (v296): `auto` / `late`
# 1.05-1.15 on the 64-row tiles at T <= 8 and 2:32-2:128, 2:4 even, T >= 16 even (other kernels).
# First v297's two failures again (torch.compile traced jit.settle's id(): settle now skips while tracing), with the
# decode and op suites.
#   OUT=$OUT bash scripts/sessions/gpu_v298.sh      (~300 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_ops.py tests/test_spmm_wgmma_sp.py -k "compile or decode or just_written"
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v298.txt"
timeout 300 python scripts/bench_ab.py --path "late:spmm_mma_sp.DEFINES={'VNM_DEC_EARLY': 0}" -- bench spmm --out "$OUT" \
  --quick --tokens 1,4,8,16,64 --paths wgmma_sp,auto,late,cslt --tag ${CARD}_v298_decode > /dev/null 2>&1
echo "bench: exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v298_decode.md" | grep "auto\|late" | cut -d'|' -f3-7
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v298_decode.csv" wgmma_sp,auto,late | grep -v "^skip"
echo "total ${SECONDS}s"
