"""The decode kernel's plans on this GPU at both row tiles of a V = 64 weight (64, and 128 = two V-row blocks a CTA),
with what the planner weighed: row tiles, clusters the driver runs at once, waves, CTAs (GPU: the driver's
occupancy). python scripts/probes/decode_plan_waves.py 11008x4096x2:64:2:8 ..."""
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K


def main():
    dev = torch.device("cuda", torch.cuda.current_device())
    print(f"{'cell':24s} bm  bn splits per row_tiles at_once waves  ctas")
    for spec in sys.argv[1:]:
        dims, pattern = spec.split(":", 1)
        r, k, t = (int(d) for d in dims.split("x"))
        cfg = vs.VNMConfig.parse(pattern)
        steps = K.layout_steps(k, cfg.m)
        for bm in (64, 128):
            plan = K.decode_plan(dev, t, r, steps, cfg.v, cfg.m, torch.bfloat16, True, bm)
            if plan is None:
                print(f"{spec:24s} {bm:3d} no plan")
                continue
            _, bn, splits, per = plan
            smem = K.decode_smem_bytes(bm, bn, per, cfg.m, splits, True, cfg.v)
            at_once = K._decode_clusters_at_once(dev, bm, bn, smem, splits, torch.bfloat16, True)
            tiles = -(-r // bm)
            print(f"{spec:24s} {bm:3d} {bn:3d} {splits:6d} {per:3d} {tiles:9d} {at_once:7d} {tiles / at_once:5.2f} {tiles * splits:5d}")


if __name__ == "__main__":
    main()
