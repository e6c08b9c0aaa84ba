#!/usr/bin/env bash
# v142: splitk_reduce_t with each thread's 4 outputs summed side by side (v141: its loads of one split ran one
# after another: 4096^2 128:2:8 T = 16 Y 7.5 us, Y^T 10.0). Predicted Y^T within ~1 us of Y. And 2:4 prefill
# on X^T by TMA against row-major X in turns (v140: +10% at T = 2048 on LLaMA gate/up and down; noise?).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 200 120 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "feature_major or split or x_by_tma"
timeout 150 python scripts/probes/xt_tma.py 4096x4096x256:2:4,4096x4096x16:2:4,4096x4096x16:128:2:8,11008x4096x32:128:2:16,4096x11008x128:128:2:32,4096x4096x1024:128:2:32,11008x4096x2048:2:4,4096x11008x2048:2:4,11008x4096x2048:2:4,4096x11008x2048:2:4 2>&1 | grep -v Warn | tee "$OUT/xt_tma_v142.txt"
P="--workloads llama-decode --patterns 128:2:8,128:2:32 --budget-seconds 80"  # batch 1 / 8 / 128
e2e 120 h200_e2e_v142_fm $P --feature-major-mlp
e2e 120 h200_e2e_v142_rm $P
rm -f "$OUT"/*.png "$OUT"/log_*
echo "total ${SECONDS}s"
