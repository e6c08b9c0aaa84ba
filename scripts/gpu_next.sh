#!/usr/bin/env bash
# The first device call of the next session (NOTES.md, "Next GPU session"): main's full GPU test
# suite and memcheck / synccheck (v17's op and nn tests ran only merged with decode-next), then
# edit this file to the session's experiment. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
VNM_SANITIZERS=${VNM_SANITIZERS:-memcheck synccheck} bash "$(dirname "$0")/gpu_check.sh"
