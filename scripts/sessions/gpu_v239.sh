#!/usr/bin/env bash
# v239: what paces a ring's stages. v77's stream probe took ~300 ns a stage per CTA whatever the ring's
# depth (2 or 24 slots); the stage count, not the bytes, set its time. Two readings: try_wait's
# suspension wakes late (then polling by test_wait moves it, variant 4 / VNM_MBAR_SPIN=1 in the
# kernels), or the TMA unit serves a CTA's bulk copies one phase at a time (then all copies at once on
# one barrier, variant 5, is as slow as the ring).
# Prediction: variant 5 near the DRAM rate (>= 3 TB/s at 86 CTAs, 4 KB copies); variant 4 even with 0
# (a wait that the hardware wakes on completion); the kernels' A/B within 2%.
#   OUT=$OUT bash scripts/sessions/gpu_v239.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 120 python scripts/stream_probe.py --v239 2>&1 | grep -v "Warn\|warn" | tee "$OUT/stream_probe_v239.txt"
S=4096x4096x1:64:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,1024x4096x1:128:2:32,4096x4096x16:128:2:8
S=$S,4096x4096x64:64:2:8,11008x4096x64:2:4,4096x4096x8192:2:4,4096x4096x8192:128:2:8
timeout 400 python scripts/ab_wgmma.py VNM_MBAR_SPIN=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_mbar_spin_v239.txt"
echo "total ${SECONDS}s"
