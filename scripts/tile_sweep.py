"""Time the cp.async mma.sp kernel over candidate tiles on one problem (transpose excluded).

python scripts/tile_sweep.py R K T PATTERN "bm,bn,wm,wn,stages" ... [NAME=INT "bm,bn,wm,wn,stages" ...]
NAME=INT sets a compile-time define of the kernel (spmm_mma_sp.DEFINES) for the tiles after it; "defaults" clears them
(so that each knob set is the same DEFINES, hence the same compiled variant, as `cache warm --define` makes). A tile ending in "/x"
takes X row-major (plain 2:4: the kernel reads X's rows, nothing transposed); one ending in ",pN" is the
warp-specialised kernel's with N producer warps, ",pNP" its persistent form.
"""
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K

r, k, t = (int(a) for a in sys.argv[1:4])
cfg = vs.VNMConfig.parse(sys.argv[4])
gen = torch.Generator(device="cuda").manual_seed(0)
w = (torch.randn(r, k, device="cuda", generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16()
vw = vs.pack(w, cfg)
x = torch.randn(t, k, device="cuda", generator=gen).bfloat16()
xt = x.t().contiguous().t()  # feature-major view: no transpose inside the timed calls
ref = x.float() @ w.float().t()
dense = lambda: torch.nn.functional.linear(x, w)


def bench(fn, n=20):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    times = []
    for _ in range(10):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / n * 1e3)
    return sorted(times)[len(times) // 2]


td = bench(dense)
print(f"{r}x{k} T={t} {cfg}: dense {td:.1f} us")
for spec in sys.argv[5:]:
    if spec == "defaults" or "=" in spec:
        if spec == "defaults":
            K.DEFINES.clear()
        else:
            name, value = spec.split("=", 1)
            K.DEFINES[name] = int(value)
        vw = vs.pack(w, cfg)  # (layouts built afresh: a knob may change what they hold)
        print(f"  {spec}")
        continue
    dims = spec.removesuffix("/x").split(",")
    last = dims.pop() if dims[-1].startswith("p") else "p0"
    tile = K.TileConfig(*(int(a) for a in dims), producers=int(last[1:].removesuffix("P")), persistent=last.endswith("P"))
    xin = x if spec.endswith("/x") else xt
    fn = lambda: K.spmm_sm80(xin, *K.layout_of(vw), None, r, k, cfg.v, cfg.m, tile=tile)
    y = fn()
    err = ((y.float() - ref).norm() / ref.norm()).item()
    tt = bench(fn)
    useful = 2 * t * r * k * cfg.density / tt / 1e6
    print(f"  tile {spec:18s} {tt:8.1f} us  {td / tt:5.2f}x dense  {useful:6.1f} useful TFLOP/s  err {err:.1e}")
