#!/usr/bin/env bash
# v145: where a gathered prefill wave's time goes: stage clocks of CTA (0, 0) (VNM_WG_TRACE) against the
# kernel's time per wave (X feature-major: kernel only), 4096^3 at 128:2:8 / 128:2:32 and plain 2:4.
# Predicted: fill (first W) ~3-4k cycles, cadence ~800 at 2:8 (32 stages: ~26k), against ~49k cycles
# a wave (100 us / 4 waves at 1.98 GHz): ~20k a wave in the epilogue and between waves.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for s in 4096x4096x4096:128:2:8 4096x4096x4096:128:2:32 4096x4096x4096:2:4; do
  timeout 60 python scripts/probes/trace_stages.py $s 2>&1 | grep -v Warn > "$OUT/t.txt"
  head -1 "$OUT/t.txt"; sed -n '3,5p;34,36p' "$OUT/t.txt"; tail -3 "$OUT/t.txt"; cat "$OUT/t.txt" >> "$OUT/trace_stages_h200_v145.txt"
done
rm -f "$OUT/t.txt"
timeout 120 python scripts/probes/xt_tma.py 4096x4096x4096:128:2:8,4096x4096x4096:128:2:32,4096x4096x4096:2:4 2>&1 | grep -v Warn | tee "$OUT/xt_tma_v145.txt"
echo "total ${SECONDS}s"
