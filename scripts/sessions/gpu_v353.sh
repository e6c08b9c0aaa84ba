#!/usr/bin/env bash
# v353 (after gpu_v352.sh): what bounds v352's 128 x 128 / 64 x 64 tile (4096^2 x 8192 128:2:8, ~272 us on the H100:
# ~52% of the mma.sp instruction's rate; it moves ~1.6 GB L2 -> SM, B's gather 1.07 GB + A 0.54 GB, ~6 TB/s).
# (1) l2_probe.py: the L2 -> SM read ceiling (ld.global.cg and 16-byte cp.async, every SM, no math). (2) ncu of the
# tile. Predicted: L2 throughput 70-85% of ncu's peak, tensor pipe ~50%; stalls long scoreboard (cp.async wait) and
# barrier; if L2 is > 85%, issue 3's 2:8 target at V = 128 needs fewer bytes (BN 256: A halves), not a faster loop.
#   OUT=$OUT bash scripts/sessions/gpu_v353.sh      (~200 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm > /dev/null
timeout 90 python scripts/l2_probe.py --threads 1024 --mb 16,32 2>&1 | grep -v Warn | tee "$OUT/l2_probe_${CARD}_v353.txt"
bash "$(dirname "$0")/../gpu_profile.sh" ncu_mma_sp_${CARD}_v353_128x128 spmm_mma_sp 4096 4096 8192 128:2:8 mma_sp 2>&1 | tail -12
grep -E "L2 Cache Throughput|lts__t_|Memory Throughput|DRAM Throughput|Achieved Occupancy|No Eligible|Stall (Wait|Long|Short|Barrier|Math)|Registers|pipe_tensor" \
  "$OUT"/ncu_*_v353_*.txt | head -24
echo "total ${SECONDS}s"
