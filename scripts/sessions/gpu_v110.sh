#!/usr/bin/env bash
# v110: plain 2:4 prefill on 256 x 128 tiles of four consumer warpgroups (FOUR_WG_TILES, staged A,
# producer at 24 registers, consumers 112: no spills). v109: the prefill tiles are bound by the fill
# rate into each SM, and this tile needs 20% fewer fill bytes per MAC than 128 x 256. Its tests and
# memcheck, then an A/B against the 128 x 256 tile `auto` runs. Predicted -10..-20% if the fill
# rate bounds it; if the 4 consumers' 112 registers (2 A sets) cost more, even or slower.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "wg256x128s6t1 and not g4" 2>&1 | tail -2
SANITIZE_ARGS="--tiles 256x128s6t1" sanitize 90
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg256x128s6t1,wg256x128s5t1,wg128x256s6r1,wg256x128s6t1 \
  --shapes 4096x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x8192:2:4,1024x4096x8192:2:4,4096x4096x2048:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_v110_4wg.txt"
echo "total ${SECONDS}s"
