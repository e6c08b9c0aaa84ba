"""Every torch.library schema of vnmsparse, with its reference implementation and fake.

``vnmsparse::spmm`` computes ``x @ W.T (+ bias)`` for a V:N:M weight W given as the tensors of a
layout (``"canonical"`` is the portable storage of :mod:`vnmsparse.format`; kernels register CUDA
implementations for their own layouts). The reference implementation below runs on any device
and is the fallback and the test oracle.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch

from .config import VNMConfig
from .format import VNMWeight, unpack_parts

# Kernel implementations register here: layout name -> fn(x, values, positions, columns, bias,
# out_features, in_features, v, m) for CUDA tensors. The CUDA kernel of the op dispatches on it.
CUDA_LAYOUTS: dict[str, Callable] = {}
# ... and how to get the canonical parts back from their layout (for backward):
# layout name -> fn(values, positions, columns, shape, cfg) -> (values, positions, columns).
LAYOUT_DECODERS: dict[str, Callable] = {}
# Layouts whose CUDA implementation takes ``out=``, a feature-major [T, R] buffer, and writes Y^T
# into it itself (``spmm(..., feature_major_out=True)``); the others' results are copied into one.
FEATURE_MAJOR_OUT_LAYOUTS: set[str] = set()
# VNMLinear.feature_major_out takes effect from this many tokens: below, the one-launch decode
# kernel writes rows and their copy into Y^T costs more than the next call's transpose saves
# (v142-v143: LLaMA-7B decode batch 8 at 128:2:32 1.53x -> 1.47x with it on).
FEATURE_MAJOR_MIN_TOKENS = 9


def spmm_reference(x, values, positions, columns, bias, out_features, in_features, v, m):
    """x @ W.T (+ bias) from the canonical parts, accumulating in fp32 (fp64 for fp64 x)."""
    cfg = VNMConfig(v, 2, m)
    w = unpack_parts(values, positions, columns, (out_features, in_features), cfg)
    # Half-precision inputs accumulate in float32 (as the tensor cores do), then round once.
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    y = torch.matmul(x.to(acc), w.to(acc).t())
    if bias is not None:
        y = y + bias.to(acc)
    return y.to(x.dtype)


@torch.library.custom_op("vnmsparse::spmm", mutates_args=())
def spmm_op(
    x: torch.Tensor,
    values: torch.Tensor,
    positions: torch.Tensor,
    columns: Optional[torch.Tensor],
    bias: Optional[torch.Tensor],
    out_features: int,
    in_features: int,
    v: int,
    m: int,
    layout: str,
) -> torch.Tensor:
    if layout != "canonical":
        raise ValueError(f"vnmsparse::spmm: layout {layout!r} has no implementation on {x.device.type}")
    return spmm_reference(x, values, positions, columns, bias, out_features, in_features, v, m)


@spmm_op.register_kernel("cuda")
def _spmm_cuda(x, values, positions, columns, bias, out_features, in_features, v, m, layout):
    if layout == "canonical":
        return spmm_reference(x, values, positions, columns, bias, out_features, in_features, v, m)
    impl = CUDA_LAYOUTS.get(layout)
    if impl is None:
        raise ValueError(f"vnmsparse::spmm: unknown CUDA layout {layout!r} (known: {sorted(CUDA_LAYOUTS)})")
    return impl(x, values, positions, columns, bias, out_features, in_features, v, m)


@spmm_op.register_fake
def _spmm_fake(x, values, positions, columns, bias, out_features, in_features, v, m, layout):
    return x.new_empty((*x.shape[:-1], out_features))


def _spmm_setup_context(ctx, inputs, output):
    x, values, positions, columns, bias, out_features, in_features, v, m, layout = inputs
    ctx.save_for_backward(values, positions, columns)
    ctx.meta = (out_features, in_features, v, m, layout, x.dtype, bias is not None)


def _spmm_backward(ctx, grad_y):
    # The weight is frozen: gradients flow to x (and bias) only, through the dense reference.
    values, positions, columns = ctx.saved_tensors
    out_features, in_features, v, m, layout, x_dtype, has_bias = ctx.meta
    shape, cfg = (out_features, in_features), VNMConfig(v, 2, m)
    if layout != "canonical":
        values, positions, columns = LAYOUT_DECODERS[layout](values, positions, columns, shape, cfg)
    w = unpack_parts(values, positions, columns, shape, cfg)
    acc = torch.float64 if x_dtype == torch.float64 else torch.float32
    grad_x = torch.matmul(grad_y.to(acc), w.to(acc)).to(x_dtype)
    grad_bias = None
    if has_bias:  # sum over every leading dim; a 1-D x has none
        grad_bias = grad_y.sum(tuple(range(grad_y.dim() - 1))) if grad_y.dim() > 1 else grad_y
    return grad_x, None, None, None, grad_bias, None, None, None, None, None


spmm_op.register_autograd(_spmm_backward, setup_context=_spmm_setup_context)


SPMM_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def check_spmm_inputs(x: torch.Tensor, vw: VNMWeight, bias: Optional[torch.Tensor]) -> None:
    """The rules of spmm's arguments, each broken one a TypeError/ValueError naming it."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"spmm: x must be a torch.Tensor, got {type(x).__name__}")
    if not isinstance(vw, VNMWeight):
        raise TypeError(f"spmm: weight must be a VNMWeight (see vnmsparse.pack), got {type(vw).__name__}")
    if x.dim() < 1:
        raise ValueError("spmm: x must have at least 1 dimension [..., K]")
    if x.shape[-1] != vw.in_features:
        raise ValueError(f"spmm: x's last dimension {x.shape[-1]} must equal the weight's K = {vw.in_features}")
    if x.dtype not in SPMM_DTYPES:
        raise TypeError(f"spmm: x dtype must be floating point, got {x.dtype}")
    if x.dtype != vw.dtype and not (x.dtype == torch.float64 and x.device.type == "cpu"):
        raise TypeError(f"spmm: x dtype {x.dtype} differs from the weight's {vw.dtype} (cast one of them)")
    if x.device != vw.device:
        raise ValueError(f"spmm: x is on {x.device} but the weight is on {vw.device} (move one with .to())")
    if bias is not None:
        if not isinstance(bias, torch.Tensor):
            raise TypeError(f"spmm: bias must be a tensor or None, got {type(bias).__name__}")
        if tuple(bias.shape) != (vw.out_features,):
            raise ValueError(f"spmm: bias must have shape ({vw.out_features},), got {tuple(bias.shape)}")
        if bias.device != x.device:
            raise ValueError(f"spmm: bias is on {bias.device} but x is on {x.device}")
        if bias.dtype != x.dtype:
            raise TypeError(f"spmm: bias dtype {bias.dtype} differs from x's {x.dtype}")


