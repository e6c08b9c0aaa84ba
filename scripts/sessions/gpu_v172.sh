#!/usr/bin/env bash
# v172 (prepared in the seventeenth session, not yet run): v170's staged persistent 128-row tiles past
# 2 k-steps and below M = 64 (PERSISTENT_MAX_STEPS 2 -> 64 with PERSISTENT_MIN_M 8: 2:8-2:64, and 2:128
# at K = 11008), where v149 found the a_regs persistent form 0-9% slower. v170's cause (the consumers'
# A loads for the next tile queued behind their Y stores) does not apply to non-persistent tiles, but
# the persistent form also overlaps each tile's epilogue with the next one's first stages.
# Predicted: 2:32-2:64 -3..-8% (epilogue ~a third of a tile there), 2:8-2:16 even to -3%.
# Then the 64-row staged persistent tiles forced on V = 64 against their a_regs forms.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=4096x4096x8192:128:2:8,11008x4096x8192:128:2:8,4096x4096x8192:128:2:16,11008x4096x4096:128:2:16,4096x4096x4096:128:2:32,11008x4096x8192:128:2:32,4096x4096x8192:128:2:64,4096x11008x8192:128:2:128
timeout 120 python scripts/ab_wgmma.py PERSISTENT_MAX_STEPS=2,64,2,64 --define PERSISTENT_MIN_M=8 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_staged_persistent_steps_h200_v172.txt"
S64=4096x4096x8192:64:2:64,11008x4096x8192:64:2:128,4096x4096x4096:64:2:128
timeout 60 python scripts/ab_wgmma.py TILE=wg64x256s6r1p,wg64x256s5t1p,wg64x256s6r1p,wg64x256s5t1p --xt 1 --shapes $S64 2>&1 | grep -v Warn | tee -a "$OUT/ab_staged_persistent_steps_h200_v172.txt"
timeout 40 python scripts/ab_wgmma.py TILE=wg64x128s6r1p,wg64x128s4t1p,wg64x128s6r1p,wg64x128s4t1p --xt 1 --shapes $S64 2>&1 | grep -v Warn | tee -a "$OUT/ab_staged_persistent_steps_h200_v172.txt"
# The TMA-store epilogue again, on the staged persistent tile: it lost in v29-v159 while the consumers'
# next A loads waited anyway (behind the producer's copies, then behind their own stores); with A
# staged (v170) nothing in the next tile's mainloop waits on the memory queue that the stores fill.
# v170's trace: a tile every 8.1k cycles, 6.0k of them epilogue (4 passes of 16 KB at ~12 B/clk).
# Predicted: gate/up 2:128 -5..-20% if bulk stores drain beside the next mainloop, else slower again.
S2=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x4096x8192:128:2:128,1024x4096x4096:128:2:128
timeout 90 python scripts/ab_wgmma.py EPI_TMA=0,1,0,1 --define EPI_TMA_BUFS=4 --path auto --xt 1 --shapes $S2 2>&1 | grep -v Warn | tee "$OUT/ab_epi_tma_staged_h200_v172.txt"
# Issue 3's decode rule fails at T = 64 on 4096-row 2:8 (mma_sp 0.74-0.79 of cuBLAS, grid v171) in every
# tile and split form of v160; untried: shallower rings, so more CTAs share an SM (64 x 64: 6 stages,
# 77 KB, 2 a SM; 4: 51 KB, 4; 3: 38 KB, 4 by registers) and more loads are in flight.
# Predicted: 4096^2 64:2:8 T = 64 -10..-20% if the loads in flight bound it, else even.
D8=4096x4096x64:64:2:8,11008x4096x64:64:2:8,1024x4096x64:64:2:8,4096x4096x32:64:2:8
D128=4096x4096x64:128:2:8,11008x4096x64:128:2:8,4096x4096x64:128:2:16,1024x4096x64:128:2:8
timeout 60 python scripts/ab_wgmma.py TILE=auto,sm8064x64w16x64s4,sm8064x64w16x64s3,auto --path mma_sp --shapes $D8 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_stages_h200_v172.txt"
timeout 60 python scripts/ab_wgmma.py TILE=auto,sm80128x64w32x64s4,sm80128x64w32x64s3,auto --path mma_sp --shapes $D128 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_stages_h200_v172.txt"
timeout 40 python scripts/ab_wgmma.py PATH=dense --shapes $D8,$D128 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_stages_h200_v172.txt"
# v170's tiles under racecheck (memcheck was clean in v171)
SANITIZE_ARGS="--tiles t1p" sanitize 50 racecheck
echo "total ${SECONDS}s"
