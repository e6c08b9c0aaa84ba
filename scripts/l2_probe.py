"""L2 -> SM read bandwidth (v345, GPU; scripts/probes/l2_probe.cu): every SM streams an L2-resident buffer by
register loads (ld.global.cg) or 16-byte cp.async into shared memory, no math; bytes a second and a clock an SM.

  python scripts/l2_probe.py [--mb 8,16,32] [--threads 256,512,1024]
"""
import argparse
from pathlib import Path

import torch

from vnmsparse.kernels import jit

from ab_wgmma import time_us


U = 8  # 16-byte chunks a thread a round in flight (the kernel's L2_PROBE_U)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", default="8,16,32", help="buffer sizes, powers of two")
    ap.add_argument("--threads", default="256,512,1024")
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    kern = jit.get_kernel("l2_probe.cu", "l2_probe", params=("ptr", "i64", "i32", "i32", "ptr"),
                          source_dir=Path(__file__).parent / "probes", defines={"L2_PROBE_U": U})
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    sink = torch.zeros(1, dtype=torch.int32, device="cuda")
    try:
        clock = torch.cuda.clock_rate()
    except Exception:  # (needs pynvml / amdsmi)
        clock = "?"
    print(f"{props.name}, {sms} SMs, L2 {props.L2_cache_size >> 20} MB, SM clock now {clock} MHz")
    print(f"{'MB':>4s} {'mode':>12s} {'threads':>7s} {'ctas':>5s} {'us':>8s} {'TB/s':>6s} {'B/clk/SM@1.98GHz':>17s}")
    for mb in (int(v) for v in args.mb.split(",")):
        if mb & (mb - 1):
            raise SystemExit(f"--mb: powers of two (the kernel wraps its index by a mask), got {mb}")
        buf = torch.randint(0, 1 << 30, ((mb << 20) // 4,), dtype=torch.int32, device="cuda")
        n16 = buf.numel() // 4
        for mode, what in ((0, "ld.global.cg"), (1, "cp.async")):
            for threads in (int(v) for v in args.threads.split(",")):
                smem = U * threads * 16 if mode == 1 else 0
                if smem > 200 * 1024:
                    continue
                ctas = sms * max(1, min(2048 // threads, (220 * 1024) // max(smem, 1)))

                def call(i):
                    kern.launch((ctas, 1, 1), (threads, 1, 1), (buf, n16, args.iters, mode, sink), shared_mem=smem)

                us = time_us(call, n=4, reps=10)
                rounds = -(-n16 // (U * ctas * threads))
                moved = args.iters * rounds * U * ctas * threads * 16
                tbs = moved / us / 1e6
                print(f"{mb:4d} {what:>12s} {threads:7d} {ctas:5d} {us:8.1f} {tbs:6.2f} {tbs * 1e12 / sms / 1.98e9:17.1f}",
                      flush=True)


if __name__ == "__main__":
    main()
