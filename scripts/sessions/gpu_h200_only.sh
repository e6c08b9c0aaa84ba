#!/usr/bin/env bash
# Run a session script only if the lent card is an H200 (issue 3's checks are the H200's): any other card exits at once,
# so that a try for an H200 that lands elsewhere costs only the machine's start.
#   OUT=$OUT [PART=1] bash scripts/sessions/gpu_h200_only.sh gpu_v380.sh
nvidia-smi --query-gpu=name --format=csv,noheader
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: nothing run"; exit 0; }
exec bash "$(dirname "$0")/$1"