# Chooses the layout (and so the implementation) for a call: replaced by the kernel package when
# it can run on the current device. Returns (layout name, (values, positions, columns)).
def _canonical_operands(x: torch.Tensor, vw: VNMWeight):
    return "canonical", (vw.values, vw.positions, vw.columns)


OPERAND_SELECTORS: list[Callable] = []


def select_operands(x: Optional[torch.Tensor], weight: VNMWeight, bias: Optional[torch.Tensor] = None) -> tuple:
    """(layout, operands) for this call: the first kernel selector that takes (x, weight) — the
    choice may depend on the token count; x None asks for a layout that serves every x — else the
    reference's canonical operands. Layouts are built once and cached on the weight."""
    for select in OPERAND_SELECTORS:
        chosen = select(x, weight, bias)
        if chosen is not None:
            return chosen
    return _canonical_operands(x, weight)


def spmm(x: torch.Tensor, weight: VNMWeight, bias: Optional[torch.Tensor] = None, *,
         feature_major_out: bool = False) -> torch.Tensor:
    """``x[..., K] @ unpack(weight).T (+ bias)`` with the output in x's dtype.

    Runs a Sparse Tensor Core kernel for CUDA tensors where one is available, the PyTorch
    reference otherwise. x, weight and bias must share device and dtype (float64 x with a
    float32/half weight is allowed on CPU for reference checks). Any leading dimensions of x.
    ``feature_major_out``: the result's memory holds Y^T (token-contiguous, as ``x`` may be): a
    next call on a V:2:M weight then reads it with no transpose; elementwise ops in between keep
    that layout. The wgmma.sp kernel writes it directly; elsewhere it is a copy.
    """
    check_spmm_inputs(x, weight, bias)
    layout, operands = select_operands(x, weight, bias)
    r, k = weight.shape
    return spmm_with(x, layout, operands, bias, r, k, weight.cfg.v, weight.cfg.m, feature_major_out)


def spmm_with(x, layout, operands, bias, out_features, in_features, v, m, feature_major_out=False) -> torch.Tensor:
    """The call once its layout is chosen (spmm, VNMLinear): the kernel itself in eager inference
    (the dispatcher costs ~24 us per call, measured on CPU, more than a decode-sized kernel),
    else the registered op, which torch.compile and autograd see."""
    impl = CUDA_LAYOUTS.get(layout)
    tokens = x.numel() // max(1, in_features)
    if impl is not None and not torch.compiler.is_compiling() and not _needs_grad(x, bias):
        if feature_major_out and layout in FEATURE_MAJOR_OUT_LAYOUTS and tokens > 1:
            out = x.new_empty(out_features, tokens).t()
            return impl(x, *operands, bias, out_features, in_features, v, m, out=out)
        y = impl(x, *operands, bias, out_features, in_features, v, m)
    else:
        y = spmm_op(x, *operands, bias, out_features, in_features, v, m, layout)
    if not feature_major_out or tokens <= 1:
        return y
    return y.reshape(tokens, out_features).t().contiguous().t().view(y.shape)


def _needs_grad(x, bias) -> bool:
    return torch.is_grad_enabled() and (x.requires_grad or (bias is not None and bias.requires_grad))
