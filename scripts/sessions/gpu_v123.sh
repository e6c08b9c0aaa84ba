#!/usr/bin/env bash
# v123: (a) stage clocks (VNM_WG_TRACE) of the narrow gathered tile against plain 2:4's staged tile
# at T = 16 on LLaMA gate/up (no K splits there): where a stage's time goes when the narrow tile
# streams ~2.1 TB/s and the 2:4 one ~3.0; (b) the 64-row narrow tiles at V = 128 where the 128-row
# ones leave few CTAs (5120^2 128:2:8 at T = 4-8 lost 9% to the route in v117). Predicted (b): the
# 64-row tile even to -10% on 4096-5120-row weights, worse on gate/up (v114). (AB=0: traces only;
# the staged tiles record consumer marks since the second call.)
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for c in "11008x4096x16:128:2:8 wg128x16s20t1g4" "11008x4096x16:2:4 wg64x16s14t1" "28672x8192x8:128:2:8 wg128x16s20t1g4" "11008x4096x16:128:2:8 wg128x64s12t1g4"; do
  timeout 90 python scripts/probes/trace_stages.py $c 2>&1 | grep -v Warn | tee -a "$OUT/trace_v123.txt" | tail -5
done
[ "${AB:-1}" = 1 ] || { echo "total ${SECONDS}s"; exit 0; }
S=""; for t in 4 8 16; do S="$S,5120x5120x$t:128:2:8,4096x4096x$t:128:2:8,8192x8192x$t:128:2:8,11008x4096x$t:128:2:8"; done
timeout 150 python scripts/ab_wgmma.py TILE=auto,wg64x16s16t1g4,wg64x16s14t1,auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v123.txt"
echo "total ${SECONDS}s"
