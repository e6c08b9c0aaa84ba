"""The weight stream alone (v77, GPU): DRAM rate of the access patterns a T <= 64 kernel can give
its weights (scripts/probes/stream_probe.cu), CUDA-graph timed over buffers rotated past 2x L2.

  python scripts/stream_probe.py [--mb 48] [--sweep]
  python scripts/stream_probe.py --one 0,86,1,4096,27   (mode, CTAs, pieces, chunk, slots: one config, for ncu)
"""

import argparse
from pathlib import Path

import torch

from vnmsparse.kernels import jit

from ab_wgmma import time_us

PARAMS = ("ptr", "tmap", "i32", "i32", "i32", "i32", "i32", "i64", "i32", "i32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=48, help="bytes each call streams (MB)")
    ap.add_argument("--sweep", action="store_true", help="v77's sweep of CTAs, chunks, patterns")
    ap.add_argument("--v239", action="store_true", help="v239: test_wait polling and all copies at once")
    ap.add_argument("--one", default=None, help="mode,ctas,pieces,chunk,slots: only this configuration")
    args = ap.parse_args()
    kern = jit.get_kernel("stream_probe.cu", "stream_probe", params=PARAMS, source_dir=Path(__file__).parent / "probes")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    total = args.mb << 20
    nbuf = max(3, -(-2 * l2 // total) + 1)
    bufs = [torch.randn(total // 2 + (1 << 20), device="cuda").bfloat16() for _ in range(nbuf)]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"{'var':>3s} {'mode':>4s} {'ctas':>5s} {'pieces':>6s} {'chunk':>6s} {'slots':>5s} {'KB in flight':>12s} {'us':>7s} {'TB/s':>6s}")

    def run(mode, ctas, pieces, chunk, slots, rows=0, variant=0):
        stage = 128 * rows if mode == 2 else pieces * chunk
        if mode == 2:  # a [R, K] bf16 matrix of ~total bytes, R = ctas * rows
            r = ctas * rows
            k = total // (2 * r) // 64 * 64
            iters = k // 64
            maps = [jit.tensor_map_2d(b[: r * k].view(r, k), (64, rows), swizzle=0) for b in bufs]
            moved = r * k * 2
            stream_len = 0
        else:
            iters = total // (ctas * stage)
            stream_len = iters * chunk
            maps = [jit.NO_TENSOR_MAP] * nbuf
            moved = iters * ctas * stage
        smem = 1024 + slots * stage

        def call(i):
            kern.launch((ctas, 1, 1), (64, 1, 1), (bufs[i % nbuf], maps[i % nbuf], mode, pieces, chunk, slots, iters,
                                                   stream_len, rows, variant), shared_mem=smem)

        us = time_us(call, n=8, reps=15)
        print(f"{variant:3d} {mode:4d} {ctas:5d} {pieces:6d} {chunk:6d} {slots:5d} {slots * stage >> 10:12d} {us:7.1f} "
              f"{moved / us / 1e6:6.2f}", flush=True)

    if args.one:
        run(*(int(v) for v in args.one.split(",")))
        return
    if args.sweep:
        for ctas in (86, sms, 2 * sms):
            for chunk in (2048, 4096, 8192, 16384):
                for mode in (0, 1):
                    for pieces in (1, 2):
                        slots = max(2, min(48, (108 << 10) // (pieces * chunk)))
                        run(mode, ctas, pieces, chunk, slots)
            for rows in (32, 64, 112):  # 4, 8, 14 KB boxes
                run(2, ctas, 1, 0, max(2, min(48, (108 << 10) // (128 * rows))), rows)
    if args.v239:  # v239: try_wait's suspension (4) and no ring at all (5) against the ring (0)
        for ctas in (86, sms, 2 * sms):
            for pieces, chunk in ((1, 4096), (1, 16384)):
                for variant in (0, 4, 5):
                    run(0, ctas, pieces, chunk, max(2, min(48, (108 << 10) // (pieces * chunk))), variant=variant)
        return
    # v77b: what serialises a CTA's stages (time per stage ~ one DRAM round trip whatever the depth)
    for variant in (0, 1, 2, 3):
        for ctas in (86, sms):
            for pieces, chunk in ((1, 4096), (2, 4096), (1, 8192)):
                run(0, ctas, pieces, chunk, max(2, min(48, (108 << 10) // (pieces * chunk))), variant=variant)
            if variant < 3:
                run(2, ctas, 1, 0, 13, 64, variant=variant)
                run(2, ctas, 1, 0, 7, 112, variant=variant)


if __name__ == "__main__":
    main()
