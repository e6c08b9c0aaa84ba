#!/usr/bin/env bash
# v256: the session's final code (v255's autotune margin; kernels as grid v251's): every GPU suite, memcheck of
# the representative launches, and racecheck of the decode kernel's rings (grouped copies on the fragment
# image since v245 had memcheck only).
#   OUT=$OUT bash scripts/sessions/gpu_v256.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 420 150
timeout 150 compute-sanitizer --tool racecheck --report-api-errors no --error-exitcode 9 python -m pytest -q -m gpu \
  -p no:cacheprovider tests/test_spmm_mma_sp.py -k "decode_kernel_ring" > "$OUT/racecheck_decode_ring.txt" 2>&1
echo "racecheck exit $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck_decode_ring.txt" | tail -1) $(tail -1 "$OUT/racecheck_decode_ring.txt")"
echo "total ${SECONDS}s"
