#!/usr/bin/env bash
# v146: v145's contradiction at 2:32: the persistent 128 x 256 tile (which overlaps a tile's fill with
# the previous one's epilogue) against the one-tile-per-CTA tile, traced the same way (CTA 0 runs
# tiles 0, 132, 264, 396: the ring's stages run on across them) and timed in turns on X feature-major.
# Predicted: the persistent CTA's later tiles start their wgmma within ~1k cycles of the previous
# tile's last issue (no 4-6k fill), so -20..-30% at 2:32 unless its epilogue costs more.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for tile in wg128x256s6r1 wg128x256s6r1p; do
  timeout 60 python scripts/probes/trace_stages.py 4096x4096x4096:128:2:32 $tile 2>&1 | grep -v Warn > "$OUT/t.txt"
  head -1 "$OUT/t.txt"; tail -4 "$OUT/t.txt"; cat "$OUT/t.txt" >> "$OUT/trace_persistent_h200_v146.txt"
done
rm -f "$OUT/t.txt"
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1p,wg128x256s6r1,wg128x256s6r1p --xt 1 \
  --shapes 4096x4096x4096:128:2:32,4096x11008x4096:128:2:32,11008x4096x4096:128:2:16,4096x4096x4096:128:2:8 2>&1 | grep -v Warn | tee "$OUT/ab_persistent_xt_h200_v146.txt"
echo "total ${SECONDS}s"
