#!/usr/bin/env bash
# v240: the decode kernel's A in copies of several steps (DECODE_GROUP; v239: a CTA's 4 KB bulk copies
# run ~230 ns apart even all in flight, 16 KB ones at the DRAM rate), and with fewer K splits
# (DECODE_MAX_SPLITS), whose cluster reduction is ~1.3k cycles of a call (v47).
# Prediction: G = 4 at the planner's splits -5..-15% at T = 1 on 4096-row shapes; with 4 splits a further
# -5..-10% where the reduction shrinks; 2:32 even.
#   OUT=$OUT bash scripts/sessions/gpu_v240.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
# the decode tests with copies of 4 and of 3 steps (a partial last group)
for g in 4 3; do
  timeout 200 python - "$g" > "$OUT/tests_decode_group$g.txt" 2>&1 <<'PY'
import sys
import pytest
from vnmsparse.kernels import spmm_mma_sp as K
K.DECODE_GROUP = int(sys.argv[1])
sys.exit(pytest.main(["-q", "-m", "gpu", "-p", "no:cacheprovider", "tests/test_spmm_mma_sp.py", "tests/test_spmm_wgmma_sp.py", "-k", "decode"]))
PY
  echo "group $g: $(tail -1 "$OUT/tests_decode_group$g.txt")"
done
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,11008x4096x1:64:2:8
S=$S,1024x4096x1:128:2:32,4096x4096x1:128:2:16,4096x4096x8:64:2:8,11008x4096x8:128:2:8,28672x8192x1:128:2:8
timeout 300 python scripts/ab_decode.py DECODE_GROUP=1,4,4+DECODE_MAX_SPLITS=4,4+DECODE_MAX_SPLITS=2,2+DECODE_MAX_SPLITS=4,1 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_group_v240.txt"
echo "total ${SECONDS}s"
