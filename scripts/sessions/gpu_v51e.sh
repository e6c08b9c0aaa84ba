#!/usr/bin/env bash
# v51e: the cp.async mma.sp kernel launched with PDL (its transpose and reduction already were);
# issue 3's decode at T = 64: tiles and K splits of the mma_sp path.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_ops.py -k "mma_sp or chain or dependent" \
  > "$OUT/gpu_tests.txt" 2>&1; tail -2 "$OUT/gpu_tests.txt"
S=4096x4096x1:64:2:8,4096x4096x16:64:2:8,4096x4096x64:64:2:8,4096x4096x64:128:2:8,11008x4096x64:64:2:8,1024x4096x64:64:2:8,4096x11008x64:128:2:8
timeout 120 python scripts/ab_wgmma.py PDL=0,1,0,1 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v51e.txt"
S64=4096x4096x64:64:2:8,11008x4096x64:64:2:8,4096x11008x64:64:2:8,1024x4096x64:64:2:8
timeout 120 python scripts/ab_wgmma.py TILE=sm8064x64w16x64s6,sm8064x32w16x32s6,sm8064x16w16x16s6,sm8064x128w32x32s4 --path mma_sp --shapes $S64 2>&1 | grep -v Warn | tee -a "$OUT/ab_v51e.txt"
timeout 120 python scripts/ab_wgmma.py SPLITS=0,1,2,4,8 --path mma_sp --shapes $S64 2>&1 | grep -v Warn | tee -a "$OUT/ab_v51e.txt"
echo "total ${SECONDS}s"
