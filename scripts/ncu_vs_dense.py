"""One vnmsparse.spmm call beside the dense cuBLAS GEMM of the same shape (F.linear): the pair for
ncu to compare how each streams its weights at small T (v60's next: what holds our T <= 64 kernels
at ~2.3 TB/s where cuBLAS reaches 3.3-3.5 on the same shapes).

  ncu --clock-control none -k regex:"spmm_wgmma|gemm|xmma" --section MemoryWorkloadAnalysis \\
      python scripts/ncu_vs_dense.py 11008x4096x64:2:4
"""
import sys

import torch
import torch.nn.functional as F

import vnmsparse as vs

from ab_wgmma import case

gen = torch.Generator(device="cuda").manual_seed(0)
r, k, t, cfg, sets = case(sys.argv[1], gen)
x, w, vw = sets[0]
for _ in range(2):  # the first compiles
    vs.spmm(x, vw)
    F.linear(x, w)
torch.cuda.synchronize()
