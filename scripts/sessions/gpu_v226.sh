#!/usr/bin/env bash
# v226 (branch xt-rows, after v224 held): plain 2:4 on a feature-major x to rows at more T and on fewer rows.
# Grid v225 (us, auto_xt / auto): T = 8 q/k/v/o 11.2 / 9.0, down 20.1 / 17.0, T = 16 10.5 / 9.1, 18.5 / 17.2;
# v224 (XT_AS_ROWS) measured the transpose at ~1-2 us (T = 4: 4096^2 11.7 -> 9.8 against auto's 9.0).
# Predicted: XT_AS_ROWS_MIN_ROWS 0 at T = 8 / 16 on 4096-row weights -5..-10% (to ~auto + 1 us), BERT
# FFN2 even (5.65 / 5.56 against auto's 5.37 / 5.60); T = 32 / 64 (XT_AS_ROWS_MAX_TOKENS 64): even or worse
# (grid v225 T = 64: auto_xt 10.7 / 19.4 / 18.8 against auto 10.5 / 19.6 / 18.6).
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
S=4096x4096x8:2:4,4096x4096x16:2:4,4096x11008x8:2:4,4096x11008x16:2:4,1024x4096x8:2:4,1024x4096x16:2:4,5120x5120x8:2:4,5120x13824x16:2:4
timeout 120 python scripts/ab_wgmma.py XT_AS_ROWS_MIN_ROWS=8192,0,8192,0 --path auto --xt 1 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_xt_as_rows_v226.txt"
T=4096x4096x32:2:4,4096x4096x64:2:4,11008x4096x32:2:4,11008x4096x64:2:4,4096x11008x32:2:4,4096x11008x64:2:4,1024x4096x32:2:4,1024x4096x64:2:4
timeout 120 python scripts/ab_wgmma.py XT_AS_ROWS_MAX_TOKENS=16,64,16,64 --define XT_AS_ROWS_MIN_ROWS=0 --path auto --xt 1 --shapes $T 2>&1 | grep -v "Warn\|warn" | tee -a "$OUT/ab_xt_as_rows_v226.txt"
timeout 60 python scripts/ab_wgmma.py PATH=auto,auto --shapes $S,$T 2>&1 | grep -v "Warn\|warn" | tee -a "$OUT/ab_xt_as_rows_v226.txt"
echo "total ${SECONDS}s"
