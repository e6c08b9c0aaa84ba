#!/usr/bin/env bash
# v359 made default (the layouts' codes paired as lanes read them); v362 (knob VNM_MMA_INTERLEAVE, off): a stage's B
# copies among its mma.sp; v363: the warp-specialised kernel at two CTAs an SM (4 producer + 4 consumer warps each,
# setmaxnreg 40 / 216 on sm_90a: two consumer warps a scheduler, where 6-stage ws tiles had one).
# (1) the kernel file's GPU tests (the new default, the two-CTA ws tiles), (2) the classic kernel's tests with the
# knob, (3) a tile sweep, twice: classic 128 x 128 / ws 1 CTA / ws 2 CTAs / classic with the knob.
# Predicted (H100, 4096^2 x 8192, X^T given): ws 2 CTAs 128:2:8 200-230 us against the classic tile's ~247
# (L2's ~8.6 TB/s floor at ~195); v362 -3..+5% (the copies among the mma.sp, but each waits on an HMMA result).
#   OUT=$OUT bash scripts/sessions/gpu_v363.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
timeout 230 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py > "$OUT/tests_mma_sp_${CARD}_v363.txt" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests_mma_sp_${CARD}_v363.txt" | head -8; echo "tests ${SECONDS}s"
timeout 100 python -c "
import sys, pytest
from vnmsparse.kernels import spmm_mma_sp as K
K.DEFINES['VNM_MMA_INTERLEAVE'] = 1
sys.exit(pytest.main(['-q', '-m', 'gpu', '-p', 'no:cacheprovider', 'tests/test_spmm_mma_sp.py', '-k',
                      'every_tile or row_major_x_on_every or test_patterns or split_k']))
" > "$OUT/tests_interleave_${CARD}_v363.txt" 2>&1
tail -1 "$OUT/tests_interleave_${CARD}_v363.txt"; echo "knob tests ${SECONDS}s"
sweep() {  # R K T PATTERN CLASSIC WS1 WS2
  timeout 90 python scripts/tile_sweep.py "$1" "$2" "$3" "$4" "$5" "$6" "$7" VNM_MMA_INTERLEAVE=1 "$5" 2>&1 | grep -v Warn; }
{ for i in 1 2; do
  sweep 4096 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,6,p4 128,128,64,64,4,p4
  sweep 4096 4096 8192 128:2:16 128,128,64,64,3 128,128,64,64,6,p4 128,128,64,64,4,p4
  sweep 4096 4096 8192 64:2:8 64,128,32,64,3 64,256,64,64,5,p4 64,256,64,64,3,p4
  sweep 4096 4096 8192 2:4 128,128,64,64,3 128,128,64,64,6,p4 128,128,64,64,4,p4; done; } \
  | tee "$OUT/tile_sweep_${CARD}_v363.txt" | grep -E "tile|dense|INTER"
echo "total ${SECONDS}s"
