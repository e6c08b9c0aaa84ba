#!/usr/bin/env bash
# v179: the profile behind issue 3's last failing decode cell (cp.async path, 4096^2 64:2:8 T = 64,
# 0.81-0.84 of cuBLAS): ncu (--clock-control none, L2 flushed per replay) of its SpMM kernel
# (spmm_mma_sp<bf16, 64, 64, 16, 64, 3, true, true>, 4 splits, 8 steps each): speed of light, warp
# states, memory, and the per-instruction stall samples. v177 counted ~2k cycles a step at ~11 B/clk an
# SM and v178 ruled out the DRAM misses. Predicted: barrier (__syncthreads) and long-scoreboard stalls
# on the column word's load lead; no unit above 30% of peak.
OUT=$OUT bash "$(dirname "$0")/../gpu_profile.sh" mma_sp_decode_4096_64_2_8_t64 "spmm_mma_sp" 4096 4096 64 64:2:8 mma_sp
