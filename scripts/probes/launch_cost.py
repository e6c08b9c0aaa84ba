"""What the extra launches of a gathered call cost inside a CUDA graph of back-to-back calls: the
call as it is, then with the X^T transpose taken out (X^T made beforehand: the SpMM reads it as if
the transpose had run) and with the split reduction taken out (results wrong, times only).

  python scripts/probes/launch_cost.py 11008x4096x16:128:2:8,4096x4096x16:128:2:8
"""
import sys

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K

from ab_wgmma import case, time_us

gen = torch.Generator(device="cuda").manual_seed(0)
feature_major, reduce_splits = K.feature_major, K.reduce_splits
print(f"{'shape':28s} {'call':>8s} {'no X^T':>8s} {'no sum':>8s} {'neither':>8s}   (us)")
for spec in sys.argv[1].split(","):
    r, k, t, cfg, sets = case(spec, gen)
    pre = {x.data_ptr(): feature_major(x) for x, _, _ in sets}
    cells = []
    for no_t, no_sum in ((False, False), (True, False), (False, True), (True, True)):
        K.feature_major = (lambda x2: pre[x2.data_ptr()]) if no_t else feature_major
        K.reduce_splits = (lambda *a: None) if no_sum else reduce_splits
        cells.append(time_us(lambda i: vs.spmm(*[sets[i % len(sets)][j] for j in (0, 2)]), n=max(12, len(sets))))
    K.feature_major, K.reduce_splits = feature_major, reduce_splits
    print(f"{spec:28s} " + " ".join(f"{c:8.1f}" for c in cells))
