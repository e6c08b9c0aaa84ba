"""One 2:4 SpMM by cuSPARSELt (each of its algorithms) and by the wgmma.sp kernel, for ncu side by side.

  ncu --clock-control none --section SpeedOfLight --section LaunchStats python scripts/ncu_vs_cslt.py [RxKxT]
"""
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_wgmma_sp as W

r, k, t = (int(d) for d in (sys.argv[1] if len(sys.argv) > 1 else "4096x4096x8192").split("x"))
cfg = vs.VNMConfig.parse("2:4")
w = (torch.randn(r, k, device="cuda") * vs.random_vnm_mask((r, k), cfg).cuda()).bfloat16()
x = torch.randn(t, k, device="cuda").bfloat16()
compressed = torch._cslt_compress(w)
layout = W.layout_of(vs.pack(w, cfg))
for alg in range(4):
    try:
        torch._cslt_sparse_mm(compressed, x.t(), alg_id=alg)
    except RuntimeError as e:  # fewer algorithms than 4 for this shape
        print(f"alg {alg}: {e}")
W.spmm_sm90a(x, *layout, None, r, k, cfg.v, cfg.m)
torch.cuda.synchronize()
