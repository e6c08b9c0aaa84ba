#!/usr/bin/env bash
# v296: VNM_DEC_EARLY=1 (decode kernel macro): the weight's loads that need no X (A's register queue on the 64-row
# tiles, the first slots' bulk copies and the codes on the 128-row ones, the column words) issued before the PDL
# wait, so they fly while the previous kernel finishes; after the wait only the X slice is new. (The SASS: the queue's
# LDG.E.NA and the words' LDGSTS sit above ACQBULK.) Prediction: if the next call's CTAs sit at the wait for long
# (co-resident with the previous call's), the 64-row tiles at T = 1 -0.5..-1.5 us (4096^2 64:2:8 ~6.0 us), the
# 128-row ones less; if not, within 2%. The decode tests with the macro on pass.
#   OUT=$OUT bash scripts/sessions/gpu_v296.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python - > "$OUT/tests_early_${CARD}_v296.txt" 2>&1 <<'PY'
import sys, pytest
import vnmsparse.kernels.spmm_mma_sp as K
K.DEFINES = {"VNM_DEC_EARLY": 1}
sys.exit(pytest.main(["-q", "-m", "gpu", "-p", "no:cacheprovider", "-k", "decode",
                      "tests/test_spmm_mma_sp.py", "tests/test_spmm_wgmma_sp.py"]))
PY
echo "tests (EARLY=1): exit $? $(tail -n 1 "$OUT/tests_early_${CARD}_v296.txt") ${SECONDS}s"
timeout 200 python scripts/ab_decode.py VNM_DECODE=1,1+VNM_DEC_EARLY=1,1,1+VNM_DEC_EARLY=1 --shapes \
4096x4096x1:64:2:8,4096x4096x8:64:2:8,4096x4096x1:64:2:16,1024x4096x1:64:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8,\
4096x4096x1:128:2:8,4096x4096x8:128:2:8,11008x4096x1:128:2:8,4096x4096x1:128:2:32,4096x4096x1:128:2:128,4096x4096x1:2:4 \
  > "$OUT/ab_early_${CARD}_v296.txt" 2>&1
echo "ab: exit $? ${SECONDS}s"; cat "$OUT/ab_early_${CARD}_v296.txt"
timeout 250 python scripts/bench_ab.py --path "early:spmm_mma_sp.DEFINES={'VNM_DEC_EARLY': 1}" -- bench spmm --out "$OUT" \
  --no-plot --quick --tokens 1,4,8 --paths wgmma_sp,auto,early --tag ${CARD}_v296_early > /dev/null 2>&1
echo "bench: exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v296_early.csv" wgmma_sp,auto,early | grep -v "^skip"
echo "total ${SECONDS}s"
