#!/usr/bin/env bash
# v285: how much of a decode CTA's share to ask of L2 before the PDL wait. v283's stage clocks (4096^2 64:2:8,
# T = 1): the X slice lands 4.1k cycles after the wait (~2 us of a 6.2 us call), behind the whole weight's L2
# prefetch that every CTA issues first (9.6 MB, ~2.7 us of DRAM). Prefetch all (32) / none / 1 / 2 steps.
# Prediction: 0-2 steps -0.5..-1 us at 4096^2 and 1024-row T = 1-8 (64- and 128-row tiles), LLaMA gate/up and
# down within 3% (bound by DRAM). Then the bench with `auto` timed after `wgmma_sp` (v284 had auto 0.3-0.4 us
# slower than wgmma_sp on the 64-row decode cells, which run the same kernel: an order effect?).
#   OUT=$OUT bash scripts/sessions/gpu_v285.sh      (~150 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,4096x4096x1:64:2:16,4096x4096x1:128:2:16,4096x4096x1:128:2:32
S=$S,11008x4096x1:64:2:8,4096x11008x1:64:2:8,11008x4096x1:128:2:8,1024x4096x1:64:2:8,1024x4096x1:128:2:32
S=$S,4096x4096x8:64:2:8,4096x4096x8:128:2:16,4096x4096x4:64:2:16,5120x5120x1:64:2:8,4096x4096x1:128:2:128
timeout 200 python scripts/ab_decode.py DECODE_AREG=4,4+VNM_DEC_PREFETCH_STEPS=0,4+VNM_DEC_PREFETCH_STEPS=1,4+VNM_DEC_PREFETCH_STEPS=2,4 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_prefetch_v285.txt" | cut -c1-130
echo "ab ${SECONDS}s"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --quick --tokens 1,8 --patterns 64:2:8,64:2:16,128:2:8 \
  --paths wgmma_sp,auto --tag h200_v285_order > "$OUT/log_v285.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v285_order.csv" wgmma_sp,auto | grep -v "^skip"
echo "total ${SECONDS}s"
