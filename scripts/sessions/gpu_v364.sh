#!/usr/bin/env bash
# v363 measured (H100): the ws kernel at two CTAs an SM (128 x 128, 4 stages, setmaxnreg) 128:2:8 even with the classic
# tile (238-241 against 242), 128:2:16 -6%, 64:2:8 (64 x 256, 3 stages) -5%, 2:4 +1..+9%; v362 +25..+31% (dropped).
# v364: the same kernel as one CTA of 8 consumer warps, 128 x 256 (A's bytes a MAC halved: 1.68 -> 1.41 GB a
# 4096^2 x 8192 call), 4 and 5 stages, setmaxnreg 40 / 232. Predicted 128:2:8 205-225 us (L2's ~7 TB/s on 1.41 GB:
# ~200). (1) the ws tests, every form, (2) memcheck of the cp.async launches (the ws forms included), (3) sweep twice.
#   OUT=$OUT bash scripts/sessions/gpu_v364.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
timeout 120 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py -k "warp_specialised or every_tile" \
  > "$OUT/tests_ws_${CARD}_v364.txt" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests_ws_${CARD}_v364.txt" | head -8; echo "tests ${SECONDS}s"
SANITIZE_ARGS=--cp-async-only sanitize 150; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v364.txt"
grep -c "warp-specialised" "$OUT/memcheck_cp_async_${CARD}_v364.txt"; echo "memcheck ${SECONDS}s"
sweep() {  # R K T PATTERN
  timeout 80 python scripts/tile_sweep.py "$@" 128,128,64,64,3 128,128,64,64,4,p4 128,256,64,64,5,p4 128,256,64,64,4,p4 \
    2>&1 | grep -v Warn; }
{ for i in 1 2; do
  sweep 4096 4096 8192 128:2:8
  sweep 4096 4096 8192 128:2:16
  sweep 4096 4096 8192 128:2:32
  sweep 11008 4096 8192 128:2:8
  sweep 4096 4096 8192 2:4; done; } | tee "$OUT/tile_sweep_${CARD}_v364.txt" | grep -E "tile|dense"
echo "total ${SECONDS}s"
