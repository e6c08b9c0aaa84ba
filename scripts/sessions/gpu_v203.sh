#!/usr/bin/env bash
# (Runs on branch `stream-k`, where the SK code lives.) v203: stream-K (the persistent 128 x 128 / 128 x 256 a_regs tiles with SK: the waves past the last
# whole one but one shared out in equal k-step ranges, a split tile's two parts joined by the CTA that
# finds the other part counted in). Predicted (NOTES lever 4): LLaMA gate/up 2:4 T = 512 66.5 -> ~48 us,
# T = 1000 -13%, T = 2048 224 -> ~210; gathered patterns at mid T similar fractions. The GPU tests and
# memcheck of the SK tiles first, then the A/B STREAM_K 0 / 1 (choose_tile's route) in turns.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
WARM=0 gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "stream_k or persistent_tile_loops"
SANITIZE_ARGS="--tiles k" sanitize 120
tail -4 "$OUT/memcheck.txt"
S=11008x4096x300:2:4,11008x4096x512:2:4,11008x4096x700:2:4,11008x4096x1000:2:4,11008x4096x1024:2:4,11008x4096x2048:2:4
S=$S,13824x5120x512:2:4,13824x5120x1000:2:4,28672x8192x512:2:4,13824x5120x300:2:4
S=$S,11008x4096x512:128:2:8,11008x4096x1024:128:2:8,11008x4096x2048:128:2:8,11008x4096x1024:128:2:16,11008x4096x2048:64:2:16
timeout 200 python scripts/ab_wgmma.py STREAM_K=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_stream_k_h200_v203.txt"
echo "total ${SECONDS}s"
