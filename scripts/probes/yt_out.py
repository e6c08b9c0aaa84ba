"""The Y^T epilogue (a feature-major `out`, v137) against the usual row-major one: kernel time of the
same call writing Y [T, R] or Y^T [R, T], and what the next gathered call saves when it reads that
Y^T as its X (no transpose). CUDA graph of back-to-back calls over rotating sets (ab_wgmma.time_us).

  python scripts/probes/yt_out.py 4096x4096x4096:128:2:32,11008x4096x4096:128:2:8
"""
import sys

import torch

from vnmsparse.kernels import spmm_wgmma_sp as W

from ab_wgmma import case, time_us

gen = torch.Generator(device="cuda").manual_seed(0)
print(f"{'shape':28s} {'Y':>8s} {'Y^T':>8s} {'err Y^T':>9s}   (us)")
for spec in sys.argv[1].split(","):
    r, k, t, cfg, sets = case(spec, gen)
    outs = [torch.empty(r, t, dtype=torch.bfloat16, device="cuda").t() for _ in sets]
    call = lambda i, yt: W.spmm_sm90a(sets[i % len(sets)][0], *W.layout_of(sets[i % len(sets)][2]), None, r, k, cfg.v,
                                      cfg.m, out=outs[i % len(sets)] if yt else None)
    x, w, _ = sets[0]
    ref = x.float() @ w.float().t()
    err = ((call(0, True).float() - ref).norm() / ref.norm()).item()
    cells = [time_us(lambda i: call(i, yt), n=max(12, len(sets))) for yt in (False, True)]
    print(f"{spec:28s} " + " ".join(f"{c:8.1f}" for c in cells) + f" {err:9.1e}")
