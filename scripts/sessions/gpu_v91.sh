#!/usr/bin/env bash
# v91: V = 128 gathered patterns at T = 16-64 on 64-row wgmma.sp tiles (two per SM) against the
# 128-row ones (main). LLaMA gate/up has 86 row tiles of 128 rows for 132 SMs and no K split that
# fits one wave (v59/v60); v72's 64-row staged tiles took 2:4 gate/up T = 16-64 -8..-15%.
# Predicted: gate/up -5..-15%, 4096-row shapes even or slower (splits already fill the GPU).
# Then v86 (prepared last session): issue 3's mma.sp prefill tiles by wave fill.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
S=""; for p in 128:2:8 128:2:16 128:2:32; do for t in 16 64; do for d in 11008x4096 4096x4096 4096x11008 1024x4096; do
  S="$S,${d}x$t:$p"; done; done; done
timeout 200 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg64x64s12r1,wg128x64s12r1,wg64x64s12r1 --shapes "${S#,}" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v91.txt"
echo "v91 ${SECONDS}s"
OUT=$OUT bash scripts/sessions/gpu_v86.sh
echo "total ${SECONDS}s"
