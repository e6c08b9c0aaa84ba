#!/usr/bin/env bash
# v139: v138's feature-major output on the H200: its GPU tests (ops, nn, wgmma.sp), then LLaMA-7B-shaped
# prefill (T = 2048, 4 layers) with and without `--feature-major-mlp` (gate/up write Y^T, silu*up keeps
# it, down reads it with no X^T transpose). Predicted: 128:2:32 +3..5% end to end (~20 us of the down
# op's transpose per layer), 64:2:8 / 128:2:8 +1..2%, 2:4 flat or worse (+8% Y^T epilogue, its TMA path
# wants row-major X).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_ops.py tests/test_nn.py tests/test_spmm_wgmma_sp.py -k "feature_major"
P="--workloads llama-prefill --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:32 --budget-seconds 100"
e2e 150 h200_e2e_v139_fm $P --feature-major-mlp
e2e 150 h200_e2e_v139_rm $P
rm -f "$OUT"/*.png
echo "total ${SECONDS}s"
