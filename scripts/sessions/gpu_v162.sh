#!/usr/bin/env bash
# v162: the cp.async kernels (spmm_mma_sp, its warp-specialised and bulk forms) wait on the previous
# kernel by griddepcontrol and are launched with PDL, so that the X^T transpose's tail and their
# launch overlap (and the split reduction's launch theirs); SM80_PDL=0 is the old launch. Predicted:
# T <= 64 -0.5..-1.5 us a call (4096^2 64:2:8 T = 64 14.2 -> ~13), prefill even. Then the mma.sp
# suites and memcheck under it, and the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=4096x4096x1:64:2:8,4096x4096x16:64:2:8,4096x4096x64:64:2:8,4096x4096x64:128:2:8,11008x4096x64:64:2:8,1024x4096x64:128:2:8,1024x4096x1:128:2:32,4096x4096x4096:128:2:8
timeout 100 python scripts/ab_wgmma.py SM80_PDL=0,1,0,1 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_pdl_h200_v162.txt"
timeout 60 python scripts/ab_wgmma.py PATH=dense --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_pdl_h200_v162.txt"
WARM=0 checks 200 150 tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v162 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern|mma.sp: decode" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
