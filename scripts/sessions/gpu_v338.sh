#!/usr/bin/env bash
# v338: whole-line B copies in the cp.async mma.sp kernel (VNM_MMA_WHOLE_LINES=1: one thread per 16-byte chunk, a
# warp's copy instruction covering 4 whole 128-byte lines of gathered X^T rows instead of pieces of 16 rows). ncu
# (v338 profile, H100, 4096^2 x 8192 128:2:8, 128 x 64 tile after v337): L2 tag requests 91% busy, sectors 55%, SM
# 30%: the gather's requests bound it. Counted per stage: A 128 + codes 128 + B 256 requests -> B 64 (512 -> 320).
# Predicted: 128 x 64 tile -20..-35% time at 128:2:8 / 2:16 / 2:4 (the loop grows 242 -> 317 instructions, issue
# ~32% -> ~45% busy); v20's loss (issue-bound address math) gone. (1) tile_sweep, WL 0 / 1 on the same tiles;
# (2) if any WL=1 tile wins, the mma.sp GPU tests with WL=1.
# Measured (NOTES v338): whole lines won 9-27%; they are now the only form (the switch is gone), so part (1)'s
# WL=0 rows and part (2) no longer differ from the default on later trees.
#   OUT=$OUT bash scripts/sessions/gpu_v338.sh      (~300 s)
source "$(dirname "$0")/../gpu_lib.sh"
{ for p in 128:2:8 128:2:16 2:4; do
  timeout 90 python scripts/tile_sweep.py 4096 4096 8192 $p 128,64,64,32,4 128,128,64,32,4 128,256,64,64,3 \
    VNM_MMA_WHOLE_LINES=1 128,64,64,32,4 128,128,64,32,4 128,256,64,64,3 2>&1 | grep -v Warn
done
timeout 60 python scripts/tile_sweep.py 4096 4096 8192 64:2:8 64,128,32,32,4 VNM_MMA_WHOLE_LINES=1 64,128,32,32,4 2>&1 | grep -v Warn
timeout 60 python scripts/tile_sweep.py 11008 4096 8192 128:2:8 128,64,64,32,4 VNM_MMA_WHOLE_LINES=1 128,64,64,32,4 2>&1 | grep -v Warn
} | tee "$OUT/tile_sweep_${CARD}_v338.txt"
echo "sweep ${SECONDS}s"
timeout 240 python - > "$OUT/tests_mma_sp_wl_${CARD}_v338.txt" 2>&1 <<'PY'
import sys
import pytest
from vnmsparse.kernels import spmm_mma_sp
spmm_mma_sp.DEFINES["VNM_MMA_WHOLE_LINES"] = 1
sys.exit(pytest.main(["-q", "-m", "gpu", "-p", "no:cacheprovider", "-x", "tests/test_spmm_mma_sp.py"]))
PY
tail -2 "$OUT/tests_mma_sp_wl_${CARD}_v338.txt"
echo "total ${SECONDS}s"
