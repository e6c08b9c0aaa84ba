#!/usr/bin/env bash
# v346c: gpu_v346b.sh cut to ~190 s (the session's last device time): the L2 -> SM probe, one sweep of knob 0 / 3 on
# the gathered prefill tiles and 2:4, then the cp.async kernel's GPU tests (every tile, patterns, splits, row-major X).
#   OUT=$OUT bash scripts/sessions/gpu_v346c.sh      (~190 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 30 python scripts/l2_probe.py --threads 1024 --mb 16,32 2>&1 | grep -v Warn | tee "$OUT/l2_probe_${CARD}_v346.txt"
{ timeout 90 python scripts/tile_sweep.py 4096 4096 8192 128:2:8 VNM_EARLY_FRAGS=0 128,64,64,32,4 128,256,64,64,3 \
    VNM_EARLY_FRAGS=3 128,64,64,32,4 128,256,64,64,3 VNM_EARLY_FRAGS=0 128,64,64,32,4 VNM_EARLY_FRAGS=3 128,64,64,32,4 2>&1 | grep -v Warn
  timeout 40 python scripts/tile_sweep.py 4096 4096 8192 2:4 VNM_EARLY_FRAGS=0 128,64,64,32,4 VNM_EARLY_FRAGS=3 \
    128,64,64,32,4 2>&1 | grep -v Warn; } | tee "$OUT/tile_sweep_${CARD}_v346.txt"
echo "sweep ${SECONDS}s"
gpu_tests $((195 - SECONDS)) tests/test_spmm_mma_sp.py -k "every_tile or row_major_x_on_every or test_patterns or split_k"
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v346.txt"
echo "total ${SECONDS}s"
