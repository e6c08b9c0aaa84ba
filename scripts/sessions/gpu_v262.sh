#!/usr/bin/env bash
# v262: where the fused q/k/v and gate/up lose at prefill (v258: LLaMA prefill T = 2048, 128:2:32 3.89 -> 3.98 ms
# fused, though the fused Linears alone run faster, v259: q/k/v 74.1 -> 52.0 us, gate/up 102.6 -> 96.4): per-kernel
# GPU time of one step, dense / apart / fused (scripts/e2e_kernels.py), and the same at decode batch 1 (64:2:8).
# Prediction: the SpMM kernels' sum drops ~110 us a step fused at 128:2:32; the loss sits in kernels around
# attention (elementwise copies on the q/k/v views) or in the transposes.
#   OUT=$OUT bash scripts/sessions/gpu_v262.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
cd scripts
timeout 200 python e2e_kernels.py --workload llama-prefill --pattern 128:2:32 --top 24 > "$OUT/e2e_kernels_prefill_v262.txt" 2>&1
echo "prefill exit $?"; cat "$OUT/e2e_kernels_prefill_v262.txt" | tail -26
timeout 150 python e2e_kernels.py --workload llama-decode --batch 1 --pattern 64:2:8 --top 16 > "$OUT/e2e_kernels_decode_v262.txt" 2>&1
echo "decode exit $?"; tail -18 "$OUT/e2e_kernels_decode_v262.txt"
echo "total ${SECONDS}s"
