#!/usr/bin/env bash
# v113 (prepared, not run): where a prefill stage's ~600 cycles go. Stage clocks of one CTA
# (VNM_WG_TRACE=1, scripts/probes/trace_stages.py) in plain 2:4's 128 x 256 tile and the gathered
# 128:2:8 one at 4096^2 x 8192, and in 128 x 128. Reading: F - P is a stage's load time in the
# ring; if the consumer's cadence W[g] - W[g-1] equals F[g] - W[g-1] the consumers wait on data
# every stage (loads late), if the producer's P[g] - W[g-STAGES] is long it waits on releases.
# v106-v112: no unit saturated, ring depth and fill bytes per MAC not the bound.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for c in "4096x4096x8192:2:4 wg128x256s6r1" "4096x4096x8192:128:2:8 wg128x256s6r1" "4096x4096x8192:2:4 wg128x128s10r1"; do
  timeout 90 python scripts/probes/trace_stages.py $c 2>&1 | grep -v Warn | tee -a "$OUT/trace_v113.txt" | tail -5
done
echo "total ${SECONDS}s"
