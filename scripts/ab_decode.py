"""A/B of the decode planner (spmm_mma_sp.DECODE_ONE_WAVE: splits by waves of clusters vs v13's
four CTAs per SM) on the one-launch decode kernel (GPU; one call, a short table).

  python scripts/ab_decode.py [--shapes 11008x4096x1:128:2:8,...]
"""
import argparse

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K

from ab_wgmma import case, time_us

SHAPES = ("11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:128:2:8,11008x4096x8:64:2:8,"
          "11008x4096x1:2:4,4096x11008x1:2:4,11008x4096x1:128:2:16,11008x4096x4:128:2:32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    values = (False, True, False, True)
    print(f"{'shape':28s} " + " ".join(f"one_wave={int(v)}" for v in values) + "  plans (bm, bn, splits, steps)")
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        x, w, _ = sets[0]
        ref = x.float() @ w.float().t()
        cells, plans = [], {}
        for one_wave in values:
            K.DECODE_ONE_WAVE = one_wave
            K.decode_plan.cache_clear()
            plans[one_wave] = K.decode_plan(x.device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m)
            run = lambda i: K.spmm_sm90_decode(sets[i % 3][0], *K.layout_of(sets[i % 3][2], True), None, r, k, cfg.v, cfg.m)
            err = ((run(0).float() - ref).norm() / ref.norm()).item()
            cells.append(f"{time_us(run):8.1f} us" + ("" if err < 1e-2 else f" ERR {err:.1e}"))
        print(f"{spec:28s} " + " ".join(cells) + f"  {plans[False]} -> {plans[True]}")


if __name__ == "__main__":
    main()
