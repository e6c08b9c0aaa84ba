"""Shared by the kernel test files: random V:N:M weights and the checked run of one SpMM case."""

import math
import os
import shutil

import pytest
import torch

import vnmsparse as vs
from vnmsparse.kernels import jit

needs_nvrtc = pytest.mark.skipif(not jit.available()[0], reason="NVRTC/cuda-core not installed")


def cuobjdump() -> str | None:
    """A cuobjdump to read the kernels' SASS with: VNM_CUOBJDUMP, PATH, or the nvidia-cuda-cuobjdump
    wheel of the test extras (found by cuda.pathfinder), so that CI reads SASS without a toolkit."""
    found = [os.environ.get("VNM_CUOBJDUMP"), shutil.which("cuobjdump")]
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        found.append(find_nvidia_binary_utility("cuobjdump"))
    except ImportError:
        pass
    return next((c for c in found if c and os.path.exists(c)), None)


needs_cuobjdump = pytest.mark.skipif(cuobjdump() is None, reason="cuobjdump not found (pip install nvidia-cuda-cuobjdump "
                                                                 "nvidia-cuda-nvdisasm, or set VNM_CUOBJDUMP)")


def random_vnm(r, k, cfg, dtype, device, gen):
    """A random V:N:M weight with no zeros among the kept values (a fresh one for every case)."""
    mask = vs.random_vnm_mask((r, k), cfg, generator=gen)
    w = torch.randn(r, k, generator=gen) * mask
    w = torch.where(mask & (w == 0), torch.ones_like(w), w)
    return w.to(dtype).to(device)


def check_case(launch, r, k, t, v, m, dtype, bias, gen, *, lead=(), what=""):
    """Fresh random weight, x (leading dims ``lead``) and bias; ``launch(x, vw, b, out)`` into an
    output poisoned with NaN; checked against fp32. Returns the relative Frobenius error."""
    cfg = vs.VNMConfig(v, 2, m)
    w = random_vnm(r, k, cfg, dtype, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(*lead, t, k, generator=gen).to(dtype).cuda()
    b = torch.randn(r, generator=gen).to(dtype).cuda() if bias else None
    out = torch.full((math.prod(lead) * t, r), float("nan"), dtype=dtype, device="cuda")
    y = launch(x, vw, b, out)
    torch.cuda.synchronize()
    ref = x.float() @ w.float().t() + (b.float() if bias else 0)
    assert y.shape == (*lead, t, r) and y.dtype == dtype
    assert not torch.isnan(y).any(), f"unwritten or NaN outputs: R={r} K={k} T={t} {cfg} {what}"
    err = ((y.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err < 1e-2, f"rel err {err:.3e} for R={r} K={k} T={t} {cfg} {dtype} bias={bias} {what}"
    return err
