#!/usr/bin/env bash
# v173: v172's wins routed (the staged persistent tiles at any K from M = 32, the 64-row one 128 tokens
# wide at V = 64; the cp.async 64 x 64 decode tile with 3 stages). A/B of PERSISTENT_MIN_M 64 -> 32
# (2:32 now persistent; v172: 4096^3 -4.5%, 11008 x 4096 x 8192 noisy) and of V = 64 against the tiles
# auto ran before (64 x 256 a_regs, persistent at <= 2 k-steps); then every suite, memcheck of the
# staged persistent tiles, synccheck, and the grid. Predicted: 2:32 -3..-5% persistent; V = 64
# 2:64 / 2:128 -25..-35%; grid T >= 2048 2:32 auto_xt 4.79 -> ~5.0, 64:2:8 T <= 64 mma_sp +5%.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=4096x4096x4096:128:2:32,11008x4096x8192:128:2:32,4096x11008x4096:128:2:32,4096x4096x2048:128:2:32,1024x4096x8192:128:2:32,4096x4096x8192:64:2:32
timeout 90 python scripts/ab_wgmma.py PERSISTENT_MIN_M=64,32,64,32 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v173.txt"
S64=4096x4096x8192:64:2:64,4096x11008x8192:64:2:64,11008x4096x8192:64:2:128,4096x4096x4096:64:2:128
timeout 60 python scripts/ab_wgmma.py TILE=wg64x256s6r1,wg64x256s6r1p,auto,auto --xt 1 --shapes $S64 2>&1 | grep -v Warn | tee -a "$OUT/ab_v173.txt"
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
SANITIZE_ARGS="--tiles t1p" sanitize 50
SANITIZE_ARGS="--tiles t1p" sanitize 30 synccheck
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v173 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
