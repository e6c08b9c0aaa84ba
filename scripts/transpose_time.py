"""What the gathered mma.sp path's transpose of X costs (GPU): the transpose kernel alone against a device copy of
the same bytes (the HBM floor of a read + write), and the SpMM on a row-major X against the same SpMM on X^T given,
CUDA graphs over rotated inputs (> 2x L2), in turns.

  python scripts/transpose_time.py [--shapes TxK,...] [--pattern 128:2:8]
"""
import argparse
import os
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K

sys.path.insert(0, os.path.dirname(__file__))
from ab_wgmma import capture, time_in_turns  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="8192x4096,8192x11008,2048x4096")
    ap.add_argument("--pattern", default="128:2:8")
    ap.add_argument("--rows", type=int, default=4096)
    args = ap.parse_args()
    cfg = vs.VNMConfig.parse(args.pattern)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    gen = torch.Generator(device="cuda").manual_seed(0)
    for shape in args.shapes.split(","):
        t, k = (int(a) for a in shape.split("x"))
        sets = max(3, -(-2 * l2 // (t * k * 2)) + 1)
        xs = [torch.randn(t, k, device="cuda", generator=gen).bfloat16() for _ in range(sets)]
        xts = [x.t().contiguous().t() for x in xs]
        outs = [torch.empty_like(x) for x in xs]
        w = (torch.randn(args.rows, k, device="cuda", generator=gen)
             * vs.random_vnm_mask((args.rows, k), cfg, generator=gen)).bfloat16()
        vw = vs.pack(w, cfg)
        n = 2 * sets
        graphs = [capture(lambda i: K.feature_major(xs[i % sets]), n),
                  capture(lambda i: outs[i % sets].copy_(xs[i % sets]), n),
                  capture(lambda i: K.spmm_sm80(xs[i % sets], *K.layout_of(vw), None, args.rows, k, cfg.v, cfg.m), n),
                  capture(lambda i: K.spmm_sm80(xts[i % sets], *K.layout_of(vw), None, args.rows, k, cfg.v, cfg.m), n)]
        tr, cp, full, given = time_in_turns(graphs, n, 15)
        gb = 2 * t * k * 2 / 1e9
        print(f"T={t} K={k} ({sets} sets): transpose {tr:7.1f} us ({gb / tr * 1e3:.2f} TB/s)  copy {cp:7.1f} us "
              f"({gb / cp * 1e3:.2f} TB/s)  |  mma_sp {args.pattern} R={args.rows}: row-major X {full:7.1f} us, "
              f"X^T given {given:7.1f} us, difference {full - given:6.1f}")
        del xs, xts, outs


if __name__ == "__main__":
    main()
