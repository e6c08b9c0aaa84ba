#!/usr/bin/env bash
# v251: the README's grid on the session's code (the decode kernel of v245: 2-step copies in CTAs of 8+ steps;
# host rules as 20fc34b's). Prediction: as grid v229 but T <= 8 64:2:8 cells of 8+ step CTAs 5-12% faster.
#   OUT=$OUT bash scripts/sessions/gpu_v251.sh      (~300 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
quick_grid 380 h200_v251; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
