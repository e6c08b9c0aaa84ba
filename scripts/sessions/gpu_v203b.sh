#!/usr/bin/env bash
# (Runs on branch `stream-k`, where the SK code lives.) v203b: why stream-K lost (v203: +1..+25%). Hypothesis: its k-ranges break the A sharing between the
# token tiles of one row tile that data-parallel waves get (both CTAs load the same A at the same time),
# so every A load waits on DRAM. Predicted: with one token tile (70B gate/up T <= 256) SK wins (~1.7
# against 2 waves); numbering token tile fastest (RASTER_ROWS = 1) helps SK and the persistent tile.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=28672x8192x256:2:4,28672x8192x200:2:4,11008x4096x512:2:4,11008x4096x1000:2:4,11008x4096x2048:2:4,4096x4096x8192:2:4
timeout 200 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1p,wg128x256s6r1pk --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_stream_k_h200_v203b.txt"
S=11008x4096x512:2:4,11008x4096x1000:2:4,11008x4096x2048:2:4
for t in wg128x256s6r1pk wg128x256s6r1p; do
timeout 100 python scripts/ab_wgmma.py RASTER_ROWS=0,1,0,1 --define TILE=$t --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_stream_k_h200_v203b.txt"
done
echo "total ${SECONDS}s"
