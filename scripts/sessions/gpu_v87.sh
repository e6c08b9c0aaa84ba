#!/usr/bin/env bash
# v87 (prepared, not run): ncu of the stream probe (86 CTAs, one 4 KB bulk copy a stage: ~1 TB/s in
# v77) beside the staged 2:4 tile at LLaMA gate/up T = 64 (~2.6 TB/s of weights with similar 4 KB
# copies): memory workload (L2 / DRAM sectors, TMA traffic), warp states of the producer and
# consumer, to see what a CTA's copies wait for in the probe and not in the kernel (NOTES v77).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats"
timeout 150 ncu --clock-control none -k regex:stream_probe -s 8 -c 1 $SECTIONS python scripts/stream_probe.py --one 0,86,1,4096,27 \
  > "$OUT/ncu_probe_v87.txt" 2>&1
timeout 150 ncu --clock-control none -k regex:spmm_wgmma -s 2 -c 1 $SECTIONS python scripts/ncu_vs_dense.py 11008x4096x64:2:4 \
  > "$OUT/ncu_staged_v87.txt" 2>&1
grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Warp Cycles Per Issued" "$OUT"/ncu_*_v87.txt | head -20
echo "total ${SECONDS}s"
