#!/usr/bin/env bash
# v243: main with v240-v242 routed (DECODE_GROUP = 2 for decode CTAs of >= 8 steps; the narrow tiles at
# T = 1 from 22 MB of kept values): every GPU suite and memcheck (its decode cases at K = 8200 / 16400 run
# 2-step copies with a partial last group).
#   OUT=$OUT bash scripts/sessions/gpu_v243.sh      (~330 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 420 150
