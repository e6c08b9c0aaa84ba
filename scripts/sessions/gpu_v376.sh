#!/usr/bin/env bash
# v376 (knob VNM_WS_BULK_A, off; not measured): the ws producers copy A and its codes into a stage as bulk copies (a
# 16-row block's 1 KB of A or 128 B of codes a lane, spread over the 4 producer warps; one expect_tx a stage), not as
# 16-byte cp.async: v375 counted the L1 data pipe as busy as the tensor pipe, ~0.8 wavefronts a HMMA.SP of it the
# cp.async writes, 36% of those A's and the codes'. (1) the ws tests, every form (bulk_a: ragged R's padding blocks),
# (2) memcheck of the cp.async launches (bulk A included), (3) sweep twice: ws two-CTA form without / with the knob,
# classic for reference. Predicted (H100, X^T given): 128:2:8 235-241 -> 220-235 us, 128:2:16 128 -> 120-127, 64:2:8
# (64 x 256) 297-302 -> 280-300; refuted if the TMA's writes load the same pipe (then v375's floor stands as counted).
#   OUT=$OUT bash scripts/sessions/gpu_v376.sh      (~150 s)
source "$(dirname "$0")/../gpu_lib.sh"
ws_knob_ab v376 "bulk A" VNM_WS_BULK_A=1
