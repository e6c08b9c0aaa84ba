#!/usr/bin/env bash
# v24 (NOTES): persistent wgmma.sp tiles. GPU tests of every tile (persistent ones on a grid made
# small, so each CTA loops over many tiles), memcheck (persistent cases on a 2-SM grid), then the
# A/B persistent vs one tile per CTA on 2:4 and gathered shapes up to 2:128.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v24.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 300 -k "persistent or every_tile or x_by_tma or repeatable" \
  tests/test_spmm_wgmma_sp.py
sanitize 150
S24=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x4096x2048:2:4
SG=4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32,4096x4096x8192:128:2:64,4096x4096x8192:128:2:128,1024x4096x8192:128:2:32,4096x1024x8192:128:2:16,4096x4096x2048:128:2:16
timeout 200 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1p,wg128x256s6r1,wg128x256s6r1p \
  --shapes $S24,$SG 2>&1 | tee "$OUT/ab.txt" | tail -12
timeout 100 python scripts/ab_wgmma.py TILE=wg128x128s10r1,wg128x128s10r1p,wg128x128s10r1,wg128x128s10r1p \
  --shapes 4096x4096x2048:2:4,4096x4096x2048:128:2:16,1024x4096x2048:128:2:32 2>&1 | tee -a "$OUT/ab.txt" | tail -4
