#!/usr/bin/env bash
# v197: v196's tall-tile rule through vnmsparse.spmm (TALL_TILE_COST 1.7 / 99 = off, in turns) and its
# tests; K splits of the gathered decode tiles at T = 33-64 (4096^2 128:2:8 T = 64: 4 splits write
# 4 MB of fp32 partials beside 8.4 MB of weights; fewer splits or 64-row tiles halve that); the
# mid-T grid with the tall tile.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "x_by_tma or tile_choice or op_routes"
S=11008x4096x257:2:4,11008x4096x300:2:4,11008x4096x384:2:4,28672x8192x300:2:4,13824x5120x300:2:4,11008x4096x512:2:4
timeout 100 python scripts/ab_wgmma.py TALL_TILE_COST=1.7,99,1.7,99 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_tall_route_h200_v197.txt"
S2=4096x4096x64:128:2:8,4096x4096x48:128:2:8,1024x4096x64:128:2:8,11008x4096x64:128:2:8,4096x11008x64:128:2:8,4096x4096x64:128:2:16,4096x4096x64:64:2:8
F="$OUT/ab_decode_splits_h200_v197.txt"
timeout 100 python scripts/ab_wgmma.py SPLITS=0,1,2,4,8,0 --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee "$F"
timeout 100 python scripts/ab_wgmma.py SPLITS=0,1,2,4,8 --define TILE=wg64x64s12r1 --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
timeout 60 python scripts/ab_wgmma.py PATH=auto,dense --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
timeout 120 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 100,128,256,300,512,1000,1024 \
  --paths auto,cslt --tag h200_midT_v197 > "$OUT/bench_midT.txt" 2>&1
grep -E "^\| [0-9:]+ \| |^\| pattern" "$OUT/bench_midT.txt" | head -20
echo "total ${SECONDS}s"
