#!/usr/bin/env bash
# v176: v175's rules routed for issue 3's cp.async decode: gathered calls at T = 33-64 on the 64-row
# tile at V = 128 too (DECODE_64_ROWS), and K splits added while each evens the SMs' loads (11008 rows
# at V = 64: 2 -> 3 at every T <= 64). A/B of both, the mma_sp suite, and the grid. Predicted: V = 128
# T = 64 4096-row -7..-16%, others even; 11008 x 4096 64:2:8 T = 1-16 -3..-7%; grid issue-3 decode
# minimum 0.80 -> ~0.88 (4096^2 128:2:8 T = 64).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
D=4096x4096x64:128:2:8,11008x4096x64:128:2:8,4096x11008x64:128:2:8,1024x4096x64:128:2:8,4096x4096x64:128:2:16,4096x4096x64:128:2:32,4096x4096x48:128:2:8
timeout 60 python scripts/ab_wgmma.py DECODE_64_ROWS=0,1,0,1 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_h200_v176.txt"
S=11008x4096x1:64:2:8,11008x4096x8:64:2:8,11008x4096x16:64:2:8,11008x4096x16:64:2:16,11008x4096x64:64:2:16
timeout 50 python scripts/ab_wgmma.py SPLITS=2,3,2,3 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v176.txt"
WARM=0 gpu_tests 100 tests/test_spmm_mma_sp.py
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v176 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
