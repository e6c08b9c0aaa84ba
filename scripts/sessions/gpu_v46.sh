#!/usr/bin/env bash
# v46: what the decode kernel's ~3 us fixed cost per call is made of (scripts/decode_floor.py).
# Usage: OUT=$OUT bash scripts/sessions/gpu_v46.sh
source "$(dirname "$0")/../gpu_lib.sh"
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 200 python scripts/decode_floor.py --trace 2>&1 | grep -v Warn | tee "$OUT/decode_trace.txt"
echo "total ${SECONDS}s"
