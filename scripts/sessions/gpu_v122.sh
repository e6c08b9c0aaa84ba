#!/usr/bin/env bash
# v122: main after v121 (the T = 1-2 threshold per row tile): the wgmma.sp and ops GPU suites, then
# the decode grid over every benchmark shape again (v117's command, route on).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_ops.py
timeout 200 python -m vnmsparse.cli bench spmm --tokens 1,4,8,16,32,64 --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
  --paths auto,cslt --out "$OUT" --tag h200_decode_v122 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T" "$OUT/bench.txt" | head -20; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
