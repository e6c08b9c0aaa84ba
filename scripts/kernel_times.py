"""Per-kernel GPU times of one vnmsparse.spmm call (torch.profiler, CUDA activity): what a call
launches (transpose, SpMM, split reduction) and how long each runs. --splits runs the wgmma.sp
path with each K split count in turn (0: its own choice) instead of vnmsparse.spmm.

  python scripts/kernel_times.py 4096x4096x16:128:2:8,1024x4096x64:128:2:32
  python scripts/kernel_times.py 11008x4096x64:2:4 --splits 1,2,3
  python scripts/kernel_times.py 4096x4096x4096:2:4 --path mma_sp
"""
import argparse
import collections

import torch
from torch.profiler import ProfilerActivity, profile

import vnmsparse as vs
from vnmsparse.kernels import spmm_paths
from vnmsparse.kernels import spmm_wgmma_sp as W

from ab_wgmma import case

ap = argparse.ArgumentParser()
ap.add_argument("shapes", help="RxKxT:V:2:M, comma-separated")
ap.add_argument("--splits", default=None, help="K splits of the wgmma.sp path, comma-separated")
ap.add_argument("--path", default=None, help="a path of vnmsparse.kernels.spmm_paths() instead of vnmsparse.spmm")
args = ap.parse_args()
gen = torch.Generator(device="cuda").manual_seed(0)
fn = vs.spmm if args.path is None else spmm_paths("cuda")[args.path]
for spec in args.shapes.split(","):
    r, k, t, cfg, sets = case(spec, gen)
    x, _, vw = sets[0]
    for splits in args.splits.split(",") if args.splits else [None]:
        call = (lambda: fn(x, vw)) if splits is None else (
            lambda: W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, splits=int(splits) or None))
        for _ in range(3):
            call()
        torch.cuda.synchronize()
        n = 20
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(n):
                call()
            torch.cuda.synchronize()
        per = collections.defaultdict(float)
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                per[e.name[:70]] += e.device_time / n
        print(f"{spec}{'' if splits is None else f' splits={splits}'}: "
              + "; ".join(f"{name} {us:.1f} us" for name, us in sorted(per.items(), key=lambda kv: -kv[1])))
