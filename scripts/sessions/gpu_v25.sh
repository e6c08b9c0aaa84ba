#!/usr/bin/env bash
# v25 (NOTES): plain 2:4 tiles whose two row tiles per cluster share X by TMA multicast. GPU tests
# (cluster, persistent, every tile), memcheck of sanitize_spmm.py (cluster cases
# included), then the A/B against the one-CTA tiles.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v25.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 -k "cluster or persistent or x_by_tma" \
  tests/test_spmm_wgmma_sp.py
sanitize 150
S24=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,4096x4096x2048:2:4
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1c2,wg128x256s6r1,wg128x256s6r1c2 \
  --shapes $S24 2>&1 | tee "$OUT/ab.txt" | tail -5
timeout 100 python scripts/ab_wgmma.py TILE=wg128x128s10r1,wg128x128s10r1c2,wg128x128s10r1,wg128x128s10r1c2 \
  --shapes 4096x4096x2048:2:4,1024x4096x4096:2:4 2>&1 | tee -a "$OUT/ab.txt" | tail -3
