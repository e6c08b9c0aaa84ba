#!/usr/bin/env bash
# v182: why v181's PDL on the cp.async SpMM cost +4 us at T = 64 (4096^2 2:8: 14.0 -> 18.1 us) but
# saved 0.3-1.2 us at T = 1-16 (256 CTAs either way). Separates: the SpMM starting early vs its
# reduction launching early (VNM_SM80_PDL_TRIGGER=0: reduction at the SpMM's end); half vs full
# CTA slots (SPLITS 8: 512 CTAs); and whether the same shows on the auto path (jit's PDL switch,
# every launch of the chain). Predicted: the early reduction launch is the loss (its 256 waiting
# blocks sit beside the SpMM), so TRIGGER=0 keeps the T <= 16 gains without the T = 64 loss.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_pdl_h200_v182.txt"
D=4096x4096x64:64:2:8,4096x4096x32:64:2:8,4096x4096x16:64:2:8,4096x4096x1:64:2:8,11008x4096x1:128:2:8,1024x4096x64:64:2:8,11008x4096x64:128:2:8
for P in 0 1; do
  echo "SPMM_PDL=$P" | tee -a "$F"
  timeout 60 python scripts/ab_wgmma.py VNM_SM80_PDL_TRIGGER=1,0,1,0 --define SPMM_PDL=$P --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee -a "$F"
done
for P in 0 1; do
  echo "SPMM_PDL=$P, splits" | tee -a "$F"
  timeout 40 python scripts/ab_wgmma.py SPLITS=0,8,0,8 --define SPMM_PDL=$P --path mma_sp --shapes 4096x4096x64:64:2:8,4096x4096x32:64:2:8 2>&1 | grep -v Warn | tee -a "$F"
done
echo "jit's PDL (every launch), auto path" | tee -a "$F"
A=4096x4096x64:64:2:8,4096x4096x32:64:2:8,4096x4096x16:64:2:8,4096x4096x1:64:2:8,4096x4096x64:128:2:16,1024x4096x64:64:2:8,11008x4096x64:128:2:8,11008x4096x16:128:2:8,4096x11008x64:64:2:8
timeout 70 python scripts/ab_wgmma.py PDL=0,1,0,1 --path auto --shapes $A 2>&1 | grep -v Warn | tee -a "$F"
echo "total ${SECONDS}s"
