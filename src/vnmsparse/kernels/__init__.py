"""CUDA kernels of vnmsparse: sources in ``csrc/`` (package data), compiled at runtime by ``jit``.

Importing this package registers each kernel's layout with the ``vnmsparse::spmm`` op and lets
``vnmsparse.spmm`` pick the fastest kernel that runs on the input's device.
"""

from __future__ import annotations

import functools
import os
import warnings

import torch

from .. import ops
from . import jit, spmm_mma_sp, spmm_wgmma_sp

KERNEL_DTYPES = (torch.float16, torch.bfloat16)

ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT] = spmm_mma_sp.spmm_sm80
ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT_BULK] = spmm_mma_sp.spmm_sm90
ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT_DECODE] = spmm_mma_sp.spmm_sm90_decode
ops.LAYOUT_DECODERS[spmm_mma_sp.LAYOUT_DECODE] = spmm_mma_sp.canonical_from_layout
ops.LAYOUT_DECODERS[spmm_mma_sp.LAYOUT] = spmm_mma_sp.canonical_from_layout
ops.LAYOUT_DECODERS[spmm_mma_sp.LAYOUT_BULK] = spmm_mma_sp.canonical_from_layout
ops.CUDA_LAYOUTS[spmm_wgmma_sp.LAYOUT] = spmm_wgmma_sp.spmm_sm90a
ops.LAYOUT_DECODERS[spmm_wgmma_sp.LAYOUT] = spmm_wgmma_sp.canonical_from_layout
ops.CUDA_LAYOUTS[spmm_wgmma_sp.LAYOUT_AS_2_4] = spmm_wgmma_sp.spmm_sm90a_as_2_4
ops.FEATURE_MAJOR_OUT_LAYOUTS.update((spmm_wgmma_sp.LAYOUT, spmm_wgmma_sp.LAYOUT_AS_2_4))  # Y^T by the epilogue (v137)
ops.LAYOUT_DECODERS[spmm_wgmma_sp.LAYOUT_AS_2_4] = spmm_wgmma_sp.canonical_from_layout_as_2_4
ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT_AS_2_4] = spmm_mma_sp.spmm_sm80_as_2_4
ops.LAYOUT_DECODERS[spmm_mma_sp.LAYOUT_AS_2_4] = spmm_mma_sp.canonical_from_as_2_4_layout
ops.CUDA_LAYOUTS[spmm_mma_sp.LAYOUT_UNION] = spmm_mma_sp.spmm_sm80_union
ops.LAYOUT_DECODERS[spmm_mma_sp.LAYOUT_UNION] = spmm_mma_sp.canonical_from_union_layout
ops.CUDA_LAYOUTS[spmm_wgmma_sp.LAYOUT_UNION] = spmm_wgmma_sp.spmm_sm90a_union
ops.LAYOUT_DECODERS[spmm_wgmma_sp.LAYOUT_UNION] = spmm_wgmma_sp.canonical_from_layout_union
ops.FEATURE_MAJOR_OUT_LAYOUTS.add(spmm_wgmma_sp.LAYOUT_UNION)

@functools.lru_cache(maxsize=None)
def _best_kernel(device_index: int) -> int:
    """0: none (reference), 1: cp.async mma.sp kernel, 3: wgmma.sp kernel (sm_90a) past the decode kernel's tokens."""
    device = torch.device("cuda", device_index)
    ok, why = spmm_mma_sp.supported(device)
    if not ok:
        warnings.warn(f"vnmsparse: no Sparse Tensor Core kernel on {device} ({why}); using the PyTorch reference")
        return 0
    # The bulk-copy mma.sp kernel (2) is correct on sm_90 but slower than the cp.async one
    # (producer-bound, NOTES v2); it stays an explicit path.
    return 3 if spmm_wgmma_sp.supported(device)[0] else 1


# torch.compile evaluates this once at trace time instead of tracing the JIT's probing code.
@torch.compiler.assume_constant_result
def best_kernel(device_index: int) -> int:
    return _best_kernel(device_index)


