#!/usr/bin/env bash
# v258 (prepared, not run): sibling Linears as one VNMLinear (VNMLinear.cat; `bench e2e --fuse-siblings`: q/k/v
# and gate/up of the LLaMA stack). Its GPU test, v257's fixed rotate tests, then the LLaMA prefill / decode end
# to end with and without the fusion, in one process each.
# Prediction (grid v251, T = 1, 64:2:8: q/k/v/o 7.7 us each, gate/up 13.1, down 14.2 -> fused q/k/v ~14, gate/up
# ~24): decode batch 1 -10..-15% of the Linears' time (~3-7% of the step); prefill T = 2048 at 128:2:32 one X^T
# transpose instead of three for q/k/v and of two for gate/up (~8 us each at 2048 x 4096): -2..-5% of the step.
#   OUT=$OUT bash scripts/sessions/gpu_v258.sh      (~400 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
WARM=1 gpu_tests 150 tests/test_nn.py tests/test_autotune.py -k "cat or rotate"
P="--workloads llama-prefill,llama-decode --patterns 64:2:8,128:2:32 --budget-seconds 100"
e2e 150 h200_e2e_v258_fused $P --fuse-siblings
e2e 150 h200_e2e_v258_apart $P
rm -f "$OUT"/*.png "$OUT"/log_*
echo "total ${SECONDS}s"
