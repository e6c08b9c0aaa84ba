#!/usr/bin/env bash
# v320: the gathered B by one-row TMA boxes again (VNM_WG_TMA_ROWS=1: 64 tokens of one X^T row a box, issued by every
# producer lane), now that the producer no longer waits an L2 round trip a stage for its column words (v9 measured
# these boxes 2x slower in cycles with that producer). Why again: at the power limit a call's time is its energy, and
# v312 measured the 16-byte cp.async gather at ~43 pJ a gathered byte against ~11 for TMA's large X boxes.
# Predicted: (1) the knob's GPU test passes; (2) bursts (bench_ab, gathered T >= 2048 cells): 1.0-1.3x the cp.async
# time (the TMA unit's rate for 128-byte boxes; a BN = 256 stage needs one box per ~4 cycles at the math's pace);
# (3) sustained (clock_under_load, 4096^2 x 8192): 128:2:8 on feature-major X 134 mJ -> ~110-120 (the gather 46 ->
# ~25 mJ), 64:2:16 111 -> ~85; if the boxes are rate-bound the clock rises and the power falls instead.
# Kept only if sustained energy and burst time both improve; else the knob is recorded and removed.
# Then (v319) the 64-row decode tile's slice limit 6 -> 7.5 MiB (see gpu_v319.sh for its prediction).
#   OUT=$OUT bash scripts/sessions/gpu_v320.sh      (~330 s warm; the knob is removed after it: d303954 has it)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 120 python - <<'PY' 2>&1 | tail -1
import concurrent.futures, os, torch
from vnmsparse.kernels import jit, spmm_wgmma_sp as W
def one(job):
    jit.compile(W.SOURCE, [job[0]], "sm_90a", defines={"VNM_WG_TMA_ROWS": 1}); return job
jobs = [(n,) for dt in (torch.float16, torch.bfloat16) for n in W.name_expressions(dt)]
with concurrent.futures.ProcessPoolExecutor(os.cpu_count()) as pool:
    print("compiled", sum(1 for _ in pool.map(one, jobs)), "with VNM_WG_TMA_ROWS=1")
PY
echo "warm ${SECONDS}s"
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "tma_rows" -x \
  > "$OUT/tests_tma_rows_${CARD}_v320.txt" 2>&1
tail -3 "$OUT/tests_tma_rows_${CARD}_v320.txt"; echo "tests ${SECONDS}s"
if grep -q " passed" "$OUT/tests_tma_rows_${CARD}_v320.txt" && ! grep -q "failed" "$OUT/tests_tma_rows_${CARD}_v320.txt"; then
  export PYTHONPATH=$PYTHONPATH:$PWD/scripts
  for s in 4096x4096x8192:128:2:8 4096x4096x8192:64:2:16; do
    timeout 60 python scripts/probes/clock_under_load.py $s auto@xt auto@xt+VNM_WG_TMA_ROWS=1 auto auto+VNM_WG_TMA_ROWS=1 \
      dense 2>&1 | grep -v Warn
  done | tee "$OUT/energy_tma_rows_${CARD}_v320.txt"
  echo "energy ${SECONDS}s"
  export PYTHONPATH=$PWD/src
  timeout 200 python scripts/bench_ab.py --path "tmarows:spmm_wgmma_sp.DEFINES={'VNM_WG_TMA_ROWS': 1}" \
    -- bench spmm --out "$OUT" --no-plot --tokens 2048,8192 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32 \
    --shapes 4096x4096,11008x4096 --paths tmarows,auto --tag ${CARD}_v320_tma_rows > "$OUT/log_v320.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v320_tma_rows.csv" auto tmarows --min 0.0 | tail -25
fi
bash "$(dirname "$0")/gpu_v319.sh"  # (its warm finds the cache filled)
echo "total ${SECONDS}s"
