#!/usr/bin/env bash
# v67: v66's step-major image (4096^2 2:4 T = 64 11.0 -> 9.5 us, 4096 x 11008 -5%, prefill 2:4 -3%,
# gathered 128:2:8 T = 64 -3%, gate/up T = 64 unchanged) against the values alone step-major (2:
# the one-launch decode kernel reads all of a row block's codes in one copy, which a row-block-major
# code array keeps). Each kernel's own tile choice (the narrow staged tiles at T <= 32 included).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=4096x4096x64:2:4,4096x4096x32:2:4,4096x11008x64:2:4,11008x4096x8192:2:4,4096x4096x8192:128:2:8,11008x4096x64:128:2:8,4096x4096x64:128:2:16,4096x4096x16:64:2:8
timeout 200 python scripts/ab_wgmma.py VNM_WG_IMAGE_STEP_MAJOR=0,1,2,0,1,2 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v67.txt"
echo "total ${SECONDS}s"
