"""A few eager calls of the gathered wgmma.sp path (K splits as given, so never the decode kernel)
on one shape, for ncu: python scripts/probes/gathered_call.py 11008x4096x1:128:2:8 [splits]."""
import sys

import torch

from vnmsparse.kernels import spmm_wgmma_sp as W

sys.path.insert(0, "scripts")
from ab_wgmma import case  # noqa: E402

gen = torch.Generator(device="cuda").manual_seed(0)
r, k, t, cfg, sets = case(sys.argv[1], gen)
x, _, vw = sets[0]
splits = int(sys.argv[2]) if len(sys.argv) > 2 else 1
for _ in range(5):
    W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, splits=splits)
torch.cuda.synchronize()
