#!/usr/bin/env bash
# v198: (1) plain 2:4 at T = 33-56 on LLaMA gate/up (v196: T = 40 27.4 us against 18.0 at T = 56 on
# the 64-row staged tile, X box of 64 tokens with 24 past T): the 64-row tile against the 128-row one
# per T; (2) one-wave prefill of few rows (BERT FFN2 T = 2048: 0.85x cuBLAS, 64 CTAs of 128 x 256 +
# 2 splits) on 64-row tiles (two CTAs an SM); (3) gathered T = 64 on 64-row tiles without splits
# (v197: 4096^2 128:2:16 6.8 against 7.9 us).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x33:2:4,11008x4096x36:2:4,11008x4096x40:2:4,11008x4096x44:2:4,11008x4096x48:2:4,11008x4096x52:2:4,11008x4096x56:2:4,11008x4096x64:2:4,13824x5120x40:2:4,14336x4096x40:2:4
timeout 100 python scripts/ab_wgmma.py TILE=auto,wg64x64s8t1,wg128x64s12t1,auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_half_ragged_h200_v198.txt"
S2=1024x4096x2048:2:4,1024x4096x4096:2:4,1024x4096x1000:2:4,4096x4096x512:2:4,4096x4096x1024:2:4,4096x4096x2048:2:4,2048x4096x2048:2:4
timeout 120 python scripts/ab_wgmma.py TILE=auto,wg64x128s6r1,wg64x256s6r1,wg128x128s10r1,wg64x128s4t1p,auto --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_few_rows_h200_v198.txt"
timeout 60 python scripts/ab_wgmma.py PATH=auto,dense --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_few_rows_h200_v198.txt"
S3=4096x4096x64:128:2:16,4096x4096x48:128:2:16,4096x4096x64:128:2:32,1024x4096x64:128:2:16,11008x4096x64:128:2:16,4096x11008x64:128:2:16,4096x4096x64:128:2:8
F="$OUT/ab_decode_rows_h200_v198.txt"
timeout 90 python scripts/ab_wgmma.py SPLITS=0,1,2 --define TILE=wg64x64s12r1 --shapes $S3 2>&1 | grep -v "Warn\|warn_once" | tee "$F"
timeout 60 python scripts/ab_wgmma.py SPLITS=0,1,0 --shapes $S3 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
echo "total ${SECONDS}s"
