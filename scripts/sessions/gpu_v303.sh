#!/usr/bin/env bash
# v303 (prepared, not run): VNM_WG_EARLY=1 (wgmma.sp kernel macro, off by default): the staged tiles (AREG 2: the
# 16-64-token tiles at T = 9-64, plain 2:4's staged tiles, the persistent staged prefill tiles) copy their first
# tile's first ring stages of A and codes before the PDL wait, as v296 did for the decode kernel; the host launches
# them with PDL only on settled weights while the macro is on. CPU: compiles; the bulk copies sit above ACQBULK;
# one variant (bf16 128 x 32, 16 stages, gathered, no split) spills 52 bytes with it (its producer at 72 registers
# holds the loop's new branch), none without.
# Predictions: T = 16-64 -0.3..-1 us on 4096^2 and LLaMA-7B (the tile's A no longer queued behind the wait); T >=
# 2048 within 1%; the wgmma.sp GPU tests pass with it on.
#   OUT=$OUT bash scripts/sessions/gpu_v303.sh      (~300 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python - > "$OUT/tests_wgearly_${CARD}_v303.txt" 2>&1 <<'PY'
import sys, pytest
import vnmsparse.kernels.spmm_wgmma_sp as W
W.DEFINES = {"VNM_WG_EARLY": 1}
sys.exit(pytest.main(["-q", "-m", "gpu", "-p", "no:cacheprovider", "tests/test_spmm_wgmma_sp.py"]))
PY
echo "tests (VNM_WG_EARLY=1): exit $? $(tail -n 1 "$OUT/tests_wgearly_${CARD}_v303.txt") ${SECONDS}s"
timeout 300 python scripts/bench_ab.py --path "wgearly:spmm_wgmma_sp.DEFINES={'VNM_WG_EARLY': 1}" -- bench spmm --out "$OUT" \
  --no-plot --quick --tokens 16,32,64,2048 --paths wgmma_sp,auto,wgearly --tag ${CARD}_v303_wgearly > /dev/null 2>&1
echo "bench: exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v303_wgearly.csv" wgmma_sp,auto,wgearly | grep -v "^skip"
echo "total ${SECONDS}s"
