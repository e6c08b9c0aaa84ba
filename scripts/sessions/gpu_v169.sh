#!/usr/bin/env bash
# v169: stage clocks of the persistent 2:128 tile with v164's stmatrix staging (v161's trace before it:
# epilogue ~7.1k cycles of a ~9.8k tile, passes ~1.0k staging + ~0.9k stores, then ~1.9k from the
# epilogue's last stores to the next tile's first full barrier). Predicted: staging marks ~0.3-0.5k a
# pass; the stores and the ~1.9k gap unchanged if the stores' drain bounds the consumer.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 90 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 2>&1 | grep -v Warn > "$OUT/trace_persistent_2to128_h200_v169.txt"
timeout 90 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 VNM_WG_EPI_STMATRIX=0 2>&1 | grep -v Warn > "$OUT/trace_persistent_2to128_scalar_h200_v169.txt"
tail -12 "$OUT/trace_persistent_2to128_h200_v169.txt"; tail -8 "$OUT/trace_persistent_2to128_scalar_h200_v169.txt"
echo "total ${SECONDS}s"
