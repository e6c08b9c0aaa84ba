#!/usr/bin/env bash
# v139: v138's feature-major output on the H200: its GPU tests (ops, nn, wgmma.sp), then LLaMA-7B-shaped
# prefill (T = 2048, 4 layers) with and without `--feature-major-mlp` (gate/up write Y^T, silu*up keeps
# it, down reads it with no X^T transpose). Predicted: 128:2:32 +3..5% end to end (~20 us of the down
# op's transpose per layer), 64:2:8 / 128:2:8 +1..2%, 2:4 flat or worse (+8% Y^T epilogue, its TMA path
# wants row-major X).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_ops.py tests/test_nn.py tests/test_spmm_wgmma_sp.py -k "feature_major"
e2e() {  # e2e TAG ARGS...
  local tag=$1; shift
  timeout 150 python -m vnmsparse.cli bench e2e --workloads llama-prefill --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:32 \
    --dtypes bf16 --no-cslt --budget-seconds 100 --out "$OUT" --tag "$tag" "$@" > "$OUT/log_$tag.txt" 2>&1
  echo "e2e $tag exit $?"; grep -A9 "^## Summary" "$OUT/e2e_$tag.md" | head -11
}
e2e h200_e2e_v139_fm --feature-major-mlp
e2e h200_e2e_v139_rm
rm -f "$OUT"/*.png
echo "total ${SECONDS}s"