# 64:2:8 from this many tokens runs as plain 2:4 (the as-2:4 layout: twice the math, but X by TMA
# and no column gather): on the H200 it is faster from T = 512 on and about even at 256 (mid-T and
# quick grids, LLaMA-7B shapes: 64:2:8 at T >= 2048 1.14-1.34x vs 0.71-0.91x gathered; at T = 128
# the gathered kernels win). Since v21 the gathered kernel wins at V = 128 (128:2:8, T >= 2048:
# 1.33-1.47x vs 1.09-1.17x as 2:4, quick grid v21q), so V % 128 == 0 stays gathered. It keeps a
# second weight image (2:4 over the full K, twice the bytes of the compact V:2:8 one);
# VNM_AS_2_4=0 turns the route off where memory matters more.
AS_2_4_MIN_TOKENS = 256


def _tma_readable(x) -> bool:
    """Row-major X with 16-byte rows: TMA can read it as B (the base's alignment is checked at launch)."""
    return x.is_contiguous() and x.shape[-1] % 8 == 0


# ... and on weights of more than sms / 2 row tiles of 128 (a wave of CTAs spans fewer than 2 token tiles,
# so each row tile of the twice-as-large image is read again per token tile) from AS_2_4_MANY_ROWS_MIN_TOKENS
# only. Grids v21-v24c had such weights 5-12% faster gathered; since the 2:4 kernel's cluster tile (v215) the
# image wins from T = 1024 (v266, H200, 64:2:8, as 2:4 / gathered: LLaMA-7B gate/up and q/k/v fused, LLaMA-13B
# and 70B gate/up, 22016 x 4096: geomean T = 1024 / 2048 / 4096 / 8192 0.925 / 0.903 / 0.904 / 0.894, every
# cell 0.86-1.00; T = 256 / 512 0.99 / 1.00, cells 0.88-1.20).
AS_2_4_MANY_ROWS_MIN_TOKENS = 1024


# ... and so do V % 64 != 0 weights (no wgmma.sp row tile: gathered, they run the cp.async mma.sp kernel) whose
# window is their union (below: 16:2:8, 16:2:16, 32:2:8) from AS_2_4_SMALL_V_MIN_TOKENS, and those whose union
# is half the window (16:2:32, 32:2:16) from AS_2_4_MIN_TOKENS. H200, geomean x cuBLAS over the quick grid's shapes,
# as 2:4 / before: v269 (T = 2048 / 8192) 1.29-1.31x against 0.19-0.64x gathered; v274-v275 (16:2:8, 32:2:8, 16:2:16)
# T = 1 1.69-1.73 / 1.67-2.10 (the decode kernel), T = 2 1.65-1.69 / 1.42-1.65, T = 4-128 1.01-1.66 / 0.22-1.54.
AS_2_4_SMALL_V_MIN_TOKENS = 2


