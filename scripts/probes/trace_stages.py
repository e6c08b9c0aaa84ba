"""Stage clocks of one prefill CTA (tile (0, 0)) of the wgmma.sp kernel, built with VNM_WG_TRACE=1:
python scripts/probes/trace_stages.py 4096x4096x8192:2:4 [tile] [SWITCH=value ...] (host switches of
spmm_wgmma_sp, e.g. CLUSTER_WAVE_BY_DRIVER=0, or the kernel's VNM_* macros). Prints, per ring stage g, the
cycles from the CTA's start at which the producer held the slot (P), consumer thread 0 passed the
full barrier (F) and had issued the stage's wgmma group with the previous one retired (W), and the
medians of F - P (a stage's load time in the ring), the consumer's cadence W[g] - W[g - 1] and its
wait F[g] - W[g - 1] (time spent waiting for data after the previous issue)."""
import statistics
import sys

import torch

from vnmsparse.kernels import spmm_wgmma_sp as W

sys.path.insert(0, "scripts")
from ab_wgmma import case, parse_tile, set_switch  # noqa: E402

W.DEFINES = {**W.DEFINES, "VNM_WG_TRACE": "1"}
gen = torch.Generator(device="cuda").manual_seed(0)
r, k, t, cfg, sets = case(sys.argv[1], gen)
switches = [a for a in sys.argv[2:] if "=" in a]
for name, value in (a.split("=") for a in switches):
    if name.startswith("VNM_"):
        W.DEFINES = {**W.DEFINES, name: value}
    else:
        set_switch(W, name, value)
tile = next((parse_tile(a) for a in sys.argv[2:] if "=" not in a), None)
W.TRACE = torch.zeros(4, 256, dtype=torch.int64, device="cuda")
for i in range(6):  # rotating weights: the last call's CTA streams from DRAM as in the benchmark
    x, _, vw = sets[i % len(sets)]
    W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, splits=1, tile=tile)
torch.cuda.synchronize()
tr = W.TRACE.cpu()
t0 = int(tr[3, 0])
n = int((tr[0] != 0).sum())
p, f, w = ([int(v) - t0 for v in tr[row, :n]] for row in range(3))
print(f"{sys.argv[1]} tile {tile or 'auto'}: {n} stages traced (cycles from the CTA's start)")
print(" g        P        F        W")
for g in range(n):
    print(f"{g:2d} {p[g]:8d} {f[g]:8d} {w[g]:8d}")
print("median F - P (load time in the ring):", statistics.median(f[g] - p[g] for g in range(n)))
print("median W[g] - W[g-1] (consumer cadence):", statistics.median(w[g] - w[g - 1] for g in range(1, n)))
print("median F[g] - W[g-1] (consumer waiting for data):", statistics.median(f[g] - w[g - 1] for g in range(1, n)))
print("median P[g] - W[g-STAGES] (slot free -> producer):", "n/a" if tile is None else
      statistics.median(p[g] - w[g - tile.stages] for g in range(tile.stages, n)))
# the epilogue points of the CTA's tiles (row 3, 16 a tile): 0 last group retired, 1 next tile's A
# preloads issued, 2 + 2q / 3 + 2q pass q's staging written / stores issued
for i in range(15):
    marks = [int(v) - t0 for v in tr[3, 1 + 16 * i:17 + 16 * i]]
    if marks[0] > 0:
        print(f"epilogue of tile {i}: " + " ".join(f"{m}" for m in marks if m > 0))
