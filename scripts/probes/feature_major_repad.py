"""X^T rows for the gather from a token-contiguous x whose rows it cannot read (T % 8 != 0), by each
FEATURE_MAJOR_REPAD form, beside the transpose of the same x row-major (us, CUDA graph of 10 calls):
python scripts/probes/feature_major_repad.py 2047x4096 4095x11008 ..."""
import statistics
import sys

import torch

from vnmsparse.kernels import spmm_mma_sp as K


def time_us(fn, n=10, reps=20):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) * 1e3 / n)
    return statistics.median(out)


print(f"{'T x K':14s} row-major " + " ".join(f"{m:>9s}" for m in ("copy", "twice", "torch")))
for spec in sys.argv[1:]:
    t, k = (int(d) for d in spec.split("x"))
    x = torch.randn(t, k, device="cuda").bfloat16()
    fm = x.t().contiguous().t()
    cells = [time_us(lambda: K.feature_major(x))]
    for mode in ("copy", "twice", "torch"):
        K.FEATURE_MAJOR_REPAD = mode
        ref, _, _ = K.feature_major(x)
        got, _, _ = K.feature_major(fm)
        assert torch.equal(ref, got), mode
        cells.append(time_us(lambda: K.feature_major(fm)))
    print(f"{spec:14s} " + " ".join(f"{c:9.1f}" for c in cells))
