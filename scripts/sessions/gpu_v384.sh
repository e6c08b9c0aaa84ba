#!/usr/bin/env bash
# v384: what v383's persistent 128 x 128 form (3 stages, two CTAs an SM: 257-271 us against the 4-stage form's 227-229,
# 4096^2 x 8192 128:2:8, H100) lost to: the stage or persistence. The same tile unpersisted with 3 stages, and the
# 128 x 256 tile unpersisted with 3 and 5 stages (does ring depth repair one CTA's coupled ring?), 128:2:8 and
# 128:2:16, X^T given, two turns. Predicted (NOTES): 128 x 128 / 3 stages 245-265 (the stage explains most),
# 128 x 256 / 5 stages 265-290 (v364), / 3 stages ~300-310 (v380b).
#   OUT=$OUT bash scripts/sessions/gpu_v384.sh   (~80 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob spmm_mma_sp_ws
specs=(128,128,64,64,4,p4 128,128,64,64,3,p4 128,128,64,64,3,p4P 128,256,64,64,3,p4 128,256,64,64,5,p4)
{ for i in 1 2; do for pat in 128:2:8 128:2:16; do
    timeout 60 python scripts/tile_sweep.py 4096 4096 8192 $pat "${specs[@]}" 2>&1 | grep -v Warn; done; done; } \
  | tee "$OUT/tile_sweep_stages_${CARD}_v384.txt"
echo "total ${SECONDS}s"
