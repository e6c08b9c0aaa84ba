#!/usr/bin/env bash
# v313: (1) v312's energy parts on two more cells: V = 64 (64:2:16, which gathers twice V = 128's bytes a useful FLOP)
# and a larger problem (8192^3 128:2:8). Predicted: 64:2:16's gather a larger share than 128:2:16's 36% (~45-50%);
# 8192^3 128:2:8 within a few points of 4096^2 x 8192's shares (gather 34%, wgmma.sp 46%), its bound with X free
# ~3.5x. (2) Every GPU suite and memcheck on the session's final code (the route without DECODE_TWO_BLOCKS_WIDE, the
# decode kernel without the VNM_DEC_TWO_BLOCKS macro, the new route test).
#   OUT=$OUT bash scripts/sessions/gpu_v313.sh      (~480 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for s in 4096x4096x8192:64:2:16 8192x8192x8192:128:2:8; do
  timeout 45 python scripts/probes/clock_under_load.py $s auto@xt auto@xt+VNM_WG_SKIP_B=1 auto@xt+VNM_WG_SKIP_MMA=1 \
    auto@xt+VNM_WG_SKIP_B=1+VNM_WG_SKIP_MMA=1 dense 2>&1 | grep -v Warn
done | tee "$OUT/energy_parts_${CARD}_v313.txt"
echo "energy ${SECONDS}s"
export PYTHONPATH=$PWD/src
WARM=0 checks 330 150
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v313.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v313.txt"
echo "total ${SECONDS}s"
