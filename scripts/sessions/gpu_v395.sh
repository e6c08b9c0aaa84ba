#!/usr/bin/env bash
# v395: v392 (H100) measured the gather only together with the cluster (mma_sp_gc), and the cluster alone lost
# (mma_sp_cl 1.12x mma_sp_gc's time, up to 1.9x on LLaMA's split grids). Here the gather alone (partials and
# splitk_reduce as before): mma_sp_g against mma_sp and cuBLAS on BERT-large and LLaMA-7B, T = 1-64.
# Predicted (v392's unsplit cells, where gc = the gather alone): BERT 2:16 -1.5 us a call at T <= 32; split calls the
# transpose's ~1-1.5 us less; LLaMA gate_up at T = 64 slower (the 16-column window: 1 CTA an SM).
#   OUT=$OUT bash scripts/sessions/gpu_v395.sh      (~120 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob "vnm::spmm_mma_sp<"
echo "warm ${SECONDS}s"
left=$((${END:-150} - SECONDS))
timeout $left python scripts/bench_ab.py --path "mma_sp_g@mma_sp:spmm_mma_sp.GATHER_ROWS=True" \
  -- bench spmm --shapes bert,llama7b --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16 \
  --paths mma_sp_g,mma_sp --budget-seconds $((left - 20)) --no-plot --out "$OUT" \
  --tag "${CARD}_v395_decode" > "$OUT/log_v395.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v395_decode.md" | head -5
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v395_decode.csv" mma_sp_g mma_sp dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v395.txt"; tail -4 "$OUT/ab_decode_${CARD}_v395.txt"
echo "total ${SECONDS}s"
