#!/usr/bin/env bash
# v364 measured (H100): the 128 x 256 ws form lost (+12..+17% at 128:2:8); the two-CTA ws 128 x 128 form against the
# classic tile -3% (128:2:8), -6.5% (128:2:16), -6% (128:2:32), even on 11008 x 4096, +5..+10% on plain 2:4; memcheck of
# the cp.async launches (ws forms included) 0 errors. v365: the gathered 128 x 128 prefill runs the two-CTA ws form
# on sm_90a (WS_PREFILL; not plain 2:4, nor grids of <= one CTA an SM, which split K).
# (1) the kernel file's GPU tests, (2) issue 3's grid (T >= 2048, mma_sp and cuSPARSELt).
# Predicted against grid v359 (H100): mma_sp 128:2:8 0.97 -> ~1.00, 128:2:16 1.48 -> ~1.55, 128:2:32 2.06 -> ~2.15,
# 128:2:64 / 128:2:128 +3..+6%; 2:4 and V = 64 unchanged.
#   OUT=$OUT bash scripts/sessions/gpu_v365.sh
source "$(dirname "$0")/../gpu_lib.sh"
card_warm
mma_sp_tests "tests_mma_sp_${CARD}_v365" 150
prefill_grid v365
echo "total ${SECONDS}s"
