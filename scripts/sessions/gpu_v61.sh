#!/usr/bin/env bash
# v61: ncu of the T = 64 gate/up 2:4 kernel (staged, v59) beside cuBLAS's dense GEMM: memory
# workload (DRAM / L2 sectors, hit rates), speed of light, warp states.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 60 > /dev/null
timeout 200 ncu --clock-control none -k "regex:spmm_wgmma|gemm|xmma|cutlass|nvjet|sm90" --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section LaunchStats --section Occupancy --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed \
  python scripts/ncu_vs_dense.py 11008x4096x64:2:4 > "$OUT/ncu_v61.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|dram__|lts__|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Grid Size|Registers Per|Achieved Occ|Warp Cycles Per Issued|Stall Long" "$OUT/ncu_v61.txt" | head -70
echo "total ${SECONDS}s"
