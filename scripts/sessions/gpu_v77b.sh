#!/usr/bin/env bash
# v77b: what serialises a CTA's stages in the weight stream (v77: time per stage ~ one DRAM round
# trip whatever the ring depth; two copies in one stage overlap). Variants of scripts/stream_probe.py:
# a relaxed arrive.expect_tx (if the default .release waits for the thread's bulk copies in
# flight, predicted ~2x at 86 CTAs), stages issued by rotating lanes, an L2 prefetch ahead.
source "$(dirname "$0")/../gpu_lib.sh"
timeout 300 python scripts/stream_probe.py 2>&1 | grep -v Warn | tee "$OUT/stream_probe_v77b.txt"
echo "total ${SECONDS}s"
