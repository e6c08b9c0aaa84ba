"""Gathered calls on weights whose transpose writes only the rows they read (v206), for
compute-sanitizer --tool initcheck: an X^T row read that the transpose did not write is reported.

  compute-sanitizer --tool initcheck python scripts/probes/read_rows_initcheck.py
"""
import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

gen = torch.Generator().manual_seed(0)
for r, k, t, pattern in ((256, 4096, 300, "128:2:128"), (200, 1003, 77, "64:2:100"), (1024, 4096, 64, "128:2:64")):
    cfg = vs.VNMConfig.parse(pattern)
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16().cuda()
    vw = vs.pack(w, cfg)
    x = torch.randn(t, k, generator=gen).bfloat16().cuda()
    ref = x.float() @ w.float().t()
    assert K.read_rows(K.layout_of(vw)[2]) is not None
    for name, y in (("mma_sp", K.spmm_sm80(x, *K.layout_of(vw), None, r, k, cfg.v, cfg.m)),
                    ("wgmma_sp", W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m))):
        err = ((y.float() - ref).norm() / ref.norm()).item()
        print(f"{pattern} R={r} K={k} T={t} {name}: rel err {err:.2e}")
        assert err < 1e-2
torch.cuda.synchronize()
print("done")
