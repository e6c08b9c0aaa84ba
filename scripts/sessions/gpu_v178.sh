#!/usr/bin/env bash
# (Run: refuted, +2..+12%; the prefetch was removed, NOTES v178.)
# v178: issue 3's cp.async kernel at decode: a CTA of one token tile and <= 16 steps asks L2 for all
# of its weights and column words first (VNM_MMA_PREFETCH_STEPS). v177: 4096^2 64:2:8 T = 64 spends
# 10.0 us in the SpMM (8 steps a split, ~2k cycles a step, ~11 B/clk an SM: latency, each step waiting
# for column words fetched one stage ahead). Predicted: that SpMM 10 -> 5-7 us, the call 13.4 -> ~10 us
# (issue 3's decode rule met at 4096^2: 0.81-0.84 -> ~1.1); T = 1-16 -10..-30%; prefill unchanged
# (more steps than 16 or more than one token tile). A/B, per-kernel times, the mma_sp suite, memcheck of
# the cp.async launches, and the decode grid (T = 1-64).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,11008x4096x64:128:2:8,1024x4096x64:64:2:8,4096x4096x16:64:2:8,11008x4096x1:128:2:8,4096x11008x8:128:2:16,4096x4096x64:128:2:32
timeout 70 python scripts/ab_wgmma.py VNM_MMA_PREFETCH_STEPS=0,16,0,16 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_prefetch_h200_v178.txt"
timeout 40 python scripts/kernel_times.py 4096x4096x64:64:2:8,11008x4096x64:128:2:8 --path mma_sp 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_mma_sp_prefetch_h200_v178.txt"
WARM=0 gpu_tests 100 tests/test_spmm_mma_sp.py
SANITIZE_ARGS="--cp-async-only" sanitize 40
timeout 100 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths auto,mma_sp --tag h200_v178_decode > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -20
echo "total ${SECONDS}s"
