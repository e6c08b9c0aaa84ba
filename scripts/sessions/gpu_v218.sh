#!/usr/bin/env bash
# v218: v217's rule (the cluster tile from 512 tokens where the token tiles pad T by at most 1/6): the
# wgmma.sp tile, cluster and feature-major tests, then the mid-T grid (v197's) beside cuSPARSELt.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_ops.py -k "cluster or feature_major or tile or graph or compile"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 100,128,256,300,512,1000,1024 \
  --paths auto,cslt --tag h200_midT_v218 > "$OUT/bench_midT.txt" 2>&1
grep -E "^\| [0-9:]+ \| |^\| pattern" "$OUT/bench_midT.txt" | head -20
echo "total ${SECONDS}s"
