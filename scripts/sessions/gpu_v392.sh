#!/usr/bin/env bash
# v392: gpu_v391.sh cut to ~300 s (the device time left after failed starts): only the decode tiles that BERT-large and
# LLaMA-7B take at T <= 64 (128 x 16 / 32, 64 x 16 / 32 / 64), their variants compiled in parallel (no warm of
# everything), no memcheck. The gathered test on those tiles (clustered too on sm_90; bit-identical to the X^T path),
# then the decode A/B in the same turns: mma_sp_gc (both), mma_sp_cl (the cluster), mma_sp (neither), cuBLAS.
# Predicted as v391.
#   OUT=$OUT bash scripts/sessions/gpu_v392.sh      (~300 s; END= the grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 120 python - <<'PY'
import concurrent.futures as cf
import torch
from vnmsparse.kernels import jit, spmm_mma_sp as K
def build(job):
    jit.compile(K.SOURCE, [job[0]], "sm_90a", defines=job[1])
CL = {"VNM_CLUSTER_SPLITS": 1}
tiles = [K.TILE_TABLE[False][key] for key in ((128, 16), (128, 32), (64, 16), (64, 32), (64, 64))]
forms = [(t.name(d, True, s, *g), s) for d in (torch.float16, torch.bfloat16) for t in tiles for s in (False, True)
         for g in ((False, 0), (True, 8), (True, 16))]
jobs = [(name, {}) for name, _ in forms] + [(name, CL) for name, split in forms if split]
with cf.ProcessPoolExecutor(16) as ex:
    list(ex.map(build, jobs))
print(f"compiled {len(jobs)}")
PY
echo "warm ${SECONDS}s"
mma_sp_tests "tests_v392_${CARD}" 150 -k "gathered_from_x_rows and (sm80128x16w or sm80128x32w or sm8064x16w or sm8064x32w or sm8064x64w)"
T="$OUT/tests_v392_${CARD}.txt"
paths=mma_sp_gc,mma_sp_cl,mma_sp
grep -q " passed" "$T" || { echo "no test passed: no grid"; exit 1; }
grep -q "^FAILED" "$T" && paths=mma_sp_cl,mma_sp
left=$((${END:-290} - SECONDS))
timeout $left python scripts/bench_ab.py \
  --path "mma_sp_gc@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True;spmm_mma_sp.GATHER_ROWS=True" \
  --path "mma_sp_cl@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True" \
  -- bench spmm --shapes bert,llama7b.qkvo,llama7b.gate_up --tokens 1,16,32,64 --patterns 64:2:8,128:2:8,128:2:16 \
  --paths $paths --budget-seconds $((left - 25)) --no-plot --out "$OUT" \
  --tag "${CARD}_v392_decode" > "$OUT/log_v392.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v392_decode.md" | head -5
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v392_decode.csv" ${paths//,/ } dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v392.txt"; cat "$OUT/ab_decode_${CARD}_v392.txt" | tail -45
echo "total ${SECONDS}s"
