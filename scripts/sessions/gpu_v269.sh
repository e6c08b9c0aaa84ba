#!/usr/bin/env bash
# v269: small V (16, 32: no wgmma.sp row tile, so the gathered calls run the cp.async mma.sp kernel) as 2:4 at
# M = 16 / 32 too. kernels._as_2_4 takes M = 8 only; a V:2:16 or V:2:32 weight is also valid 2:4 over the full K
# (2 of every M columns a row: at most 2 in any 4). Prediction: at T >= 2048 as 2:4 ~1.3x cuBLAS against the
# mma.sp kernel's ~0.9x at 2:16 (1.4x faster); at 2:32 about even.
#   OUT=$OUT bash scripts/sessions/gpu_v269.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
timeout 300 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v269_small_v --quick --tokens 2048,8192 \
  --patterns 16:2:8,32:2:8,16:2:16,32:2:16,16:2:32,32:2:32 --paths auto,wgmma_sp_as_2_4 > "$OUT/log_v269.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/spmm_h200_v269_small_v.md" | head -14
echo "total ${SECONDS}s"
