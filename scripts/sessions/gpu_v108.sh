#!/usr/bin/env bash
# v108: where the prefill tiles' idle tensor cycles sit (v106: tensor pipe 55% on 2:4, no unit
# saturated). ncu's per-SASS-instruction stall samples (source page, SASS) of plain 2:4's 128 x 256
# tile and the gathered 128:2:8 one at 4096^2 x 8192, as CSV; addresses map onto a local
# cuobjdump of the same NVRTC (13.0.88). Predicted: consumer warps at the full-barrier wait and
# at wgmma.wait_group (the producer late), not at the wgmma issue.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
for case in 4096x4096x8192:2:4 4096x4096x8192:128:2:8; do
  tag=${case//:/_}
  timeout 150 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 2 --launch-count 1 --section SourceCounters \
    --section WarpStateStats -f -o /tmp/prof_$tag python scripts/probes/gathered_call.py $case 1 > /dev/null 2>&1
  ncu --import /tmp/prof_$tag.ncu-rep --page source --print-source sass --csv > "$OUT/sass_stalls_${tag}_v108.csv" 2>&1
  echo "$case: $(wc -l < "$OUT/sass_stalls_${tag}_v108.csv") lines"; head -c 600 "$OUT/sass_stalls_${tag}_v108.csv"; echo
done
echo "total ${SECONDS}s"
