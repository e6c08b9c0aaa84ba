"""Where a call's time goes inside a CUDA graph of back-to-back vnmsparse.spmm calls (as the
benchmark times them): each kernel's duration and the gap from the previous kernel's end to its
start (negative: it overlapped, e.g. under programmatic dependent launch), from one profiled replay. A second
argument names a bench path (vnmsparse.kernels.spmm_paths) to run instead of vnmsparse.spmm.

  python scripts/graph_gaps.py 4096x4096x64:2:4,11008x4096x16:2:4 [mma_sp]
"""
import collections
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import vnmsparse as vs
from vnmsparse.kernels import spmm_paths

from ab_wgmma import case

gen = torch.Generator(device="cuda").manual_seed(0)
call = spmm_paths(torch.device("cuda"))[sys.argv[2]] if len(sys.argv) > 2 else vs.spmm
for spec in sys.argv[1].split(","):
    r, k, t, cfg, sets = case(spec, gen)
    calls = 12
    for i in range(3):
        call(sets[i % 3][0], sets[i % 3][2])
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            call(sets[i % 3][0], sets[i % 3][2])
    graph.replay()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        graph.replay()
        torch.cuda.synchronize()
    kernels = sorted(((e.time_range.start, e.time_range.end, e.name) for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA and e.name != "cudaGraphLaunch"),
                     key=lambda k: k[0])
    if not kernels:
        print(f"{spec}: no kernels traced")
        continue
    stats = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for prev, cur in zip([None] + kernels[:-1], kernels):
        s = stats[cur[2][:60]]
        s[0] += 1
        s[1] += cur[1] - cur[0]
        s[2] += (cur[0] - prev[1]) if prev else 0.0
    span = kernels[-1][1] - kernels[0][0]
    print(f"{spec}: {span / calls:.1f} us per call over {calls} calls ({len(kernels)} kernels)")
    for name, (n, dur, gap) in stats.items():
        print(f"   {name:60s} x{n // calls:<2d} {dur / n:6.2f} us, gap before {gap / n:+6.2f} us")
