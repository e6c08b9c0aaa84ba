#!/usr/bin/env bash
# v306: the second rule for two V-row blocks a CTA narrowed after v305 (DECODE_TWO_BLOCKS_PAST_TM = 128: from T x m =
# 128 to the 64-row plan's 256, and only where 128-row CTAs, row tiles x K splits, reach every SM), against it off
# (`pastoff`) on v305's cells; the two-block GPU test (now with one-split cases) and the decode / route tests.
# Predicted (v305's cells under this rule): 27 LLaMA cells change, geomean ~1.2, the lowest 70B q/o 64:2:128 T = 1
# (~0.90) and 7B down 64:2:32 T = 4 (~0.99); BERT's cells and T x m <= 64 unchanged.
#   OUT=$OUT bash scripts/sessions/gpu_v306.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "two_v_blocks or fragment_image or just_written or tile_choice"
mv "$OUT/gpu_tests.txt" "$OUT/tests_decode_${CARD}_v306.txt"
timeout 300 python scripts/bench_ab.py --path "pastoff:spmm_wgmma_sp.DECODE_TWO_BLOCKS_PAST_TM=0" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8 --patterns 64:2:8,64:2:16,64:2:32,64:2:64,64:2:128 \
  --shapes bert.qkv,bert.ffn1,llama7b.qkvo,llama7b.gate_up,llama7b.down,llama13b.qkvo,llama70b.qo,llama70b.gate_up \
  --paths wgmma_sp,auto,pastoff --tag ${CARD}_v306_pasttm > "$OUT/log_v306.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v306_pasttm.csv" auto pastoff
echo "total ${SECONDS}s"
