#!/usr/bin/env bash
# v49: the README's grid on main after v47 (the decode split epilogue), cuBLAS and cuSPARSELt in
# the same run. Usage: OUT=$OUT bash scripts/sessions/gpu_v49.sh
source "$(dirname "$0")/../gpu_lib.sh"
warm
quick_grid 230 h200_v49; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
