#!/usr/bin/env bash
# v194: memcheck with v193's X boxes (every path's representative launches, ragged T by TMA among
# them); the A/B of WIDE_ONE_WAVE (plain 2:4 by TMA takes 128 x 256 where its grid is one wave, K
# split to fill it; predicted from v193: 4096 x 11008 T = 300 / 512 -25..-29%, 4096^2 -3..-12%, the
# unmeasured 4-split cells (4096 rows T = 129-256, 1024 rows T = 1000) within +-5%); the mid-T grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
sanitize 100
F="$OUT/ab_wide_one_wave_h200_v194.txt"
S=4096x4096x200:2:4,4096x4096x256:2:4,4096x4096x300:2:4,4096x4096x512:2:4,4096x11008x256:2:4,4096x11008x300:2:4,4096x11008x512:2:4,1024x4096x1000:2:4,1024x4096x2048:2:4,2048x4096x300:2:4,2048x4096x768:2:4,11008x4096x300:2:4,4096x4096x300:64:2:8
timeout 110 python scripts/ab_wgmma.py WIDE_ONE_WAVE=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$F"
timeout 100 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 100,128,256,300,512,1000,1024 \
  --paths auto,cslt --tag h200_midT_v194 > "$OUT/bench_midT.txt" 2>&1
grep -E "^\| [0-9:]+ \| |^\| pattern" "$OUT/bench_midT.txt" | head -20
echo "total ${SECONDS}s"
