#!/usr/bin/env bash
# v204: X's last TMA box, where T ends inside it, as a box of its rows rounded up to 8 (a second tensor
# map, `xtail`), not a 64-token box zero-filled past T. v203b: LLaMA-70B gate/up 2:4 on 128 x 256 tiles
# took 181 us at T = 200 (last box 8 of 64 rows) against 130 at T = 256. Predicted: T = 200 181 -> ~125
# us; T = 1000 / 300 (24 / 20 rows past) -2..-10%; decode tiles (16/32/64-token boxes) small gains;
# nothing where T fills its boxes. GPU tests of the TMA tiles and memcheck first.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "x_by_tma or every_tile or persistent_tile_loops or cluster or llm_shapes or staged"
sanitize 200
tail -2 "$OUT/memcheck.txt"
S=28672x8192x200:2:4,11008x4096x200:2:4,11008x4096x300:2:4,11008x4096x1000:2:4,4096x4096x200:2:4,4096x4096x100:2:4
S=$S,11008x4096x40:2:4,11008x4096x20:2:4,11008x4096x1:2:4,4096x4096x7:2:4,4096x11008x1000:2:4,13824x5120x600:2:4,4096x4096x2048:2:4
timeout 200 python scripts/ab_wgmma.py VNM_WG_X_TAIL=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_x_tail_h200_v204.txt"
echo "total ${SECONDS}s"
