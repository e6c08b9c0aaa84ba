#!/usr/bin/env bash
# v102: the grouped-copy decode tiles routed (spmm_wgmma_sp.GROUPED_TILES: gathered, T = 9-64, a CTA
# with >= 16 steps): the GPU suites and memcheck, an A/B of `auto` against the r1 tiles on the
# shapes it changes (and 2:4's staged tiles, whose SASS moved by address arithmetic only), then the
# README's grid (GRID=1, a call of its own: WARM=0 GRID=1 bash ... after the first). Predicted (v101): gate/up 128:2:8 T = 16 / 64 -9%, down -5%, else even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
[ "${GRID:-0}" = 1 ] || checks 300 120 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py || exit 1
S=""; for t in 16 64; do for d in 11008x4096 4096x11008; do S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16,${d}x$t:64:2:8,${d}x$t:2:4"; done; done
[ "${GRID:-0}" = 1 ] || timeout 120 python scripts/ab_wgmma.py GROUPED_MIN_STEPS=16,9999,16,9999 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v102_auto.txt"
[ "${GRID:-0}" = 1 ] && { quick_grid 300 h200_v102; rm -f "$OUT/bench.txt"; }
echo "total ${SECONDS}s"
