#!/usr/bin/env bash
# v263: fused siblings at prefill with the MLP feature-major (v262: fused, the elementwise kernels on the split
# views of [T, 2 x 11008] / [T, 3 x 4096] outputs leave torch's vectorised path: +300 us a step; with
# --feature-major-mlp the fused gate/up writes Y^T, whose halves are contiguous blocks, and down reads it as X^T).
# Prediction: prefill T = 2048 fused + feature-major within 1% of feature-major alone at 64:2:8, 1-3% faster at
# 128:2:32 (q/k/v's views still strided).
#   OUT=$OUT bash scripts/sessions/gpu_v263.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
P="--workloads llama-prefill --patterns 64:2:8,128:2:32 --budget-seconds 100"
e2e 100 h200_e2e_v263_fm_fused $P --feature-major-mlp --fuse-siblings
e2e 100 h200_e2e_v263_fm $P --feature-major-mlp
rm -f "$OUT"/*.png "$OUT"/log_*
echo "total ${SECONDS}s"
