#!/usr/bin/env bash
# v59b: the 64-token tile's A ring for plain 2:4 at T = 16-64 (v59: A by TMA into shared memory
# gate/up T = 64 23.3 -> 18.6 us, the staged fragment image T = 16 30.0 -> 25.3): deeper rings.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=11008x4096x64:2:4,11008x4096x32:2:4,11008x4096x16:2:4,4096x4096x64:2:4,4096x4096x16:2:4,4096x11008x64:2:4,4096x11008x16:2:4,1024x4096x64:2:4
timeout 200 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg128x64s10t1,wg128x64s12t1,wg128x64s8,wg128x64s12,wg128x64s12r1 \
  --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v59b.txt"
echo "total ${SECONDS}s"
