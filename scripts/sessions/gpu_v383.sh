#!/usr/bin/env bash
# v383: why v382's persistent 128 x 256 form ran 1.37x the 128 x 128 form (313 against 229 us, 4096^2 x 8192 128:2:8,
# H100) though its producers alone ran 200 us: its consumers alone (VNM_WS_PROBE=1) and their mma.sp alone (2), beside
# the 128 x 128 form and a persistent 128 x 128 form (3 stages, two CTAs an SM: persistence without the one-CTA ring),
# 128:2:8 and 128:2:16, X^T given, two turns; then racecheck of the persistent form alone (its staging tile reused).
# Predicted (NOTES, nineteenth session): 1 175-190 us, 2 165-175 at 128:2:8 (the same consumer work an SM as the 128 x
# 128 form's 182-190 / 170): then the loss is the coupling, eight consumer warps on one ring of 3 stages (two in flight
# while one is read: 82 KB, against 150 KB for two CTAs' rings of 4); the persistent 128 x 128 225-245.
#   OUT=$OUT bash scripts/sessions/gpu_v383.sh   (~150 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
P256="spmm_mma_sp_ws<__nv_bfloat16, 128, 256, 64, 64, 3, 4, true, true>"
warm_knob spmm_mma_sp_ws &
for p in 1 2; do warm_knob "$P256" VNM_WS_PROBE=$p > /dev/null & done
wait; echo "warm ${SECONDS}s"
specs=(128,128,64,64,4,p4 128,128,64,64,3,p4P 128,256,64,64,3,p4P VNM_WS_PROBE=1 128,256,64,64,3,p4P
       VNM_WS_PROBE=2 128,256,64,64,3,p4P defaults)
{ for i in 1 2; do for pat in 128:2:8 128:2:16; do
    timeout 60 python scripts/tile_sweep.py 4096 4096 8192 $pat "${specs[@]}" 2>&1 | grep -v Warn; done; done; } \
  | tee "$OUT/tile_sweep_persistent_${CARD}_v383.txt"
echo "sweep ${SECONDS}s"
SANITIZE_ARGS=--persistent-only sanitize 90 racecheck; mv "$OUT/racecheck.txt" "$OUT/racecheck_persistent_${CARD}_v383.txt"
grep "rel err" "$OUT/racecheck_persistent_${CARD}_v383.txt"
echo "total ${SECONDS}s"
