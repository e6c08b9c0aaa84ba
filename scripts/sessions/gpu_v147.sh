#!/usr/bin/env bash
# v147: v146 found the persistent 2:32 tile's consumers reaching the next tile ~10.7k cycles after
# the previous one's last wgmma issue (the one-tile form: ~6k after it to the wave's end). Trace marks
# inside the epilogue (VNM_WG_MARK_EPI: last group retired, next tile's A preloads, each pass's
# staging and stores). Predicted: the last group ~0.7k, staging ~1k a pass, stores ~0.5k a pass.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for spec in "4096x4096x4096:128:2:32 wg128x256s6r1p" "4096x4096x4096:128:2:32 wg128x256s6r1" "4096x4096x4096:2:4 auto"; do
  timeout 60 python scripts/probes/trace_stages.py $spec 2>&1 | grep -v Warn > "$OUT/t.txt"
  head -1 "$OUT/t.txt"; grep -E "median W|epilogue" "$OUT/t.txt"; cat "$OUT/t.txt" >> "$OUT/trace_epilogue_h200_v147.txt"
done
rm -f "$OUT/t.txt"; echo "total ${SECONDS}s"
