#!/usr/bin/env bash
# v185: v184 with v181's L2 prefetch back (a CTA's column words and first stages' A and codes
# before its PDL wait): v184 found PDL + spread even with the plain launch without it (4096^2 T = 64
# 14.1 vs 13.9-14.5 us) where v183, with it, measured 13.3. Predicted: v183's numbers (T <= 64
# -4..-9% on 4096-row shapes), prefill within 1%. Then the suites, sanitizers and the grid. (v184 ran
# these same commands, with v184 for v185 in the names, on the code without the prefetch.)
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_mma_sp_pdl_h200_v185.txt"
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,4096x4096x32:64:2:8,4096x4096x16:64:2:8,4096x4096x1:64:2:8,4096x4096x64:128:2:16,1024x4096x64:64:2:8,11008x4096x64:128:2:8,11008x4096x1:128:2:8,4096x11008x64:64:2:8,4096x4096x4096:128:2:8,4096x4096x4096:2:4
timeout 110 python scripts/ab_wgmma.py SPMM_PDL=0,1,0,1 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$F"
timeout 40 python scripts/kernel_times.py 4096x4096x64:64:2:8 --path mma_sp 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
WARM=0 gpu_tests 130 tests/test_spmm_mma_sp.py tests/test_jit.py
SANITIZE_ARGS="--cp-async-only" sanitize 50
SANITIZE_ARGS="--cp-async-only" sanitize 60 synccheck
quick_grid 170 h200_v185
echo "total ${SECONDS}s"
