"""What the tensor cores sustain at the card's power limit with nothing else moving (GPU, sm_90a):
python scripts/probes/power_peak.py
peak_probe.cu's math-only loops (wgmma.sp m64n256k32 and dense wgmma m64n256k16, A in registers, B in
shared memory, random bf16; one CTA of two warpgroups per SM), then cuBLAS and cuSPARSELt on 8192^3, each
run back to back for a few seconds while nvidia-smi samples the clock and power. The sparse loop's
sustained dense-equivalent rate over cuBLAS's is the most any 2:4 GEMM can gain over cuBLAS at this
power limit (a real kernel adds the energy of moving its operands)."""
import os
import sys

import torch

from vnmsparse import bench
from vnmsparse.kernels import jit

sys.path.insert(0, os.path.dirname(__file__))
from clock_under_load import sustained  # noqa: E402

SECONDS = 2.5
ITERS = 20000
FLOP_PER_ITER_WG = 64 * 256 * 64 * 2  # a warpgroup's 64 x 256 x 64 (dense-equivalent) per iteration
NIBBLES = torch.tensor([0x4, 0x8, 0xC, 0x9, 0xD, 0xE])  # 2-of-4 index pairs (i < j): valid metadata


def math_loop(sparse: bool, zeros: bool = False):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    kernel = jit.get_kernel("peak_probe.cu", f"vnm::peak_probe<{'true' if sparse else 'false'}>", "sm_90a",
                            params=("ptr", "ptr", "ptr", "i32", "ptr"), source_dir=os.path.dirname(__file__))
    threads = sms * 256
    fill = torch.zeros if zeros else torch.randn
    a = fill(threads * 8, dtype=torch.bfloat16, device="cuda").view(torch.int32)
    nib = NIBBLES[torch.randint(0, len(NIBBLES), (threads, 8))]
    e = (nib << (4 * torch.arange(8))).sum(1).to(torch.int64).bitwise_and(0xFFFFFFFF)
    e = torch.where(e >= 2**31, e - 2**32, e).to(torch.int32).cuda()
    b = fill(32768, dtype=torch.bfloat16, device="cuda")
    out = torch.empty(threads, device="cuda")
    launch = lambda: kernel.launch(sms, 256, (a, e, b, ITERS, out), shared_mem=65536 + 1024)
    launch()
    torch.cuda.synchronize()
    return launch, sms * 2 * ITERS * FLOP_PER_ITER_WG


def library(kind: str, n: int = 8192):
    x = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
    w = w * torch.tensor([1, 1, 0, 0], dtype=torch.bfloat16, device="cuda").repeat(n * n // 4).view(n, n)  # 2:4
    if kind == "cuBLAS":
        return (lambda: torch.nn.functional.linear(x, w)), 2 * n**3
    wc = torch._cslt_compress(w)
    alg = bench.cslt_search(wc, x.t()) or (0, 1, None)
    return (lambda: bench._cslt_mm(wc, x.t(), alg)), 2 * n**3


def main():
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = [("wgmma.sp loop (random)", *math_loop(True)), ("wgmma loop (random)", *math_loop(False)),
            ("wgmma.sp loop (zeros)", *math_loop(True, zeros=True)),
            ("cuBLAS 8192^3", *library("cuBLAS")), ("cuSPARSELt 8192^3 2:4", *library("cslt"))]
    print(f"{'what':28s} {'TFLOP/s':>8s} {'MHz':>6s} {'W':>5s} {'FLOP/clk/SM':>12s}  (dense-equivalent)")
    for name, fn, flop in rows:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ms, mhz, watts = sustained(fn, SECONDS)
        tflops = flop / (ms * 1e-3) / 1e12
        print(f"{name:28s} {tflops:8.0f} {mhz:6.0f} {watts:5.0f} {tflops * 1e12 / (mhz * 1e6) / sms:12.0f}")


if __name__ == "__main__":
    main()
