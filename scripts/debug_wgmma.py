"""Where a wgmma.sp result goes wrong: per-tile error map of one case against fp32 (debug aid).

python scripts/debug_wgmma.py R K T V:2:M dtype [bm bn stages]
"""
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_wgmma_sp as W

r, k, t = (int(a) for a in sys.argv[1:4])
cfg = vs.VNMConfig.parse(sys.argv[4])
dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[sys.argv[5]]
tile = W.WgTile(*(int(a) for a in sys.argv[6:9])) if len(sys.argv) > 8 else None
gen = torch.Generator().manual_seed(1)
w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).to(dtype).cuda()
vw = vs.pack(w, cfg)
x = torch.randn(t, k, generator=gen).to(dtype).cuda()
ref = x.float() @ w.float().t()
for trial in range(3):
    out = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
    y = W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, tile=tile, out=out).float()
    torch.cuda.synchronize()
    bad = ~((y - ref).abs() <= 2e-2 * ref.abs() + 5e-2 * ref.abs().mean())
    err = ((y - ref).norm() / ref.norm()).item()
    print(f"trial {trial}: tile {tile or W.choose_tile(t, r, cfg.v, 132, cfg.m)} rel err {err:.3e}, bad {int(bad.sum())} of {bad.numel()}, nan {int(y.isnan().sum())}")
    if bad.any():
        toks, rows = bad.nonzero(as_tuple=True)
        print("  bad tokens:", sorted(set(toks.tolist()))[:40], "... rows:", sorted(set(rows.tolist()))[:40])
