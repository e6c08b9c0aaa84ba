#!/usr/bin/env bash
# (Runs on branch `stream-k`, where the SK code lives.) v203d: stream-K in halves. v203c's trace: every stage of the SK CTA ran slower (601 against 478
# cycles, waiting longer for X) while its CTAs' ranges started at every k; in halves the CTAs of the
# tiles past the last whole wave start at k = 0 or K / 2. Predicted: LLaMA gate/up 2:4 T = 512 (40
# tiles past one wave) 66 -> ~50 us, T = 2048 218 -> ~205; LLaMA-13B down T = 2048 (56 past 2 waves).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "test_stream_k"
SANITIZE_ARGS="--tiles k" sanitize 120
S=11008x4096x512:2:4,11008x4096x2048:2:4,5120x13824x2048:2:4,11008x4096x1000:2:4,11008x4096x512:128:2:8
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1pk,wg128x256s6r1p,wg128x256s6r1pk --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_sk_halves_h200_v203d.txt"
timeout 100 python scripts/ab_wgmma.py STREAM_K_HALVES=0,1,0,1 --define TILE=wg128x256s6r1pk --shapes 11008x4096x512:2:4,11008x4096x2048:2:4,5120x13824x2048:2:4 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_sk_halves_h200_v203d.txt"
echo "total ${SECONDS}s"
