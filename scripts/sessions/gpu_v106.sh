#!/usr/bin/env bash
# v106: what bounds prefill at 2:8 and 2:4 (4096^2 x 8192): ncu's memory tables of the gathered
# 128:2:8 tile and plain 2:4's tile by TMA side by side: shared-memory wavefronts and pipe
# utilisation, L1 / L2 throughput, issue. Counted (NOTES v106): a k32 wgmma.sp reads its whole B
# tile from shared memory per warpgroup (1/32 B per dense-equivalent MAC, ~96 B/clk per SM at the
# sparse peak) and the stage fill adds 2/BM B per MAC (24-48 B/clk): past ~128 B/clk, so the
# prediction is shared memory near its peak in both, and the gathered producer's cp.async writes
# (LSU wavefronts) on top of it.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section WarpStateStats"
for case in 4096x4096x8192:128:2:8 4096x4096x8192:2:4; do
  timeout 150 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 2 --launch-count 1 $sections \
    python scripts/probes/gathered_call.py $case 1 > "$OUT/ncu_prefill_${case//:/_}_v106.txt" 2>&1
done
for f in "$OUT"/ncu_prefill_*_v106.txt; do echo "== $f"; grep -E "spmm_wgmma_sp<|Duration|DRAM Through|L1/TEX Cache Through|L2 Cache Through|Compute \(SM\)|Shared Memory  |Shared.*%|Issue Slots|Pipe" "$f" | head -24; done
echo "total ${SECONDS}s"
