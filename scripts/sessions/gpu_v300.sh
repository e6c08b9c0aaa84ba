#!/usr/bin/env bash
# v300: VNM_DEC_X_PREFETCH=1 (decode kernel macro): the X slice also asked of L2 before the PDL wait (safe: L2 keeps
# no stale copy), so after the wait it comes from L2, not HBM (the bench rotates x sets: cold, as the protocol says).
# Prediction: T = 1-8 -0.2..-0.6 us on every decode tile (v287: the slice landed ~2 us after the wait), most at T = 8;
# a model whose previous kernel leaves X in L2 gains nothing from it.
#   OUT=$OUT bash scripts/sessions/gpu_v300.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python scripts/ab_decode.py VNM_DECODE=1,1+VNM_DEC_X_PREFETCH=1,1,1+VNM_DEC_X_PREFETCH=1 --shapes \
4096x4096x1:64:2:8,4096x4096x8:64:2:8,4096x4096x1:64:2:16,1024x4096x1:64:2:8,11008x4096x1:64:2:8,4096x11008x8:64:2:8,\
4096x4096x1:128:2:8,4096x4096x8:128:2:8,11008x4096x4:128:2:8,4096x4096x1:128:2:32,4096x4096x1:128:2:128,4096x4096x8:2:4 \
  > "$OUT/ab_xpf_${CARD}_v300.txt" 2>&1
echo "ab: exit $? ${SECONDS}s"; cat "$OUT/ab_xpf_${CARD}_v300.txt"
timeout 250 python scripts/bench_ab.py --path "xpf:spmm_mma_sp.DEFINES={'VNM_DEC_X_PREFETCH': 1}" -- bench spmm --out "$OUT" \
  --no-plot --quick --tokens 1,4,8 --paths wgmma_sp,auto,xpf --tag ${CARD}_v300_xpf > /dev/null 2>&1
echo "bench: exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v300_xpf.csv" wgmma_sp,auto,xpf | grep -v "^skip"
echo "total ${SECONDS}s"
