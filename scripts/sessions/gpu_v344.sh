#!/usr/bin/env bash
# v344: plain 2:4 on the cp.async mma.sp kernel reads a row-major X as it is (XROW: B staged as token rows of X,
# ldmatrix without .trans), so the call has no transpose launch and no 4 T K bytes of it through DRAM. Counted: the
# same copies a stage (BN token rows x 8 whole-line chunks against 64 k-rows x BN / 8), the same ldmatrix count;
# registers (sm_90a) 128 x 64 164 -> 168 (3 CTAs an SM still), 128 x 256 254 both, no spills. Predicted (H100 or
# H200, `mma_sp` path counting the transpose, X row-major): 2:4 T >= 2048 -5..-8% on LLaMA shapes (v340: transpose ~45
# of 765 us at 4096^2 x 8192), -15..-20% on bert.ffn2 (1024 x 4096: ~45 of 222); T <= 64 -1..-3 us a call (one
# launch fewer). (1) GPU tests of the mma.sp kernel file and the ops / nn ones, memcheck (its 2:4 cases now take
# the row-major reads); (2) bench_ab: `mma_sp` against itself with XROW_2_4 off, 2:4 only, same run.
#   OUT=$OUT bash scripts/sessions/gpu_v344.sh      (~400 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
gpu_tests 230 tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v344.txt"
SANITIZE_ARGS=--cp-async-only sanitize 60; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v344.txt"
left=$((570 - SECONDS))
if [ $left -gt 60 ]; then
  timeout $left python scripts/bench_ab.py --path "mma_sp_transposed@mma_sp:spmm_mma_sp.XROW_2_4=False" -- \
    bench spmm --quick --patterns 2:4 --tokens 16,64,2048,8192 --paths mma_sp,mma_sp_transposed \
    --budget-seconds $((left - 15)) --out "$OUT" --no-plot --tag ${CARD}_v344_xrow > "$OUT/log_v344.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v344_xrow.md" | grep "^|" | head -12
  python - "$OUT/spmm_${CARD}_v344_xrow.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
t = {(r["shape"], r["T"], r["path"]): r["t_us"] for r in rows}
for (shape, T, path), us in sorted(t.items()):
    if path == "mma_sp":
        print(f"{shape:18s} T={T:5s} row-major {float(us):8.1f} us  transposed {float(t.get((shape, T, 'mma_sp_transposed'), 'nan')):8.1f}")
PY
fi
echo "total ${SECONDS}s"
