#!/usr/bin/env bash
# v161: the cp.async kernel's decode split rule (one split more at T <= 64 where it evens the SMs'
# loads: LLaMA gate/up at V = 64, 172 row tiles, 1 -> 2 splits), SPLITS=0 (the new rule) against 1
# (the old one there) in turns, beside cuBLAS; the mma.sp suites; the stage trace of the persistent
# 2:128 tile under v158's per-warpgroup epilogue (against v150's, `trace_persistent_2to128_h200_v150.txt`);
# the README's grid. Predicted: gate/up 64:2:8 T = 1-64 -13..-24%, 2:4 at 11008 rows likewise.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x1:64:2:8,11008x4096x8:64:2:8,11008x4096x16:64:2:8,11008x4096x32:64:2:8,11008x4096x64:64:2:8,11008x4096x8:2:4,11008x4096x64:2:4
timeout 90 python scripts/ab_wgmma.py SPLITS=0,1,0,1 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_splits_h200_v161.txt"
timeout 60 python scripts/ab_wgmma.py PATH=dense --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_splits_h200_v161.txt"
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py tests/test_ops.py
timeout 60 python scripts/probes/trace_stages.py 11008x4096x8192:128:2:128 2>&1 | grep -v Warn > "$OUT/trace_persistent_2to128_h200_v161.txt"
tail -4 "$OUT/trace_persistent_2to128_h200_v161.txt"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v161 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern|mma.sp: decode" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
