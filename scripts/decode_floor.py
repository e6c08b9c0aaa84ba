"""What the decode kernel's ~3 us fixed cost per call is made of (GPU; one call, a short table).

Each column is the decode kernel compiled with VNM_DEC_PROBE = p (spmm_mma_sp.cu: 1 launch and
PDL wait only, 2 loads without math or epilogue, 3 no L2 prefetch, 4 no X slice, 5 no epilogue),
timed as ab_wgmma.time_us does (a CUDA graph of 12 back-to-back calls over 3 rotating sets), with
PDL on and off; beside them a one-element torch kernel (the launch floor of this harness) and
cuBLAS on the dense weight.

  python scripts/decode_floor.py [--shapes 1024x4096x1:128:2:32,...] [--probes 0,1,2,3,4,5]
"""
import argparse

import torch
import torch.nn.functional as F

from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_mma_sp as K

from ab_wgmma import case, time_us

SHAPES = "1024x4096x1:128:2:32,4096x4096x1:128:2:32,4096x4096x1:128:2:8,4096x4096x1:2:4,11008x4096x1:128:2:8,4096x4096x8:128:2:16"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--probes", default="0,1,2,3,4,5")
    args = ap.parse_args()
    probes = [int(p) for p in args.probes.split(",")]
    gen = torch.Generator(device="cuda").manual_seed(0)
    tiny = torch.zeros(1, device="cuda")
    floor = time_us(lambda i: tiny.add_(1.0))
    print(f"launch floor (one-element torch kernel, same harness): {floor:.2f} us")
    cols = [f"p{p}/pdl{d}" for d in (1, 0) for p in probes]
    print(f"{'shape':26s} {'plan':18s} {'cuBLAS':>8s} " + " ".join(f"{c:>9s}" for c in cols))
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        plan = K.decode_plan(sets[0][0].device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m)
        dense = time_us(lambda i: F.linear(sets[i % 3][0], sets[i % 3][1]))
        cells = []
        for pdl in (True, False):
            jit.PDL = pdl
            for p in probes:
                K.DEFINES = {"VNM_DEC_PROBE": p} if p else {}
                run = lambda i: K.spmm_sm90_decode(sets[i % 3][0], *K.layout_of(sets[i % 3][2], True), None, r, k, cfg.v, cfg.m)
                if p == 0:
                    ref = sets[0][0].float() @ sets[0][1].float().t()
                    err = ((run(0).float() - ref).norm() / ref.norm()).item()
                    assert err < 1e-2, (spec, err)
                cells.append(f"{time_us(run):7.2f}us")
        print(f"{spec:26s} {str(plan):18s} {dense:6.2f}us " + " ".join(f"{c:>9s}" for c in cells))
    jit.PDL = True
    K.DEFINES = {}


if __name__ == "__main__":
    main()
