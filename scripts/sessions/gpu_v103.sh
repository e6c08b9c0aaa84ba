#!/usr/bin/env bash
# v103: mid T (65-1024 tokens), where `auto` runs the 128 x 128 / 128 x 256 prefill tiles without
# K splits: 8-86 row tiles x 1-8 token tiles, so 4096-row weights launch 32-128 CTAs on 132 SMs
# (spmm_h200_midT.md: every path below cuBLAS there). A/B of the default against the splittable
# bn = 64 tiles (K splits fill one wave) and 64-row tiles (two CTAs per SM), cuBLAS beside.
# Predicted: 4096^2 T = 128 ~27 -> ~13 us (cuBLAS ~15), gains shrinking towards T = 1024.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 128 256 512 1024; do for d in 4096x4096 11008x4096 4096x11008 1024x4096; do
  S="$S,${d}x$t:2:4,${d}x$t:128:2:8,${d}x$t:128:2:16"; done; done
timeout 280 python scripts/ab_wgmma.py TILE=auto,wg128x64s12r1,wg64x64s12r1,wg64x128s6r1,wg128x64s12t1g4 --shapes "${S#,}" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v103_tiles.txt"
timeout 150 python scripts/ab_wgmma.py PATH=dense,auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v103_dense.txt"
echo "total ${SECONDS}s"
