#!/usr/bin/env bash
# v60: the staged 64-token tile with a 6-stage ring, two CTAs per SM (80 registers: no register
# ring), so that K splits fill 264 CTA slots: LLaMA gate/up's 86 row tiles x 3 splits in one wave
# (v59: one CTA per SM moves ~27 GB/s; 86 of 132 SMs busy). GPU tests of the tile, then A/B.
# (The tile was removed after this A/B: see NOTES v60; re-add WgTile(128, 64, 6, 1, True, True) and the .cu rule to rerun.)
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 120 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "s6t1" 2>&1 | tail -1
S=11008x4096x64:2:4,11008x4096x32:2:4,11008x4096x16:2:4,4096x4096x64:2:4,4096x4096x16:2:4,4096x11008x16:2:4,11008x4096x64:128:2:8,11008x4096x16:128:2:8,4096x4096x64:128:2:8
timeout 150 python scripts/ab_wgmma.py TILE=wg128x64s12t1,wg128x64s6t1,wg128x64s12r1,wg128x64s6t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v60.txt"
timeout 100 python scripts/ab_wgmma.py SPLITS=1,2,3,4,6 --define TILE=wg128x64s6t1 --shapes 11008x4096x64:2:4,11008x4096x16:2:4,11008x4096x64:128:2:8 2>&1 | grep -v Warn | tee -a "$OUT/ab_v60.txt"
echo "total ${SECONDS}s"
