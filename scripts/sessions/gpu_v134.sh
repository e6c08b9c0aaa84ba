#!/usr/bin/env bash
# v134: the mid-T cells that moved +7..+20% from grid v104 to v133 on gathered patterns, which v132's
# route does not touch (BERT FFN2 T = 1024 64:2:16, q/k/v/o T = 256 64:2:16, gate/up 64:2:8 T = 128-512):
# WIDE_SPLITS off / on in turns, to tell the route from the run.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S="1024x4096x1024:64:2:16,4096x4096x256:64:2:16,11008x4096x128:64:2:8,11008x4096x256:64:2:8,11008x4096x512:64:2:8,1024x4096x512:64:2:16,4096x11008x256:64:2:16"
timeout 120 python scripts/ab_wgmma.py WIDE_SPLITS=0,1,0,1 --path auto --shapes "$S" 2>&1 | grep -v Warn | tee "$OUT/ab_v134.txt"
echo "total ${SECONDS}s"
