"""The decode kernel on its own "sm90" image against the wgmma.sp fragment image (v52), in turns,
on the rotating (x, weight) sets of ab_wgmma.case (GPU; one call, a short table).

  python scripts/ab_image_decode.py [--shapes 4096x4096x1:128:2:8,...]
"""
import argparse

import torch

from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

from ab_wgmma import case, decode_call, time_us

SHAPES = ("1024x4096x1:128:2:32,4096x4096x1:128:2:32,4096x4096x1:128:2:8,4096x4096x8:128:2:16,11008x4096x1:128:2:8,"
          "4096x11008x1:64:2:8,11008x4096x8:64:2:8,4096x4096x1:2:4,11008x4096x4:2:4,4096x4096x1:128:2:128")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'shape':28s} {'sm90 image':>10s} {'frag image':>10s} {'sm90 image':>10s} {'frag image':>10s}  plan")
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        own = decode_call(sets, r, k, cfg)
        frag = lambda i: W.spmm_sm90a(sets[i % 3][0], *W.layout_of(sets[i % 3][2]), None, r, k, cfg.v, cfg.m)  # noqa: E731
        ok = torch.equal(own(0), frag(0))
        cells = [f"{time_us(fn):8.1f} us" for fn in (own, frag, own, frag)]
        plan = K.decode_plan(sets[0][0].device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m, image=True)
        print(f"{spec:28s} " + " ".join(cells) + f"  {plan}" + ("" if ok else "  DIFFERENT RESULTS"))


if __name__ == "__main__":
    main()
