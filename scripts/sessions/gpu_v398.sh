#!/usr/bin/env bash
# v398: v396 put the gather from X's rows on the split calls of small weights (R x K <= 4096 x 1024, T <= 32: BERT-large
# x0.75-0.86 on an H100). What still fails issue 3's decode bar there is T = 64 (2:8: 0.78-0.92 of cuBLAS; transpose,
# SpMM in K splits, reduction), whose 64-token tiles do not gather. (1) the gathered test on every gathered form (the
# 64-token ones too), (2) A/B on BERT-large: `mma_sp_g64` (the 64-token tiles gather too, T <= 64) and `mma_sp_t32`
# (T = 33-64 as two gathered 32-token tiles) against the default and cuBLAS, T = 1-64; (3) racecheck (H200) or memcheck of the cp.async launches with every gathered form; (4) issue
# 3's decode grid (mma_sp, cuBLAS) on BERT-large and LLaMA-7B with the time left.
# Predicted (2): at T = 33-64 on split calls, -0.8..-1.4 us (the transpose's launch and its ~1 us; v396's T <= 32 cells
# lost 0.9-1.4 us with it) against +0..+0.6 us of windows at 64 tokens (v392's unsplit T = 64: 1-9% slower): FFN1 128:2:8
# T = 64 7.4 -> ~6.4 us (cuBLAS 5.8), so better but likely still under 1. t32: as T = 32's gathered calls with twice the
# CTAs (fewer splits), ~5.5-6.2 us there.
#   OUT=$OUT bash scripts/sessions/gpu_v398.sh      (~450 s; END= the decode grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob "vnm::spmm_mma_sp<"
echo "warm ${SECONDS}s"
mma_sp_tests "tests_gathered_${CARD}_v398" 120 -k "gathered_from_x_rows"
T="$OUT/tests_gathered_${CARD}_v398.txt"
grep -q " passed" "$T" && ! grep -q "^FAILED" "$T" || { echo "gathered tests failed: no A/B"; exit 1; }
G="spmm_mma_sp.GATHER_ROWS_MAX_TOKENS=64;spmm_mma_sp.GATHER_TILE_TOKENS=(16, 32, 64)"
T32="spmm_mma_sp.GATHER_ROWS_MAX_TOKENS=64;spmm_mma_sp.DECODE_MAX_TOKEN_TILE=32"
timeout 150 python scripts/bench_ab.py --path "mma_sp_g64@mma_sp:$G" --path "mma_sp_t32@mma_sp:$T32" \
  -- bench spmm --shapes bert --tokens 1,16,32,40,48,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16 \
  --paths mma_sp_g64,mma_sp_t32,mma_sp --budget-seconds 120 --no-plot --out "$OUT" --tag "${CARD}_v398_g64" > "$OUT/log_v398.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v398_g64.csv" mma_sp mma_sp_g64 mma_sp_t32 dense --min 0.03 \
  > "$OUT/ab_g64_${CARD}_v398.txt"; tail -3 "$OUT/ab_g64_${CARD}_v398.txt"
rm -f "$OUT/spmm_${CARD}_v398_g64.md"  # (the A/B's cells are in its csv and ab file)
tool=memcheck; [ "$CARD" = h200 ] && tool=racecheck
SANITIZE_ARGS="--cp-async-only --gather-rows" sanitize 150 $tool
mv "$OUT/$tool.txt" "$OUT/${tool}_cp_async_${CARD}_v398.txt"
grid v398_decode 1,8,16,32,64 mma_sp ${END:-450} --shapes bert,llama7b --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32
grep -E "decode not slower" "$OUT/spmm_${CARD}_v398_decode.md" | head -6
echo "total ${SECONDS}s"
