#!/usr/bin/env bash
# v324: the slab producer with its warps taking turns at steps (VNM_WG_SLAB_STEPS=1: warp it % 4 copies all of step
# it from its own slot, fences and refills that slot itself; no producer-wide bar.sync), to test v322's reading that
# a slab step costs its serial chain (slab wait, copy, fence, barrier), not the copy's instructions. (1) test_slab_x
# with both producers. (2) Same turns as v322 (V = 128, M = 8 / 16, T = 12-32, LLaMA-7B/13B, 8192^2): `auto` (the
# transpose), `slab0` (SLAB_X on, v200's producer), `slabS` (SLAB_X on, warps in turn). Predicted: slabS / slab0
# ~0.75 in geomean (gate/up, 32 steps a CTA: 18.9 -> ~14 us), slabS / `auto` ~0.95 (the feature-major time is the
# floor: gate/up ~11-12.6 us, 4096^2 128:2:16 T = 16 ~5.3-6.2). Route (SLAB_X on with it) if slabS / auto <= 0.97
# in geomean and no cell above 1.03; else recorded and removed.
#   OUT=$OUT bash scripts/sessions/gpu_v324.sh      (~90 s warm; refuted, the knob removed after it: dd76583 has it)
source "$(dirname "$0")/../gpu_lib.sh"
warm
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o "H[0-9]00" | tr A-Z a-z)
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "slab" \
  > "$OUT/tests_slab_${CARD}_v324.txt" 2>&1
tail -3 "$OUT/tests_slab_${CARD}_v324.txt"; echo "tests ${SECONDS}s"
if grep -q " passed" "$OUT/tests_slab_${CARD}_v324.txt" && ! grep -q "failed" "$OUT/tests_slab_${CARD}_v324.txt"; then
  timeout 200 python scripts/bench_ab.py --path "slabS:spmm_wgmma_sp.SLAB_X=True;spmm_wgmma_sp.DEFINES={'VNM_WG_SLAB_STEPS': 1}" \
    --path "slab0:spmm_wgmma_sp.SLAB_X=True" \
    -- bench spmm --out "$OUT" --no-plot --tokens 12,16,24,32 --patterns 128:2:8,128:2:16 \
    --shapes llama7b,llama13b,8192x8192 --paths slabS,auto,slab0 --tag ${CARD}_v324_slab > "$OUT/log_v324.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  python scripts/ab_cells.py "$OUT/spmm_${CARD}_v324_slab.csv" auto slabS slab0 --min 0.0 | tail -40
fi
echo "total ${SECONDS}s"
