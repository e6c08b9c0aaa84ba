#!/usr/bin/env bash
# v31: is `auto` (vnmsparse.spmm) slower than the wgmma_sp path it calls (grids v24c-v30: 4-11% at
# T >= 4096 on big shapes)? The call A/B'd alone, then the bench with the path order swapped.
# Then racecheck on the persistent and cluster tiles only (racecheck shows 100 hazards: theirs),
# synccheck on everything, and the GPU suites of the routes changed since the last full run.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v31.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 90 python scripts/ab_wgmma.py PATH=auto,wgmma_sp,auto,wgmma_sp \
  --shapes 11008x4096x8192:128:2:128,11008x4096x4096:128:2:32,4096x11008x8192:128:2:16,4096x4096x8192:2:4 2>&1 | tee "$OUT/ab.txt" | tail -5
for order in auto,wgmma_sp wgmma_sp,auto; do
  timeout 100 python -m vnmsparse.cli bench spmm --out /tmp/b --shapes llama7b.gate_up,llama7b.qkvo --patterns 128:2:128,128:2:32,2:4 \
    --tokens 4096,8192 --paths $order --tag order --no-plot > /tmp/b.txt 2>&1
  python - "$order" <<'PY' | tee -a "$OUT/ab.txt"
import csv, sys
rows = [r for r in csv.DictReader(l for l in open("/tmp/b/spmm_order.csv") if not l.startswith("#"))]
print("order", sys.argv[1], " ".join(f"{r['shape'][7:]}/{r['T']}/{r['pattern']}/{r['path']}={float(r['t_us']):.1f}@{r['sm_MHz']}"
                                      for r in rows if r["path"] in ("auto", "wgmma_sp", "dense") and r["t_us"]))
PY
done
SANITIZE_ARGS="--tiles p,c2,c4" sanitize 200 racecheck
sanitize 250 synccheck
gpu_tests 250 tests/test_ops.py tests/test_nn.py tests/test_autotune.py tests/test_spmm_mma_sp.py
