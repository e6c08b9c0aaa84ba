#!/usr/bin/env bash
# v286: v285's prefetch of one step before the PDL wait as the default: decode GPU tests, the grid at T <= 64.
#   OUT=$OUT bash scripts/sessions/gpu_v286.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 120 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "decode" \
  > "$OUT/tests_decode_v286.txt" 2>&1; tail -1 "$OUT/tests_decode_v286.txt"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths auto,wgmma_sp,cslt --tag h200_v286_decode > "$OUT/log_v286.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_h200_v286_decode.md" | grep "auto\|wgmma_sp" | cut -d'|' -f3-7
