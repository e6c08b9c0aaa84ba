"""CUDA kernels of vnmsparse: sources in ``csrc/`` (package data), compiled at runtime by ``jit``.

Importing this package registers each kernel's layout with the ``vnmsparse::spmm`` op and lets
``vnmsparse.spmm`` pick the fastest kernel that runs on the input's device.
"""

from __future__ import annotations

import warnings

import torch

from .. import ops
from . import jit, spmm_mma_sp

KERNEL_DTYPES = (torch.float16, torch.bfloat16)

ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT] = spmm_mma_sp.spmm_sm80

_warned: set = set()


def _usable(x: torch.Tensor, vw) -> bool:
    if x.device.type != "cuda" or vw.dtype not in KERNEL_DTYPES or x.dtype != vw.dtype:
        return False
    ok, why = spmm_mma_sp.supported(x.device)
    if not ok and x.device not in _warned:
        _warned.add(x.device)
        warnings.warn(f"vnmsparse: no Sparse Tensor Core kernel on {x.device} ({why}); using the PyTorch reference")
    return ok


def _select(x, vw, bias):
    if not _usable(x, vw):
        return None
    return spmm_mma_sp.LAYOUT, spmm_mma_sp.layout_of(vw)


ops.OPERAND_SELECTORS.append(_select)


def spmm_paths(device=None) -> dict:
    """name -> fn(x, vw, bias=None) for every SpMM implementation that runs on ``device``."""
    device = torch.device(device) if device is not None else None
    paths = {"reference": lambda x, vw, bias=None: ops.spmm_op(
        x, vw.values, vw.positions, vw.columns, bias, *vw.shape, vw.cfg.v, vw.cfg.m, "canonical")}
    if device is not None and device.type == "cuda" and spmm_mma_sp.supported(device)[0]:
        paths["mma_sp"] = lambda x, vw, bias=None: ops.spmm_op(
            x, *spmm_mma_sp.layout_of(vw), bias, *vw.shape, vw.cfg.v, vw.cfg.m, spmm_mma_sp.LAYOUT)
    return paths


def available_paths() -> list[tuple[str, bool, str]]:
    """(name, available, why) of each kernel path, for ``vnmsparse env``."""
    ok, why = jit.available()
    rows = [("runtime compilation (NVRTC via cuda-core)", ok, why)]
    if not torch.cuda.is_available():
        rows.append(("mma.sp kernel (sm_80+)", False, "no CUDA device"))
        return rows
    for i in range(torch.cuda.device_count()):
        dev = torch.device("cuda", i)
        ok_dev, why_dev = spmm_mma_sp.supported(dev)
        rows.append((f"mma.sp kernel on {dev} (sm_{''.join(map(str, torch.cuda.get_device_capability(i)))})", ok_dev, why_dev))
    return rows
