#!/usr/bin/env bash
# v157 (run at the start of the sixteenth session; its probe and v159's storer were removed after it, NOTES v157-v159):
# 1. v155 measured a token-contiguous x at ragged T +5..+80% over the same call on row-major x (one
#    transpose), with v155's padded torch copy. Which form makes the gather's X^T rows fastest: the
#    copy, two PDL transposes (to rows, back), or the old torch contiguous() + one transpose?
#    Predicted: two transposes ~2x the row-major transpose, the torch forms slower.
# 2. v158: each consumer warpgroup stages and stores its own rows (VNM_WG_EPI_PER_WG=1) against all
#    consumers together. Predicted: gate/up 2:128 T = 8192 -10..-20%, one tile per CTA within +-2%.
#    Then the persistent / every-tile / feature-major-out tests with the macro on.
# 3. v159: the TMA stores issued by a fourth warpgroup (EPI_STORER; 128-row tiles of <= 128 tokens, so
#    the 128 x 128 persistent tile with 4 staging boxes) against the same tile's TMA stores issued by a
#    consumer and its 16-byte stores, beside `auto`. Predicted: 2:128 gate/up -20..-40% on that tile,
#    enough to beat the 128 x 256 default (107 us) if the stores then run beside the math; memcheck last.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
timeout 90 python scripts/probes/feature_major_repad.py 2047x4096 4095x11008 1001x4096 13x4096 2047x1024 2>&1 | grep -v Warn | tee "$OUT/feature_major_repad_h200_v157.txt"
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x11008x4096:128:2:128,4096x4096x4096:128:2:32,4096x4096x8192:128:2:8,4096x4096x8192:2:4
timeout 200 python scripts/ab_wgmma.py VNM_WG_EPI_PER_WG=0,1,0,1 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_epi_per_wg_h200_v158.txt"
timeout 150 python scripts/ab_wgmma.py EPI_STORER=0,1,0,1 --define EPI_TMA=1 --define EPI_TMA_BUFS=4 --define TILE=wg128x128s10r1p --path wgmma_sp --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_epi_storer_h200_v159.txt"
timeout 100 python scripts/ab_wgmma.py TILE=auto,wg128x128s10r1p --path wgmma_sp --xt 1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_epi_storer_h200_v159.txt"
timeout 200 python -c "
import sys, pytest
from vnmsparse.kernels import spmm_wgmma_sp as W
W.DEFINES = {'VNM_WG_EPI_PER_WG': 1}
sys.exit(pytest.main(['-q', '-m', 'gpu', '-p', 'no:cacheprovider', 'tests/test_spmm_wgmma_sp.py', 'tests/test_spmm_mma_sp.py',
                      '-k', 'persistent or every_tile or feature_major or feature_major_transposes']))" > "$OUT/gpu_tests.txt" 2>&1
tail -2 "$OUT/gpu_tests.txt"
sanitize 150
echo "total ${SECONDS}s"
