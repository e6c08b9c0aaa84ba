#!/usr/bin/env bash
# v100: the staged ring's fragment-image copies grouped, VNM_WG_COPY_STEPS ring stages per bulk copy
# (one copy of CS x 4 KB per 64-row block, and its metadata), against one 4 KB copy a stage.
# The stream probe (v77) streamed ~1 TB/s at 86 CTAs with one 4 KB copy a phase, 1.7-2.1 with 8 KB,
# 3.6 with 16 KB, whatever the ring depth; the gathered staged tile at T = 1 (two 4 KB copies a
# stage, 86 CTAs on gate/up) streams 1.75 (v99 ncu), like the probe. Predicted: gathered 128:2:8
# gate/up T = 1 -25..-40% at CS = 4 if the copy size is the bound (10.7 -> ~7 us), nothing if not
# (as v78's paired stages at 172 CTAs). Also 2:4's staged tiles, and the decode kernel (auto) beside.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
G=""; for t in 1 16 64; do for d in 11008x4096 4096x4096 4096x11008; do G="$G,${d}x$t:128:2:8"; done; done
G="$G,11008x4096x1:128:2:16,4096x11008x1:128:2:16,11008x4096x1:64:2:8"
timeout 170 python scripts/ab_wgmma.py VNM_WG_COPY_STEPS=1,2,4,6,1,4 --define TILE=wg128x64s12t1 --shapes "${G#,}" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v100_gathered.txt"
timeout 80 python scripts/ab_wgmma.py VNM_WG_COPY_STEPS=1,2,4,1,4 --define TILE=wg64x16s12t1 \
  --shapes 11008x4096x1:2:4,11008x4096x16:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_v100_2to4.txt"
timeout 80 python scripts/ab_wgmma.py VNM_WG_COPY_STEPS=1,2,4,1,4 --define TILE=wg128x16s16t1 \
  --shapes 4096x4096x1:2:4,4096x4096x16:2:4,4096x11008x16:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_v100_2to4.txt"
timeout 100 python scripts/ab_wgmma.py PATH=auto,wgmma_sp,auto,wgmma_sp --define TILE=wg128x64s12t1 --define VNM_WG_COPY_STEPS=4 \
  --shapes 11008x4096x1:128:2:8,4096x4096x1:128:2:8,4096x11008x1:128:2:8,11008x4096x8:128:2:8,11008x4096x1:128:2:16,4096x4096x8:128:2:32 \
  2>&1 | grep -v Warn | tee "$OUT/ab_v100_auto.txt"
echo "total ${SECONDS}s"
