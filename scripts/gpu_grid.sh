#!/usr/bin/env bash
# The GPU suites of the wgmma.sp kernel, the op and the nn module (or the tests matching $TESTS),
# memcheck (every tile kind included), then the quick grid for the README (grids v21, v24c).
# Usage: [TAG=h200_v24c] [TESTS="every_tile or persistent"] OUT=$OUT bash scripts/gpu_grid.sh
source "$(dirname "$0")/gpu_lib.sh"
gpu_tests 250 ${TESTS:+-k "$TESTS"} tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_nn.py
sanitize 90
quick_grid 230 "${TAG:-h200_grid}"
