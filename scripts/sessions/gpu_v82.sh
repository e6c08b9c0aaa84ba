#!/usr/bin/env bash
# v82: main after v80 (plain 2:4 mma.sp prefill on 128-row tiles) and v81 (decode kernel to T = 16
# on weights of <= 1024 rows at M >= 8): the README's grid (the routing is CPU-tested).
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 330 h200_v82; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
