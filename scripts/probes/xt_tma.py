"""v140: plain 2:4 on a feature-major X by TMA (TMA_X = 2) against the gather of the same X^T and
against row-major X by TMA; and Y^T from the split reduction against the row-major Y plus the copy
that v137-v139 made. Kernel time per call, CUDA graph of back-to-back calls over rotating sets
(ab_wgmma.time_us); err: the feature-major call against fp32.

  python scripts/probes/xt_tma.py 4096x4096x4096:2:4,4096x4096x16:128:2:8
"""
import sys

import torch

from vnmsparse.kernels import spmm_wgmma_sp as W

from ab_wgmma import case, time_us

gen = torch.Generator(device="cuda").manual_seed(0)
COLS = ("X", "X^T tma", "X^T gather", "X^T + Y^T", "Y+copy", "Y^T")
print(f"{'shape':28s} " + " ".join(f"{c:>10s}" for c in COLS) + f" {'err':>8s}   (us)")
for spec in sys.argv[1].split(","):
    r, k, t, cfg, sets = case(spec, gen)
    xts = [x.t().contiguous().t() for x, _, _ in sets]
    outs = [torch.empty(r, t, dtype=torch.bfloat16, device="cuda").t() for _ in sets]

    def call(i, fm, tma=None, yt=False, copy=False):
        j = i % len(sets)
        x, vw = (xts[j] if fm else sets[j][0]), sets[j][2]
        y = W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, tma_x=tma, out=outs[j] if yt else None)
        return outs[j].copy_(y) if copy else y

    x, w, _ = sets[0]
    ref = x.float() @ w.float().t()
    err = ((call(0, True, yt=True).float() - ref).norm() / ref.norm()).item()
    variants = [dict(fm=False), dict(fm=True), dict(fm=True, tma=False), dict(fm=True, yt=True),
                dict(fm=False, copy=True), dict(fm=False, yt=True)]
    cells = [time_us(lambda i: call(i, **kw), n=max(12, len(sets))) for kw in variants]
    print(f"{spec:28s} " + " ".join(f"{c:10.1f}" for c in cells) + f" {err:8.1e}")
