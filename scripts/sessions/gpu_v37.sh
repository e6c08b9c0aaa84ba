#!/usr/bin/env bash
# v37: what bounds T = 16-64 (the T <= 64 geomean's low terms; grid v36: LLaMA gate/up 128:2:8
# takes 12.5 us at T = 1 on the decode kernel but 24.5 us at T = 64 on the wgmma.sp path, 39.4 us
# on the decode kernel): the kernels one wgmma.sp call launches with their durations, then ncu of
# the wgmma.sp kernel and of the decode kernel at T = 64.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v37.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 120 ncu --clock-control none --section SpeedOfLight -c 8 python scripts/profile_spmm.py 11008 4096 64 128:2:8 wgmma_sp \
  > "$OUT/launches.txt" 2>&1
grep -E "^  [a-z_].*\(|Duration|DRAM Throughput" "$OUT/launches.txt" | head -40
bash "$(dirname "$0")/gpu_profile.sh" wg_gu_128_2_8_t64 spmm_wgmma_sp 11008 4096 64 128:2:8 wgmma_sp \
  dec_gu_128_2_8_t64 spmm_mma_sp_decode 11008 4096 64 128:2:8 mma_sp_decode | grep -v "^[-d]r"
