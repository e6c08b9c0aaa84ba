"""What the column gather costs by mechanism, alone (v326, GPU, sm_90a): python scripts/probes/gather_energy.py
gather_probe.cu moves 64-row stages of gathered rows of an L2-resident X^T (4096 x 4096 bf16, 32 MB) into shared
memory on every SM, with no math: 16-byte cp.async (the kernel's gather), TMA boxes of h consecutive rows (h = 1:
v320's row boxes; h = 4: a block's 4 kept columns as one run; h = 64: dense X^T), 1-D bulk copies a row. Each runs
back to back for a few seconds while nvidia-smi samples clock and power: bytes a clock an SM (the in-kernel clock, one
launch alone), and board energy a gathered byte at load (W x time / bytes; "above idle" subtracts the idle card's
power). v312 put the kernel's marginal gather at ~43 pJ a byte by cp.async, ~11 for TMA's dense boxes: if a run of 4
rows costs nearer the dense boxes than the row boxes, a pruning constraint that keeps each block's columns in a run
would cut the gathered prefill's energy (NOTES v326).
v334 (prepared): pairs of CTAs in clusters, each gathering half of a stage and copying it into its peer's shared memory
(mode 3) against the same without the copies (mode 4): the SM-to-SM copy's energy a byte, for a V = 256 pair of
128-row tiles that would share one gathered B (L2 reads of X halved). `--modes 0,3,4` runs only those."""
import argparse
import os
import statistics
import sys
import time

import torch

from vnmsparse import bench
from vnmsparse.kernels import jit

sys.path.insert(0, os.path.dirname(__file__))
from clock_under_load import sustained  # noqa: E402

SECONDS = 2.0
ROWS, TOKENS = 4096, 4096
TABLE = 1 << 16
PARAMS = ("ptr", "tmap", "ptr", "i32", "i32", "i32", "i32", "i32", "i32", "i32", "i32", "ptr")
# (name, mode, h, lanes, row bytes): row bytes = the token tile x 2 B (256 tokens: the prefill's BN)
CONFIGS = [("cp.async 16 B, 512 B rows", 0, 1, 32, 512), ("cp.async 16 B, 128 B rows", 0, 1, 32, 128),
           ("bulk 1-D, a 512 B row", 2, 1, 32, 512),
           ("TMA 1 row x 128 B, 32 lanes", 1, 1, 32, 512), ("TMA 2 rows, 32 lanes", 1, 2, 32, 512),
           ("TMA 4 rows, 32 lanes", 1, 4, 32, 512), ("TMA 4 rows, 1 lane", 1, 4, 1, 512),
           ("TMA 8 rows, 32 lanes", 1, 8, 32, 512), ("TMA 64 rows (dense), 1 lane", 1, 64, 1, 512),
           ("pairs: half cp.async + to peer", 3, 1, 32, 512), ("pairs: half cp.async only", 4, 1, 32, 512)]


def idle_watts(seconds=1.5):
    monitor = bench.SmClockMonitor(bench.smi_id(torch.device("cuda", torch.cuda.current_device())))
    try:
        t0 = time.perf_counter()
        time.sleep(seconds)
        return monitor.median_watts(t0 + seconds / 3, time.perf_counter())
    finally:
        monitor.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modes", default="0,1,2,3,4", help="comma-separated probe modes to run")
    modes = {int(m) for m in ap.parse_args().modes.split(",")}
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    kern = jit.get_kernel("gather_probe.cu", "gather_probe", "sm_90a", params=PARAMS, source_dir=os.path.dirname(__file__))
    gen = torch.Generator(device="cpu").manual_seed(0)
    xt = torch.randn(ROWS, TOKENS, dtype=torch.bfloat16, device="cuda")
    cycles = torch.zeros(sms, dtype=torch.int64, device="cuda")
    idle = idle_watts()
    print(f"{props.name}, {sms} SMs, idle {idle:.0f} W; X^T {ROWS} x {TOKENS} bf16 ({ROWS * TOKENS * 2 >> 20} MB, in L2)")
    print(f"{'mechanism':30s} {'B/clk/SM':>8s} {'us':>8s} {'MHz':>6s} {'W':>5s} {'pJ/B':>6s} {'above idle':>10s}"
          "   (B: bytes from L2; pairs land twice that with the copy to the peer)")
    joules = {}
    for name, mode, h, lanes, row_bytes in CONFIGS:
        if mode not in modes:
            continue
        starts = torch.randint(0, ROWS - h + 1, (TABLE // h,), generator=gen)
        rows = (starts[:, None] + torch.arange(h)).flatten().to(torch.int32).cuda()  # runs of h, aligned to h
        tmap = jit.tensor_map_2d(xt, (64, h), swizzle=0) if mode == 1 else jit.NO_TENSOR_MAP
        iters = 3000 if row_bytes == 512 else 12000
        args = (xt, tmap, rows, TABLE - 1, mode, h, lanes, row_bytes, TOKENS * 2, TOKENS * 2 // row_bytes, iters, cycles)
        grid, cluster = (sms // 2 * 2, (2, 1, 1)) if mode >= 3 else (sms, None)
        launch = lambda: kern.launch(grid, 128, args, shared_mem=1024 + 6 * 64 * row_bytes, cluster=cluster)  # noqa: E731
        launch()
        torch.cuda.synchronize()
        moved = grid * iters * 64 * row_bytes // (2 if mode >= 3 else 1)
        clk = statistics.median(cycles.tolist())
        ms, mhz, watts = sustained(launch, SECONDS)
        pj = watts * ms * 1e-3 / moved * 1e12
        joules[mode] = (watts * ms * 1e-3, moved)
        print(f"{name:30s} {moved / grid / clk:8.1f} {ms * 1e3:8.0f} {mhz:6.0f} {watts:5.0f} {pj:6.1f} "
              f"{(watts - idle) * ms * 1e-3 / moved * 1e12:10.1f}", flush=True)
    if 3 in joules and 4 in joules:  # the same L2 bytes; mode 3 also copies each to the peer
        (e3, copied), (e4, _) = joules[3], joules[4]
        print(f"copy to the peer: {(e3 - e4) / copied * 1e12:.1f} pJ a byte (mode 3 - mode 4, over the bytes copied)")


if __name__ == "__main__":
    main()
