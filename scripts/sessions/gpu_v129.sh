#!/usr/bin/env bash
# v129: bigger bulk copies of the fragment image on the narrow gathered tiles (copy_steps 5 / 8 / 10 in
# the 16- and 32-token rings, 20-40 KB per 64-row block and copy, against 16 KB): the stream probe (v77)
# streamed 1 TB/s with 4 KB copies and 3.6 with 16 KB at 86 CTAs, and the 16-token tile streams ~3.1 TB/s
# while it runs (v123). Predicted: 7B gate/up 128:2:8 T = 16 10.8 -> ~10.0 us, 70B gate/up -3..-5%.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for d in 11008x4096 4096x11008 28672x8192 13824x5120 8192x28672 4096x4096; do S="$S,${d}x16:128:2:8,${d}x16:128:2:16"; done
S="$S,28672x8192x4:128:2:8,8192x28672x2:128:2:8"
timeout 200 python scripts/ab_wgmma.py TILE=wg128x16s20t1g4,wg128x16s20t1g5,wg128x16s20t1g10,wg128x16s16t1g8,wg128x16s20t1g4 --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v129a.txt"
S=""; for d in 11008x4096 4096x11008 28672x8192 13824x5120; do S="$S,${d}x32:128:2:8"; done
for d in 11008x4096 4096x11008 28672x8192; do S="$S,${d}x64:128:2:8"; done
timeout 150 python scripts/ab_wgmma.py TILE=wg128x32s16t1g4,wg128x32s16t1g8,wg128x64s12t1g4,wg128x64s12t1g6 --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v129b.txt"
echo "total ${SECONDS}s"
