#!/usr/bin/env bash
# v234 checks: the refuted Y-by-TMA-store epilogue (EPI_TMA) and row bands (RASTER_ROWS) are gone from the
# wgmma.sp kernel (its tile numbering and epilogue changed): every GPU suite, memcheck of the persistent and
# cluster tiles.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 420
SANITIZE_ARGS="--tiles p,c2" sanitize 120
echo "total ${SECONDS}s"
