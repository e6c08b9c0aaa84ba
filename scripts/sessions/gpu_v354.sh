#!/usr/bin/env bash
# v354: the cp.async mma.sp kernel's copies trimmed (B destinations by BDest, sources by one mul.wide, column words by
# shuffle where a warp's rows share a group, no union shift on 128-row tiles, XROW's whole token tiles one IMAD.WIDE
# a copy) and __launch_bounds__ at the planned CTAs an SM: no spill in any mma.sp variant (main: 12 a dtype). Loops,
# instructions a stage, main -> branch: 128 x 128 gathered 276 -> 246, X^T 2:4 258 -> 214, XROW 239 -> ~198, 64 x 128
# 225 -> 191, 128 x 64 182 -> 167, decode 64 x 64 172 -> 138, ws producer 147 -> 133. Main's kernel against the
# branch's, twice each (the card's +-7% drift), then the kernel file's GPU tests and memcheck of the cp.async launches.
# Predicted: 128 x 128 128:2:8 -5..-8%, 2:4 (X^T and X rows) -8..-12%, 64:2:8 -6..-10%. The branch's v355 multicast
# tiles (the tile spec's last 1; main's tree has none: its lines fail) in the same sweep, and in the tests and memcheck:
# 128:2:8 -8..-14% against the branch's plain 128 x 128. (v355 lost 23-35% and was reverted: its tile specs, ",0,0,1",
# no longer parse.)
#   (from main: git archive the branch into build/tr, carry it)  cd build/tr && OUT=$OUT bash scripts/sessions/gpu_v354.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
# both trees' variants compiled at once (the sweep and the tests then find them cached)
(PYTHONPATH=$PWD/../../src warm 200 | sed "s/^/[main] /") & warm 200; wait; echo "warm ${SECONDS}s"
sweep() { timeout 60 python scripts/tile_sweep.py "$@" 2>&1 | grep -v Warn; }
main() {  # (main has no multicast tiles)
  local a args=(); for a in "$@"; do [[ $a == *,0,0,1* ]] || args+=("$a"); done
  PYTHONPATH=$PWD/../../src sweep "${args[@]}" | sed "s/^/[main] /"; }
both() { main "$@"; sweep "$@"; main "$@"; sweep "$@"; }
{ both 4096 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,3,0,0,1 128,64,64,32,4
  both 4096 4096 8192 2:4 128,128,64,64,3 128,128,64,64,3/x 128,128,64,64,3,0,0,1/x
  both 4096 4096 8192 64:2:8 64,128,32,64,3 64,128,32,64,3,0,0,1
  both 4096 4096 8192 128:2:16 128,128,64,64,3 128,128,64,64,3,0,0,1
  both 4096 4096 64 64:2:8 64,64,16,64,3; } 2>&1 | tee "$OUT/tile_sweep_${CARD}_v354.txt" | grep -E "tile|dense"
echo "sweep ${SECONDS}s"
WARM=0 gpu_tests $((${TESTS_END:-450} - SECONDS)) tests/test_spmm_mma_sp.py -k "multicast or every_tile or row_major_x_on_every or test_patterns or split_k or warp_specialised"
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v354.txt"
SANITIZE_ARGS=--cp-async-only sanitize $((${END:-585} - SECONDS)); mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v354.txt"
echo "total ${SECONDS}s"
