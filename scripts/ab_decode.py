"""A/B of a decode-planner switch of spmm_mma_sp (DECODE_ONE_WAVE: splits by waves of clusters vs
v13's four CTAs per SM; DECODE_RING: A slots per CTA, 0 = all steps resident) on the one-launch
decode kernel (GPU; one call, a short table with the plan each value gives).

  python scripts/ab_decode.py DECODE_RING=0,4,0,4 [--shapes 11008x4096x1:128:2:8,...]
"""
import argparse

import torch

from vnmsparse.kernels import spmm_mma_sp as K

from ab_wgmma import case, decode_call, set_switch, time_us

SHAPES = ("11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:128:2:8,11008x4096x8:64:2:8,"
          "11008x4096x1:2:4,4096x11008x1:2:4,11008x4096x1:128:2:16,11008x4096x4:128:2:32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("knob", help="NAME=v1,v2,... (a module attribute of spmm_mma_sp)")
    ap.add_argument("--shapes", default=SHAPES)
    args = ap.parse_args()
    name, values = args.knob.split("=")
    values = values.split(",")
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'shape':28s} " + " ".join(f"{name}={v:>3s}" for v in values) + "  plans (bm, bn, splits, steps)")
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        x, w, _ = sets[0]
        ref = x.float() @ w.float().t()
        cells, plans = [], {}
        for value in values:
            set_switch(K, name, value)
            K.decode_plan.cache_clear()
            plans[value] = K.decode_plan(x.device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m)
            run = decode_call(sets, r, k, cfg)
            err = ((run(0).float() - ref).norm() / ref.norm()).item()
            cells.append(f"{time_us(run):8.1f} us" + ("" if err < 1e-2 else f" ERR {err:.1e}"))
        print(f"{spec:28s} " + " ".join(cells) + "  " + " ".join(f"{v}:{plans[v]}" for v in dict.fromkeys(values)))


if __name__ == "__main__":
    main()
