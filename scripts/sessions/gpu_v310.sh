#!/usr/bin/env bash
# v310: does v304's two-block support cost the 128-row decode tiles on V = 128 weights? Their SASS
# between the first and last HMMA changed (the warp's column-word base: 37 -> 51 instructions in the bf16 128 x 8
# grouped tile) and no same-run A/B of the old code was made (v299 -> v304 across runs: 128:2:8 0.991x, 128:2:16
# 0.976x the time). `ab_decode.py` with VNM_DEC_TWO_BLOCKS=0 (the path compiled out; the plans are the same at V = 128)
# against the default, alternated twice, graph replays in turns.
# Predicted: within 1% on every cell. If the compiled-out kernel is >= 2% faster on several cells, make the two blocks a
# template parameter of the 128-row image tiles (V = 128 weights then run the old code).
# Measured (H100, `ab_two_blocks_v128_h100_v310.txt`): within 0.1 us on every cell (the run's spread): no cost; the
# macro was then removed (its commit, 9c8a43b, has it).
#   OUT=$OUT bash scripts/sessions/gpu_v310.sh      (~70 s warm; needs 9c8a43b's VNM_DEC_TWO_BLOCKS)
source "$(dirname "$0")/../gpu_lib.sh"
warm
ON=2; OFF="2+VNM_DEC_TWO_BLOCKS=0"
timeout 300 python scripts/ab_decode.py "DECODE_RING=$ON,$OFF,$ON,$OFF" --shapes \
4096x4096x1:128:2:8,4096x4096x8:128:2:8,11008x4096x1:128:2:8,4096x11008x4:128:2:8,5120x5120x4:128:2:16,\
4096x4096x1:128:2:16,11008x4096x8:128:2:16,8192x8192x2:128:2:32,4096x4096x4:128:2:32,11008x4096x1:128:2:128,\
4096x11008x8:128:2:128 > "$OUT/ab_two_blocks_v128_${CARD}_v310.txt" 2>&1
echo "ab exit $? ${SECONDS}s"; cat "$OUT/ab_two_blocks_v128_${CARD}_v310.txt"
