#!/usr/bin/env bash
# v305: every GPU suite and memcheck on v304's kernel (test_decode_kernel_two_v_blocks_a_cta now with a one-split
# case), then the second rule for two V-row blocks a CTA (DECODE_TWO_BLOCKS_PAST_TM: V = 64 weights of more than
# 1024 rows that the 64-row decode tile runs past its T x m only because they are too small for the narrow tile)
# against it off (`pastoff`) and against both off (`off`), at V = 64 and M = 8-128, T = 1-8.
# Predicted: LLaMA-7B / 13B q/k/v/o 64:2:16 T = 3-8 -6..-10% (v304's 128:2:16 times); 64:2:64 / 64:2:128 (past T x m at
# T = 1) unknown: fewer CTAs against half the slices; BERT's 1024-column shapes unknown (4-8 steps a row tile).
#   OUT=$OUT bash scripts/sessions/gpu_v305.sh      (~480 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 300 150
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v305.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v305.txt"
timeout $((580 - SECONDS)) python scripts/bench_ab.py --path "pastoff:spmm_wgmma_sp.DECODE_TWO_BLOCKS_PAST_TM=False" \
  --path "off:spmm_wgmma_sp.DECODE_TWO_BLOCKS=False" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8 --patterns 64:2:8,64:2:16,64:2:32,64:2:64,64:2:128 \
  --shapes bert.qkv,bert.ffn1,llama7b.qkvo,llama7b.gate_up,llama7b.down,llama13b.qkvo,llama70b.qo,llama70b.gate_up \
  --paths wgmma_sp,auto,pastoff,off --tag ${CARD}_v305_pasttm > "$OUT/log_v305.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v305_pasttm.csv" auto pastoff off
echo "total ${SECONDS}s"
