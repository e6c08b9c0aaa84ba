#!/usr/bin/env bash
# v77: the weight stream alone (scripts/stream_probe.py): DRAM rate of bulk-copy rings by CTA count,
# chunk size, own streams vs interleaved chunks, and cuBLAS's 2-D box pattern. v74-v76 found every
# change to the staged tile's copies slower; this asks what rate each pattern can reach at all.
source "$(dirname "$0")/../gpu_lib.sh"
timeout 300 python scripts/stream_probe.py --sweep 2>&1 | grep -v Warn | tee "$OUT/stream_probe_v77.txt"
echo "total ${SECONDS}s"
