"""Host side of the mma.sp V:N:M SpMM (csrc/spmm_mma_sp.cu): layout, tile choice, launch.

Works on every GPU with Sparse Tensor Cores (sm_80 and newer). The reference it must match is
:func:`vnmsparse.ops.spmm_reference` (``x @ unpack(w).T + bias`` in fp32).
"""

from __future__ import annotations

import dataclasses
import functools

import torch

from ..config import VNMConfig
from ..format import VNMWeight
from ..ops import spmm_reference  # noqa: F401  (the kernel's reference, imported by its tests)
from . import jit

SOURCE = "spmm_mma_sp.cu"
LAYOUT = "sm80"
KS = 16  # groups per pipeline stage; must match KS in the .cu
_PAD_CODE_BYTE = 0x44  # two padding groups with code (0, 1): valid ordered metadata
_IDENTITY_COLUMNS = 0x03020100
_CTYPE = {torch.float16: "__half", torch.bfloat16: "__nv_bfloat16"}
_PARAMS = ("ptr",) * 7 + ("i32",) * 9


@dataclasses.dataclass(frozen=True)
class TileConfig:
    """One CTA tile: bm rows (divides V) x bn tokens, warp tile wm x wn, pipeline depth."""

    bm: int
    bn: int
    wm: int
    wn: int
    stages: int

    @property
    def threads(self) -> int:
        return (self.bm // self.wm) * (self.bn // self.wn) * 32

    @property
    def smem_bytes(self) -> int:  # mirrors SmemPlan in the .cu
        stage = (self.bm * 2 * KS + 4 * KS * self.bn) * 2 + self.bm * KS // 2
        return max(self.stages * stage, self.bn * (self.bm + 8) * 2)

    def name(self, dtype: torch.dtype, has_cols: bool, split: bool) -> str:
        args = (_CTYPE[dtype], self.bm, self.bn, self.wm, self.wn, self.stages, _b(has_cols), _b(split))
        return "vnm::spmm_mma_sp<" + ", ".join(str(a) for a in args) + ">"


def _b(flag: bool) -> str:
    return "true" if flag else "false"


# The whole tile space: prefill tiles (bn = 128) and decode tiles (bn <= 64), one per row-tile
# height. Only these exist; each one is compiled and checked by the tests.
PREFILL = {128: TileConfig(128, 128, 64, 32, 4), 64: TileConfig(64, 128, 32, 32, 4),
           32: TileConfig(32, 128, 32, 32, 4), 16: TileConfig(16, 128, 16, 32, 4)}
DECODE = {(bm, bn): TileConfig(bm, bn, max(16, bm // 4), bn, 6) for bm in (128, 64, 32, 16) for bn in (16, 32, 64)}
TILES = tuple(PREFILL.values()) + tuple(DECODE.values())


def row_tile(v: int) -> int:
    """Largest CTA row tile dividing V, so a CTA never straddles two V-row blocks."""
    return next(bm for bm in (128, 64, 32, 16) if v % bm == 0)


def choose_tile(ntok: int, v: int) -> TileConfig:
    bm = row_tile(v)
    if ntok > 64:
        return PREFILL[bm]
    return DECODE[(bm, 16 if ntok <= 16 else 32 if ntok <= 32 else 64)]


def choose_splits(tile: TileConfig, ntok: int, rows: int, steps: int, sms: int) -> int:
    """Split K when the grid cannot fill the GPU (decode): aim for ~2 CTAs per SM, >= 2 steps each."""
    ctas = -(-rows // tile.bm) * -(-ntok // tile.bn)
    if ctas >= sms or steps < 4:
        return 1
    return max(1, min(-(-2 * sms // ctas), steps // 2, 32))


# --------------------------------------------------------------------------------------------
# layout


def _padded(t: torch.Tensor, dim: int, size: int, fill: int) -> torch.Tensor:
    if t.shape[dim] == size:
        return t.contiguous()
    pad_shape = list(t.shape)
    pad_shape[dim] = size - t.shape[dim]
    return torch.cat([t, t.new_full(pad_shape, fill)], dim).contiguous()


def build_layout(vw: VNMWeight) -> tuple:
    """(values [R, Gp, 2], meta uint8 [R, Gp/2], cols int32 [RB, Gp] or None) from canonical storage.

    Group count padded to a multiple of KS; without padding the canonical tensors are reused."""
    r, k = vw.shape
    g = vw.cfg.groups(k)
    gp = max(KS, -(-g // KS) * KS)
    values = _padded(vw.values, 1, gp, 0)
    meta = vw.positions
    if g % 2:  # the unused high nibble of the last byte becomes a padding code
        meta = meta.clone()
        meta[:, -1] |= 0x40
    meta = _padded(meta, 1, gp // 2, _PAD_CODE_BYTE)
    cols = None
    if vw.columns is not None:
        cols = vw.columns.contiguous().view(torch.int32).view(vw.columns.shape[0], g)
        cols = _padded(cols, 1, gp, _IDENTITY_COLUMNS)
    return values, meta, cols


def layout_of(vw: VNMWeight) -> tuple:
    return vw.layout(LAYOUT, build_layout)


# --------------------------------------------------------------------------------------------
# launch


@functools.lru_cache(maxsize=None)
def _sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _kernel(name: str):
    return jit.get_kernel(SOURCE, name, params=_PARAMS)


def feature_major(x2: torch.Tensor):
    """(X^T pointer tensor, row stride, loadable tokens): x2 itself if it is already a token-
    contiguous view with 16-byte rows, else a transposed, token-padded copy."""
    ntok, k = x2.shape
    if x2.stride(0) == 1 and ntok % 8 == 0 and x2.stride(1) % 8 == 0 and x2.data_ptr() % 16 == 0:
        return x2, x2.stride(1), ntok
    if x2.stride(1) != 1:
        x2 = x2.contiguous()
    ldxt = -(-ntok // 8) * 8
    xt = torch.empty(k, ldxt, dtype=x2.dtype, device=x2.device)
    grid = (-(-ldxt // 64), -(-k // 64), 1)
    jit.get_kernel(SOURCE, f"vnm::transpose_pad<{_CTYPE[x2.dtype]}>", params=("ptr", "ptr", "i32", "i32", "i32", "i32")).launch(
        grid, (256, 1, 1), (x2, xt, ntok, k, x2.stride(0), ldxt)
    )
    return xt, ldxt, ldxt


def spmm_sm80(x, values, meta, cols, bias, out_features, in_features, v, m, *, tile: TileConfig | None = None,
              splits: int | None = None, out: torch.Tensor | None = None):
    """Y = x @ W.T (+ bias) with the mma.sp kernel; operands in the "sm80" layout.

    ``tile``, ``splits`` and ``out`` (a contiguous [T, R] buffer) exist for tests and tuning."""
    k, r = in_features, out_features
    lead = x.shape[:-1]
    x2 = x.reshape(-1, k)
    ntok = x2.shape[0]
    y = torch.empty(ntok, r, dtype=x.dtype, device=x.device) if out is None else out
    if ntok == 0 or r == 0:
        return y.view(*lead, r)
    if k == 0:
        return (y.zero_() if bias is None else y.copy_(bias.expand(ntok, r))).view(*lead, r)
    bias = None if bias is None else bias.contiguous()
    xt, ldx, ntok_load = feature_major(x2)
    tile = tile or choose_tile(ntok, v)
    gp = values.shape[1]
    steps = gp // KS
    if splits is None:
        splits = choose_splits(tile, ntok, r, steps, _sms(x.device.index or 0))
    per_split = -(-steps // splits)
    splits = -(-steps // per_split)
    partial = torch.empty(splits, ntok, r, dtype=torch.float32, device=x.device) if splits > 1 else None
    name = tile.name(x.dtype, cols is not None, splits > 1)
    grid = (-(-r // tile.bm), -(-ntok // tile.bn), splits)
    _kernel(name).launch(
        grid, (tile.threads, 1, 1),
        (values, meta, cols, xt, bias, y, partial, r, k, ntok, ntok_load, ldx, gp, m, v, per_split),
        shared_mem=tile.smem_bytes,
    )
    if partial is not None:
        n = ntok * r
        jit.get_kernel(SOURCE, f"vnm::splitk_reduce<{_CTYPE[x.dtype]}>", params=("ptr", "ptr", "ptr", "i32", "i32", "i32")).launch(
            (min(-(-n // 256), 4 * _sms(x.device.index or 0)), 1, 1), (256, 1, 1), (partial, bias, y, splits, ntok, r)
        )
    return y.view(*lead, r)


def name_expressions(dtype: torch.dtype) -> list[str]:
    """Every kernel of this file for one dtype (what the compile-everything test builds)."""
    names = [t.name(dtype, c, s) for t in TILES for c in (True, False) for s in (False, True)]
    return names + [f"vnm::transpose_pad<{_CTYPE[dtype]}>", f"vnm::splitk_reduce<{_CTYPE[dtype]}>"]


def supported(device: torch.device) -> tuple[bool, str]:
    major, minor = torch.cuda.get_device_capability(device)
    if major < 8:
        return False, f"sm_{major}{minor} has no Sparse Tensor Cores (needs sm_80+)"
    return jit.available()
