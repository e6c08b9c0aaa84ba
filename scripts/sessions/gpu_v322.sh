#!/usr/bin/env bash
# v322: the slab tiles' copy of the kept columns by ldmatrix.trans + stmatrix (VNM_WG_SLAB_LDSM=1, where 8 | M)
# instead of 8 16-bit loads and a 16-byte store per chunk (v202: that copy and its bank conflicts were the slabs'
# loss; ~16 warp instructions per stage and warp now, conflict-free loads). (1) test_slab_x with both copies.
# (2) Same turns, V = 128, M = 8 / 16, T = 12-32 (the slab route's narrow tiles): `auto` (X^T by the transpose),
# `slab0` (SLAB_X on, the 16-bit copy), `slab1` (SLAB_X on, ldmatrix). Predicted (v200's slab / transpose /
# feature-major times at T = 16): slab1 near the feature-major time, 4096^2 128:2:16 6.1 -> ~5.3 us, 128:2:8 7.6
# -> ~7.0, LLaMA down ~-5%, gate/up even (slab0 there 1.5x); slab1 / slab0 0.6-0.9. Route taken (SLAB_X on with the
# ldmatrix copy) if slab1 / auto <= 0.97 in geomean with no cell above 1.03.
#   OUT=$OUT bash scripts/sessions/gpu_v322.sh      (~100 s warm; refuted, the knob removed after it: ff736e5 has it)
source "$(dirname "$0")/../gpu_lib.sh"
warm
slab_ab v322 slab1 "spmm_wgmma_sp.DEFINES={'VNM_WG_SLAB_LDSM': 1}"
echo "total ${SECONDS}s"
