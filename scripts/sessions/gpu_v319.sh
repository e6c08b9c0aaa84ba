#!/usr/bin/env bash
# v319 (prepared, not run): the 64-row decode tile's slice limit (DECODE_OVER_NARROW[64][1]) 6 -> 7.5 MiB (`s75`)
# against the route, same turns (`s75` first: the first-place bias against it). v316's autotune ran LLaMA-70B gate/up
# and down at T = 1 (slices of 7 MiB, past the 6) on the 64-row decode kernel, 0.90-0.92x the narrow tile's time;
# v288 set the 6 MiB between 7B-sized cells and 13B gate/up 64:2:8 T = 4 (8.8 MiB, 5% slower on the decode kernel).
# The change moves 15 V = 64 cells of these shapes (CPU: decode_rows), slices of 6.25-7.5 MiB at T x m <= 32.
# Predicted: those ~0.93x in geomean (70B at T = 1 ~0.91), none above 1.03; every other cell even. Kept if so.
#   OUT=$OUT bash scripts/sessions/gpu_v319.sh      (~90 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python scripts/bench_ab.py \
  --path "s75:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (32, 7864320, None), 128: (64, 4194304, 26214400)}" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,3,4 --patterns 64:2:8,64:2:16,64:2:32 \
  --shapes llama13b,llama70b,15360x5120,10240x8192,14336x4096,8192x14336,20480x5120 \
  --paths s75,auto --tag ${CARD}_v319_slices > "$OUT/log_v319.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v319_slices.csv" auto s75 --min 0.03
echo "total ${SECONDS}s"
