#!/usr/bin/env bash
# v324: the slab producer with its warps taking turns at steps (VNM_WG_SLAB_STEPS=1: warp it % 4 copies all of step
# it from its own slot, fences and refills that slot itself; no producer-wide bar.sync), to test v322's reading that
# a slab step costs its serial chain (slab wait, copy, fence, barrier), not the copy's instructions. (1) test_slab_x
# with both producers. (2) Same turns as v322 (V = 128, M = 8 / 16, T = 12-32, LLaMA-7B/13B, 8192^2): `auto` (the
# transpose), `slab0` (SLAB_X on, v200's producer), `slabS` (SLAB_X on, warps in turn). Predicted: slabS / slab0
# ~0.75 in geomean (gate/up, 32 steps a CTA: 18.9 -> ~14 us), slabS / `auto` ~0.95 (the feature-major time is the
# floor: gate/up ~11-12.6 us, 4096^2 128:2:16 T = 16 ~5.3-6.2). Route (SLAB_X on with it) if slabS / auto <= 0.97
# in geomean and no cell above 1.03; else recorded and removed.
#   OUT=$OUT bash scripts/sessions/gpu_v324.sh      (~90 s warm; refuted, the knob removed after it: dd76583 has it)
source "$(dirname "$0")/../gpu_lib.sh"
warm
slab_ab v324 slabS "spmm_wgmma_sp.DEFINES={'VNM_WG_SLAB_STEPS': 1}"
echo "total ${SECONDS}s"
