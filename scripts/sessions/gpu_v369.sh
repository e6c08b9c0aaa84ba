#!/usr/bin/env bash
# v369 (knob VNM_WS_MULTICAST, off; not measured): the two-CTA ws tiles in clusters of two token tiles that share A and
# its codes (bulk copies multicast by each CTA's first producer thread, half the blocks each; consumers release a
# stage in both CTAs). Bytes from L2 at 4096^2 x 8192 128:2:8: 1.68 -> 1.41 GB.
# (1) the ws tests, every form (multicast: odd token-tile counts, ragged R), (2) memcheck of the cp.async launches
# (multicast included), (3) sweep twice: ws two-CTA form without / with the knob, classic for reference.
# Predicted (H100, X^T given): 128:2:8 235 -> 210-225 us, 128:2:16 128 -> 118-125, 64:2:8 (64 x 256) 286 -> 265-280;
# refuted if the pair's coupling (a slot refilled once both CTAs read it) costs more than the bytes save.
#   OUT=$OUT bash scripts/sessions/gpu_v369.sh
source "$(dirname "$0")/../gpu_lib.sh"
ws_knob_ab v369 "multicast" VNM_WS_MULTICAST=1
