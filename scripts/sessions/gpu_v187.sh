#!/usr/bin/env bash
# v187: X^T's rows padded to whole 128-byte lines (XT_PITCH_LINES; T <= 64: 8/16/32/64 tokens, past
# that a multiple of 64), so no gathered row straddles two lines: v186 measured the cp.async path at
# 4096^2 64:2:8 T = 48 (96-byte rows) 14.5 us against 13.2 at T = 64. Predicted: T = 24/40/48/56
# -5..-10% on both gathered paths (cp.async, wgmma.sp), T = 1000 / 4095 prefill -0..-5%, powers of
# two unchanged. Then every GPU suite (v185's PDL launch and this, all paths). Last call of the session.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_xt_pitch_h200_v187.txt"
D=4096x4096x48:64:2:8,4096x4096x40:128:2:8,4096x4096x24:64:2:8,4096x4096x64:64:2:8,4096x4096x1000:128:2:8,4096x4096x4095:128:2:8
for P in mma_sp auto; do
  echo "path $P" | tee -a "$F"
  timeout 50 python scripts/ab_wgmma.py XT_PITCH_LINES=0,1,0,1 --path $P --shapes $D 2>&1 | grep -v Warn | tee -a "$F"
done
WARM=0 gpu_tests 210
echo "total ${SECONDS}s"
