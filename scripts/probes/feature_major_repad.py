"""X^T rows for the gather from a token-contiguous x whose rows it cannot read (T % 8 != 0), by each
FEATURE_MAJOR_REPAD form, beside the transpose of the same x row-major (us, CUDA graph of 12 calls):
python scripts/probes/feature_major_repad.py 2047x4096 4095x11008 ..."""
import sys

import torch

from vnmsparse.kernels import spmm_mma_sp as K

sys.path.insert(0, "scripts")
from ab_wgmma import time_us  # noqa: E402

print(f"{'T x K':14s} row-major " + " ".join(f"{m:>9s}" for m in ("copy", "twice", "torch")))
for spec in sys.argv[1:]:
    t, k = (int(d) for d in spec.split("x"))
    x = torch.randn(t, k, device="cuda").bfloat16()
    fm = x.t().contiguous().t()
    cells = [time_us(lambda i: K.feature_major(x))]
    for mode in ("copy", "twice", "torch"):
        K.FEATURE_MAJOR_REPAD = mode
        assert torch.equal(K.feature_major(x)[0], K.feature_major(fm)[0]), mode
        cells.append(time_us(lambda i: K.feature_major(fm)))
    print(f"{spec:14s} " + " ".join(f"{c:9.1f}" for c in cells))
