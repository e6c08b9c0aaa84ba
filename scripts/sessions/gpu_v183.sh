#!/usr/bin/env bash
# v183: v182 found a PDL launch of the cp.async SpMM +25% slower where its grid fills half the CTA
# slots (4096^2 T = 64: 256 CTAs, 13.8 -> 17.4 us) but faster at 512 CTAs: a grid launched while its
# predecessor runs seems to be packed onto fewer SMs. jit.SPREAD_CTAS asks for the shared memory that
# caps a grid at ceil(CTAs / SMs) CTAs an SM (the cp.async SpMM, the wgmma.sp kernel, the decode
# kernel). Predicted: cp.async with PDL + spread at T = 64 below its plain launch (13.8 -> 12.8-13.3);
# the wgmma.sp decode-size grids (always PDL) -0..-15% where they leave slots free; decode kernel even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_spread_h200_v183.txt"
D=4096x4096x64:64:2:8,4096x4096x32:64:2:8,4096x4096x16:64:2:8,4096x4096x1:64:2:8,4096x4096x64:128:2:16,1024x4096x64:64:2:8,11008x4096x64:128:2:8,11008x4096x1:128:2:8,4096x11008x64:64:2:8
for P in 1 0; do
  echo "mma_sp, SPMM_PDL=$P" | tee -a "$F"
  timeout 70 python scripts/ab_wgmma.py SPREAD_CTAS=0,1,0,1 --define SPMM_PDL=$P --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee -a "$F"
done
echo "wgmma_sp" | tee -a "$F"
timeout 70 python scripts/ab_wgmma.py SPREAD_CTAS=0,1,0,1 --path wgmma_sp --shapes $D 2>&1 | grep -v Warn | tee -a "$F"
echo "auto (decode kernel at T <= 8)" | tee -a "$F"
A=4096x4096x1:64:2:8,4096x4096x8:64:2:8,4096x4096x1:128:2:32,11008x4096x1:128:2:8,4096x11008x4:64:2:16,1024x4096x16:64:2:8,4096x4096x1:2:4
timeout 60 python scripts/ab_wgmma.py SPREAD_CTAS=0,1,0,1 --path auto --shapes $A 2>&1 | grep -v Warn | tee -a "$F"
echo "total ${SECONDS}s"
