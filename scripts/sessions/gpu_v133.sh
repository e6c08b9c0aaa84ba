#!/usr/bin/env bash
# v133: v132's route (plain 2:4 by TMA at mid T keeps the prefill tile and splits K, at most 4 splits;
# WIDE_SPLITS) with the split variants of the 128-/256-token tiles: the wgmma.sp and ops GPU suites
# (the split-K tests now cover those tiles), memcheck with a mid-T case, the A/B through
# vnmsparse.spmm (64:2:8 at T >= 256 runs as 2:4 too), and the mid-T grid (grid v104's command).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 280 180 tests/test_spmm_wgmma_sp.py tests/test_ops.py || exit 1
S=""; for t in 128 256 512 1024; do for d in 4096x4096 4096x11008 1024x4096 11008x4096 5120x5120 1024x8192; do S="$S,${d}x$t:2:4,${d}x$t:64:2:8"; done; done
S="$S,4096x4096x4096:2:4,1024x4096x2048:2:4,4096x11008x2048:2:4"
timeout 200 python scripts/ab_wgmma.py WIDE_SPLITS=0,1,0,1 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v133.txt"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 128,256,512,1024 --paths auto,cslt --tag h200_midT_v133 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| 128" "$OUT/bench.txt" | head -20; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
