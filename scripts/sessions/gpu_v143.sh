#!/usr/bin/env bash
# v143: Y^T from the split reduction by token-strided stores below REDUCE_T_TILED_MIN = 64 tokens (no
# shared memory: it starts beside the SpMM under PDL), splitk_reduce_t's tiles from there (v142: at
# T = 16 the tiled form cost +3.9 us over Y, the strided one +1.4 in v140). Predicted: Y^T within
# ~1.5 us of Y at T = 8-64, and forced tiled (REDUCE_T_TILED_MIN = 1) 2-3 us slower at T <= 32.
# Then LLaMA decode end to end with / without --feature-major-mlp (v142: batch 8 2:32 1.48 / 1.55).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 200 120 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "feature_major or split"
SHAPES=4096x4096x8:128:2:8,4096x4096x16:128:2:8,11008x4096x32:128:2:16,4096x11008x64:128:2:32,4096x4096x16:2:4,4096x4096x128:2:4
probe() {  # probe TILED_MIN TAG
  timeout 100 python -c "import sys, runpy; from vnmsparse.kernels import spmm_mma_sp as S; S.REDUCE_T_TILED_MIN = $1
sys.argv = ['xt_tma.py', '$SHAPES']; runpy.run_path('scripts/probes/xt_tma.py', run_name='__main__')" 2>&1 | grep -v Warn | tee "$OUT/xt_tma_v143_$2.txt"
}
probe 64 strided
probe 1 tiled
P="--workloads llama-decode --patterns 128:2:8,128:2:32 --budget-seconds 80"  # batch 1 / 8 / 128
e2e 120 h200_e2e_v143_fm $P --feature-major-mlp
e2e 120 h200_e2e_v143_rm $P
rm -f "$OUT"/*.png "$OUT"/log_* "$OUT"/*.csv
echo "total ${SECONDS}s"
