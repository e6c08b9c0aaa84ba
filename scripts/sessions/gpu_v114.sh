#!/usr/bin/env bash
# v114: gathered B stages of 16 and 32 tokens (wg::GatherB: one slab of 32- / 64-byte rows,
# swizzled at that width), so the staged tiles that stream plain 2:4 at ~3 TB/s (wg64x16s14t1 and
# kin, 12-20 stages in flight) run V:2:M at T <= 32 too, where today the decode kernel (T <= 8,
# ~2 TB/s on LLaMA shapes) or the 64-token grouped tile runs. Predicted: LLaMA gate/up / down
# 128:2:8 at T = 1-16 -15..-25% (12.4-14.7 -> ~10-11 us), 4096^2 even (fixed costs), T = 1 maybe
# lost to the transpose and reduction launches the decode kernel does not need.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "test_every_tile and (x16s or x32s)"
cp "$OUT/gpu_tests.txt" "$OUT/tests_v114.txt"
shapes() { local S=""; for t in "$@"; do S="$S,11008x4096x$t:128:2:8,4096x11008x$t:128:2:8,4096x4096x$t:128:2:8,1024x4096x$t:128:2:8,11008x4096x$t:128:2:16,4096x11008x$t:128:2:16,11008x4096x$t:64:2:8"; done; echo "${S#,}"; }
timeout 200 python scripts/ab_wgmma.py TILE=auto,wg64x16s14t1,wg64x16s16t1g4,wg128x16s19t1,wg128x16s20t1g4 --shapes "$(shapes 1 8 16)" 2>&1 | grep -v Warn | tee -a "$OUT/ab_v114.txt"
timeout 120 python scripts/ab_wgmma.py TILE=auto,wg64x32s12t1,wg64x32s12t1g4,wg128x32s16t1g4 --shapes "$(shapes 32)" 2>&1 | grep -v Warn | tee -a "$OUT/ab_v114.txt"
echo "total ${SECONDS}s"
