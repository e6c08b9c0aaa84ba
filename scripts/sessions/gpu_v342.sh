#!/usr/bin/env bash
# v342: ncu on the cp.async mma.sp kernel after v340's blocked layout (H100 v338 before it: L2 tag requests 91% busy,
# sectors 55%, SM 30%, no eligible warp 68% of cycles), 4096^2 x 8192 128:2:8, the 128 x 64 tile (wide tiles off)
# and the 128 x 256 one (v340: 128 x 64 -12%, 128 x 256 -1%). Predicted: 128 x 64 L2 requests ~50-60% busy, sectors
# ~60-65%, the stalls at the stage's barrier and cp.async wait the larger share; 128 x 256 bound elsewhere (its
# single CTA an SM: the barrier with 8 warps and no second CTA to cover it).
# First a short sweep: with the narrow tile's requests cut, do a deeper wide pipeline (4 stages: 168 KB, still one CTA
# an SM), the 128 x 128 / 64 x 32 tile (one CTA an SM by registers), or 128 x 128 with 64 x 64 warp tiles (4 warps,
# 250-252 registers, two CTAs an SM, 77 / 100 KB at 3 / 4 stages: A's requests a MAC halved against 128 x 64, half
# the shared-memory bytes a MAC of 64 x 32 warps) pay? Predicted: 4 stages within 3% of 3; 128 x 128 / 64 x 64
# within 5% of 128 x 64 (the two CTAs' 8 warps an SM against 12).
#   OUT=$OUT bash scripts/sessions/gpu_v342.sh      (~200 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm > /dev/null
timeout 70 python scripts/tile_sweep.py 4096 4096 8192 128:2:8 128,64,64,32,4 128,256,64,64,3 128,256,64,64,4 \
  128,128,64,32,4 128,128,64,64,3 128,128,64,64,4 2>&1 | grep -v Warn | tee "$OUT/tile_sweep_${CARD}_v342.txt"
bash "$(dirname "$0")/../gpu_profile.sh" \
  ncu_mma_sp_${CARD}_v342_narrow spmm_mma_sp 4096 4096 8192 128:2:8 "mma_sp spmm_mma_sp.WIDE_PREFILL_COST=9" \
  ncu_mma_sp_${CARD}_v342_wide spmm_mma_sp 4096 4096 8192 128:2:8 "mma_sp spmm_mma_sp.WIDE_PREFILL_COST=0.5"
grep -E "L2 Cache Throughput|lts__t_|Memory Throughput|DRAM Throughput|Block Limit|Achieved Occupancy|No Eligible" \
  "$OUT"/ncu_*_v342_*.txt | head -30
echo "total ${SECONDS}s"
