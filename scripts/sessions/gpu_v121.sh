#!/usr/bin/env bash
# v121: the narrow route's T = 1-2 threshold (NARROW_DECODE_BYTE_TOKENS, compact bytes x T) at 40 MB
# (v115's guess) against 24 MB, on the weights between: LLaMA-13B gate/up / down 2:8 (35 MB), 70B
# q/o 2:8 (34 MB), 7B gate/up / down / fused q/k/v 2:8 (23-25 MB) at T = 1, and 2:16 ones (11-17 MB)
# at T = 2. Predicted: 24 MB wins at 30-35 MB (v115: 13B 2:8 T = 2 -7%), even to +5% at 22-25 MB.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for d in 13824x5120 5120x13824 8192x8192 11008x4096 4096x11008 12288x4096; do S="$S,${d}x1:128:2:8,${d}x1:64:2:8,${d}x2:128:2:16"; done
timeout 150 python scripts/ab_wgmma.py NARROW_DECODE_BYTE_TOKENS=41943040,25165824,41943040,25165824 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v121.txt"
echo "total ${SECONDS}s"
