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
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
timeout 150 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py -k "warp_specialised or every_tile" \
  > "$OUT/tests_ws_${CARD}_v369.txt" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests_ws_${CARD}_v369.txt" | head -8; echo "tests ${SECONDS}s"
SANITIZE_ARGS=--cp-async-only sanitize 150; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v369.txt"
grep -c "multicast" "$OUT/memcheck_cp_async_${CARD}_v369.txt"; echo "memcheck ${SECONDS}s"
sweep() {  # R K T PATTERN CLASSIC WS
  timeout 80 python scripts/tile_sweep.py "$@" VNM_WS_MULTICAST=1 "$6" 2>&1 | grep -v Warn; }
{ for i in 1 2; do
  sweep 4096 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,4,p4
  sweep 4096 4096 8192 128:2:16 128,128,64,64,3 128,128,64,64,4,p4
  sweep 11008 4096 2048 128:2:8 128,128,64,64,3 128,128,64,64,4,p4
  sweep 4096 4096 8192 64:2:8 64,128,32,64,3 64,256,64,64,3,p4; done; } \
  | tee "$OUT/tile_sweep_${CARD}_v369.txt" | grep -E "tile|dense|MULTI"
echo "total ${SECONDS}s"
