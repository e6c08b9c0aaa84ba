#!/usr/bin/env bash
# v297: VNM_DEC_EARLY on by default (v296), PDL for the decode kernel only on settled weights (jit.settle). Every GPU
# suite (the new test_decode_kernel_reads_weights_just_written among them), then memcheck of the representative
# launches (the decode kernel's loads moved ahead of its PDL wait).
#   OUT=$OUT bash scripts/sessions/gpu_v297.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 330 200
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v297.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v297.txt"
echo "total ${SECONDS}s"
