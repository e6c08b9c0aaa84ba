"""Host side of the mma.sp V:N:M SpMM (csrc/spmm_mma_sp.cu): layout, tile choice, launch.

Works on every GPU with Sparse Tensor Cores (sm_80 and newer). The reference it must match is
:func:`vnmsparse.ops.spmm_reference` (``x @ unpack(w).T + bias`` in fp32).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import weakref

import torch

from ..config import VNMConfig
from ..format import VNMWeight, _bits, pack, union_columns, unpack, unpack_parts
from ..ops import spmm_reference  # noqa: F401  (the kernel's reference, imported by its tests)
from . import autotune, jit

SOURCE = "spmm_mma_sp.cu"
LAYOUT = "sm80"  # cp.async kernel, any GPU with Sparse Tensor Cores
LAYOUT_BULK = "sm90"  # bulk-copy kernel, Hopper
LAYOUT_DECODE = "sm90_decode"  # the sm90 tensors, run by the one-launch decode kernel where it applies
LAYOUT_UNION = "sm80_union"  # V < 64: the union layout (below), cp.async kernel on 64-row tiles
LAYOUT_AS_2_4 = "sm80_as_2_4"  # a V:2:M weight (M % 4 == 0) as plain 2:4 over the full K (below)
KS = 16  # groups per pipeline stage; must match KS in the .cu
_PAD_CODE_BYTE = 0x44  # two padding groups with code (0, 1): valid ordered metadata
_IDENTITY_COLUMNS = 0x03020100
_CTYPE = {torch.float16: "__half", torch.bfloat16: "__nv_bfloat16"}
_PARAMS = ("ptr",) * 7 + ("i32",) * 9
SMEM_PER_SM = 233472  # H100/H200: 228 KB per SM, of which 1 KB is reserved per resident CTA
_DECODE_PARAMS = ("ptr",) * 6 + ("i32",) * 11


@dataclasses.dataclass(frozen=True)
class TileConfig:
    """One CTA tile: bm rows (divides V) x bn tokens, warp tile wm x wn, pipeline depth; `bulk`
    selects the sm_90 kernel (bulk copies from a producer warp) over the cp.async one."""

    bm: int
    bn: int
    wm: int
    wn: int
    stages: int
    bulk: bool = False
    producers: int = 0  # > 0: the warp-specialised cp.async kernel with this many producer warps
    persistent: bool = False  # (warp-specialised) a grid of resident CTAs striding over the tiles

    @property
    def threads(self) -> int:
        return (self.bm // self.wm) * (self.bn // self.wn) * 32 + (32 if self.bulk else 0) + 32 * self.producers

    @property
    def smem_bytes(self) -> int:
        return self.smem()

    def smem(self, xgm: int = 0) -> int:
        """Dynamic shared memory of the tile's kernel (mirrors SmemPlan / BulkPlan in the .cu); ``xgm``: the form that
        gathers from X's rows (:func:`gather_window`)."""
        epilogue = self.bn * (self.bm + 8) * 2
        if not self.bulk:  # (xgm: B's ring holds windows of X's rows, and one gathered tile follows the codes)
            stage = (self.bm * 2 * KS + (KS * xgm if xgm else 4 * KS) * self.bn) * 2 + self.bm * KS // 2
            if xgm:
                return max(self.stages * stage + 4 * KS * self.bn * 2, epilogue)
            if self.producers:  # + the full and empty mbarriers after the ring / epilogue tile (the .cu's WsPlan)
                staged = -(-self.stages * stage // 128) * 128 + epilogue if self.persistent else max(
                    self.stages * stage, epilogue)
                return -(-staged // 16) * 16 + 2 * self.stages * 8
            return max(self.stages * stage, epilogue)
        stage = (self.bm * 2 * KS + 4 * KS * (self.bn + 8)) * 2 + self.bm * KS // 2
        barriers = -(-2 * self.stages * 8 // 128) * 128
        return barriers + max(self.stages * stage, epilogue)

    @property
    def ctas_per_sm(self) -> int:
        """Resident CTAs an SM holds on sm_90 (228 KB of shared memory, 1 KB reserved per CTA; 64K
        registers, a thread needing ~96 besides its wm x wn / 32 accumulators: the compiler report
        gives 124-128 for 32 x 32 warp tiles, 164-168 for 64 x 32 and 32 x 64)."""
        by_smem = SMEM_PER_SM // (self.smem_bytes + 1024)
        if self.producers:  # the .cu's ws_planned_ctas: at most 2, whatever shared memory holds
            return max(1, min(2, by_smem))
        regs = 96 + self.wm * self.wn // 32
        return max(1, min(by_smem, 65536 // (self.threads * regs)))

    def __str__(self) -> str:
        kind = "bulk" if self.bulk else f"ws{self.producers}p" if self.producers else "sm80"
        return f"{kind}{self.bm}x{self.bn}w{self.wm}x{self.wn}s{self.stages}" + ("P" if self.persistent else "")

    def name(self, dtype: torch.dtype, has_cols: bool, split: bool, xrow: bool = False, xgm: int = 0) -> str:
        """``xrow``: the cp.async kernel reading a row-major X (plain 2:4, no column lists; :func:`reads_rows`);
        ``xgm``: reading it with column lists, gathered in the kernel from windows of m <= xgm (:func:`gather_window`)."""
        if xrow and (self.bulk or self.producers or has_cols != bool(xgm)) or (xgm and not xrow):
            raise ValueError(f"only the cp.async tiles read a row-major X, gathering it only with xgm > 0, not {self} "
                             f"with has_cols={has_cols}, xgm={xgm}")
        if self.persistent and not (self.producers and has_cols):
            # (without column lists its producers, at 40 registers, hoist each copy's offset out of the tile loop and
            # spill them: ~870 bytes)
            raise ValueError(f"only the warp-specialised tiles have a persistent form, and only for gathered weights "
                             f"(column lists; plain 2:4 runs the classic tiles), not {self} with has_cols={has_cols}")
        if self.producers:
            if split:
                raise ValueError(f"the warp-specialised tile {self} has no split-K variant")
            args = (_CTYPE[dtype], self.bm, self.bn, self.wm, self.wn, self.stages, self.producers, _b(has_cols)) + (
                ("true",) if self.persistent else ())
            return "vnm::spmm_mma_sp_ws<" + ", ".join(str(a) for a in args) + ">"
        args = (_CTYPE[dtype], self.bm, self.bn, self.wm, self.wn, self.stages, _b(has_cols), _b(split)) + (
            ("true",) if xrow else ()) + ((xgm,) if xgm else ())
        kernel = "spmm_mma_sp_bulk" if self.bulk else "spmm_mma_sp"
        return f"vnm::{kernel}<" + ", ".join(str(a) for a in args) + ">"


def _b(flag: bool) -> str:
    return "true" if flag else "false"


# v172 (H200): the cp.async 64-row decode tiles with 3 stages, not 6 (64 x 64: 38 KB, four CTAs an
# SM by registers, not two by shared memory): 64:2:8 T = 64, 4096^2 14.4 -> 13.5 us, 11008 x 4096
# 28.6 -> 26.5, 1024 x 4096 even; v174: T = 32 -2..-4%, T = 16 -5..-7% (4096^2 10.1 -> 9.4). The
# 128 x 64 one lost with 3 or 4 (+2..+3%).
# v352: the 128 x 64 one with 5 (87 KB of shared memory, not 104: sm_86 / sm_89 allow a CTA 99 KB; two CTAs an SM on
# sm_90 either way; not measured).
DECODE_STAGES = {(64, 64): 3, (64, 32): 3, (64, 16): 3, (128, 64): 5}


# The whole tile space: prefill tiles (bn >= 128) and decode tiles (bn <= 64), one per row-tile
# height. Only these exist; each one is compiled and checked by the tests.
# v352 (H100, tile sweep, X^T given, us, old tile / new): the cp.async kernel's prefill tiles with 64-wide warp tiles
# (each ldmatrix'ed B fragment feeds more mma.sp: 2/WM + 1/WN bytes of shared memory a MAC), since v349-v350 made
# their loops cheap: 128 x 128 / 64 x 64 / 4 stages against 128 x 64 / 64 x 32 / 4: 4096^2 x 8192 128:2:8 300-307
# -> 272-279, 128:2:16 168 -> 150, 2:4 580-607 -> 485-553 (3 stages 484-544), T = 2048 80.3 -> 67.5; 11008 x 4096 x 8192
# 908 -> 791 (3 stages); 4096 x 11008 x 4096 411 -> 383 (3 stages); the 128 x 256 one (one CTA an SM) lost to it in
# all three (319 / 814 / 392): dropped. 3 stages, not 4: 77 KB of shared memory, which sm_86 / sm_89 allow a CTA (99
# KB; 4 stages, 100 KB, do not), for 2-3% at 2:8 / 2:16 (within the sweep's +-7% spread). 64 rows: 64 x 128 / 32 x 64
# / 3 stages against 32 x 32 / 4, 64:2:8 4096^2 x 8192 385-395 -> 332 (4 stages 371, 5 385; the ws 64 x 256 tile 344).
_PREFILL = {  # bm: (bn, wm, wn, stages) of the cp.async kernel; the bulk kernel's (bn, wm, wn) and its stages
    False: {128: (128, 64, 64, 3), 64: (128, 32, 64, 3), 32: (128, 32, 32, 4), 16: (128, 16, 32, 4)},
    True: {128: (64, 64, 32, 6), 64: (128, 32, 32, 6), 32: (128, 32, 32, 6), 16: (128, 16, 32, 6)},
}


def _tiles(bulk: bool):
    decode_stages = 8 if bulk else 6
    out = {(bm, "prefill"): TileConfig(bm, *spec, bulk) for bm, spec in _PREFILL[bulk].items()}
    if not bulk:  # where its waves cost less than the 128 x 128 ones' (NARROW_PREFILL_COST)
        out[(128, "prefill_narrow")] = TileConfig(128, 64, 64, 32, 4)
    for bm in (128, 64, 32, 16):
        for bn in (16, 32, 64):
            stages = decode_stages if bulk else DECODE_STAGES.get((bm, bn), decode_stages)
            out[(bm, bn)] = TileConfig(bm, bn, max(16, bm // 4), bn, stages, bulk)
    return out


TILE_TABLE = {False: _tiles(False), True: _tiles(True)}
TILES = tuple(TILE_TABLE[False].values()) + tuple(TILE_TABLE[True].values())

# The warp-specialised prefill kernel (opt-in, path `mma_sp_ws`; NOTES "The mma.sp ceiling with
# its operands in shared memory", "v18-v21", "v350"): 64 x 64 warp tiles, four producer warps. Its rings need the shared
# memory of an A100 / H100 (>= 160 KB). v350 (H100, 4096^2 x 8192, X^T given; v349's addresses, the producer's loop
# 276 -> 147 instructions a stage): 128:2:8 426 -> 321 us, 64:2:8 (64 x 256) 435 -> 344, 128:2:16 183, 2:4 569; the
# classic tiles with 64-wide warp tiles (v352) as fast or faster: 273-283, 332, 150, 485-544. Not routed to.
WS_TILES = {128: TileConfig(128, 128, 64, 64, 6, producers=4), 64: TileConfig(64, 256, 64, 64, 5, producers=4)}


def ws_tile(v: int, m: int = 8) -> TileConfig | None:
    """The warp-specialised tile for V (m = 4 keeps every column: any V takes bm = 128), or None."""
    return WS_TILES[128] if m == 4 or v % 128 == 0 else WS_TILES[64] if v % 64 == 0 else None


def ws_forms(tile: TileConfig) -> dict:
    """v363, the forms of a warp-specialised tile whose consumer warps take the producer warpgroup's registers
    (setmaxnreg, sm_90a only; their sm_80 builds spill): ``two_ctas``, the ring shortened to fit two CTAs an SM, and
    for 128 rows ``wide``, 128 x 256 (8 consumer warps): two consumer warps a scheduler, where the 6-stage ring has one;
    and ``persistent``, 128 x 256 as one wave of CTAs striding over the tiles, the epilogue's tile beside a 3-stage ring
    (A and its codes read from L2 once per 256 tokens; the producers fill the next tile's stages during the epilogue).
    Neither 128 x 256 form is routed: one ring feeding eight consumer warps runs them in lockstep, 1.1-1.4x the
    two-CTA form's time (v364, v382-v384 on an H100: 4096^2 x 8192 128:2:8 wide 258 us, persistent 313-338, two_ctas
    227-229); they stay for the sweeps (scripts/tile_sweep.py)."""
    forms = {"two_ctas": dataclasses.replace(tile, stages=4 if tile.bm == 128 else 3)}
    if tile.bm == 128:
        forms["wide"] = dataclasses.replace(tile, bn=256, stages=5)
        forms["persistent"] = dataclasses.replace(tile, bn=256, stages=3, persistent=True)
    return forms


# v365: on sm_90a a gathered prefill runs the warp-specialised kernel's two-CTA forms instead of the table's classic
# tiles: two consumer warps a scheduler that only issue mma.sp. H100, X^T given, us, classic / ws (v363-v366): 128 x 128
# (the same tile and grid) 4096^2 x 8192 128:2:8 242-246 / 235-241, 128:2:16 136-140 / 128-132, 128:2:32 85.5 / 80.6,
# 11008 x 4096 x 8192 128:2:8 681-706 / 699-702, T = 1024 -1..-3%; 64 rows, 64 x 128 / 64 x 256 (v366, 64:2:8 and
# 64:2:16 on the grid's shapes): -3..-25%, but +7% on 1024 x 4096 at T = 2048, 128 CTAs of 64 x 256 (fewer than SMs:
# where the classic tile would split K, which the ws kernel does not, it stays). Not for plain 2:4 (no column lists:
# 435-471 / 474-514) nor the union layout; the 128 x 256 form (8 consumer warps, one CTA) 268-288 at 128:2:8.
# (A/B switch: False keeps the classic tiles.)
WS_PREFILL = True
# v371-v373: the ws form from a grid of WS_MIN_FILL[bm] x SMs CTAs (below one wave the classic tiles split K, the ws
# kernel runs unsplit), and also where the narrow 128 x 64 tile's waves cost less, but for grids of one to two ws CTAs
# an SM (there the narrow tile's three an SM even the load). H100, ws / narrow time (v372, 18 shapes, T = 256-8192):
# at most one CTA an SM (80-128 CTAs: LLaMA q/k/v/o, down, 70B q/o T = 256-512) 0.87-0.99, more than two (gate/up T =
# 512 / 2048, 13B T = 1024) 0.87-1.0, between (13B T = 512, 160 CTAs) 1.04-1.12; short-K BERT / BERT-base shapes
# 0.94-1.07 either way. 64 x 256 at 0.97 of the SMs: 1.07-1.13 (v371), so 64 rows keep "more CTAs than SMs".
WS_MIN_FILL = {128: 0.6, 64: 1.0}
WS_OVER_NARROW = True
WS_PREFILL_TILES = {bm: ws_forms(WS_TILES[bm])["two_ctas"] for bm in (128, 64)}


def row_tile(v: int) -> int:
    """Largest CTA row tile dividing V, so a CTA never straddles two V-row blocks."""
    return next(bm for bm in (128, 64, 32, 16) if v % bm == 0)


# v174, v176 (H200): gathered calls at T = 33-64 take the 64-row cp.async tile at V = 128 too (3 stages,
# four CTAs an SM: twice the CTAs in flight): 4096^2 128:2:8 15.2 -> 13.7 us, 128:2:16 11.7 -> 9.8,
# 4096 x 11008 128:2:8 26.0 -> 25.1, 11008 x 4096 and 1024 x 4096 even; at T = 16 / 32 -3% / even.
DECODE_64_ROWS = True  # (A/B switch: False keeps the row tile of V, as before v176)
# The widest cp.async decode token tile (A/B: 32 runs T = 33-64 as two 32-token tiles, which gather where
# GATHER_ROWS_MAX_TOKENS allows).
DECODE_MAX_TOKEN_TILE = 64


# The 128-row prefill's narrow tile, 128 x 64 (three CTAs an SM) against 128 x 128 (two), counted in whole waves: where
# the 128 x 128 grid rounds up worse, or fits one wave (v213: there the narrow tile's CTAs share the SMs two or three
# at once; 1024 x 4096 T = 2048 128:2:16 29.8 against 39.2 us). v352 (H100, the tiles above): a 128 x 128 wave costs
# 272 / 8 against 300 / 11 = 1.25 narrow ones at 4096^2 x 8192 128:2:8 (11008 x 4096 x 8192 1.16, 4096 x 11008 x 4096
# 1.40: partial last waves). (Until v351 the wide tile was 128 x 256, one CTA an SM, chosen the other way round at
# WIDE_PREFILL_COST 1.25-1.45.)
NARROW_PREFILL_COST = 1.25


def choose_tile(ntok: int, v: int, bulk: bool = False, has_cols: bool = True, rows: int = 0, sms: int = 0,
                sm90a: bool = False) -> TileConfig:
    """The tile by token regime and row tile; a prefill without column lists (m = 4 keeps every
    column, so a CTA may straddle V-row blocks) takes the 128-row tile whatever V (H200, v80: plain
    2:4, V = 64, 4096^2 x 4096 600 -> 524 us, LLaMA shapes -5..-8%; the decode regimes were mixed:
    T = 16 -16%, T = 1 and 64 +8%, so they keep the row tile of V, but for DECODE_64_ROWS). Given
    ``rows`` and ``sms``, a 128-row prefill takes 128 x 64 where its waves cost less (NARROW_PREFILL_COST);
    on ``sm90a`` a gathered one takes WS_PREFILL_TILES' form of its row tile where that grid has more CTAs than
    WS_MIN_FILL of the SMs (over the narrow tile: but for one to two CTAs an SM)."""
    regime = "prefill" if ntok > 64 else 16 if ntok <= 16 else 32 if ntok <= 32 or DECODE_MAX_TOKEN_TILE == 32 else 64
    bm = 128 if regime == "prefill" and not (bulk or has_cols) else row_tile(v)
    if DECODE_64_ROWS and regime == 64 and has_cols and not bulk:
        bm = min(bm, 64)
    tile = TILE_TABLE[bulk][(bm, regime)]
    narrow = TILE_TABLE[bulk].get((bm, "prefill_narrow"))
    if regime == "prefill" and narrow is not None and rows and sms:
        def waves(t):  # whole waves of the tile's CTAs, each SM holding ctas_per_sm of them
            return -(-(-(-rows // t.bm) * -(-ntok // t.bn)) // (sms * t.ctas_per_sm))

        if waves(narrow) < waves(tile) * NARROW_PREFILL_COST:
            tile = narrow
    ws = WS_PREFILL_TILES.get(bm)
    if not (regime == "prefill" and sm90a and has_cols and WS_PREFILL and ws and not bulk and rows and sms):
        return tile
    ctas = -(-rows // ws.bm) * -(-ntok // ws.bn)
    over_narrow = WS_OVER_NARROW and tile == narrow and not sms < ctas <= sms * ws.ctas_per_sm
    return ws if (tile == TILE_TABLE[False][(bm, "prefill")] or over_narrow) and ctas > sms * WS_MIN_FILL[bm] else tile


# Steps each K split keeps at least, in both kernels' split rules: a split of one step is mostly
# its reduction (decode, H200: 128:2:32 at T = 4, 8 x 1 steps 7.5 us, 4 x 2 6.2; v41: 2 against
# 4 and 8, best or even on 8 decode shapes).
MIN_SPLIT_STEPS = 2
# ... except the decode kernel's, where one step per split pays since its reduction is pushes over
# the cluster (v42, v47: 1024 x 4096 128:2:32 T = 1 2.8 -> 2.6 us, T = 8 3.9 -> 3.1; even where the
# plan does not change; v51a).
DECODE_MIN_SPLIT_STEPS = 1


def splits_for(ctas: int, steps: int, wave: int) -> int:
    """K splits for a grid of `ctas` CTAs when it cannot fill the GPU (decode): as many as keep
    the grid within one wave of `wave` CTAs, each split >= MIN_SPLIT_STEPS steps. Not further: each split
    writes, and the reduction reads, a [T, R] fp32 partial, and a second wave pays the pipeline
    fill again (v37 on the H200, wgmma.sp at T = 64: LLaMA gate/up 128:2:8 16.1 us unsplit
    against 22.5 with ~2 CTAs per SM, 128:2:32 6.5 against 14.7; down, 32 row tiles: 4 splits
    17.7 us against 21.6)."""
    return max(1, min(wave // ctas, steps // MIN_SPLIT_STEPS, 32)) if steps >= 2 * MIN_SPLIT_STEPS else 1


# v388 (H100, same-run A/B over BERT-large and two LLaMA-7B layers, T = 1-64): a cp.async call of 4 steps (K = 1024 at
# 2:16) ran 8-25% faster as one CTA a row tile than as two splits of 2 at every T (its reduction launch and the fp32
# partials, ~1.7x the weight's bytes at T = 64, cost more than 2 steps), while 8 steps (2:8) in 4 splits stayed best at
# T <= 16 and mixed above (x0.80-1.22 unsplit): at T <= 64 a split must save more than 2 steps (past 64 tokens, not
# measured, the wave rule alone as before).
MIN_STEPS_TO_SPLIT = 6


def choose_splits(tile: TileConfig, ntok: int, rows: int, steps: int, sms: int) -> int:
    """K splits of a cp.async tile: at T <= 64 none under MIN_STEPS_TO_SPLIT steps; a wave is 2 CTAs per SM (these tiles fit at
    least 2). At T <= 64 more splits while each evens the SMs' loads (the most work any SM gets, in whole
    CTAs' worth): H200 v160, LLaMA gate/up at V = 64 (172 row tiles: 1 split leaves 40 SMs two
    CTAs, 2 splits three halves) T = 16 / 32 / 64 22.0 / 25.6 / 33.3 -> 16.9 / 19.4 / 28.7 us, and
    v175, with the 3-stage 64-row tiles (four CTAs an SM), 3 splits (four thirds) T = 32 / 64 19.7 /
    27.2 -> 18.2 / 25.3; where it does not (86 row tiles, 3 splits: 4 loads 0.75 against 0.67) 4
    splits measured +27%."""
    if ntok <= 64 and steps < MIN_STEPS_TO_SPLIT:
        return 1
    ctas = -(-rows // tile.bm) * -(-ntok // tile.bn)
    splits = splits_for(ctas, steps, 2 * sms)

    def load(s):  # CTAs' worth of work on the busiest SM
        return -(-ctas * s // sms) / s

    while ntok <= 64 and ctas <= 2 * sms and splits < steps // MIN_SPLIT_STEPS and load(splits + 1) < load(splits):
        splits += 1
    return splits


# --------------------------------------------------------------------------------------------
# layout


def _padded(t: torch.Tensor, dim: int, size: int, fill: int) -> torch.Tensor:
    if t.shape[dim] == size:
        return t.contiguous()
    pad_shape = list(t.shape)
    pad_shape[dim] = size - t.shape[dim]
    return torch.cat([t, t.new_full(pad_shape, fill)], dim).contiguous()


def build_rows(vw: VNMWeight) -> tuple:
    """(values [R, Gp, 2], meta uint8 [R, Gp/2], cols int32 [RB, Gp] or None) from canonical storage: the
    row-major form that the kernel layouts block (and the wgmma.sp fragment images permute).

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
        _note_read_rows(cols, _read_columns(vw.columns, vw.cfg.m), k)
    return values, meta, cols


# v206: the rows of X^T that a gathered weight reads are the columns its blocks keep; where they
# are few (2:64 and 2:128 on weights of few row blocks: at most R/V x 4 of every M), the transpose
# writes only those. Kept per column-word tensor of a layout (the gathered calls look it up by the
# tensor they get; another tensor, e.g. a copy, gets the whole transpose), dropped with it.
READ_ROWS_MAX_FRACTION = 0.75  # denser masks are not kept (H200: 4096^2 128:2:64 T = 8192, 87%: +1%)
TRANSPOSE_READ_ROWS = True  # (A/B switch: False transposes every row)
_READ_ROWS: dict[int, torch.Tensor] = {}


def _read_columns(columns: torch.Tensor, m: int) -> torch.Tensor:
    """The X columns that offsets ``columns`` [RB, G, n] (inside each group of m) name, flat."""
    g = columns.shape[1]
    return (torch.arange(g, device=columns.device).view(1, g, 1) * m + columns.long()).flatten()


def _note_read_rows(cols: torch.Tensor, ks: torch.Tensor, k: int) -> None:
    """Keep, for the column words ``cols``, a uint8 [K] mask of the X columns ``ks`` that they
    read, if it leaves enough of them out (not while torch.compile traces, nor while a CUDA graph
    is captured: counting them reads the device)."""
    if torch.compiler.is_compiling() or (ks.is_cuda and torch.cuda.is_current_stream_capturing()):
        return
    reads = torch.zeros(k + 1, dtype=torch.uint8, device=ks.device)
    reads[ks.clamp(max=k)] = 1  # (a tail group's columns past K are not read: they land on the spare row)
    reads = reads[:k]
    if int(reads.sum()) <= READ_ROWS_MAX_FRACTION * k:
        key = id(cols)
        _READ_ROWS[key] = reads
        weakref.finalize(cols, _READ_ROWS.pop, key, None)


def read_rows(cols: torch.Tensor | None) -> torch.Tensor | None:
    """The mask :func:`_note_read_rows` kept for ``cols``, else None (every row is read)."""
    return None if cols is None or not TRANSPOSE_READ_ROWS else _READ_ROWS.get(id(cols))


# v340: the sm80 layout in blocks of BLOCK_ROWS rows, each block's stage contiguous (A 1 KB, codes 128 B), so that
# each copy instruction of the cp.async kernel asks L2 for whole lines: v338's ncu found L2's request rate the bound
# (91% busy), and row-major A and codes took 256 of a 128 x 64 stage's 320 requests (now 72). 16 rows: the
# smallest row tile, so every tile (any bm, the union's, as 2:4 at any V) reads whole blocks. H100, X^T given, us,
# row-major -> blocked: 4096^2 x 8192 128 x 64 tile 128:2:8 421 -> 368, 128:2:16 224 -> 200, 2:4 846 -> 697; 128 x
# 256 tile 0-2% faster; 11008 x 4096 x 2048 291 -> 249; 64:2:8 64 x 128 -3%; T = 64 decode tiles -7%.
BLOCK_ROWS = 16


def pair_codes(meta_t: torch.Tensor, inverse: bool = False) -> torch.Tensor:
    """The codes of a blocked layout [.., bm, KS / 2] (bm a multiple of 16) as the kernels' load_codes reads them
    (v359): each 16-row tile's 128 bytes as [gid 8][tig & 1][k-step 2] words, word (gid, h, s) holding bytes 4 s + 2 h
    and 4 s + 2 h + 1 of rows gid and gid + 8, one 8-byte load a lane; ``inverse`` undoes it."""
    i = torch.arange(128, device=meta_t.device)
    gid, h, s, e = i // 16, i // 8 % 2, i // 4 % 2, i % 4
    src = (gid + 8 * (e // 2)) * 8 + 4 * s + 2 * h + e % 2
    perm = torch.empty_like(src).scatter_(0, src, i) if inverse else src
    shape = meta_t.shape
    return meta_t.reshape(*shape[:-2], shape[-2] // 16, 128)[..., perm].reshape(shape)


def blocked(values: torch.Tensor, meta: torch.Tensor, bm: int) -> tuple:
    """(values_t [RB, steps, bm, 2 KS], meta_t [RB, steps, bm, KS / 2]): row-major operands (build_rows') in blocks
    of bm rows (padded with zero values and padding codes), each (block, stage) tile contiguous, A's 16-byte chunks
    pre-swizzled as the kernels' ldmatrix reads them (swizzle<4>)."""
    r, gp = values.shape[0], values.shape[1]
    steps, tiles = gp // KS, -(-r // bm)
    values = _padded(values.reshape(r, gp * 2), 0, tiles * bm, 0).view(tiles, bm, steps, 4, 8)
    values = torch.gather(values, 3, _swizzle(bm, values.device).view(1, bm, 1, 4, 1).expand_as(values))
    values_t = values.permute(0, 2, 1, 3, 4).contiguous().view(tiles, steps, bm, 2 * KS)
    meta = _padded(meta, 0, tiles * bm, _PAD_CODE_BYTE).view(tiles, bm, steps, KS // 2)
    meta_t = meta.permute(0, 2, 1, 3).contiguous()
    return values_t, pair_codes(meta_t)


def _swizzle(bm: int, device) -> torch.Tensor:
    """[bm, 4]: the chunk stored at each position of each row (swizzle<4>, an involution)."""
    return torch.arange(4, device=device).view(1, 4) ^ ((torch.arange(bm, device=device).view(bm, 1) // 2) & 3)


def rows_of(values_t: torch.Tensor, meta_t: torch.Tensor, r: int) -> tuple:
    """Inverse of :func:`blocked`: (values [r, Gp, 2], meta [r, Gp / 2])."""
    tiles, steps, bm, _ = values_t.shape
    v = values_t.view(tiles, steps, bm, 4, 8).permute(0, 2, 1, 3, 4)
    v = torch.gather(v, 3, _swizzle(bm, v.device).view(1, bm, 1, 4, 1).expand_as(v))
    values = v.reshape(tiles * bm, steps * KS, 2)[:r]
    meta_t = pair_codes(meta_t, inverse=True)
    return values, meta_t.permute(0, 2, 1, 3).reshape(tiles * bm, steps * KS // 2)[:r]


def blocked_layout(rows: tuple, bm: int = BLOCK_ROWS) -> tuple:
    """A row-major (values, meta, cols) in :func:`blocked` form."""
    values, meta, cols = rows
    return (*blocked(values, meta, bm), cols)


def build_layout(vw: VNMWeight) -> tuple:
    """The "sm80" layout (cp.async kernel): :func:`build_rows` in blocks of BLOCK_ROWS rows."""
    return blocked_layout(build_rows(vw))


def build_bulk_layout(vw: VNMWeight) -> tuple:
    """The "sm90" layout (bulk-copy and decode kernels): :func:`build_rows` in blocks of the row tile of V."""
    return blocked_layout(build_rows(vw), row_tile(vw.cfg.v))


def canonical_from_layout(values, meta, cols, shape, cfg: VNMConfig) -> tuple:
    """The canonical (values, positions, columns) back from a kernel layout, blocked or row-major (for backward)."""
    r, k = shape
    g = cfg.groups(k)
    if values.dim() == 4:
        values, meta = rows_of(values, meta, r)
    positions = meta[:, : -(-g // 2)].clone()
    if g % 2:
        positions[:, -1] &= 0x0F
    columns = None if cols is None else cols[:, :g].contiguous().view(torch.uint8).view(-1, g, 4)
    return values[:, :g].contiguous(), positions, columns


def layout_of(vw: VNMWeight, bulk: bool = False) -> tuple:
    """The sm80 layout, or (``bulk``) the sm90 one, cached on the weight; where the row tile of V is BLOCK_ROWS (V
    an odd multiple of 16) the two are the same tensors, held once (a model's prefill and decode share them)."""
    if bulk and row_tile(vw.cfg.v) != BLOCK_ROWS:
        return vw.layout(LAYOUT_BULK, settled_build(build_bulk_layout))
    return vw.layout(LAYOUT, settled_build(build_layout))


def settled_build(build):
    """``build``, its layout settled (jit.settle: the decode kernel reads it before its PDL wait)."""
    return lambda vw: jit.settle(build(vw))


# --------------------------------------------------------------------------------------------
# as 2:4: a V:2:M weight with M % 4 == 0 is also a plain 2:4 weight over the full K (every aligned 4 columns
# lie in one group and hold at most the row's 2 kept values). Run that way, nothing is gathered, at M / 4
# times the gathered form's math: it pays where the gathered form is slow (small V, small M).


def as_2_4_rows(vw: VNMWeight) -> tuple:
    """(values, meta, None): :func:`build_rows` of the weight packed as 2:4."""
    if vw.cfg.m % 4:
        raise ValueError(f"a V:2:M weight runs as 2:4 only when M % 4 == 0, got {vw.cfg}")
    return build_rows(pack(unpack(vw), VNMConfig(vw.cfg.v, 2, 4)))


def build_as_2_4_layout(vw: VNMWeight) -> tuple:
    """(values, meta, None): the sm80 layout of the weight packed as 2:4."""
    return blocked_layout(as_2_4_rows(vw))


def as_2_4_layout_of(vw: VNMWeight) -> tuple:
    return vw.layout(LAYOUT_AS_2_4, settled_build(build_as_2_4_layout))


def canonical_from_as_2_4_layout(values, meta, cols, shape, cfg: VNMConfig) -> tuple:
    """The weight's own canonical parts (at its M) back from the sm80 layout of it as 2:4."""
    as24 = VNMConfig(cfg.v, 2, 4)
    vw = pack(unpack_parts(*canonical_from_layout(values, meta, None, shape, as24), shape, as24), cfg)
    return vw.values, vw.positions, vw.columns


def spmm_sm80_as_2_4(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """:func:`spmm_sm80` on the :func:`as_2_4_layout_of` operands of a V:2:M weight (M % 4 == 0)."""
    return spmm_sm80(x, values, meta, None, bias, out_features, in_features, v, 4, **kw)


# --------------------------------------------------------------------------------------------
# union layout: a weight of V < 64 on row tiles of UNION_ROWS rows. A tile spans 64 / V row blocks;
# it gathers the union of their kept columns (format.union_columns: 4 x 64 / V of every M, topped up),
# on which the weight is plain 2:4. So B is shared by 64 rows (gathered X traffic as at V = 64) for
# 64 / V times the math of the gathered form, or M / (4 x 64 / V) less than plain 2:4 over the full K.
# The kernels see 4-column groups, 64 / V of them per M window: the window shift rides in m's high
# half (the .cu's gshift), their A is a 2:4 weight over the gathered columns.

UNION_ROWS = 64


def union_shift(v: int, m: int) -> int | None:
    """log2 of the 4-column groups per M window of the union layout, or None where it does not
    apply: V % 64 == 0 (a row tile lies in one block) or 4 x 64 / V >= M (the union is the whole
    window: that is plain 2:4, the as-2:4 image)."""
    per = UNION_ROWS // v if v < UNION_ROWS and UNION_ROWS % v == 0 else 0
    if not per or 4 * per >= m:
        return None
    return per.bit_length() - 1


def union_m(v: int, m: int) -> int:
    """The kernels' m argument of a union layout: M, and the window shift in the high half."""
    return m | union_shift(v, m) << 16


def effective_m(m: int) -> int:
    """The M of the gathered V:2:M form doing the same math per gathered column as the kernels' m
    argument (M, or a union layout's M / (64 / V)): what tile heuristics read."""
    return (m & 0xFFFF) >> (m >> 16)


def union_rows(vw: VNMWeight) -> tuple:
    """(values, meta, cols) in the row-major form (build_rows') of the union form at row blocks of UNION_ROWS (V < 64
    dividing it, 4 x 64 / V < M): values and meta of the weight restricted to its union columns, a
    2:4 weight; cols [R / 64, Gp] column words, 64 / V per group of M."""
    v, m = vw.cfg.v, vw.cfg.m
    if union_shift(v, m) is None:
        raise ValueError(f"the union layout needs V < {UNION_ROWS} dividing it and 4 x {UNION_ROWS} / V < M, "
                         f"got {vw.cfg}")
    r, k = vw.shape
    g = vw.cfg.groups(k)
    sel = union_columns(vw, UNION_ROWS)  # [R / 64, G, width]
    width = sel.shape[2]
    dense = unpack(vw)
    bits = torch.cat([_bits(dense), _bits(dense).new_zeros(r, g * m - k)], 1).view(r, g, m)  # (as bits: NaNs kept)
    compact = torch.gather(bits, 2, sel.repeat_interleave(UNION_ROWS, 0)[:r]).view(dense.dtype)
    values, meta, _ = build_rows(pack(compact.reshape(r, g * width), VNMConfig(UNION_ROWS, 2, 4)))
    words = sel.to(torch.uint8).reshape(sel.shape[0], -1).view(torch.int32)  # [R / 64, G x 64 / V]
    cols = _padded(words, 1, values.shape[1], _IDENTITY_COLUMNS)
    _note_read_rows(cols, _read_columns(sel, m), k)
    return values, meta, cols


def build_union_layout(vw: VNMWeight) -> tuple:
    """The sm80 layout of the union form: :func:`union_rows` in blocks."""
    return blocked_layout(union_rows(vw))


def union_layout_of(vw: VNMWeight) -> tuple:
    return vw.layout(LAYOUT_UNION, settled_build(build_union_layout))


def canonical_from_union_layout(values, meta, cols, shape, cfg: VNMConfig) -> tuple:
    """The canonical (values, positions, columns) back from a union layout (sm80 form, blocked or row-major)."""
    r, k = shape
    g, m = cfg.groups(k), cfg.m
    per = 1 << union_shift(cfg.v, m)
    as24 = VNMConfig(UNION_ROWS, 2, 4)
    compact = unpack_parts(*canonical_from_layout(values, meta, None, (r, 4 * per * g), as24), (r, 4 * per * g), as24)
    sel = cols[:, :g * per].contiguous().view(torch.uint8).view(-1, g, 4 * per).long()
    at = _read_columns(sel, m).view(sel.shape[0], -1).repeat_interleave(UNION_ROWS, 0)[:r]
    dense = compact.new_zeros(r, g * m)
    dense.scatter_(1, at, compact)
    vw = pack(dense[:, :k], cfg)
    return vw.values, vw.positions, vw.columns


def spmm_sm80_union(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """:func:`spmm_sm80` on the union layout of a V:2:M weight (V < 64): 64-row tiles."""
    return spmm_sm80(x, values, meta, cols, bias, out_features, in_features, UNION_ROWS, union_m(v, m), **kw)


# --------------------------------------------------------------------------------------------
# launch


@functools.lru_cache(maxsize=None)
def _sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


@functools.lru_cache(maxsize=None)
def _smem_optin(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).shared_memory_per_block_optin


@functools.lru_cache(maxsize=None)
def _sm90a(device_index: int) -> bool:
    """Whether the kernels are built for sm_90a there (setmaxnreg: WS_PREFILL_TILES)."""
    return torch.cuda.get_device_capability(device_index) == (9, 0)


def _on_sm90a(x: torch.Tensor) -> bool:
    return x.is_cuda and _sm90a(x.device.index or 0)


# Compile-time knobs for A/B runs (scripts/ab_wgmma.py --path mma_sp); empty in normal use.
DEFINES: dict = {}


def _kernel(name: str, params: tuple = _PARAMS, cluster_splits: bool = False):
    """Every kernel of this module, with the A/B knobs of DEFINES (and the cluster split epilogue: CLUSTER_SPLITS)."""
    return jit.get_kernel(SOURCE, name, params=params,
                          defines={**DEFINES, "VNM_CLUSTER_SPLITS": 1} if cluster_splits else DEFINES)


# v344: plain 2:4 (m == 4, nothing gathered) reads a row-major X as it is, B staged as token rows: no transpose
# launch, no 4 T K bytes of it through DRAM. H100, `mma_sp` row-major / transposed, us: 4096^2 T = 8192 650 / 762,
# T = 64 14.0 / 18.9; 11008 x 4096 T = 8192 1766 / 2008; 1024 x 4096 T = 8192 160 / 220 (spmm_h100_v344_xrow.md:
# x cuBLAS T >= 2048 0.46 -> 0.56, T <= 64 1.13 -> 1.35).
XROW_2_4 = True  # (A/B switch: False transposes X as for the gathered forms)


def reads_rows(x2: torch.Tensor, cols: torch.Tensor | None, m: int) -> bool:
    """Whether the cp.async kernel reads x2 [T, K] row-major as it is: plain 2:4 (m == 4, no column lists) on a
    :func:`row_major_runs` x2."""
    return XROW_2_4 and cols is None and m == 4 and row_major_runs(x2)


def row_major_runs(x2: torch.Tensor) -> bool:
    """A row-major x2 whose rows are 16-byte aligned runs (K % 8 == 0), not a feature-major one (read as X^T). (A
    thread's copies step over rows by a 32-bit byte offset: x2's row stride under 2^26 elements.)"""
    return (not is_feature_major(x2) and x2.stride(1) == 1 and x2.shape[1] % 8 == 0 and x2.stride(0) % 8 == 0
            and x2.stride(0) < 1 << 26 and x2.data_ptr() % 16 == 0)


# v391-v392: decode calls of a gathered weight with m <= 16 may read X's rows and gather the kept columns in the kernel
# (windows of KS m columns a stage, picked out of shared memory) instead of launching X's transpose first. On where
# measured (H100, same-run A/B): v392 (`ab_decode_h100_v392.txt`), calls unsplit by choose_splits' rule (fewer than
# MIN_STEPS_TO_SPLIT steps) at T <= 32, BERT-large's K = 1024 layers at 128:2:16, 0.95-1.65 us off 3.8-4.6 (x0.61-0.78);
# at T = 64 1-9% slower. v396 (`ab_decode_h100_v396.txt`), split calls (their partials and splitk_reduce as before):
# every BERT-large layer (R x K <= 4096 x 1024) at T <= 32, 64/128:2:8 and 2:16, x0.75-0.86 (e.g. FFN1 128:2:8 T = 32
# 6.66 -> 5.28 us, cuBLAS 5.69); LLaMA-7B's (R x K >= 4096^2) mixed, x0.78-1.41: its windows' L2 bytes (row tiles x T x
# K x 2, 2-4x the transposed rows') grow with the grid, and down (K = 11008) at 64:2:8 lost x1.18-1.24 even at T = 1.
# The limits are the measured regime.
GATHER_ROWS = True
GATHER_ROWS_MAX_TOKENS = 32
GATHER_ROWS_MAX_STEPS = MIN_STEPS_TO_SPLIT - 1
GATHER_ROWS_SPLIT_MAX_WEIGHTS = 4096 * 1024  # (R x K up to which split calls gather too)
GATHER_TILE_TOKENS = (16, 32)  # (the token tiles that gather: those calls of T <= 32 take; A/B: 64)


# (the kernel's gathered forms, GPU-tested: the decode tiles of 64 and 128 rows; routed where their tokens are in
# GATHER_TILE_TOKENS)
GATHER_FORMS = tuple(t for (bm, bn), t in TILE_TABLE[False].items() if bm in (64, 128) and bn in (16, 32, 64))


def gather_window(x2: torch.Tensor, cols: torch.Tensor | None, m: int, tile: TileConfig, steps: int, rows: int) -> int:
    """The kernel's window (8 or 16: the most columns a group, its XGM) where a cp.async call of tile over ``steps``
    steps and ``rows`` output rows gathers the kept columns from X's rows itself (GATHER_ROWS: column lists, m <= 16, a
    decode tile of GATHER_TILE_TOKENS tokens, at most GATHER_ROWS_MAX_TOKENS tokens, at most GATHER_ROWS_MAX_STEPS
    steps or a weight of at most GATHER_ROWS_SPLIT_MAX_WEIGHTS elements, a :func:`row_major_runs` x2; a union layout's
    m, its window shift in the high half, is > 16), else 0."""
    small = steps <= GATHER_ROWS_MAX_STEPS or rows * x2.shape[1] <= GATHER_ROWS_SPLIT_MAX_WEIGHTS
    routed = tile in GATHER_FORMS and tile.bn in GATHER_TILE_TOKENS
    if not (GATHER_ROWS and cols is not None and m <= 16 and routed and small and x2.shape[0] <= GATHER_ROWS_MAX_TOKENS
            and row_major_runs(x2)):
        return 0
    xgm = 8 if m <= 8 else 16  # (and where the GPU gives a CTA the windows' shared memory: sm_86 / sm_89 99 KB)
    return xgm if not x2.is_cuda or tile.smem(xgm) <= _smem_optin(x2.device.index or 0) else 0


def is_feature_major(x2: torch.Tensor) -> bool:
    """Whether the gather reads x2 [T, K] as it is: a token-contiguous view with 16-byte rows."""
    return x2.stride(0) == 1 and x2.shape[0] % 8 == 0 and x2.stride(1) % 8 == 0 and x2.data_ptr() % 16 == 0


# v187 (on since v188, whose run of every GPU suite passed with it): X^T's rows padded to whole
# 128-byte lines (T <= 64: 8, 16, 32 or 64 tokens; past that a multiple of 64), so that no gathered
# row straddles two lines. H200, us, off / on (ab_xt_pitch_h200_v187.txt): cp.async path 4096^2 64:2:8 T = 48 14.4 /
# 13.9, 128:2:8 T = 40 15.1 / 13.4, T = 24 11.0 / 10.2, T = 1000 100 / 92; auto (wgmma.sp) T = 24
# 9.4 / 9.0, T = 1000 36.7 / 26.0; T = 64 and 4095 even. The tiles load the first ceil(T / 8) * 8.
XT_PITCH_LINES = True


def xt_pitch(ntok: int) -> int:
    """Row stride in tokens of the transposed copy of an X of ntok tokens."""
    if not XT_PITCH_LINES:
        return -(-ntok // 8) * 8
    return max(8, 1 << (ntok - 1).bit_length()) if ntok <= 64 else -(-ntok // 64) * 64


def xt_tokens_within(pitch_max: int) -> int:
    """The most tokens whose :func:`xt_pitch` is at most ``pitch_max`` (0 if none)."""
    if not XT_PITCH_LINES:
        return pitch_max // 8 * 8
    return pitch_max // 64 * 64 if pitch_max >= 64 else 1 << (pitch_max.bit_length() - 1) if pitch_max >= 8 else 0


def feature_major(x2: torch.Tensor, cols: torch.Tensor | None = None):
    """(X^T pointer tensor, row stride, loadable tokens): x2 itself if it is already a token-
    contiguous view with 16-byte rows, else a transposed, token-padded copy, of only the rows that
    the column words ``cols`` read where :func:`read_rows` knows them. A token-contiguous x2
    whose rows are not 16-byte ones (e.g. T % 8 != 0, as an elementwise op leaves a feature-major
    chain's Y^T) goes to rows and back by two transposes: H200 v157, against one padded torch copy,
    us: 4095 x 11008 108.9 -> 103.3, 1001 x 4096 9.6 -> 8.6, 13 x 4096 3.6 -> 2.4, 2047 x 1024 6.8
    -> 5.4, 2047 x 4096 17.0 -> 19.2 (torch's contiguous() and one transpose: 1.5-3.5x slower)."""
    ntok, k = x2.shape
    if is_feature_major(x2):
        return x2, x2.stride(1), ntok
    ldxt = xt_pitch(ntok)
    x2 = as_rows(x2)  # then the transpose below
    xt = torch.empty(k, ldxt, dtype=x2.dtype, device=x2.device)
    grid = (-(-ldxt // 64), -(-k // 64), 1)
    wide = TRANSPOSE16 and k % 8 == 0 and x2.stride(0) % 8 == 0 and x2.data_ptr() % 16 == 0
    name = f"vnm::{'transpose_pad16' if wide else 'transpose_pad'}<{_CTYPE[x2.dtype]}>"
    _kernel(name, ("ptr", "ptr", "i32", "i32", "i32", "i32", "ptr")).launch(
        grid, (256, 1, 1), (x2, xt, ntok, k, x2.stride(0), ldxt, read_rows(cols)), pdl=True
    )
    return xt, ldxt, -(-ntok // 8) * 8


# v208: TMA reads a feature-major x (X^T's rows) whose rows are not whole 128-byte lines apart (T not
# a multiple of 64, as a feature-major chain's elementwise ops leave it at ragged T) at ~2/3 of its
# rate; past REPITCH_MIN_TOKENS a copy to rows of xt_pitch(T) pays for itself. H200, plain 2:4 by TMA,
# us, as it is / copied: 11008 x 4096 T = 200 57.5 / 36.1, T = 1000 151.7 / 108.1, 4096 x 11008 T = 200
# 45.5 / 35.3, 4096^2 T = 200 22.6 / 18.3, T = 1000 54.8 / 38.3-41.5; but 11008 x 4096 T = 100 36.5 /
# 38.1. The gather reads such rows at nearly full rate (4096^2 128:2:16 T = 200 7.6 / 9.4 us with the
# copy, 128:2:128 T = 1000 6.4 / 10.4): not for it.
REPITCH = True  # (A/B switch)
REPITCH_MIN_TOKENS = 129


def whole_lines(x2: torch.Tensor) -> torch.Tensor:
    """A feature-major x2 [T, K] (:func:`is_feature_major`) itself, or, with REPITCH from
    REPITCH_MIN_TOKENS tokens where its rows lie a pitch of no whole 64 tokens apart, a copy whose
    rows are xt_pitch(T) apart (zeros past T)."""
    ntok, k = x2.shape
    if not REPITCH or ntok < REPITCH_MIN_TOKENS or x2.stride(1) % 64 == 0:
        return x2
    ldxt = xt_pitch(ntok)
    xt = torch.empty(k, ldxt, dtype=x2.dtype, device=x2.device)
    _kernel(f"vnm::repitch16<{_CTYPE[x2.dtype]}>", ("ptr", "ptr", "i32", "i32", "i32", "i32")).launch(
        (-(-k * (ldxt // 8) // 256), 1, 1), (256, 1, 1), (x2, xt, ntok, k, x2.stride(1), ldxt), pdl=True
    )
    return xt.t()[:ntok]


def as_rows(x2: torch.Tensor) -> torch.Tensor:
    """x2 [T, K] with unit column stride: itself; a token-contiguous x2 by the transpose kernel (rows
    padded to whole 8 columns: a PDL launch, where a torch copy would end the chain of launches);
    else a copy."""
    if x2.stride(1) == 1:
        return x2
    return feature_major(x2.t())[0][:, :x2.shape[1]] if x2.stride(0) == 1 else x2.contiguous()


# v181-v183: the SpMM by programmatic dependent launch (sm_90), its CTAs spread over the SMs (jit's
# SPREAD_CTAS): it starts while X's transpose runs and its split reduction launches while it runs.
# H200, us, plain / PDL / PDL spread: 4096^2 64:2:8 T = 64 14.5 / 17.4 / 13.3, T = 16 9.8 / 9.1 /
# 9.1, T = 1 9.8 / 9.0 / 8.9, 4096 x 11008 64:2:8 T = 64 26.2 / 36.6 / 25.1. (A/B switch.)
SPMM_PDL = True

# v389: on sm_90 a cp.async call's K splits (2-8: the portable cluster size) form a thread-block cluster whose ranks sum
# their fp32 tiles through distributed shared memory in the kernel's epilogue (cluster_split_epilogue): no partials
# through L2 and no splitk_reduce launch. v388 (H100): that launch and the partials took the last ~2 us of a 4096 x
# 1024 x 64 128:2:8 call (6.9 us). Off: v392 (H100, same-run A/B over BERT-large and LLaMA-7B, T = 1-64, 2:8 and
# 2:16; `ab_decode_h100_v392.txt`) had it up to 1.72x the partials' time on BERT-large's split calls (FFN1's 2:8
# 1.5x) and 1.25-1.72x on LLaMA-7B's: likely as v38 found for the wgmma.sp kernel's, a grid of clusters does not
# all fit at once (a cluster's CTAs share a GPC; not profiled). Its test passes (bit-identical to the partials); the
# knob stays for a later form.
CLUSTER_SPLITS = False

# CUDA's limit on a grid's y (and z) dimension; launches whose token tiles exceed it run in chunks.
MAX_GRID_Y = 65535

# 16-byte transposes where the rows allow (v23, written after the device time ran out: the GPU
# tests cover it through every gathered call; scripts/sessions/gpu_v22.sh timed it against the 2-4-byte one).
TRANSPOSE16 = True


def spmm_sm80(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """Y = x @ W.T (+ bias) with the cp.async mma.sp kernel; operands in the "sm80" layout."""
    return _spmm(x, values, meta, cols, bias, out_features, in_features, v, m, bulk=False, **kw)


def spmm_sm90(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """Y = x @ W.T (+ bias) with the bulk-copy mma.sp kernel (sm_90); operands in the "sm90" layout."""
    return _spmm(x, values, meta, cols, bias, out_features, in_features, v, m, bulk=True, **kw)


def spmm_sm90_decode(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """:func:`spmm_sm90` with the one-launch decode kernel wherever it applies (T <= 64, sm_90)."""
    return _spmm(x, values, meta, cols, bias, out_features, in_features, v, m, bulk=True, decode=True, **kw)


def _spmm(x, values, meta, cols, bias, out_features, in_features, v, m, *, bulk: bool,
          tile: TileConfig | None = None, splits: int | None = None, out: torch.Tensor | None = None,
          decode: bool = False):
    """``tile``, ``splits`` and ``out`` (a contiguous [T, R] buffer) exist for tests and tuning;
    ``decode`` asks for the one-launch decode kernel where it applies (bulk layout)."""
    k, r = in_features, out_features
    block = row_tile(v) if bulk else BLOCK_ROWS
    if values.dim() != 4 or values.shape[2] != block or meta.shape[:3] != values.shape[:3]:
        raise ValueError(f"the {'sm90' if bulk else 'sm80'} layout holds values [R / {block}, steps, {block}, "
                         f"{2 * KS}] and meta of the same first three sizes (build_layout's), got values "
                         f"{tuple(values.shape)}, meta {tuple(meta.shape)}")
    y, x2, bias, done = prologue(x, bias, r, k, out)
    if done is not None:
        return done
    ntok = x2.shape[0]
    if bulk and decode and tile is None and splits is None:
        plan = decode_plan(x.device, ntok, r, values.shape[1], v, m, x.dtype)
        if plan is not None:
            spmm_decode(x2, values, meta, cols, bias, y, r, k, v, m, plan)
            return y.view(*x.shape[:-1], r)
    union = m >> 16  # (a union layout's window shift: the cp.async kernel only, untuned)
    if tile is None and splits is None and not bulk and autotune.enabled() and not union:
        tile, splits = _tuned(x, values, meta, cols, bias, r, k, v, m, ntok)
    tile = tile or choose_tile(ntok, v, bulk, cols is not None, r, _sms(x.device.index or 0),
                               not union and splits in (None, 1) and _on_sm90a(x))  # (ws: unsplit)
    if union and (bulk or tile.producers):
        raise ValueError(f"a union layout runs on the cp.async mma.sp kernel only, not tile {tile}")
    if cols is not None and v % tile.bm:
        raise ValueError(f"tile {tile}: its {tile.bm} rows must divide V = {v} (a CTA reads one V-row block's columns)")
    if tile.bulk != bulk or (bulk and tile.bm != row_tile(v)):
        raise ValueError(f"tile {tile} does not fit the {'sm90' if bulk else 'sm80'} layout of v={v}")
    if -(-ntok // tile.bn) > MAX_GRID_Y:  # the grid's y holds the token tiles: run in token chunks
        chunk = MAX_GRID_Y * tile.bn
        for t0 in range(0, ntok, chunk):
            _spmm(x2[t0:t0 + chunk], values, meta, cols, bias, r, k, v, m, bulk=bulk, tile=tile, splits=splits,
                  out=y[t0:t0 + chunk])
        return y.view(*x.shape[:-1], r)
    steps = values.shape[1]
    xgm = gather_window(x2, cols, m, tile, steps, r)
    xrow = xgm > 0 or (not bulk and not tile.producers and reads_rows(x2, cols, m))
    xt, ldx, ntok_load = (x2, x2.stride(0), ntok) if xrow else feature_major(x2, cols)
    gp = steps * KS
    if splits is None:
        splits = 1 if tile.producers else choose_splits(tile, ntok, r, steps, _sms(x.device.index or 0))
    if tile.producers and (splits != 1 or bulk or (cols is not None and v % tile.bm)):
        raise ValueError(f"the warp-specialised tile {tile} runs unsplit on the sm80 layout with bm dividing V "
                         f"(splits={splits}, v={v})")
    per_split = -(-steps // splits)
    splits = -(-steps // per_split)
    clustered = (1 < splits <= DECODE_MAX_SPLITS and CLUSTER_SPLITS and not bulk and not tile.producers
                 and _sm90a(x.device.index or 0) and y.is_contiguous())
    partial = torch.empty(splits, ntok, r, dtype=torch.float32, device=x.device) if splits > 1 and not clustered else None
    name = tile.name(x.dtype, cols is not None, splits > 1, xrow, xgm)
    grid = (-(-r // tile.bm), -(-ntok // tile.bn), splits)
    if tile.persistent:  # one wave of resident CTAs, each striding over the tiles
        grid = (min(grid[0] * grid[1], _sms(x.device.index or 0) * tile.ctas_per_sm), 1, 1)
    _kernel(name, cluster_splits=clustered).launch(
        grid, (tile.threads, 1, 1),
        (values, meta, cols, xt, bias, y, partial, r, k, ntok, ntok_load, ldx, gp, m, v, per_split),
        shared_mem=tile.smem(xgm), pdl=SPMM_PDL, spread=True, cluster=(1, 1, splits) if clustered else None,
    )
    if partial is not None:
        reduce_splits(partial, bias, y, _sms(x.device.index or 0))
    return y.view(*x.shape[:-1], r)


# ---------------------------------------------------------------------------------------------
# decode (T <= 64, sm_90): one launch per call (spmm_mma_sp_decode in the .cu): a CTA's loads
# issued from its start (A by bulk copies from the "sm90" image through DECODE_RING slots, codes in
# one more; X slice and column words by cp.async), the K splits of a row tile reduced over a
# thread-block cluster.

DECODE_MAX_TOKENS = 64  # the widest token tile (8, 16, 32 or 64 by T)
DECODE_MAX_SPLITS = 8  # the portable cluster size
DECODE_MAX_STEPS = 32  # steps per CTA: their codes and column words resident (DecodePlan::MAX_STEPS)
DECODE_MAX_SLICE_BYTES = 96 * 1024  # a CTA's X slice: bn x (width + 8) x 2 bytes
DECODE_MAX_SMEM = 227 * 1024
DECODE_ONE_WAVE = True  # v33: splits chosen by waves of clusters (False: v13's four CTAs per SM)
# v34: A tiles through this many slots per CTA (0: all of a CTA's steps resident, v13-v33). H200,
# T = 1, us for 0 / 4 / 2 slots: LLaMA down 2:4 41.2 / 16.6 / 17.3, gate/up 2:4 24.2 / 16.5 / 16.4,
# gate/up 128:2:8 15.8 / 11.4 / 10.6, down 128:2:8 21.1 / 11.7 / 11.5 (results/ab_decode_h200_v34.txt).
DECODE_RING = 2
# v240-v245: on the fragment image, a slot holds this many steps, copied by one bulk copy per 64-row block
# (the image keeps a block's steps together; v239: a CTA's 4 KB bulk copies run ~230 ns apart even all in
# flight), in CTAs of at least DECODE_GROUP_MIN_STEPS steps. H200, T = 1, us, v245 (aaede43's kernel ->
# this, alternating processes): LLaMA-7B gate/up 64:2:8 13.4 -> 11.8, down 64:2:8 14.1 -> 12.7, 2048 x 8192
# 64:2:8 7.4 -> 6.6; calls of CTAs with fewer steps unchanged (their kernel compiles as before: a runtime
# group of 1 had cost the 128-row tiles 4-10%, v244); copies of 2-4 steps in CTAs of 4 lost up to 21% (v240).
DECODE_GROUP = 2
DECODE_GROUP_MIN_STEPS = 8
# v280-v281: on the fragment image's 64-row tiles, A and its codes straight into registers instead (every
# lane loads its own fragments DECODE_AREG steps ahead, DECODE_AREG_SHORT in CTAs of at most
# DECODE_AREG_SHORT_STEPS steps: no bulk copies, no A slots in shared memory); 0: the slots above. H200,
# T = 1 unless stated, us, slots -> registers (results/ab_decode_areg_h200_v281.txt): 4096^2 64:2:8 7.2 -> 6.2
# (T = 8 9.2 -> 7.4), 64:2:16 5.0 -> 4.3, 64:2:32 4.2 -> 3.2, 5120^2 64:2:8 9.5 -> 7.3, LLaMA-7B down 64:2:8
# 12.7 -> 10.7, 1024 x 4096 3.6 -> 2.9; even on LLaMA gate/up (11.4 / 11.7, bound by DRAM there) and 13B's.
# 128-row tiles lost (128:2:16 3.9 -> 4.6, 11008 x 4096 6.6 -> 7.6): they keep the slots. Token tiles of at
# most DECODE_AREG_MAX_BN: wider ones hold more accumulators (bn 64 spills at depth 4).
DECODE_AREG = 4
DECODE_AREG_SHORT, DECODE_AREG_SHORT_STEPS = 8, 4  # (64:2:16 4.6 -> 4.3, 64:2:32 3.5 -> 3.2 against depth 4)
DECODE_AREG_DEPTHS = tuple(sorted({DECODE_AREG, DECODE_AREG_SHORT} - {0}))  # the depths compiled (name_expressions)
DECODE_AREG_MAX_BN = 16
DECODE_AREG_MAX_BM = 64  # ... and row tiles of at most this many rows
DECODE_AREG_WM = 16  # rows per warp (a 128-row tile: 8 warps, each loading one m16 tile's A)
# Where vnmsparse.spmm runs it on sm_90 (kernels._select, decode_preferred; VNM_DECODE=0 turns
# it off): up to this many tokens (plain 2:4 only where X cannot be read by TMA: spmm_sm90a, v89).
# Grid v37d (H200, geomean over 4 shapes, speed-up over cuBLAS, decode kernel vs wgmma.sp with K
# split within one wave): T = 8 1.24-2.54 vs 1.10-2.15 (2:4 ... 128:2:32); T = 16 0.97-2.05 vs
# 1.15-2.13 (128:2:8 and 128:2:16 even); T >= 24 slower: every CTA reads its whole X slice,
# T x m / (2 BM) times the weight bytes it streams. The "mma_sp_decode" path runs it at any T <= 64.
DECODE_DEFAULT_MAX_TOKENS = 8
# ... and up to this many where M >= 8 and the weight has at most DECODE_FEW_ROWS rows: there the
# wgmma.sp route needs many K splits and their reduction launch (H200, 1024 x 4096, v79 T = 16:
# 64:2:8 6.3 -> 5.3 us, 64:2:16 5.2 -> 4.2, 128:2:32 4.3 -> 3.7; v81 T = 12: 128:2:8 5.9 -> 5.1,
# 128:2:32 4.3 -> 3.5; 4096-row shapes +10..+100% at T = 16, 2048 rows even, plain 2:4 +27%).
DECODE_FEW_ROWS_MAX_TOKENS = 16
DECODE_FEW_ROWS = 1024
# ... where a CTA's X slice is at most this many bytes per weight byte it streams (T x m / (2 BM)):
# every CTA reads its whole slice (v248, 4 at 2:128 T = 6-8: 4096 x 11008 5.8 -> 4.5 us, 11008 x 4096
# 3.6 -> 5.0; mixed).
DECODE_MAX_X_PER_W = 2


def _decode_warp_tile(bm: int, bn: int, areg: int = 0) -> tuple[int, int]:
    """(rows, tokens) per warp of the decode kernel: up to four warps, split over tokens first
    (16 per warp) so that each B fragment is built once, then over rows (at least 16 per warp);
    with A in registers (``areg``), DECODE_AREG_WM rows per warp."""
    warps_n = min(4, max(1, bn // 16))
    warps_m = max(1, min(4 // warps_n, bm // 16))
    return (DECODE_AREG_WM if areg else bm // warps_m), bn // warps_n


def decode_name(dtype: torch.dtype, bm: int, bn: int, has_cols: bool, image: bool = False, grouped: bool = False,
                areg: int = 0) -> str:
    """The decode kernel for a (bm, bn) tile; ``image``: it reads the wgmma.sp fragment image
    (spmm_wgmma_sp.layout_of, bm a multiple of 64) instead of the "sm90" one; ``grouped`` (image
    only): A in copies of several steps (decode_group); ``areg`` (image only, not grouped): A into
    registers, that many steps ahead (DECODE_AREG)."""
    if (grouped or areg) and not image:
        raise ValueError("the decode kernel copies several steps at once or loads A into registers only on the "
                         "fragment image (image=True)")
    if grouped and areg:
        raise ValueError("the decode kernel's A comes in copies (grouped) or into registers (areg), not both")
    wm, wn = _decode_warp_tile(bm, bn, areg)
    return (f"vnm::spmm_mma_sp_decode<{_CTYPE[dtype]}, {bm}, {bn}, {wm}, {wn}, {_b(has_cols)}"
            + (f", true, false, {areg}>" if areg else ", true, true>" if grouped else ", true>" if image else ">"))


def decode_supported(device: torch.device) -> tuple[bool, str]:
    """Whether the decode kernel runs on ``device``: the mma.sp kernel's needs plus thread-block
    clusters (sm_90+). Cached: decode_plan asks on every call."""
    return _decode_supported(device.index if device.index is not None else torch.cuda.current_device())


@functools.lru_cache(maxsize=None)
def _decode_supported(index: int) -> tuple[bool, str]:
    device = torch.device("cuda", index)
    major, minor = torch.cuda.get_device_capability(device)
    if major < 9:
        return False, f"needs sm_90 (thread-block clusters), this is sm_{major}{minor}"
    return supported(device)


def decode_areg(image: bool, bm: int, bn: int, per: int | None = None) -> int:
    """Steps of A a decode CTA of `per` steps loads ahead into registers (DECODE_AREG, DECODE_AREG_SHORT in
    CTAs of at most DECODE_AREG_SHORT_STEPS; on the fragment image at row tiles of at most
    DECODE_AREG_MAX_BM and token tiles of at most DECODE_AREG_MAX_BN); 0: A by bulk copies into shared
    memory. Without `per`, the depth of longer CTAs (the driver's occupancy: both use as many registers)."""
    if not (DECODE_AREG and image and bm <= DECODE_AREG_MAX_BM and bn <= DECODE_AREG_MAX_BN):
        return 0
    return DECODE_AREG_SHORT if per is not None and per <= DECODE_AREG_SHORT_STEPS else DECODE_AREG


def decode_group(per: int, image: bool, bm: int, bn: int) -> int:
    """Steps per A copy of a decode CTA of `per` steps (DECODE_GROUP from DECODE_GROUP_MIN_STEPS on
    the fragment image, else 1)."""
    if not image or decode_areg(image, bm, bn) or per < DECODE_GROUP_MIN_STEPS:
        return 1
    return max(1, min(per, DECODE_GROUP))


def decode_ring(per: int, image: bool, bm: int, bn: int) -> int:
    """Steps of A a decode CTA of `per` steps holds in shared memory: DECODE_RING slots of
    decode_group steps, all of them (v13-v33) with 0, none where A goes into registers."""
    if decode_areg(image, bm, bn):
        return 0
    group = decode_group(per, image, bm, bn)
    groups = -(-per // group)
    return group * (min(groups, DECODE_RING) if DECODE_RING else groups)


def decode_smem_bytes(bm: int, bn: int, per: int, m: int, splits: int, image: bool, v: int = 0) -> int:  # mirrors DecodePlan::bars in the .cu, + barriers
    a, codes, units = bm * 2 * KS * 2, bm * KS // 2, bm // 8
    received = splits * -(-units // splits) * 8 * bn * 4 if splits > 1 else 0
    code_steps = 0 if decode_areg(image, bm, bn) else per
    col_steps = per * decode_vblocks(bm, v, m)
    body = (decode_ring(per, image, bm, bn) * a + code_steps * codes + col_steps * KS * 4 + bn * (per * KS * m + 8) * 2
            + received)
    return max(body, bn * (bm + 8) * 2) + (DECODE_MAX_STEPS + 1) * 8


def decode_vblocks(bm: int, v: int, m: int) -> int:
    """V-row blocks in a decode row tile of `bm` rows, as the kernel counts them: 2 for V = 64 in a 128-row
    tile (each with its own column words: decode_plan's ``bm``), else 1 (plain 2:4, m = 4, has no column words)."""
    return 2 if m > 4 and (bm, v) == (128, 64) else 1


@functools.lru_cache(maxsize=4096)
def decode_plan(device: torch.device, ntok: int, rows: int, steps: int, v: int, m: int,
                dtype: torch.dtype = torch.bfloat16, image: bool = False, bm: int = 0):
    """(bm, bn, splits, steps per split) of the decode kernel, or None where it does not apply: more
    than 64 tokens, no clusters (< sm_90), or a K range per CTA wider than its shared memory allows;
    with ``image`` (the kernel reading the fragment image), also a row tile that is not 64 or 128.
    ``bm``: the row tile (0: row_tile(v)); 128 at V = 64 runs two V-row blocks a CTA (the fragment
    image only, token tiles whose warps each hold rows of one block).
    Cached: a decode call asks twice (the selector, then the launcher), each time ~2.4 us of Python."""
    if ntok > DECODE_MAX_TOKENS or device.type != "cuda" or not decode_supported(device)[0]:
        return None
    bm, bn, per_max = _decode_tile(ntok, steps, v, m, image, bm)
    if per_max == 0:
        return None
    row_tiles = -(-rows // bm)
    if not DECODE_ONE_WAVE:  # v13's rule: about four CTAs per SM
        want = min(DECODE_MAX_SPLITS, steps, max(1, -(-4 * _sms(device.index or 0) // row_tiles)))
        splits = max(-(-steps // per_max), want)
        per = -(-steps // splits)
        return bm, bn, -(-steps // per), per
    # A CTA's loads start with it, so the fewest waves of clusters (a CTA of the last wave starts
    # its loads only when one of the first ends: ncu, LLaMA gate/up 128:2:8 at T = 1,
    # 7 splits, 1.14 waves, DRAM at 34%), then the most splits of >= DECODE_MIN_SPLIT_STEPS steps each
    # (v249-v250: fewer won on some 64-row tiles, lost on others, no rule between; autotune times them).
    best = None
    for splits, per in _decode_splits(steps, per_max, steps // DECODE_MIN_SPLIT_STEPS):
        smem = decode_smem_bytes(bm, bn, per, m, splits, image, v)
        waves = -(-row_tiles // _decode_clusters_at_once(device, bm, bn, smem, splits, dtype, image))
        if best is None or (waves, -splits) < best[0]:
            best = (waves, -splits), (splits, per)
    return bm, bn, *best[1]


def _decode_splits(steps: int, per_max: int, most: int) -> list[tuple[int, int]]:
    """The distinct (splits, steps a split) of `steps` in at most DECODE_MAX_SPLITS splits of at most
    `per_max` steps, up to `most` splits where the fewest allow; most steps a split first."""
    least = -(-steps // per_max)
    pers = {-(-steps // s) for s in range(least, min(DECODE_MAX_SPLITS, max(least, most)) + 1)}
    return [(-(-steps // per), per) for per in sorted(pers, reverse=True)]


def _decode_tile(ntok: int, steps: int, v: int, m: int, image: bool, bm: int = 0) -> tuple[int, int, int]:
    """(bm, bn, most steps a CTA) of the decode kernel (``bm``: the row tile, 0 for row_tile(v)); 0 steps
    where no plan fits."""
    bn = next(b for b in (8, 16, 32, 64) if ntok <= b)
    bm = bm or row_tile(v)
    if image and bm % 64:
        return bm, bn, 0
    if m > 4 and bm > v and not (image and decode_vblocks(bm, v, m) * v == bm and _decode_warp_tile(bm, bn)[0] <= v):
        return bm, bn, 0  # (several V-row blocks: two V = 64 ones on the fragment image, each warp's rows in one)
    per_max = min(DECODE_MAX_STEPS, DECODE_MAX_SLICE_BYTES // (bn * 2) // (KS * m))
    while per_max > 0 and decode_smem_bytes(bm, bn, per_max, m, DECODE_MAX_SPLITS, image, v) > DECODE_MAX_SMEM:
        per_max -= 1
    return bm, bn, per_max if per_max and -(-steps // per_max) <= DECODE_MAX_SPLITS else 0


def decode_plans(device: torch.device, ntok: int, rows: int, steps: int, v: int, m: int,
                 dtype: torch.dtype = torch.bfloat16, image: bool = False, bm: int = 0) -> list:
    """Every plan of the decode kernel for a call (row tile ``bm`` as decode_plan's), one per split count
    (autotune's candidates: no rule picks the best split count on every shape, v249-v250); [] where
    decode_plan has none."""
    if decode_plan(device, ntok, rows, steps, v, m, dtype, image, bm) is None:
        return []
    bm, bn, per_max = _decode_tile(ntok, steps, v, m, image, bm)
    return [(bm, bn, splits, per) for splits, per in _decode_splits(steps, per_max, steps)]


@functools.lru_cache(maxsize=1024)
def _decode_clusters_at_once(device: torch.device, bm: int, bn: int, smem: int, splits: int, dtype: torch.dtype,
                             image: bool = False) -> int:
    """Clusters of `splits` decode CTAs the GPU runs at once: the driver's count for the kernel of
    the call's dtype (asking with the other one compiled a kernel the call never runs), else (no
    GPU to ask: CPU tests) a count from shared memory alone, 92% of the SMs' CTA slots (the
    driver's figure for clusters of 7 on an H200)."""
    areg = decode_areg(image, bm, bn)
    wm, wn = _decode_warp_tile(bm, bn, areg)
    threads = (bm // wm) * (bn // wn) * 32
    if torch.cuda.is_available():
        try:
            kernel = _kernel(decode_name(dtype, bm, bn, True, image, areg=areg), _DECODE_PARAMS)
            return max(1, kernel.max_active_clusters(threads, (1, 1, splits), shared_mem=smem))
        except Exception:  # noqa: BLE001 - an estimate serves where the driver cannot answer
            pass
    per_sm = max(1, (228 * 1024) // (smem + 1024))
    return max(1, int(0.92 * _sms(device.index or 0) * per_sm) // splits)


def layout_steps(k: int, m: int) -> int:
    """Pipeline steps of a K-column weight in the kernel layouts (groups padded to KS, as build_layout)."""
    groups = -(-k // m)
    return max(1, -(-groups // KS))


def preferred_decode_plan(device: torch.device, ntok: int, rows: int, k: int, v: int, m: int,
                          dtype: torch.dtype = torch.bfloat16, image: bool = False, bm: int = 0):
    """The decode plan where vnmsparse.spmm runs the decode kernel (sm_90), else None: 1 to
    DECODE_DEFAULT_MAX_TOKENS tokens (DECODE_FEW_ROWS_MAX_TOKENS at M >= 8 on a weight of at most
    DECODE_FEW_ROWS rows), an X slice per CTA of at most DECODE_MAX_X_PER_W times the weight bytes it
    meets (T x m <= 2 DECODE_MAX_X_PER_W BM), and a plan (no fallback to the slower bulk kernel);
    ``image``: on the fragment image (V % 64 == 0, v52). VNM_DECODE=0 turns the route off. For
    V % 64 != 0 the kernel reads its own weight image (the "sm90" layout, the compact bytes once
    more), which a model that also runs prefill holds beside the sm80 one (but where the row tile of V is
    BLOCK_ROWS: there they are one, layout_of). ``bm``: as decode_plan's."""
    limit = DECODE_FEW_ROWS_MAX_TOKENS if m >= 8 and rows <= DECODE_FEW_ROWS else DECODE_DEFAULT_MAX_TOKENS
    if not 1 <= ntok <= limit or ntok * m > DECODE_MAX_X_PER_W * 2 * (bm or row_tile(v)):
        return None
    if not decode_route_on():
        return None
    return decode_plan(device, ntok, rows, layout_steps(k, m), v, m, dtype, image, bm)


def decode_route_on() -> bool:
    """vnmsparse.spmm may run the decode kernel (VNM_DECODE is not 0)."""
    return os.environ.get("VNM_DECODE", "1").strip() != "0"


def decode_preferred(device: torch.device, ntok: int, rows: int, k: int, v: int, m: int,
                     dtype: torch.dtype = torch.bfloat16, image: bool = False) -> bool:
    """Whether :func:`preferred_decode_plan` has a plan."""
    return preferred_decode_plan(device, ntok, rows, k, v, m, dtype, image) is not None


def spmm_decode(x2, values, meta, cols, bias, y, r, k, v, m, plan, image: bool = False) -> None:
    """One decode-kernel launch by ``plan`` (decode_plan's) into y; ``image``: the operands are the
    wgmma.sp fragment image (values [RB64, steps, 2, 128, 8], meta [RB64, steps, 64, 2]), whose
    per-warp registers are mma.sp's, so one weight image serves both kernels."""
    bm, bn, splits, per = plan
    # (a token-contiguous x, one the tiles cannot read as it is (T % 8 != 0), by the transpose kernel:
    # v153, auto_xt at T = 4 8.3 us with a torch copy here against 4.0 on row-major X)
    xr = as_rows(x2)
    areg = decode_areg(image, bm, bn, per)
    wm, wn = _decode_warp_tile(bm, bn, areg)
    group = decode_group(per, image, bm, bn)
    kernel = _kernel(decode_name(x2.dtype, bm, bn, cols is not None, image, group > 1, areg), _DECODE_PARAMS)
    kernel.launch(
        (-(-r // bm), 1, splits), ((bm // wm) * (bn // wn) * 32, 1, 1),
        (values, meta, cols, xr, bias, y, r, k, xr.shape[0], xr.stride(0), values.shape[1] * KS, m, v, per,
         per * KS * m, decode_ring(per, image, bm, bn), group),
        shared_mem=decode_smem_bytes(bm, bn, per, m, splits, image, v), cluster=(1, 1, splits) if splits > 1 else None,
        pdl=jit.settled(values, meta, cols),  # (it reads them before its PDL wait)
    )


def prologue(x, bias, r: int, k: int, out):
    """The start every launcher shares: (y [T, R], x as [T, K], contiguous bias, done), where
    ``done`` is the finished result when nothing needs a kernel (no tokens, R = 0 or K = 0)."""
    lead = x.shape[:-1]
    x2 = x.reshape(-1, k)
    ntok = x2.shape[0]
    y = torch.empty(ntok, r, dtype=x.dtype, device=x.device) if out is None else out
    done = None
    if ntok == 0 or r == 0:
        done = y.view(*lead, r)
    elif k == 0:
        done = (y.zero_() if bias is None else y.copy_(bias.expand(ntok, r))).view(*lead, r)
    return y, x2, None if bias is None else bias.contiguous(), done


# v56: the reduction 4 outputs per thread where R % 4 == 0 and y and bias are 8-byte aligned
# (16-byte partial loads), in blocks of this many threads; 0: one output per thread in 256 (A/B
# runs). Only from REDUCE_VEC_MIN outputs: below, 0.3-0.5 us slower whatever the block (v56b:
# 4096 x 16; even at 1024 x 64; 2-7% faster from 4096 x 32).
REDUCE_VEC, REDUCE_VEC_MIN = 64, 1 << 17
# Y^T (a feature-major out) from this many tokens on through splitk_reduce_t's shared-memory tiles;
# below (and past the grid's y), token-strided stores, which start beside the SpMM under PDL
# (v140-v143, us over Y row-major: T = 16 +1.4 strided against +3.9 tiled; T = 128 / 256 +10 / +21
# strided, +1.4 / +1.4 tiled).
REDUCE_T_TILED_MIN = 64


def reduce_splits(partial: torch.Tensor, bias, y: torch.Tensor, sms: int) -> None:
    """y = sum of the split-K fp32 partials [splits, T, R] + bias, in one deterministic pass. y: a
    contiguous [T, R], or the transpose of a contiguous [R, T] (a feature-major output: Y^T)."""
    splits, ntok, r = partial.shape
    args = (partial, bias, y, splits, ntok, r)
    params = ("ptr", "ptr", "ptr", "i32", "i32", "i32")
    yt = ntok > 1 and r > 1 and not y.is_contiguous()
    if yt and REDUCE_T_TILED_MIN <= ntok <= 32 * MAX_GRID_Y:  # (tiles of 32 tokens along the grid's y)
        _kernel(f"vnm::splitk_reduce_t<{_CTYPE[y.dtype]}>", params).launch(
            (-(-r // 32), -(-ntok // 32), 1), (32, 8, 1), args, pdl=True)
        return
    aligned = r % 4 == 0 and y.data_ptr() % 8 == 0 and (bias is None or bias.data_ptr() % 8 == 0)
    vec = REDUCE_VEC > 0 and ntok * r >= REDUCE_VEC_MIN and aligned and not yt
    n, threads = (ntok * r // 4, REDUCE_VEC) if vec else (ntok * r, 256)
    _kernel(f"vnm::splitk_reduce<{_CTYPE[y.dtype]}, {_b(vec)}{', true' if yt else ''}>", params).launch(
        (min(-(-n // threads), 1024 * sms // threads), 1, 1), (threads, 1, 1), args, pdl=True
    )


def _tuned(x, values, meta, cols, bias, r, k, v, m, ntok) -> tuple:
    """(tile, splits) that autotune picks among the cp.async tiles fitting V (any, without column lists), and on
    sm_90a for a gathered prefill the warp-specialised forms (unsplit)."""
    steps, sms = values.shape[1], _sms(x.device.index or 0)
    sm90a = _on_sm90a(x)
    tiles = [t for t in TILE_TABLE[False].values() if cols is None or v % t.bm == 0]
    tiles += [t for t in WS_PREFILL_TILES.values() if sm90a and cols is not None and ntok > 64 and v % t.bm == 0]
    return autotune.tile_and_splits(
        "mma_sp", x, r, k, ntok, v, m, tiles,
        lambda t: 1 if t.producers else choose_splits(t, ntok, r, steps, sms),
        lambda t, s, weights=(values, meta): _spmm(x, *weights, cols, bias, r, k, v, m, bulk=False, tile=t, splits=s),
        choose_tile(ntok, v, False, cols is not None, r, sms, sm90a), (values, meta))


def name_expressions(dtype: torch.dtype, arch: str | None = None) -> list[str]:
    """Every kernel of this file for one dtype (what the compile-everything test builds), of those built for
    ``arch`` (the setmaxnreg tiles, WS_PREFILL_TILES, for sm_90a only) if given."""
    names = [t.name(dtype, c, s) for t in TILES for c in (True, False) for s in (False, True)]
    names += [t.name(dtype, False, s, True) for t in TILE_TABLE[False].values() for s in (False, True)]
    names += [t.name(dtype, True, s, True, g) for t in GATHER_FORMS for s in (False, True) for g in (8, 16)]
    ws = (*WS_TILES.values(), *(WS_PREFILL_TILES.values() if arch in (None, "sm_90a") else ()),
          *((ws_forms(WS_TILES[128])["persistent"],) if arch in (None, "sm_90a") else ()))
    names += [t.name(dtype, c, False) for t in ws for c in (True, False) if c or not t.persistent]
    names += [decode_name(dtype, bm, bn, c) for bm in (128, 64, 32, 16) for bn in (8, 16, 32, 64) for c in (True, False)]
    names += [decode_name(dtype, bm, bn, c, True, g) for bm in (128, 64) for bn in (8, 16, 32, 64) for c in (True, False)
              for g in (False, True)]
    names += [decode_name(dtype, bm, bn, c, True, areg=a) for bm in (128, 64) for bn in (8, 16, 32, 64)
              if bm <= DECODE_AREG_MAX_BM and bn <= DECODE_AREG_MAX_BN for c in (True, False) for a in DECODE_AREG_DEPTHS]
    names += [f"vnm::splitk_reduce<{_CTYPE[dtype]}, {v}>" for v in ("false", "true", "false, true")]
    names += [f"vnm::splitk_reduce_t<{_CTYPE[dtype]}>"]
    return names + [f"vnm::transpose_pad<{_CTYPE[dtype]}>", f"vnm::transpose_pad16<{_CTYPE[dtype]}>",
                    f"vnm::repitch16<{_CTYPE[dtype]}>"]


def supported(device: torch.device, bulk: bool = False) -> tuple[bool, str]:
    major, minor = torch.cuda.get_device_capability(device)
    if major < 8:
        return False, f"sm_{major}{minor} has no Sparse Tensor Cores (needs sm_80+)"
    if bulk and (major, minor) != (9, 0):
        return False, f"the bulk-copy kernel is built for sm_90a, this GPU is sm_{major}{minor}"
    return jit.available()
