#!/usr/bin/env bash
# v118: from the v113 trace (2:4, 128 x 256 s6, A in 5 register sets): both operand streams take
# ~2700-3000 cycles from issue to arrival under load, while the X ring (5 stages in flight) and the
# A register ring (4 stages ahead) cover 4-5 stages x ~530 cycles of wgmma: every fifth stage
# waits ~1000 cycles for A, the next for X. A 7th X stage fits (229 KB) and 7 A register sets
# do not spill with X by TMA. Predicted: 2:4 prefill -5..-10% with both (s7 + 7 sets), less with one.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=4096x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x8192:2:4,1024x4096x8192:2:4
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s7r1,wg128x256s6r1,wg128x256s7r1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v118.txt"
for t in wg128x256s6r1 wg128x256s7r1; do
  timeout 150 python scripts/ab_wgmma.py VNM_WG_AREG_SETS=5,7,5,7 --define TILE=$t --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v118.txt"
done
echo "total ${SECONDS}s"
