#!/usr/bin/env bash
# v264: prefill with only gate/up fused (--fuse-siblings gate_up) and the MLP feature-major, against v263's both
# fused (64:2:8 1.16, 128:2:32 1.97 x dense) and none (1.19 / 1.87). Prediction: q/k/v fused costs at prefill
# (strided RoPE on the views, v262), so gate_up alone >= both at 128:2:32 and within 1% of none at 64:2:8.
#   OUT=$OUT bash scripts/sessions/gpu_v264.sh      (~60 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
P="--workloads llama-prefill --patterns 64:2:8,128:2:32 --budget-seconds 100"
e2e 100 h200_e2e_v264_fm_gate_up $P --feature-major-mlp --fuse-siblings gate_up
e2e 100 h200_e2e_v264_fm_fused $P --feature-major-mlp --fuse-siblings
rm -f "$OUT"/*.png "$OUT"/log_*
echo "total ${SECONDS}s"
