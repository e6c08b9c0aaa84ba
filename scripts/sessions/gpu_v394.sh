#!/usr/bin/env bash
# v394: one call for a session whose device time went to failed starts: gpu_v392.sh (the decode knobs' test on the
# BERT / LLaMA decode tiles, then the decode A/B against cuBLAS; its grid ends at END=330 s), then a sanitizer of the
# cp.async launches with the knobs on where their test passed: racecheck on an H200 (issue 3's card; the ws forms'
# mbarrier hand-off is racecheck's known class, v31), memcheck elsewhere.
#   OUT=$OUT bash scripts/sessions/gpu_v394.sh      (~520 s)
here=$(dirname "$0")
END=${END:-330} bash "$here/gpu_v392.sh"
source "$here/../gpu_lib.sh"
knobs="--cluster-splits --gather-rows"
T="$OUT/tests_v392_${CARD}.txt"
grep -q " passed" "$T" && ! grep -q "^FAILED" "$T" || knobs=""
tool=memcheck; [ "$CARD" = h200 ] && tool=racecheck
SANITIZE_ARGS="--cp-async-only $knobs" sanitize 170 $tool
mv "$OUT/$tool.txt" "$OUT/${tool}_cp_async_${CARD}_v394.txt"
grep -o "spmm_mma_sp[a-z_]*<" "$OUT/${tool}_cp_async_${CARD}_v394.txt" | sort | uniq -c
grep -cE "rel err" "$OUT/${tool}_cp_async_${CARD}_v394.txt"
echo "sanitizer ${SECONDS}s (knobs: ${knobs:-none})"
