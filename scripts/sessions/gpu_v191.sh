#!/usr/bin/env bash
# v191: the sanitizers on main with v188's X^T pitch on (memcheck of every path's representative
# launches, racecheck of the cp.async ones), then the mid-T grid (T = 100-1024, ragged T included,
# where the pitch changed; last taken at v133).
source "$(dirname "$0")/../gpu_lib.sh"
warm
sanitize 170
SANITIZE_ARGS="--cp-async-only" sanitize 100 racecheck
timeout 100 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 100,128,256,300,512,1000,1024 \
  --paths auto,cslt --tag h200_midT_v191 > "$OUT/bench_midT.txt" 2>&1
grep -E "^\| [0-9:]+ \| |^\| pattern" "$OUT/bench_midT.txt" | head -20
echo "total ${SECONDS}s"
