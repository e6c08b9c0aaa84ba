#!/usr/bin/env bash
# v153: (1) a token-contiguous x at T % 8 != 0 reaches the decode kernel through the PDL transpose
# kernel (grid v150 auto_xt T = 4: 128:2:8 BERT FFN2 8.3 us, q/k/v/o 10.3, gate/up 15.4, down 16.2
# against auto's 4.0 / 7.3 / 12.2 / 13.0). Predicted: within +0.5 us of auto. (2) ncu memory totals
# of the high-M prefill kernels (DRAM and L2 bytes and rates; v150-v152 left open whether the Y
# stores at ~12 B/clk per SM are the DRAM's write rate) beside a plain 512 MB fill (the write ceiling).
# (3) the tests the change touches.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
timeout 60 python scripts/ab_wgmma.py PATH=auto,auto --xt 1 --shapes 1024x4096x4:128:2:8,4096x4096x4:128:2:8,11008x4096x4:128:2:8,4096x11008x4:128:2:8,4096x4096x5:128:2:16,4096x4096x4:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_xt_small_t_h200_v153.txt"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
N="$OUT/ncu_prefill_memory_h200_v153.txt"
for spec in "11008 4096 8192 128:2:128" "4096 11008 4096 128:2:128" "4096 4096 4096 128:2:32" "4096 4096 8192 128:2:8" "4096 4096 8192 2:4"; do
  echo "== $spec" >> "$N"
  timeout 90 ncu --clock-control none -k regex:spmm_wgmma -s 2 -c 1 --metrics $M python scripts/profile_spmm.py $spec auto 2>&1 | grep -E "spmm_wgmma_sp<|gpu__|dram__|lts__|l1tex__|sm__" >> "$N"
done
echo "== fill 512 MB" >> "$N"
timeout 60 ncu --clock-control none -s 2 -c 1 --metrics $M python -c "
import torch
b = torch.empty(2**28, dtype=torch.bfloat16, device='cuda')
for _ in range(4): b.fill_(1.0)
torch.cuda.synchronize()" 2>&1 | grep -E "gpu__|dram__|lts__|l1tex__|sm__" >> "$N"
cat "$N"
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "strided_x_and_graph or feature_major_input or feature_major_out"
echo "total ${SECONDS}s"
