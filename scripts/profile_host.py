"""Host cost of one sparse Linear call in eager mode (GPU): enqueue time per call of VNMLinear and
nn.Linear at a decode shape, then a cProfile of the sparse call's Python (top functions).

  python scripts/profile_host.py [R K T pattern]      (default 4096 4096 1 64:2:8)

At decode the GPU work of either call is a few microseconds, so a loop of calls runs at the
host's pace: time per call = host cost per call (the e2e eager decode is 0.48x dense, NOTES).
"""
import cProfile
import pstats
import sys
import time

import torch

import vnmsparse as vs

r, k, t = (int(a) for a in (sys.argv[1:4] if len(sys.argv) > 3 else (4096, 4096, 1)))
cfg = vs.VNMConfig.parse(sys.argv[4] if len(sys.argv) > 4 else "64:2:8")
gen = torch.Generator(device="cuda").manual_seed(0)
lin = torch.nn.Linear(k, r, dtype=torch.bfloat16, device="cuda")
with torch.no_grad():
    lin.weight.mul_(vs.random_vnm_mask((r, k), cfg, generator=gen).to(lin.weight.dtype))
sparse = vs.VNMLinear.from_linear(lin, cfg)
x = torch.randn(t, k, dtype=torch.bfloat16, device="cuda", generator=gen)


def per_call_us(fn, n=2000):
    for _ in range(20):
        fn(x)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn(x)
    host = time.perf_counter() - start
    torch.cuda.synchronize()
    return host / n * 1e6


with torch.no_grad():
    print(f"{r}x{k} T={t} {cfg}: host time per call, nn.Linear {per_call_us(lin):.1f} us, "
          f"VNMLinear {per_call_us(sparse):.1f} us")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(2000):
        sparse(x)
    profile.disable()
torch.cuda.synchronize()
pstats.Stats(profile).sort_stats("tottime").print_stats(25)
