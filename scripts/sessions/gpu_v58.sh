#!/usr/bin/env bash
# v58 (next session's first call, main): the opt-in cluster tiles prepared without a GPU, tested,
# then A/B'd: v55 (2:4 prefill, A by TMA into shared memory + X multicast over 4 row tiles,
# cuSPARSELt's structure) and v57b (2:4 at T = 9-64, 64-token tiles multicasting X).
# Branches reduce-vec (v56) and rotate-k (v57) have their own scripts (gpu_v56.sh, gpu_v57.sh).
# (The v55 and v57b tiles were removed from main after this A/B: see NOTES v58.)
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k cluster \
  > "$OUT/gpu_tests.txt" 2>&1; tail -2 "$OUT/gpu_tests.txt"; grep -E "^FAILED" "$OUT/gpu_tests.txt" | head
timeout 200 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s5c4,wg128x256s4pc4,wg128x256s6r1c4 \
  --shapes 4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,1024x4096x4096:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_v58.txt"
timeout 120 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg128x64s12r1c2,wg128x64s12r1c4 \
  --shapes 11008x4096x16:2:4,11008x4096x64:2:4,4096x4096x16:2:4,4096x11008x16:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_v58.txt"
echo "total ${SECONDS}s"
