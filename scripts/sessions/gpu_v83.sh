#!/usr/bin/env bash
# v83 (branch prefetch-steps): how much of a wgmma.sp CTA's first tile its up-front L2 prefetch
# covers (VNM_WG_PDL_PREFETCH_STEPS 16 = main; 64; 4096 = all). The decode kernel prefetches its
# CTA's whole share; an unsplit staged T <= 64 tile on LLaMA shapes (64-172 steps) only a quarter or
# less. stream_probe v77: small bulk copies from DRAM stream at ~13-25 GB/s per CTA, far under the
# kernel's ~30, which suggests the L2 prefetch is what feeds it. Predicted: gate/up / down 2:4
# T = 16-64 -10..-25% at 64+; 4096^2 (split to 16 steps) even; prefill control even.
# Then T = 1 cells that read 10-18% slower in grid v82 than v73 on unchanged code (variance check).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x16:2:4,11008x4096x64:2:4,4096x11008x16:2:4,4096x11008x64:2:4,4096x4096x64:2:4
S=$S,11008x4096x16:128:2:8,4096x11008x64:128:2:8,11008x4096x64:128:2:16,4096x4096x4096:2:4
timeout 200 python scripts/ab_wgmma.py VNM_WG_PDL_PREFETCH_STEPS=16,64,4096,16,64,4096 --path auto --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v83.txt"
timeout 60 python scripts/ab_wgmma.py PATH=auto,auto,auto --path auto --shapes 4096x11008x1:128:2:16,11008x4096x1:128:2:16,11008x4096x1:128:2:8 2>&1 | grep -v Warn | tee "$OUT/t1_v83.txt"
echo "total ${SECONDS}s"
