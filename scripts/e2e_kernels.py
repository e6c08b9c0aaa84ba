"""Per-kernel GPU time of one step of `vnmsparse bench e2e`'s LLaMA stack (torch.profiler, eager,
after a warm-up): dense, the pattern's VNMLinears, and the same with sibling layers fused
(VNMLinear.cat), side by side, so that a difference between two end-to-end times can be put on the
kernels that make it.

  python scripts/e2e_kernels.py --workload llama-prefill --pattern 128:2:32
  python scripts/e2e_kernels.py --workload llama-decode --batch 1 --pattern 64:2:8 --top 25
"""
import argparse
import collections
import copy
import types

import torch
from torch.profiler import ProfilerActivity, profile

import vnmsparse as vs
from vnmsparse import bench_e2e as E
from vnmsparse.nn import sparsify_

ap = argparse.ArgumentParser()
ap.add_argument("--workload", default="llama-prefill", choices=("llama-prefill", "llama-decode"))
ap.add_argument("--batch", type=int, default=1)
ap.add_argument("--pattern", default="128:2:32")
ap.add_argument("--layers", type=int, default=4)
ap.add_argument("--steps", type=int, default=10, help="profiled steps (times are per step)")
ap.add_argument("--top", type=int, default=20)
args = ap.parse_args()

device = torch.device("cuda")
spec = E.model_specs(types.SimpleNamespace(tiny=False, workloads=[args.workload], llama_layers=args.layers))[0]
work = next(w for w in spec.workloads if w.batch == args.batch)
cfg = vs.VNMConfig.parse(args.pattern)
torch.manual_seed(0)
with torch.device(device):
    dense = spec.build().to(torch.bfloat16).eval()


def variant(name):
    if name == "dense":
        return dense
    model = copy.deepcopy(dense)
    E.apply_random_masks(model, spec, cfg, 1)
    sparsify_(model, cfg, spec.linear_filter)
    if name == "fused":
        E.fuse_siblings_(model)
    return model


def kernel_times(model) -> dict:
    """{kernel name: us per step}, and "(all kernels)"."""
    call, setup, teardown = E.make_runner(model, spec, work, device, 0)
    per = collections.defaultdict(float)
    try:
        with torch.no_grad():
            setup()
            for _ in range(3):
                call()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.steps):
                    call()
                torch.cuda.synchronize()
    finally:
        teardown()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            per[e.name[:60]] += e.device_time / args.steps
            per["(all kernels)"] += e.device_time / args.steps
    return per


names = ("dense", "apart", "fused")
times = {}
for name in names:
    model = variant(name)
    times[name] = kernel_times(model)
    if model is not dense:
        del model
    torch.cuda.empty_cache()

print(f"{work.name} batch {work.batch} x {work.tokens}, {args.pattern}, {args.layers} layers: us per step (eager kernels)")
kernels = sorted(set().union(*times.values()), key=lambda n: -max(t.get(n, 0.0) for t in times.values()))
print(f"{'kernel':60s} " + " ".join(f"{n:>9s}" for n in names) + "  fused-apart")
for n in kernels[:args.top + 1]:
    cells = [times[v].get(n, 0.0) for v in names]
    print(f"{n:60s} " + " ".join(f"{c:9.1f}" for c in cells) + f"  {cells[2] - cells[1]:+9.1f}")
