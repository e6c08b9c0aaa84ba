#!/usr/bin/env bash
# v312: (1) why v311 refuted DECODE_TWO_BLOCKS_WIDE out of sample: the decode plans at both row tiles (splits, steps a
# split, clusters at once, waves, CTAs) on every cell v309 / v311 changed. Predicted: the winners are the cells where
# the 128-row plan needs fewer waves (or the 64-row one leaves a partial wave), the losers where it has fewer CTAs
# than SMs. (2) The gathered prefill's energy a call at the power limit, by parts: 4096^2 x 8192, X feature-major
# (no transpose) and row-major, sustained 3 s each (clock_under_load.py): the kernel as it is, without its B gather
# (VNM_WG_SKIP_B=1), without its wgmma (VNM_WG_SKIP_MMA=1), without both; 128:2:8, 128:2:16, and plain 2:4 (64:2:8 runs as 2:4 there).
# Predicted: 128:2:8@xt ~133 mJ (v311), of which the gather ~25-35%, the math ~30%.
#   OUT=$OUT bash scripts/sessions/gpu_v312.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
[ "${PLANS:-1}" = 1 ] && timeout 60 python scripts/probes/decode_plan_waves.py 12288x4096x1:64:2:8 12288x4096x2:64:2:8 12288x4096x3:64:2:8 12288x4096x4:64:2:8 12288x4096x1:64:2:16 12288x4096x2:64:2:16 12288x4096x1:64:2:32 11008x4096x1:64:2:8 11008x4096x2:64:2:8 11008x4096x3:64:2:8 11008x4096x4:64:2:8 11008x4096x1:64:2:16 11008x4096x2:64:2:16 11008x4096x1:64:2:32 13824x5120x1:64:2:16 13824x5120x2:64:2:16 13824x5120x1:64:2:32 15360x5120x1:64:2:16 15360x5120x2:64:2:16 10240x8192x1:64:2:16 10240x8192x2:64:2:16 14336x4096x2:64:2:16 16384x4096x2:64:2:16 9216x2048x2:64:2:8 9216x2048x3:64:2:8 9216x2048x4:64:2:8 10240x2560x1:64:2:8 10240x2560x2:64:2:8 10240x2560x3:64:2:8 10240x2560x4:64:2:8 10240x2560x2:64:2:16 2>&1 | grep -v Warn | tee "$OUT/plans_wide_${CARD}_v312.txt"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for s in 4096x4096x8192:128:2:8 4096x4096x8192:128:2:16 4096x4096x8192:2:4; do
  timeout 120 python scripts/probes/clock_under_load.py $s auto@xt auto@xt+VNM_WG_SKIP_B=1 auto@xt+VNM_WG_SKIP_MMA=1 \
    auto@xt+VNM_WG_SKIP_B=1+VNM_WG_SKIP_MMA=1 auto auto+VNM_WG_SKIP_B=1 dense 2>&1 | grep -v Warn
done | tee "$OUT/energy_parts_${CARD}_v312.txt"
echo "total ${SECONDS}s"
