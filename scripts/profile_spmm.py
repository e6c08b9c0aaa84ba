"""One SpMM configuration, launched a few times: the target for ncu.

ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    -k regex:spmm_mma_sp -c 1 python scripts/profile_spmm.py 4096 4096 8192 64:2:8
Arguments after the path set module switches first, as bench_ab.py's --path does:
    python scripts/profile_spmm.py 10240 8192 6 64:2:16 auto "spmm_wgmma_sp.DECODE_TWO_BLOCKS_OVER_NARROW=(128, 9961472, 42991616)"
"""
import os
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_paths

r, k, t = (int(a) for a in sys.argv[1:4])
cfg = vs.VNMConfig.parse(sys.argv[4] if len(sys.argv) > 4 else "64:2:8")
path = sys.argv[5] if len(sys.argv) > 5 else "mma_sp"
spmm = vs.spmm if path == "auto" else spmm_paths("cuda")[path]  # (auto: what vnmsparse.spmm runs)
sys.path.insert(0, os.path.dirname(__file__))
from bench_ab import parse  # noqa: E402

for item in sys.argv[6:]:
    for mod, attr, value in parse(f"set:{item}")[1]:
        setattr(mod, attr, value)
gen = torch.Generator(device="cuda").manual_seed(0)
mask = vs.random_vnm_mask((r, k), cfg, generator=gen)
w = (torch.randn(r, k, device="cuda", generator=gen) * mask).bfloat16()
vw = vs.pack(w, cfg)
x = torch.randn(t, k, device="cuda", generator=gen).bfloat16()
for _ in range(3):
    y = spmm(x, vw)
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(10):
    spmm(x, vw)
end.record()
torch.cuda.synchronize()
print(f"{r}x{k} T={t} {cfg} {path}: {start.elapsed_time(end) / 10 * 1e3:.1f} us per call (transpose included)")
