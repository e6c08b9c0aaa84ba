#!/usr/bin/env bash
# v181: the cp.async mma.sp SpMM by programmatic dependent launch (SPMM_PDL), with an L2 prefetch of
# each CTA's column words and first stages' A and codes before its PDL wait (VNM_SM80_PDL_PREFETCH).
# Until now the SpMM was the one launch of the mma_sp chain (transpose -> SpMM -> split reduction)
# without PDL: it started only once the transpose had finished and then waited out its prologue's
# DRAM misses (v179: the first column word's miss is the hottest stall), and its reduction launched
# only at its end. Predicted: -0.8..-1.5 us a call at T <= 64 (4096^2 64:2:8 T = 64 13.8 -> 12.3-13.0
# us), about half of it from the prefetch; prefill within 1%.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_mma_sp_pdl_h200_v181.txt"
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,4096x4096x16:64:2:8,4096x4096x1:64:2:8,11008x4096x64:128:2:8,11008x4096x1:128:2:8,1024x4096x64:64:2:8,4096x4096x64:128:2:16,4096x4096x4096:128:2:8
timeout 100 python scripts/ab_wgmma.py SPMM_PDL=0,1,0,1 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$F"
D2=4096x4096x64:64:2:8,4096x4096x64:128:2:8,4096x4096x16:64:2:8,11008x4096x64:128:2:8,1024x4096x64:64:2:8
timeout 60 python scripts/ab_wgmma.py VNM_SM80_PDL_PREFETCH=0,1,0,1 --path mma_sp --shapes $D2 2>&1 | grep -v Warn | tee -a "$F"
echo "--between 1 (a torch kernel rewrites x before every call)" | tee -a "$F"
timeout 60 python scripts/ab_wgmma.py SPMM_PDL=0,1,0,1 --between 1 --path mma_sp --shapes $D2 2>&1 | grep -v Warn | tee -a "$F"
timeout 40 python scripts/kernel_times.py 4096x4096x64:64:2:8 --path mma_sp 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
WARM=0 gpu_tests 110 tests/test_spmm_mma_sp.py
SANITIZE_ARGS="--cp-async-only" sanitize 50
SANITIZE_ARGS="--cp-async-only" sanitize 60 synccheck
echo "total ${SECONDS}s"
