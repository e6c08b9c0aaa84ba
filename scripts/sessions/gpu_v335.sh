#!/usr/bin/env bash
# v335: the prefill's energy bounds on the card lent (v312 and v326 ran on H100s only; the issue's card is the H200,
# same GH100 die and 700 W limit, HBM3e). (1) scripts/probes/gather_energy.py, every mode: pJ a gathered byte by
# cp.async / TMA / bulk copies (v326), and v334's SM-to-SM copy of half a stage to a cluster peer (modes 3 / 4).
# (2) v312's energy a call by parts, 4096^2 x 8192, sustained 3 s each: the kernel, without its gather
# (VNM_WG_SKIP_B=1), without its wgmma.sp (VNM_WG_SKIP_MMA=1), without both; X feature-major and row-major; cuBLAS beside
# (and cuSPARSELt at 2:4). Predicted (H100 v312 / v326): every full variant at the 700 W limit; 128:2:8@xt ~190 us of which
# the gather ~1/3 of the energy; cp.async ~41-44 pJ a byte, TMA >= ~28; the peer copy well under the L2 byte if it
# stays inside the GPC (else the V = 256 pair is dropped).
#   OUT=$OUT bash scripts/sessions/gpu_v335.sh      (~220 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
timeout 150 python scripts/probes/gather_energy.py 2>&1 | grep -v Warn | tee "$OUT/gather_energy_${CARD}_v335.txt"
echo "probe ${SECONDS}s"
warm
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
for s in 4096x4096x8192:128:2:8 4096x4096x8192:128:2:16 4096x4096x8192:2:4; do
  timeout 150 python scripts/probes/clock_under_load.py $s auto@xt auto@xt+VNM_WG_SKIP_B=1 auto@xt+VNM_WG_SKIP_MMA=1 \
    auto@xt+VNM_WG_SKIP_B=1+VNM_WG_SKIP_MMA=1 auto auto+VNM_WG_SKIP_B=1 dense $([ "${s#*:}" = 2:4 ] && echo cslt) 2>&1 | grep -v Warn
done | tee "$OUT/energy_parts_${CARD}_v335.txt"
echo "total ${SECONDS}s"
