"""A few eager calls of the wgmma.sp path with K splits given (so never the decode kernel) on one
shape, for ncu: python scripts/probes/gathered_call.py 11008x4096x1:128:2:8 [splits [tile]]
(tile: a name of spmm_wgmma_sp.ALL_TILES, e.g. wg128x64s12t1; default: the path's own choice)."""
import sys

import torch

from vnmsparse.kernels import spmm_wgmma_sp as W

sys.path.insert(0, "scripts")
from ab_wgmma import case, parse_tile  # noqa: E402

gen = torch.Generator(device="cuda").manual_seed(0)
r, k, t, cfg, sets = case(sys.argv[1], gen)
x, _, vw = sets[0]
splits = int(sys.argv[2]) if len(sys.argv) > 2 else 1
tile = parse_tile(sys.argv[3]) if len(sys.argv) > 3 else None
for _ in range(5):
    W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, splits=splits, tile=tile)
torch.cuda.synchronize()
