#!/usr/bin/env bash
# v171: the staged persistent 128-row tiles routed (PERSISTENT_STAGED): their A/B against the a_regs
# persistent forms on the shapes that take 256- and 128-token tiles, the wgmma/ops/nn suites, memcheck
# of the new tiles, and the grid. Predicted: T >= 2048 2:128 auto_xt 8.05 -> ~9.3x, auto 4.07 -> ~4.4x
# (its transpose stays), other patterns unchanged (not persistent).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
timeout 60 python scripts/ab_wgmma.py TILE=wg128x256s6r1p,wg128x256s4t1p,wg128x256s6r1p,wg128x256s4t1p --xt 1 --shapes 11008x4096x8192:128:2:128,4096x4096x2048:128:2:128 2>&1 | grep -v Warn | tee "$OUT/ab_staged_persistent_h200_v171.txt"
timeout 40 python scripts/ab_wgmma.py TILE=wg128x128s10r1p,wg128x128s7t1p,wg128x128s10r1p,wg128x128s7t1p --xt 1 --shapes 1024x4096x4096:128:2:128,4096x4096x4096:128:2:128 2>&1 | grep -v Warn | tee -a "$OUT/ab_staged_persistent_h200_v171.txt"
WARM=0 gpu_tests 170 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_nn.py
SANITIZE_ARGS="--tiles t1p" sanitize 60
timeout 140 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v171 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
