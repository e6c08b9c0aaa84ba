#!/usr/bin/env bash
# v346b: gpu_v346.sh cut to what ~300 s of device time holds (this session's starts kept failing): the L2 -> SM probe,
# knob 0 / 3 on the gathered prefill tiles and on 2:4, then the kernel file's GPU tests with what is left.
#   OUT=$OUT bash scripts/sessions/gpu_v346b.sh      (~290 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 40 python scripts/l2_probe.py --threads 512,1024 2>&1 | grep -v Warn | tee "$OUT/l2_probe_${CARD}_v346.txt"
{ for rep in 1 2; do
    timeout 120 python scripts/tile_sweep.py 4096 4096 8192 128:2:8 VNM_EARLY_FRAGS=0 128,64,64,32,4 128,256,64,64,3 \
      VNM_EARLY_FRAGS=3 VNM_COPY_SLOTS=2 128,64,64,32,4 VNM_COPY_SLOTS=4 128,64,64,32,4 128,256,64,64,3 2>&1 | grep -v Warn
    timeout 60 python scripts/tile_sweep.py 4096 4096 8192 2:4 VNM_EARLY_FRAGS=0 128,64,64,32,4 VNM_EARLY_FRAGS=3 \
      128,64,64,32,4 2>&1 | grep -v Warn
  done; } | tee "$OUT/tile_sweep_${CARD}_v346.txt"
echo "sweep ${SECONDS}s"
gpu_tests $((285 - SECONDS)) tests/test_spmm_mma_sp.py -x
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v346.txt"
echo "total ${SECONDS}s"
