#!/usr/bin/env bash
# v59d: the staged 64-token 2:4 tile (v59) multicasting X over 2 row tiles (test, A/B), and its K
# splits on LLaMA gate/up (86 row tiles: 86 of 132 SMs unsplit).
# (The wg128x64s12t1c2 tile was removed after this A/B: see NOTES v59.)
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 100 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "cluster and s12t1" 2>&1 | tail -1
S=11008x4096x64:2:4,11008x4096x32:2:4,11008x4096x16:2:4,4096x4096x64:2:4,4096x11008x16:2:4
timeout 100 python scripts/ab_wgmma.py TILE=wg128x64s12t1,wg128x64s12t1c2,wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v59d.txt"
timeout 100 python scripts/ab_wgmma.py SPLITS=1,2,3,1 --define TILE=wg128x64s12t1 --shapes 11008x4096x64:2:4,11008x4096x16:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_v59d.txt"
echo "total ${SECONDS}s"
