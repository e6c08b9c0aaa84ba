#!/usr/bin/env bash
# v104: mid T (65-1024 tokens) on the decode tiles where the prefill tile's grid would leave half
# the SMs idle (v103). The GPU suites and memcheck, an A/B of the route (MID_T_DECODE_TILES) with
# cuBLAS beside on every pattern, then the quick grid's shapes at T = 128-1024 (mid-T table).
# Predicted (v103): 4096^2 and 1024-row shapes and LLaMA down at T = 128-256 -20..-70%, the rest even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 300 120 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py || exit 1
S=""; for t in 96 128 256 512 1024; do for d in 4096x4096 4096x11008 1024x4096; do
  S="$S,${d}x$t:2:4,${d}x$t:64:2:8,${d}x$t:128:2:8,${d}x$t:128:2:32,${d}x$t:128:2:128"; done; done
timeout 200 python scripts/ab_wgmma.py MID_T_DECODE_TILES=1,0,1,0 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v104_midt.txt"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 128,256,512,1024 \
  --paths auto,mma_sp,wgmma_sp,cslt --tag h200_midT_v104 > "$OUT/bench.txt" 2>&1
grep -E "^\\| [0-9:]+ \\| 128" "$OUT/bench.txt" | head -20; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
