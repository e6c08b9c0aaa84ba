#!/usr/bin/env bash
# v229's grid (the README's table) after CLUSTER_2_4_TILE took 5 stages.
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 200 h200_v229
echo "total ${SECONDS}s"
