#!/usr/bin/env bash
# v334 (prepared, not run): the SM-to-SM copy's energy a byte (NOTES Next B). scripts/probes/gather_energy.py modes 0,
# 3, 4: the kernel's 16-byte cp.async gather on every SM; pairs of CTAs in clusters each gathering half of a stage and
# copying it into the peer's shared memory by one bulk copy (mode 3); the same without the copies (mode 4). Predicted:
# mode 3 lands twice mode 4's bytes a clock at most; the copy to the peer costs well under the ~41-44 pJ of an L2
# byte by cp.async (v326) if DSMEM traffic stays inside the GPC (as TMA multicast's ~11 pJ a landed byte suggests,
# v312): then a V = 256 pair of 128 x 256 tiles sharing one gathered B would save up to ~(43 - copy) / 2 pJ a landed
# byte, ~15-20 mJ of 128:2:8's 134 at 4096^2 x 8192; at >= ~35 pJ it cannot pay and the idea is dropped.
#   OUT=$OUT bash scripts/sessions/gpu_v334.sh      (~40 s)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 120 python scripts/probes/gather_energy.py --modes 0,3,4 2>&1 | tee "$OUT/dsmem_energy_${CARD}_v334.txt"
echo "total ${SECONDS}s"
