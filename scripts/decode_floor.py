"""What the decode kernel's ~3 us fixed cost per call is made of (GPU; one call, a short table).

Each column is the decode kernel compiled with VNM_DEC_PROBE = p (spmm_mma_sp.cu: 0 in full, 1
launch and PDL wait only, 2 every load without math or epilogue), timed as ab_wgmma.time_us does
(a CUDA graph of 12 back-to-back calls over 3 rotating sets), with PDL on and off; beside them a
one-element torch kernel (the launch floor of this harness) and cuBLAS on the dense weight.
--trace: probe 9 instead, the SM clock (thousands of cycles since the CTA began) at each stage of
a call, median and slowest over the ranks of row tile 0, median over 25 back-to-back eager calls
("pdl", the wait for the previous kernel, is the host's launch gap there).

--image: through vnmsparse.spmm (the decode kernel on the fragment image where V % 64 == 0, as in
use: A into registers on 64-row tiles, v281) instead of on the "sm90" image.

--define NAME=V,...: more of the kernels' macros (VNM_DEC_PREFETCH_STEPS=0) in every column.

  python scripts/decode_floor.py [--shapes 1024x4096x1:128:2:32,...] [--probes 0,1,2] [--trace] [--image] [--define ..]
"""
import argparse
import ctypes
import os
import statistics
import sys
import tempfile

import torch
import torch.nn.functional as F

import vnmsparse as vs
from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_mma_sp as K

from ab_wgmma import case, decode_call, time_us

SHAPES = "1024x4096x1:128:2:32,4096x4096x1:128:2:32,4096x4096x1:128:2:8,4096x4096x1:2:4,11008x4096x1:128:2:8,4096x4096x8:128:2:16"
MARKS = ("pdl", "x", "a0", "loop", "cw", "push", "rbar", "end")


IMAGE = False  # --image
EXTRA = {}  # --define


def call(sets, r, k, cfg):
    """Call i of the decode kernel on the rotating sets: through vnmsparse.spmm with --image."""
    if IMAGE:
        return lambda i: vs.spmm(sets[i % len(sets)][0], sets[i % len(sets)][2])
    return decode_call(sets, r, k, cfg)


def trace(spec, gen, calls=30):
    r, k, t, cfg, sets = case(spec, gen)
    K.DEFINES = {**EXTRA, "VNM_DEC_PROBE": 9}
    run = call(sets, r, k, cfg)
    for i in range(3):
        run(i)
    torch.cuda.synchronize()
    libc = ctypes.CDLL(None)
    libc.fflush(None)  # the device printf lands in C stdio's buffer: flush it on each side of the redirect
    sys.stdout.flush()
    saved, tmp = os.dup(1), tempfile.TemporaryFile()
    os.dup2(tmp.fileno(), 1)  # the kernels' printf goes to the C stdout
    try:
        for i in range(calls):
            run(i)
        torch.cuda.synchronize()
        libc.fflush(None)
    finally:
        os.dup2(saved, 1)
    tmp.seek(0)
    rows = sorted([int(v) for v in ln.split()[1:]] for ln in tmp.read().decode().splitlines() if ln.startswith("VNMTRACE"))
    splits = max(row[1] for row in rows) + 1
    per_call = [rows[i:i + splits] for i in range(0, len(rows), splits)][5:]
    per_call = [c for c in per_call if len({row[1] for row in c}) == splits]  # one row per rank
    spread = statistics.median((c[-1][0] - c[0][0]) / 1e3 for c in per_call)
    period = statistics.median((b[0][0] - a[0][0]) / 1e3 for a, b in zip(per_call, per_call[1:]))
    med = [statistics.median(row[2 + j] for c in per_call for row in c) / 1e3 for j in range(len(MARKS))]
    mx = [statistics.median(max(row[2 + j] for row in c) for c in per_call) / 1e3 for j in range(len(MARKS))]
    print(f"{spec:26s} splits {splits} start spread {spread:.2f} us, call period {period:.2f} us")
    print("   kcycles since CTA start, median rank: " + " ".join(f"{n}={v:.2f}" for n, v in zip(MARKS, med)))
    print("   kcycles since CTA start, slowest rank: " + " ".join(f"{n}={v:.2f}" for n, v in zip(MARKS, mx)))
    K.DEFINES = {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--probes", default="0,1,2")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--image", action="store_true")
    ap.add_argument("--define", default="")
    args = ap.parse_args()
    global IMAGE
    IMAGE = args.image
    EXTRA.update(d.split("=") for d in args.define.split(",") if d)
    gen = torch.Generator(device="cuda").manual_seed(0)
    if args.trace:
        for spec in args.shapes.split(","):
            trace(spec, gen)
        return
    probes = [int(p) for p in args.probes.split(",")]
    tiny = torch.zeros(1, device="cuda")
    floor = time_us(lambda i: tiny.add_(1.0))
    print(f"launch floor (one-element torch kernel, same harness): {floor:.2f} us")
    cols = [f"p{p}/pdl{d}" for d in (1, 0) for p in probes]
    print(f"{'shape':26s} {'plan':18s} {'cuBLAS':>8s} " + " ".join(f"{c:>9s}" for c in cols))
    for spec in args.shapes.split(","):
        r, k, t, cfg, sets = case(spec, gen)
        plan = (K.preferred_decode_plan(sets[0][0].device, t, r, k, cfg.v, cfg.m, image=cfg.v % 64 == 0) if IMAGE
                else K.decode_plan(sets[0][0].device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m))
        dense = time_us(lambda i: F.linear(sets[i % 3][0], sets[i % 3][1]))
        cells = []
        for pdl in (True, False):
            jit.PDL = pdl
            for p in probes:
                K.DEFINES = {**EXTRA, "VNM_DEC_PROBE": p} if p else dict(EXTRA)
                run = call(sets, r, k, cfg)
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
