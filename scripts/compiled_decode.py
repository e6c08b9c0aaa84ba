"""VNMLinear at 1-8 tokens: eager against torch.compile(fullgraph=True), each timed as a CUDA graph
of back-to-back calls (ab_wgmma.time_us); v52 routes both to the decode kernel on one image.

  python scripts/compiled_decode.py [--shapes 4096x4096:128:2:8,...] [--tokens 1,8]
"""
import argparse

import torch

import vnmsparse as vs
from vnmsparse.nn import VNMLinear

from ab_wgmma import time_us


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="4096x4096:128:2:8,11008x4096:128:2:8,4096x4096:2:4,1024x4096:128:2:32")
    ap.add_argument("--tokens", default="1,8")
    args = ap.parse_args()
    print(f"{'shape':24s} {'T':>3s} {'eager':>9s} {'compiled':>9s} {'rel err':>8s}")
    for spec in args.shapes.split(","):
        dims, pattern = spec.split(":", 1)
        r, k = (int(d) for d in dims.split("x"))
        lin = torch.nn.Linear(k, r, dtype=torch.bfloat16, device="cuda")
        lin.weight.data *= vs.random_vnm_mask((r, k), vs.VNMConfig.parse(pattern)).cuda()
        m = VNMLinear.from_linear(lin, pattern).cuda()
        compiled = torch.compile(m, fullgraph=True)
        for t in (int(s) for s in args.tokens.split(",")):
            xs = [torch.randn(t, k, dtype=torch.bfloat16, device="cuda") for _ in range(3)]
            with torch.no_grad():
                err = ((compiled(xs[0]).float() - m(xs[0]).float()).norm() / m(xs[0]).float().norm()).item()
                eager = time_us(lambda i: m(xs[i % 3]))
                comp = time_us(lambda i: compiled(xs[i % 3]))
            print(f"{spec:24s} {t:3d} {eager:7.1f} us {comp:7.1f} us {err:8.1e}")


if __name__ == "__main__":
    main()