def _as_2_4(x, vw, tokens: int) -> bool:
    v, m = vw.cfg.v, vw.cfg.m
    if os.environ.get("VNM_AS_2_4", "1").strip() == "0":
        return False
    if v % 64:
        shift = spmm_mma_sp.union_shift(v, m)
        if m % 4 or (shift is not None and m >> shift > 8):
            return False
        return tokens >= (AS_2_4_SMALL_V_MIN_TOKENS if shift is None else AS_2_4_MIN_TOKENS) and _tma_readable(x)
    if m != 8 or v % 128 == 0 or tokens < AS_2_4_MIN_TOKENS:
        return False
    if 2 * -(-vw.shape[0] // 128) > spmm_wgmma_sp._sms(x.device.index or 0) and tokens < AS_2_4_MANY_ROWS_MIN_TOKENS:
        return False
    return _tma_readable(x)


# On the mma.sp kernel (sm_80-89) such weights (a window no wider than the union: 16:2:8, 16:2:16, 32:2:8) run
# as 2:4 too, from AS_2_4_MMA_SP_MIN_TOKENS (measured on the H200, v277, as 2:4 / gathered x cuBLAS: T >= 256
# 0.31-0.39 / 0.10-0.27; T <= 64 0.16-0.77 / 0.28-1.06, where the 2:4 tiles keep V's row tile).
AS_2_4_MMA_SP_MIN_TOKENS = 256


def _as_2_4_mma_sp(vw, tokens: int) -> bool:
    v, m = vw.cfg.v, vw.cfg.m
    return (v % 64 != 0 and m % 4 == 0 and spmm_mma_sp.union_shift(v, m) is None and tokens >= AS_2_4_MMA_SP_MIN_TOKENS
            and os.environ.get("VNM_AS_2_4", "1").strip() != "0")


# The union layout (spmm_mma_sp.build_union_layout): V < 64 on 64-row tiles over the union of their blocks'
# kept columns, 64 / V column groups per M window, i.e. the gathered form of V = 64 at M / (64 / V) (the
# "effective M"). H200, geomean x cuBLAS over the quick grid's shapes (v271-v272), before / union: wgmma.sp at
# T >= 2048 32:2:32 and 16:2:64 1.23-1.44 (as 2:4) / 1.69-1.71, 32:2:64 and 16:2:128 1.23-1.44 / 2.50-2.59, 32:2:128
# 1.75-1.86 (mma.sp) / 3.27-3.47; at effective M = 8 (16:2:32, 32:2:16) as 2:4 leads from T = 256 (union 0.75-0.95
# of it). Union over the best other path by T: effective M <= 16 T = 8 0.95-1.01, T = 16-128 1.01-1.44; M = 32
# T = 16-32 0.89-1.06, T = 64 1.10-1.11, T >= 128 1.03-2.04; M >= 64 T = 64-128 0.95-1.09, T = 256 0.99-1.12,
# T = 384-768 1.35-1.61 (v279), T >= 1024 1.54-1.87; T <= 4 the decode kernel leads (T = 1: 0.66-0.96); effective
# M = 8 T = 12 1.07 (v275). UNION_MIN_TOKENS: (effective M at most, tokens from).
UNION_MIN_TOKENS = ((8, 9), (16, 16), (32, 64), (256, 256))
# The mma.sp kernel (sm_80-89, measured on the H200), union / gathered: effective M <= 16 T = 256 1.07-1.22,
# T >= 1024 1.27-1.54, T <= 128 0.81-1.15; M >= 32 T >= 1024 1.10-1.39, T = 256 0.90-1.01.
UNION_MMA_SP_MIN_TOKENS = ((16, 256), (256, 1024))


def _union(vw, tokens: int | None, wgmma: bool) -> bool:
    """Whether a call of ``tokens`` (None: every T, a compiled graph's one layout) runs the union
    layout (VNM_UNION=0: never)."""
    shift = spmm_mma_sp.union_shift(vw.cfg.v, vw.cfg.m)
    if shift is None or os.environ.get("VNM_UNION", "1").strip() == "0":
        return False
    m_eff = vw.cfg.m >> shift
    if tokens is None:  # (at T = 1 even with the mma.sp layout the graph keeps otherwise: 0.97-1.07, v272)
        return wgmma and m_eff <= 16
    least = next(t for most, t in (UNION_MIN_TOKENS if wgmma else UNION_MMA_SP_MIN_TOKENS) if m_eff <= most)
    return tokens >= least


def _select(x, vw, bias):
    """(layout, operands) for x, or with x None the layout that serves every token count (what
    VNMLinear keeps for compiled graphs): one image for every T, never a per-T one."""
    if torch.compiler.is_compiling():
        # A graph keeps one layout for every T, as VNMLinear's: picking by T would trace into the
        # decode planner's driver queries (dynamo inlines lru_cache'd functions).
        x = None
    device, dtype = (vw.device, vw.dtype) if x is None else (x.device, x.dtype)
    if device.type != "cuda" or vw.dtype not in KERNEL_DTYPES or dtype != vw.dtype or vw.cfg.m > 256:
        return None  # the kernels keep column offsets in bytes: m <= 256
    kind = best_kernel(device.index if device.index is not None else torch.cuda.current_device())
    if kind == 0:
        return None
    # Every token count (compiled graphs): the wgmma.sp kernel, which since v37's splits beats the
    # cp.async one at every T and pattern on the H200 (grid v37, geomean over 4 shapes, 64:2:8 ...
    # 128:2:128: T <= 8 1.27-3.14x vs 1.16-3.08x, T = 16-64 1.22-2.92x vs 0.99-2.69x, T >= 2048
    # 1.08-3.69x vs 0.51-3.16x); for V % 64 != 0 its layout is the cp.async kernel's, which it runs.
    tokens = None if x is None else x.numel() // max(1, x.shape[-1])
    if kind == 3 and x is not None and _as_2_4(x, vw, tokens):
        return spmm_wgmma_sp.LAYOUT_AS_2_4, spmm_wgmma_sp.layout_as_2_4(vw)
    if kind == 1 and x is not None and _as_2_4_mma_sp(vw, tokens):
        return spmm_mma_sp.LAYOUT_AS_2_4, spmm_mma_sp.as_2_4_layout_of(vw)
    if _union(vw, tokens, kind == 3):
        return ((spmm_wgmma_sp.LAYOUT_UNION, spmm_wgmma_sp.layout_union(vw)) if kind == 3
                else (spmm_mma_sp.LAYOUT_UNION, spmm_mma_sp.union_layout_of(vw)))
    if kind == 3 and x is None:
        return spmm_wgmma_sp.LAYOUT, spmm_wgmma_sp.layout_of(vw)
    if kind == 3 and x is not None:
        # 1-8 tokens (16 on weights of few rows at M >= 8, v81): the one-launch decode kernel (plain
        # 2:4 only where X cannot be read by TMA, v89: spmm_sm90a decides); past that the wgmma.sp
        # kernel at every T, K split within one wave (v37 grid, T = 16-32: 1.27-2.13x vs 1.18-2.06x on the cp.async
        # kernel, 0.97-2.05x on the decode kernel).
        # Where the decode kernel can read the fragment image (V % 64 == 0), spmm_sm90a runs it
        # there (v52): the "sm90" image is only built for the other V.
        if not spmm_mma_sp.decode_preferred(x.device, tokens, *vw.shape, vw.cfg.v, vw.cfg.m, x.dtype, image=True) \
                and spmm_mma_sp.decode_preferred(x.device, tokens, *vw.shape, vw.cfg.v, vw.cfg.m, x.dtype):
            return spmm_mma_sp.LAYOUT_DECODE, spmm_mma_sp.layout_of(vw, True)
        return spmm_wgmma_sp.LAYOUT, spmm_wgmma_sp.layout_of(vw)
    return spmm_mma_sp.LAYOUT, spmm_mma_sp.layout_of(vw)


ops.OPERAND_SELECTORS.append(_select)


def _union_skip(tokens: int, vw) -> str | None:
    if spmm_mma_sp.union_shift(vw.cfg.v, vw.cfg.m) is None:
        return "the union layout needs V < 64 dividing 64 and M > 4 x 64 / V"
    return None


def _op_path(layout: str, operands, skip_reason=None):
    """The path that runs the op on ``operands(vw)`` in ``layout`` (with ``skip_reason`` where it applies to some
    problems only)."""
    def path(x, vw, bias=None):
        return ops.spmm_op(x, *operands(vw), bias, *vw.shape, vw.cfg.v, vw.cfg.m, layout)

    if skip_reason is not None:
        path.skip_reason = skip_reason
    return path


def spmm_paths(device=None) -> dict:
    """name -> fn(x, vw, bias=None) for every SpMM implementation that runs on ``device``. A path
    that applies to some problems only has ``fn.skip_reason(tokens, vw)``: why not, or None."""
    device = torch.device(device) if device is not None else None
    if device is not None and device.type == "cuda" and not torch.cuda.is_available():
        device = None  # a CUDA device that this torch cannot reach: the reference path only
    paths = {"reference": _op_path("canonical", lambda vw: (vw.values, vw.positions, vw.columns))}
    if device is not None and device.type == "cuda" and spmm_mma_sp.supported(device)[0]:
        paths["mma_sp"] = _op_path(spmm_mma_sp.LAYOUT, spmm_mma_sp.layout_of)
    if device is not None and device.type == "cuda" and spmm_mma_sp.decode_supported(device)[0]:
        def decode_skip(tokens: int, vw) -> str | None:  # where it would run the bulk kernel instead
            steps = spmm_mma_sp.layout_steps(vw.shape[1], vw.cfg.m)
            if spmm_mma_sp.decode_plan(device, tokens, vw.shape[0], steps, vw.cfg.v, vw.cfg.m, vw.dtype) is None:
                return "the decode kernel does not apply (T > 64, or an X slice that does not fit)"
            return None

        paths["mma_sp_decode"] = _op_path(spmm_mma_sp.LAYOUT_DECODE, lambda vw: spmm_mma_sp.layout_of(vw, True),
                                          decode_skip)
    if device is not None and device.type == "cuda" and spmm_mma_sp.supported(device)[0]:
        def ws(x, vw, bias=None):  # the warp-specialised prefill kernel (opt-in, for A/B runs)
            return spmm_mma_sp.spmm_sm80(x, *spmm_mma_sp.layout_of(vw), bias, *vw.shape, vw.cfg.v, vw.cfg.m,
                                         tile=spmm_mma_sp.ws_tile(vw.cfg.v, vw.cfg.m))

        def ws_skip(tokens: int, vw) -> str | None:
            if spmm_mma_sp.ws_tile(vw.cfg.v, vw.cfg.m) is None:
                return "the warp-specialised mma.sp kernel needs V % 64 == 0 (or M = 4)"
            return None if tokens > 64 else "the warp-specialised mma.sp kernel is for prefill (T > 64)"

        ws.skip_reason = ws_skip
        paths["mma_sp_ws"] = ws
        paths["mma_sp_union"] = _op_path(spmm_mma_sp.LAYOUT_UNION, spmm_mma_sp.union_layout_of, _union_skip)
        paths["mma_sp_as_2_4"] = _op_path(spmm_mma_sp.LAYOUT_AS_2_4, spmm_mma_sp.as_2_4_layout_of)
    if device is not None and device.type == "cuda" and spmm_mma_sp.supported(device, bulk=True)[0]:
        paths["mma_sp_bulk"] = _op_path(spmm_mma_sp.LAYOUT_BULK, lambda vw: spmm_mma_sp.layout_of(vw, True))
    if device is not None and device.type == "cuda" and spmm_wgmma_sp.supported(device)[0]:
        paths["wgmma_sp"] = _op_path(spmm_wgmma_sp.LAYOUT, spmm_wgmma_sp.layout_of)
        paths["wgmma_sp_as_2_4"] = _op_path(spmm_wgmma_sp.LAYOUT_AS_2_4, spmm_wgmma_sp.layout_as_2_4)
        paths["wgmma_sp_union"] = _op_path(spmm_wgmma_sp.LAYOUT_UNION, spmm_wgmma_sp.layout_union, _union_skip)
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
        arch = "".join(map(str, torch.cuda.get_device_capability(i)))
        rows.append((f"mma.sp kernel, cp.async (sm_80+) on {dev} (sm_{arch})", ok_dev, why_dev))
        rows.append((f"mma.sp one-launch decode kernel (T <= {spmm_mma_sp.DECODE_MAX_TOKENS}, clusters; the default "
                     f"at T <= {spmm_mma_sp.DECODE_DEFAULT_MAX_TOKENS} (plain 2:4 only where X cannot be read by "
                     f"TMA), {spmm_mma_sp.DECODE_FEW_ROWS_MAX_TOKENS} on "
                     f"<= {spmm_mma_sp.DECODE_FEW_ROWS} rows at M >= 8, unless VNM_DECODE=0; "
                     f"the mma_sp_decode path) on {dev}",
                     *spmm_mma_sp.decode_supported(dev)))
        ok_bulk, why_bulk = spmm_mma_sp.supported(dev, bulk=True)
        rows.append((f"mma.sp kernel, bulk copies (sm_90) on {dev}", ok_bulk, why_bulk))
        ok_wg, why_wg = spmm_wgmma_sp.supported(dev)
        rows.append((f"wgmma.sp kernel (sm_90a; the default there past the decode kernel's tokens, "
                     f"V:2:8 as 2:4 from T = {AS_2_4_MIN_TOKENS}) on {dev}", ok_wg, why_wg))
    return rows
