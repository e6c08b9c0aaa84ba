#!/usr/bin/env bash
# v37c: main after v38 was set aside (wgmma.sp K splits through fp32 partials, within one wave;
# routes of v37): the quick grid, and the split-K tests (a ragged second token tile added).
# Usage: OUT=$OUT bash scripts/sessions/gpu_v37c.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 240 "${TAG:-h200_v37}"
gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "split or route or decode"
