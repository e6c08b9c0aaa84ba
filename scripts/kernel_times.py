"""Per-kernel GPU times of one vnmsparse.spmm call (torch.profiler, CUDA activity): what a call
launches (transpose, SpMM, split reduction) and how long each runs.

  python scripts/kernel_times.py 4096x4096x16:128:2:8,1024x4096x64:128:2:32
"""
import collections
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import vnmsparse as vs

from ab_wgmma import case

gen = torch.Generator(device="cuda").manual_seed(0)
for spec in sys.argv[1].split(","):
    r, k, t, cfg, sets = case(spec, gen)
    x, _, vw = sets[0]
    for _ in range(3):
        vs.spmm(x, vw)
    torch.cuda.synchronize()
    n = 20
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            vs.spmm(x, vw)
        torch.cuda.synchronize()
    per = collections.defaultdict(float)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            per[e.name[:70]] += e.device_time / n
    print(f"{spec}: " + "; ".join(f"{name} {us:.1f} us" for name, us in sorted(per.items(), key=lambda kv: -kv[1])))
