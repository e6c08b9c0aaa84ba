"""A/B of decode-planner switches of spmm_mma_sp (DECODE_ONE_WAVE: splits by waves of clusters vs
v13's four CTAs per SM; DECODE_RING: A slots per CTA, 0 = all steps resident; DECODE_GROUP: steps
per A copy; DECODE_MAX_SPLITS) on the one-launch decode kernel (GPU; one call, a short table with
the plan each value gives). A value may carry "+NAME=v" overrides of other switches (or of the
kernels' macros); the values'
graphs replay in turns (ab_wgmma.time_in_turns).

  python scripts/ab_decode.py DECODE_RING=0,4,0,4 [--shapes 11008x4096x1:128:2:8,...]
  python scripts/ab_decode.py DECODE_GROUP=1,4,4+DECODE_MAX_SPLITS=4
  python scripts/ab_decode.py VNM_DECODE=1,0,1,0   (the route: decode kernel or wgmma.sp; plan None = wgmma.sp)
"""
import argparse
import os

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

from ab_wgmma import capture, case, decode_call, overrides, set_defines, set_switch, time_in_turns

SHAPES = ("11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:128:2:8,11008x4096x8:64:2:8,"
          "11008x4096x1:2:4,4096x11008x1:2:4,11008x4096x1:128:2:16,11008x4096x4:128:2:32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("knob", help="NAME=v1,v2,... (a module attribute of spmm_mma_sp; v+OTHER=w: more of them)")
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--image", type=int, default=1,
                    help="1: vnmsparse.spmm (the decode kernel on the fragment image where V %% 64 == 0); 0: on the sm90 image")
    args = ap.parse_args()
    name, values = args.knob.split("=", 1)
    values = values.split(",")
    owner = lambda n: K if hasattr(K, n) else W  # whose switch a +NAME=v override is
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'shape':28s} " + " ".join(f"{v:>12s}" for v in values) + "  plans (bm, bn, splits, steps)")
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        x, w, _ = sets[0]
        ref = x.float() @ w.float().t()
        graphs, notes, plans = [], [], {}
        n = max(12, len(sets))
        for value in values:
            plain, macros, restore = overrides(value, owner)
            set_defines(macros)  # "+MACRO=v": the kernels' compile-time knobs (VNM_LDG_NO_L1=1)
            if hasattr(K, name):
                set_switch(K, name, plain)
            else:  # an environment switch (VNM_DECODE=1,0: the decode kernel's route on or off)
                os.environ[name] = plain
            K.decode_plan.cache_clear()
            K._decode_clusters_at_once.cache_clear()
            image = bool(args.image) and cfg.v % 64 == 0
            plans[value] = (K.preferred_decode_plan(x.device, t, r, k, cfg.v, cfg.m, x.dtype, image) if image
                            else K.decode_plan(x.device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m, x.dtype))
            run = (lambda i: vs.spmm(sets[i % len(sets)][0], sets[i % len(sets)][2])) if image else decode_call(sets, r, k, cfg)
            err = ((run(0).float() - ref).norm() / ref.norm()).item()
            graphs.append(capture(run, n))
            notes.append("" if err < 1e-2 else f" ERR {err:.1e}")
            restore()
        cells = [f"{us:9.1f} us" + note for us, note in zip(time_in_turns(graphs, n), notes)]
        print(f"{spec:28s} " + " ".join(cells) + "  " + " ".join(f"{v}:{plans[v]}" for v in dict.fromkeys(values)))
        del graphs
        K.decode_plan.cache_clear()


if __name__ == "__main__":
    main()
