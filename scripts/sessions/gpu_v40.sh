#!/usr/bin/env bash
# v40: programmatic dependent launch (PDL) on the decode, wgmma.sp, transpose and split-reduction
# kernels: each may start while the previous kernel in the stream runs, prefetching its weights
# into L2 until grid_dependency_wait. GPU suites (the new dependent-chain test first), memcheck,
# then A/B PDL=0/1 with `auto`, calls back to back (as the bench grid times them) and with a torch
# kernel before each call (as in a model, where PDL has no vnmsparse kernel to overlap), and the
# LLaMA decode e2e with VNM_PDL=0 and 1.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v40.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_ops.py -k dependent_calls 2>&1 | tail -3
WARM=0 gpu_tests 150 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py
sanitize 60
SHAPES=4096x4096x1:128:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:2:4,1024x4096x1:128:2:32,4096x4096x8:128:2:8,4096x4096x16:128:2:8,11008x4096x64:128:2:8,4096x4096x64:2:4,1024x4096x64:128:2:32,4096x4096x8192:2:4,4096x4096x8192:128:2:8
for between in 0 1; do
  PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 120 python scripts/ab_wgmma.py PDL=0,1,0,1 --path auto --between $between \
    --shapes $SHAPES 2>&1 | grep -v Warn > "$OUT/ab_pdl_between$between.txt"; cat "$OUT/ab_pdl_between$between.txt"
done
for pdl in 0 1; do
  VNM_PDL=$pdl timeout 90 python -m vnmsparse.cli bench e2e --workloads llama-decode --patterns 2:4,64:2:8,128:2:8,128:2:32 \
    --dtypes bf16 --budget-seconds 60 --out /tmp/e2e --tag e2e_v40_pdl$pdl --no-plot > /dev/null 2>&1
  cp /tmp/e2e/e2e_e2e_v40_pdl$pdl.md "$OUT/" 2>/dev/null || ls /tmp/e2e
  grep -A12 "^## Summary" /tmp/e2e/e2e_e2e_v40_pdl$pdl.md | head -14
done
echo "total ${SECONDS}s"
