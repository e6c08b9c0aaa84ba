"""Host side of the Hopper wgmma.mma_async.sp V:N:M SpMM (csrc/spmm_wgmma_sp.cu): tiles, launch.

sm_90a only (H100/H200). The kernel reads the fragment image (:func:`build_frag_layout`, derived
from the mma.sp kernel's "sm80" layout and cached on the weight by :func:`layout_of`): A and its
metadata go from global memory straight into the consumers' registers, only X passes through
shared memory. For V not a multiple of 64 (V = 16, 32, 48, 96, ...) :func:`layout_of` is the sm80
layout itself and the cp.async mma.sp kernel runs on it. The v20 tiles (A by TMA, sm80 layout)
stay for A/B runs (SMEM_A_TILES). Reference: :func:`vnmsparse.ops.spmm_reference`.
"""

from __future__ import annotations

import dataclasses
import functools

import torch

from ..format import VNMWeight
from . import autotune, jit, spmm_mma_sp

SOURCE = "spmm_wgmma_sp.cu"
LAYOUT = "wgmma_sp"  # the ops layout name (dispatch key); the tensors are layout_of's
KS = spmm_mma_sp.KS  # groups per pipeline stage; must match wg::KS in the .cu
_CTYPE = {torch.float16: "__half", torch.bfloat16: "__nv_bfloat16"}
_PARAMS = ("ptr",) * 7 + ("i32",) * 10 + ("tmap",) * 3


@dataclasses.dataclass(frozen=True)
class WgTile:
    """One CTA tile: bm rows (64 per consumer warpgroup; divides V) x bn tokens (the wgmma N), and
    the pipeline depth. One producer warpgroup gathers for all consumers."""

    bm: int
    bn: int
    stages: int
    mb: int = 1  # m64 blocks per consumer warpgroup (2 needs a_regs)
    a_regs: bool = False  # A and metadata into registers, from the fragment image (build_frag_layout)
    staged: bool = False  # ... passing through the shared-memory ring by bulk copy (v22), not by LDG
    persistent: bool = False  # a grid of what fits at once, each CTA looping over tiles (v24)
    cluster: int = 1  # row tiles per cluster sharing X by TMA multicast (plain 2:4 by TMA only, v25)
    copy_steps: int = 1  # staged: ring stages per bulk copy of the fragment image (v100, GROUPED_TILES)

    def __post_init__(self):
        if self.copy_steps > 1 and not (self.staged and not self.persistent and self.stages % self.copy_steps == 0
                                        and self.stages >= 2 * self.copy_steps):
            raise ValueError(f"copy_steps = {self.copy_steps} needs a staged, non-persistent tile whose ring holds "
                             f"two or more whole groups (stages = {self.stages})")

    @property
    def consumers(self) -> int:
        return self.bm // (64 * self.mb)

    @property
    def threads(self) -> int:
        return 128 * (self.consumers + 1)

    @property
    def ctas_per_sm(self) -> int:  # __launch_bounds__ min blocks in the .cu
        return 2 if self.bm == 64 and self.bn <= 128 else 1

    @property
    def stage_bytes(self) -> int:
        if self.staged:  # X, the fragment image's A (64 B per row) and metadata (8 B per row)
            return 4 * KS * self.bn * 2 + self.bm * 64 + self.bm * 8
        return 4 * KS * self.bn * 2 + (0 if self.a_regs else self.bm * 2 * KS * 2 + self.bm * KS // 2)

    @property
    def smem_bytes(self) -> int:
        return self.smem(yt=False)

    def smem(self, yt: bool) -> int:
        """Mirrors wg::Plan::BYTES (yt: the Y^T staging, [bm][tokens + 8])."""
        pipe = self.stages * self.stage_bytes + 2 * self.stages * 8
        tokens = 64 if self.persistent else self.bn
        epilogue = (self.bm * (tokens + 8) if yt else tokens * (self.bm + 8)) * 2
        if not self.persistent:
            return max(pipe, epilogue) + 1024
        return -(-pipe // 1024) * 1024 + epilogue + 1024

    def name(self, dtype: torch.dtype, has_cols: bool, split: bool, tma_x: int = 0, yt: bool = False) -> str:
        """tma_x: the kernel's TMA_X (x_direct); yt: the variant that writes Y^T ([R, T], for a
        feature-major output; no K splits)."""
        args = (_CTYPE[dtype], self.bm, self.bn, self.stages, _b(has_cols), _b(split), int(tma_x))
        if self.a_regs or self.persistent or self.cluster > 1 or yt:
            args += (self.mb, 2 if self.staged else 1 if self.a_regs else 0)
        if self.persistent or self.cluster > 1 or self.copy_steps > 1 or yt:
            args += (_b(self.persistent),)
        if self.cluster > 1 or self.copy_steps > 1 or yt:
            args += (self.cluster,)
        if self.copy_steps > 1 or yt:
            args += (self.copy_steps,)
        if yt:
            args += (_b(yt),)
        return "vnm::spmm_wgmma_sp<" + ", ".join(str(a) for a in args) + ">"

    def __str__(self) -> str:
        return (f"wg{self.bm}x{self.bn}s{self.stages}" + ((f"t{self.mb}" if self.staged else f"r{self.mb}") if self.a_regs else "")
                + ("p" if self.persistent else "") + (f"c{self.cluster}" if self.cluster > 1 else "")
                + (f"g{self.copy_steps}" if self.copy_steps > 1 else ""))

    @property
    def x_by_tma_only(self) -> bool:
        """No gathered variant: clusters multicast X by TMA; the staged 256 x 128 one spilled with X^T."""
        return self.cluster > 1 or (self.staged and self.mb == 2)

    @property
    def gathers(self) -> bool:
        """Whether this tile has variants with column lists (V:2:M, M > 4): one m64 block per consumer; the
        two-block (256-row) ones run plain 2:4 only (v329: their gathered form on V = 256 weights passed its
        GPU test but cost 12-27% more time and 9-22% more energy a call than the 128-row tiles; NOTES)."""
        return self.mb == 1

    def takes(self, tma_x: int) -> bool:
        """Whether this tile has a variant that reads X so (x_direct's mode): clusters multicast
        row-major X only."""
        return tma_x == 1 if self.cluster > 1 else bool(tma_x) or not self.x_by_tma_only

    @property
    def splittable(self) -> bool:
        """Split-K exists for the decode tiles (bn <= 64) and for the wider ones with one m64 block
        per consumer and A in registers (TILES: their split variants spilled under the NVRTC 13.0
        of the first sessions, not under 13.0.88; v132). A persistent grid has no K splits (a CTA
        runs whole tiles), nor has a cluster."""
        wide = self.a_regs and not self.staged and self.mb == 1
        return (self.bn <= 64 or wide) and not self.persistent and self.cluster == 1

    def row_tiles(self, rows: int) -> int:
        """Row tiles of a launch, padded to whole clusters (the kernel's row_tiles)."""
        return -(-(-(-rows // self.bm)) // self.cluster) * self.cluster

    def fits_frag_image(self, rows: int) -> bool:
        """Whether the rows this tile's consumers read (whole padded row tiles) lie in the fragment image."""
        return self.row_tiles(rows) * self.bm <= frag_rows(rows)

    def grid(self, rows: int, ntok: int, splits: int, sms: int) -> tuple:
        """(row tiles, token tiles, K splits); persistent: what runs at once (whole clusters),
        each CTA looping over the tiles numbered row tile fastest."""
        row_tiles, tok_tiles = self.row_tiles(rows), -(-ntok // self.bn)
        if not self.persistent:
            return (row_tiles, tok_tiles, splits)
        return (min(row_tiles * tok_tiles, max(self.cluster, sms * self.ctas_per_sm // self.cluster * self.cluster)), 1, 1)


def _b(flag: bool) -> str:
    return "true" if flag else "false"


# The whole tile space; stages fill the shared memory of ctas_per_sm CTAs per SM. A and its
# metadata come into registers (v21, the fragment image of layout_of); 256 x 128 gives each
# consumer two m64 blocks (plain 2:4 only: 256 rows span two V = 128 blocks; autotune's choice).
TILES = (
    WgTile(128, 64, 12, 1, True), WgTile(128, 128, 10, 1, True), WgTile(128, 256, 6, 1, True),
    WgTile(256, 128, 10, 2, True),
    WgTile(64, 64, 12, 1, True), WgTile(64, 128, 6, 1, True), WgTile(64, 256, 6, 1, True),
)
TILE_TABLE = {(t.bm, t.bn): t for t in TILES if t.mb == 1}
# v20's tiles, A by TMA into shared memory from the sm80 layout: kept for A/B runs (NOTES v21:
# 0-9% slower on 2:4, 5-8% on gathered shapes). They read its row-major form, which each call rebuilds from the
# blocked layout (v340): their times include that copy.
SMEM_A_TILES = (
    WgTile(128, 64, 8), WgTile(128, 128, 8), WgTile(128, 256, 5),
    WgTile(64, 64, 8), WgTile(64, 128, 5), WgTile(64, 256, 3),
)
SMEM_A_TABLE = {(t.bm, t.bn): t for t in SMEM_A_TILES}
# v22: the fragment image staged through the ring by bulk copy, read into registers by 16-byte
# shared loads a stage ahead (NOTES "v22": within the noise on 2:4, 4% slower gathered). The
# 64-, 32- and 16-token ones run plain 2:4 at T = 9-64 (STAGED_2_4_TILES below); the others are
# for A/B runs; the 256 x 128 one with X by TMA only (its X^T variant spills).
STAGED_TILES = (
    WgTile(128, 64, 12, 1, True, True), WgTile(128, 32, 16, 1, True, True), WgTile(128, 16, 19, 1, True, True),
    WgTile(128, 128, 8, 1, True, True), WgTile(128, 256, 5, 1, True, True),
    WgTile(256, 128, 6, 2, True, True),
    WgTile(64, 64, 8, 1, True, True), WgTile(64, 32, 12, 1, True, True), WgTile(64, 16, 14, 1, True, True),
    WgTile(64, 128, 5, 1, True, True), WgTile(64, 256, 6, 1, True, True),
)


# v24 (NOTES): the same tiles, persistent: the producer fills the ring with the next tile's stages
# while the consumers run the epilogue (staged apart from the ring, 64 tokens a pass).
# v170 (NOTES): ... but the ones that choose_tile runs take A through the ring by the
# producer's bulk copies (v22's staged form), not by the consumers' global loads after each
# epilogue, which queued behind their own Y stores (v169 trace, gate/up 2:128: ~1.7k cycles of a
# ~9k-cycle tile). H200 (X feature-major, us): gate/up 2:128 T = 8192 91.6 -> 75.8, 4096^3 20.6 ->
# 18.7, 4096^2 x 8192 38.1 -> 32.3, 1024 x 4096 x 8192 10.8 -> 9.8 (4 stages; 5: 79.0 on gate/up).
# v172: the same form in 64 rows, 128 tokens wide (two CTAs an SM; no 64 x 256 one, which lost to it
# everywhere): V = 64 2:64 / 2:128 against the a_regs persistent 64 x 256 tile, us, 4096^2 x 8192 77.5
# -> 52.6, 11008 x 4096 x 8192 162.3 -> 102.2, 4096^3 31.4 -> 22.2 (the staged 64 x 256: 58.0 / 120.5 / 25.7).
PERSISTENT_STAGED = {(128, 256): WgTile(128, 256, 4, 1, True, True, persistent=True),
                     (128, 128): WgTile(128, 128, 7, 1, True, True, persistent=True),
                     (64, 128): WgTile(64, 128, 4, 1, True, True, persistent=True)}
PERSISTENT_TILES = tuple(dataclasses.replace(t, persistent=True) for t in TILES) + tuple(PERSISTENT_STAGED.values())
# v25 (NOTES): plain 2:4 with X by TMA, two row tiles per cluster loading half the X box each and
# multicasting it to both (X's L2 reads halved).
# (Clusters of 4, as cuSPARSELt's fastest 2:4 algorithm on the H200 runs, need R within the
# fragment image once padded to 4 row tiles: 512 rows; one CTA per tile, so the hardware places
# them where 4 SMs of a GPC are free.)
# (Measured and dropped: 64-token clusters of 2 / 4 (v57b) and cuSPARSELt's structure, A by TMA
# into shared memory with X multicast over 4 (v55); NOTES v58: slower but for one shape.)
# v215: ... and the staged persistent 128 x 256 tile in clusters of 2, which choose_tile runs (CLUSTER_2_4).
# v229: with cuSPARSELt's 5 stages (229,376 of an SM's 233,472 bytes) -1.6..-3.1% against 4 at 12 shapes
# in turns (ab_pc2_s5_h200_v229.txt, us: 4096^2 x 8192 294.2 -> 288.5, 4096 x 11008 x 8192 763.0 -> 746.4,
# 8192^2 x 4096 582.9 -> 570.7, 28672 x 8192 x 4096 2154.9 -> 2088.5). Y by TMA stores beside a 4-stage ring
# lost (+6%, v230): at the card's power limit, fewer cycles in a burst were more under load.
CLUSTER_2_4_TILE = WgTile(128, 256, 5, 1, True, True, persistent=True, cluster=2)
CLUSTER_TILES = (WgTile(128, 256, 6, 1, True, cluster=2), WgTile(128, 128, 10, 1, True, cluster=2),
                 WgTile(128, 256, 6, 1, True, persistent=True, cluster=2), WgTile(128, 256, 6, 1, True, cluster=4),
                 CLUSTER_2_4_TILE)
# v100-v101 (NOTES): the staged decode tiles with 4 ring stages per bulk copy, for gathered patterns
# at T = 9-64 where a CTA runs >= GROUPED_MIN_STEPS steps (four copy groups; fewer lost: 4096^2
# 128:2:16 at 4 steps +6%). LLaMA gate/up 128:2:8 T = 16 / 64 13.6 / 13.9 -> 12.5 / 12.5 us,
# down 12.8 / 14.7 -> 12.2 / 13.9, gate/up 64:2:8 15.1 / 14.4 -> 14.1 / 13.6 (against the r1 tiles).
# v114: the same for the gathered 16- and 32-token tiles (NARROW_TILES below): LLaMA gate/up
# 128:2:8 T = 16 12.5 -> 10.7 us with copies of 4 stages against 12.5 with one.
_STAGED = {(t.bm, t.bn): t for t in STAGED_TILES if t.mb == 1}  # (bm, bn) -> the staged tile
GROUPED_TILES = {key: dataclasses.replace(_STAGED[key], stages=stages, copy_steps=4) for key, stages in {
    (128, 64): 12, (64, 64): 8, (128, 16): 20, (128, 32): 16, (64, 16): 16, (64, 32): 12}.items()}
GROUPED_MIN_STEPS = 16


def row_tile(v: int, m: int = 8) -> int | None:
    """CTA row tile: 128 (two consumer warpgroups) if it divides V, else 64, else None (V % 64 != 0:
    the mma.sp kernel runs instead). A tile shares one gathered column set, so it must lie inside
    a V-row block; m = 4 keeps every column, so any V takes 128."""
    if m == 4:
        return 128
    return 128 if v % 128 == 0 else 64 if v % 64 == 0 else None


# Plain 2:4 at T <= 64 stages A through the ring by bulk copy (12 stages in flight) rather than
# loading it into registers 8 stages ahead, which bound each SM at ~27 GB/s (v59 on the H200, ncu:
# DRAM 44%, consumers waiting on the A loads): LLaMA gate/up T = 16 / 32 / 64 30.1 / 26.6 / 23.3 ->
# 25.0 / 21.6 / 21.8 us, down 21.3 -> 19.2, 4096^2 -3%; gathered shapes 7-10% slower (v59), so m = 4 only.
STAGED_2_4 = STAGED_TILES[0]
# v62: with X by TMA, a token tile as narrow as T frees shared memory for more stages of A (16 at
# 32 tokens, 19 at 16): LLaMA gate/up T = 32 21.2 -> 18.9 us, T = 16 23.9 -> 19.5 (18.7 with the
# 32-token tile), 4096^2 T = 16 11.2 -> 9.3, down T = 16 19.4 -> 16.4 (H200, ab_v63). Narrowest first.
STAGED_2_4_NARROW = (STAGED_TILES[2], STAGED_TILES[1])
# v72: where 128-row tiles leave SMs idle yet number over half the SMs (no K split fits one wave:
# LLaMA-7B gate/up, 86 of 132), 64-row staged tiles two per SM reach every SM: gate/up T = 64 / 32
# / 16 21.5 / 19.1 / 19.2 -> 18.7 / 17.3 / 16.9 us; 3-8% slower where splits fill the GPU (4096
# rows). Same token widths as STAGED_2_4 and STAGED_2_4_NARROW, X by TMA.
STAGED_2_4_HALF = {64: STAGED_TILES[6], 32: STAGED_TILES[7], 16: STAGED_TILES[8]}
# (v198-v199 held them to T whose last X box had at most 10 rows past T, where a whole box zero-filled
# past T slowed them; since v204 that box is as short as T allows, and the 64-row tiles win at every T:
# v204b, us, 128-row -> 64-row, LLaMA gate/up T = 17 / 20 / 33 / 40 / 48 18.7 / 18.7 / 20.6 / 20.6 /
# 20.6 -> 16.3 / 16.3 / 17.3 / 17.3 / 17.3, LLaMA-13B T = 20 / 40 22.8 / 25.3 -> 22.4 / 22.4.)
STAGED_2_4_TILES = (STAGED_2_4,) + STAGED_2_4_NARROW + tuple(STAGED_2_4_HALF.values())
# v114: V:2:M at T <= 32 on the same staged tiles, B gathered into 16- or 32-token stages
# (wg::GatherB), where the 64-token tiles moved 2-4x the B bytes the tokens need and held fewer
# stages: LLaMA gate/up 128:2:8 T = 16 / 32 12.6 / 12.4 -> 10.7 / 11.0 us, 64:2:8 T = 16 14.2 ->
# 11.2, 4096^2 T = 16 8.2 -> 7.6; the 64-token tiles stay on weights of at most DECODE_FEW_ROWS
# rows (1024 x 4096 T = 32 6.2 against 6.4). Keyed (bm, bn); GROUPED_TILES has their grouped forms.
NARROW_TILES = {key: t for key, t in _STAGED.items() if t.bn < 64}
# ... and they take over from the one-launch decode kernel at T <= 8 on weights whose compact bytes
# reach both NARROW_DECODE_MIN_BYTES and NARROW_DECODE_BYTE_TOKENS[row tile] / T: the decode kernel wins on
# small weights by its one launch (no transpose, no reduction launch) and slows with T, the staged
# tile streams faster and is flat in T (v115, us, decode kernel -> staged tile: LLaMA-70B gate/up
# 128:2:8, 117 MB, T = 2 / 8 49.1 / 52.2 -> 37.5 / 37.6; LLaMA-7B down 128:2:8, 22.5 MB, T = 2 / 8
# 13.4 / 14.7 -> 12.1 / 12.1; gate/up 128:2:16, 11.3 MB, T = 2 7.4 -> 7.8, T = 4 8.1 -> 7.9, T = 8
# 8.8 -> 7.8; 4096^2 128:2:8, 8.4 MB, T = 8 6.8 -> 6.9). With 64-row tiles (V = 64) the decode
# kernel loses earlier (v121, T = 1: 5120 x 13824 64:2:8, 35 MB, 20.3 -> 15.8 us; 12288 x 4096, 25 MB,
# 14.1 -> 12.9), with 128-row ones at 25-35 MB it is even (8192^2 128:2:8 14.2 against 14.7).
NARROW_DECODE_MIN_BYTES = 10 * 2**20
NARROW_DECODE_BYTE_TOKENS = {128: 40 * 2**20, 64: 24 * 2**20}
# ... but the decode kernel keeps the calls of T x m <= DECODE_OVER_NARROW[row tile][0] whose X slices add at most
# [1] bytes of reads (compact x T x m / (2 row tile): every CTA reads its whole slice, v13). Since A goes into
# registers on 64-row tiles (v281) and a CTA prefetches one step (v286), the decode kernel streams about as fast
# as the narrow tile; what it loses with T is the slices (v287 / v288, H100, us, narrow -> decode kernel, same
# turns: 64:2:8 LLaMA-13B gate/up T = 1 19.3 -> 17.6, 70B q/o T = 2 19.5 -> 17.7, 7B down T = 2 / 4 14.6 / 14.7
# -> 12.3 / 13.1, 5120^2 T = 4 10.9 -> 8.9, 64:2:16 13B T = 2 11.9 -> 11.1; 128:2:8 13B q/k/v/o T = 4 / 8 11.1 /
# 11.3 -> 9.2 / 9.8, 7B gate/up T = 2 13.7 -> 12.6; but past the bytes: 70B gate/up 64:2:8 T = 4 (28 MB of
# slices) 51.3 -> 53.9, 13B T = 4 (8 MB) 19.2 -> 20.2, 64:2:16 70B T = 2 28.0 -> 29.8, 128:2:32 70B T = 2 16.2 ->
# 18.3; and past T x m: 7B gate/up 64:2:8 T = 8 13.6 -> 16.0, 64:2:16 T = 4 8.8 -> 9.9). [2]: the most compact
# bytes (None: any): 128-row tiles take A through shared-memory slots, which stream a large weight slower (v289,
# 70B down T = 1 128:2:8 50.6 -> 71.2, 128:2:16 28.8 -> 33.8; gate/up 49.2 -> 51.0). v290 (H100, LLaMA-7B/13B/70B
# and BERT-large FFN2, T = 1-64, against the rule before): the 24 cells it changes 1.107x, none slower. v319 (H100,
# same turns, V = 64 at T = 1-4 on LLaMA-13B/70B and six larger shapes): the 64-row slices' limit 6 -> 7.5 MiB
# moves 15 cells, 0.91x in geomean (0.85-1.02: 20480 x 5120 64:2:8 T = 2 27.7 -> 23.4 us, 70B gate/up 64:2:8 T = 1
# 50.7 -> 47.3), the other 129 even.
DECODE_OVER_NARROW = {64: (32, int(7.5 * 2**20), None), 128: (64, 4 * 2**20, 25 * 2**20)}
# v304: a V = 64 weight that the 64-row decode tile would leave to the narrow tile runs two V-row blocks in each
# 128-row decode CTA where that tile's DECODE_OVER_NARROW keeps it (one X slice for twice the rows). H100, same
# turns, LLaMA shapes at T = 3-8: the 15 cells it changes 1.25x (1.13-1.47; 13B q/k/v/o 64:2:8 T = 8 11.1 -> 9.1
# us, 70B q/o 64:2:16 T = 4 11.6 -> 8.6), each within 4% of its 128:2:M cell.
DECODE_TWO_BLOCKS = True  # (A/B switch: False, as before v304)
# ... with limits of their own (T x m, slices' bytes, compact bytes, as DECODE_OVER_NARROW; None: the 128-row tiles').
# v316-v317 (H100, NOTES): wider ones, (128, 9.5 MiB, 41 MiB), from autotune's choices, ran the 63 calls they moved
# off the narrow tile 0.91x the time (7B gate/up 64:2:8 T = 6 13.71 -> 10.50 us) but 6 of them 1.05-1.18x (70B down
# 64:2:32 T = 2, 10240 x 8192 64:2:16 T = 4 / 6, 8192 x 14336 64:2:16 / 2:32 T = 4, 15360 x 5120 64:2:16 T = 8), with
# no rule found between them yet: not taken.
DECODE_TWO_BLOCKS_OVER_NARROW = None
# v305-v306: ... and where the 64-row tile runs the call only because the weight is too small for the narrow tile,
# from this T x m on (the 64-row slices at least the weight's bytes; up to the 64-row plan's limit, past which the
# wgmma.sp tiles run), if 128-row CTAs can still reach every SM (row tiles x K splits; 0: off). v305 (H100, from T
# x m = 32, no CTA bound): BERT's 1024-column weights (24-32 row tiles, 1-8 steps) 4-17% slower, T x m = 64 mixed
# (0.88-1.22). v306 as here: the 28 cells it changes 1.18x (0.90-1.53; LLaMA-7B gate/up 64:2:64 T = 4 5.90 -> 3.85
# us, 70B q/o 64:2:32 T = 8 11.8 -> 7.9; slower only 70B q/o 64:2:128 T = 1, 2.90 -> 3.22). v307, both rules
# against neither over BERT-large and LLaMA-7B/13B/70B, M = 8-128, T = 1-8: 53 changed cells 1.20x, 247 even.
DECODE_TWO_BLOCKS_PAST_TM = 128
NARROW_GATHERED = True  # (A/B switch: False keeps V:2:M on the 64-token tiles and the decode kernel, as before v114)

# (v200-v325, NOTES: X row-major in slabs by TMA, the kept columns copied into the B image by the producer,
# sparing the X^T transpose at T <= 32: slower but on the smallest weights (v322: 4096^2 128:2:16 T = 12-32
# 0.91-0.97 of the transpose's time, 1.07-1.61x elsewhere; v325's ncu: 1.6-2.0x the narrow tile's time at LLaMA-7B
# gate/up). Removed; commit b584088 has it.)
ALL_TILES = (TILES + SMEM_A_TILES + STAGED_TILES + PERSISTENT_TILES + CLUSTER_TILES
             + tuple(GROUPED_TILES.values()))  # every tile (tests, A/B runs)


# From this M on, prefill tiles run persistent (v24 on the H200: 2:128 -7%, 2:64 -2%; the a_regs
# form at M <= 32 even to 3% slower, 2:4 2-8% slower; the staged form (v170) at 2:32, v173: 4096^3
# -8%, 1024 x 4096 x 8192 -7%, LLaMA shapes 0..-6%). The a_regs persistent tiles lost past 2 k-steps a
# tile (v149: down 2:128 (6 steps) +0..+7%, 64:2:64 at K = 11008 (11) +9%), so PERSISTENT_MAX_STEPS
# (0: any) held them to 2; the staged ones do not (v172, X feature-major, us, 2 -> any: 4096^2 x 8192
# 2:64 50.3 -> 43.0, down 2:128 63.3 -> 58.1, 4096^3 2:32 33.6 -> 32.1; 2:8 +6%, 2:16 even).
PERSISTENT_MIN_M = 32
PERSISTENT_MAX_STEPS = 0


# Time of a 128 x 256 tile over a 128 x 128 one (twice its work), from the v24c grid (BERT FFN2,
# 2:4): 38 us a wave of 128 x 256 tiles at T = 8192 against 27.3 us a wave of 128 x 128 at T = 4096.
WIDE_TILE_COST = 1.4
# v194: ... but plain 2:4 by TMA takes 128 x 256 where its grid is one wave of at least SMs /
# WIDE_SPLITS_MAX CTAs (K split to fill it; WIDE_TILE_COST holds for full waves). H200, us, off / on
# (ab_wide_one_wave_h200_v194.txt): 4096 x 11008 T = 256 / 300 / 512 40.6 / 68.7 / 70.1 -> 33.9 /
# 48.6 / 53.5, 4096^2 T = 200 / 300 / 512 19.5 / 26.9 / 27.7 -> 17.9 / 22.9 / 26.4; LLaMA gate/up
# (two waves either way) keeps the cost rule's 128 x 128.
WIDE_ONE_WAVE = True
# v196-v197: ... and 256 x 128 (two m64 blocks per consumer) where its waves cost least: a wave of it
# costs TALL_TILE_COST 128 x 128 waves (v110-v112 found it 10-27% slower per MAC than 128 x 256 at
# full waves). H200 (ab_tall_route_h200_v197.txt, us, off -> on, twice): LLaMA-7B gate/up T = 257 /
# 300 / 384 65.1 / 59.2 / 59.9 -> 47.3 / 45.7 / 46.3 (one wave of 129 CTAs where 128 x 128 is two);
# LLaMA-70B gate/up T = 300 (three waves of it against four of 128 x 256) 259-270 -> 283 at 1.7, so
# 1.9; T = 512-2048, LLaMA-13B gate/up and 4096-row weights lost with it (ab_tall_tile_h200_v196.txt).
# Plain 2:4 by TMA only (no other form was measured).
TALL_TILE = TILES[3]
TALL_TILE_COST = 1.9


# Experiment: an int64 [4, 256] CUDA tensor that builds with VNM_WG_TRACE=1 record stage clocks into
# (the kernel's `partial` where there are no K splits; scripts/probes/trace_stages.py reads it).
TRACE = None

MID_T_DECODE_TILES = True  # (A/B switch: False keeps the prefill tiles at every T > 64, as before v103)

# v132: ... but plain 2:4 by TMA keeps its prefill tile and splits K instead where that takes at most
# WIDE_SPLITS_MAX splits: the decode tiles re-read each weight row tile once per 64 tokens (LLaMA down
# T = 128 / 256 31.3 / 54.3 -> 27.0 / 40.8 us, 4096^2 14.9 / 21.6 -> 14.0 / 18.8, 1024 x 4096 T = 512 /
# 1024 14.5 / 21.5 -> 12.2 / 17.9); 8 or 16 splits lost (1024 x 4096 T = 256 / 128 +4 / +25%), and so did
# every gathered call (128:2:32 +10..+45%: the gather, not the weights, bounds those).
WIDE_SPLITS = True  # (A/B switch: False takes the decode tiles, as before v132)
WIDE_SPLITS_MAX = 4
# v215: where plain 2:4 on a row-major X takes 128 x 256 over more CTAs than SMs, CLUSTER_2_4_TILE
# instead: A and metadata by bulk copy in the consumers' order (staged), X multicast over 2 row tiles,
# persistent, as cuSPARSELt's fastest algorithm runs (NOTES v214; its 4-CTA clusters lose here, with the
# driver's grid too: +8..+13% in turns, v221; so did the register form in clusters, v25 / v58). H200, us, default / this, in turns
# (ab_staged_pc2_turns_h200_v215d.txt): 4096^2 x 8192 292.5 / 285.0, 4096 x 11008 x 8192 760.9 /
# 745.2, 11008 x 4096 x 8192 848.4 / 802.8, 11008 x 4096 x 2048 225.8 / 216.2, 4096^2 x 2048 67.5 /
# 63.6, 13824 x 5120 x 4096 679.1 / 640.7, 8192^2 x 4096 587.6 / 569.7; the same tile without the
# cluster 15-25% slower; one wave or less (1024 x 4096 x 2048, split K there) +15%. v217 (ab_c2_midT_h200_v217.txt,
# ab_c2_lowT_h200_v217b.txt): also at T = 512-1536 (11008 x 4096 T = 512 / 1024 64.4 / 103.8 -> 60.9 /
# 96.4, 8192^2 T = 768 / 1024 137.0 / 140.5 -> 132.8 / 133.6, 28672 x 8192 T = 512 304.5 -> 295.7), but
# a cluster loads whole X boxes, so a last token tile mostly past T costs it: T = 300 / 400 +50% / +9..+24%,
# T = 448 even, 4096^2 T = 1100 -1.5%. Hence from CLUSTER_2_4_MIN_TOKENS, where the token tiles pad T by
# at most CLUSTER_2_4_MAX_PAD of it.
CLUSTER_2_4 = True  # (A/B switch)
CLUSTER_2_4_MIN_TOKENS = 512
CLUSTER_2_4_MAX_PAD = 1 / 6


def choose_tile(ntok: int, rows: int, v: int, sms: int = 132, m: int = 8, tma_x: bool = False,
                k: int | None = None) -> WgTile:
    """Decode (T <= 64) gets bn = 64 (plain 2:4 a staged tile: STAGED_2_4, or with X by TMA the
    narrowest of STAGED_2_4_NARROW that holds T, in 64 rows where STAGED_2_4_HALF says; V:2:M at
    T <= 32 the narrowest of NARROW_TILES, but on weights of at most DECODE_FEW_ROWS rows).
    Otherwise, with non-persistent 128-row tiles, the token tile (128 or 256) whose waves of CTAs
    cost least (WIDE_TILE_COST: so one wave of 128 x 256 tiles beats two of 128 x 128, v24c: BERT
    FFN2 at T = 4096 took 54.6 us with 256 tiles of 128 x 128, where 128 tiles of 128 x 256 take
    ~38, h200_v27: 35.7); else the widest that gives every SM a CTA. Past 64 tokens, where that
    tile's grid would leave half the SMs idle, the decode tile (with K splits) instead, but for
    plain 2:4 by TMA, which keeps the tile and splits its K where at most WIDE_SPLITS_MAX splits
    fill the wave (v132), and takes 128 x 256 wherever that tile's grid is such a wave (v194) and
    256 x 128 where its waves cost least (TALL_TILE_COST, v197); where that 128 x 256 tile's grid
    exceeds the SMs, on a row-major X of CLUSTER_2_4_MIN_TOKENS or more that its token tiles pad by at
    most CLUSTER_2_4_MAX_PAD, CLUSTER_2_4_TILE (v215, v217).
    Prefill tiles run persistent (PERSISTENT_STAGED) from M = PERSISTENT_MIN_M
    where K (None: unknown, any) gives them at most PERSISTENT_MAX_STEPS k-steps (0: any)."""
    bm = row_tile(v, m)
    if bm is None:
        raise ValueError(f"the wgmma.sp kernel needs V % 64 == 0 (or M = 4), got V = {v}")
    row_tiles = -(-rows // bm)
    if ntok <= 64:
        if m != 4:
            return NARROW_TILES[(bm, 16 if ntok <= 16 else 32)] if _narrow(ntok, rows) else TILE_TABLE[(bm, 64)]
        tile = next((t for t in STAGED_2_4_NARROW if tma_x and ntok <= t.bn), STAGED_2_4)
        return STAGED_2_4_HALF[tile.bn] if tma_x and sms // 2 < row_tiles < sms else tile
    persist = m >= PERSISTENT_MIN_M and (k is None or not PERSISTENT_MAX_STEPS or -(-k // m) <= PERSISTENT_MAX_STEPS * KS)
    tile = _prefill_tile(ntok, row_tiles, bm, persist, sms, m == 4 and tma_x)
    wide = TILE_TABLE[(128, 256)]
    wide_ctas = row_tiles * -(-ntok // wide.bn)
    if (WIDE_ONE_WAVE and m == 4 and tma_x and bm == 128 and not persist and ntok > 128 and wide_ctas <= sms
            and sms // wide_ctas <= WIDE_SPLITS_MAX):
        tile = wide
    # v103: a prefill tile that leaves half the SMs or more idle (mid T on few rows) gives way to
    # the decode tiles, whose K splits fill the GPU: 4096^2 2:4 T = 128 24.8 -> 15.0 us, 1024 x 4096
    # 2:4 T = 512 23.4 -> 13.1, 4096 x 11008 128:2:8 T = 256 41.1 -> 29.1 (the grouped tile); LLaMA
    # gate/up's 86 row tiles keep the prefill tile (T = 128: 28.4 against 40.5).
    ctas = tile.row_tiles(rows) * -(-ntok // tile.bn)
    wide_split = WIDE_SPLITS and m == 4 and tma_x and tile.splittable and sms // ctas <= WIDE_SPLITS_MAX
    if MID_T_DECODE_TILES and ctas <= sms // 2 and not wide_split:
        return choose_tile(64, rows, v, sms, m, tma_x, k)
    if (CLUSTER_2_4 and m == 4 and tma_x == 1 and tile is wide and ctas > sms and ntok >= CLUSTER_2_4_MIN_TOKENS
            and -(-ntok // wide.bn) * wide.bn - ntok <= CLUSTER_2_4_MAX_PAD * ntok  # (the token tiles' padding)
            and CLUSTER_2_4_TILE.fits_frag_image(rows)):
        return CLUSTER_2_4_TILE
    return tile


def _prefill_tile(ntok: int, row_tiles: int, bm: int, persist: bool, sms: int, tall: bool = False) -> WgTile:
    """tall: TALL_TILE may run (plain 2:4 by TMA)."""
    if bm == 128 and not persist:
        def cost(tile, per_wave):
            tiles = -(-row_tiles // (tile.bm // bm)) * -(-ntok // tile.bn)
            return -(-tiles // (sms * tile.ctas_per_sm)) * per_wave

        # (128 x 256 wins a tie with 128 x 128; 256 x 128 must beat both)
        costs = [(cost(TILE_TABLE[(bm, 128)], 1.0), 1, TILE_TABLE[(bm, 128)])]
        if ntok > 128:
            costs.append((cost(TILE_TABLE[(bm, 256)], WIDE_TILE_COST), 0, TILE_TABLE[(bm, 256)]))
        if tall:
            costs.append((cost(TALL_TILE, TALL_TILE_COST), 2, TALL_TILE))
        return min(costs, key=lambda c: c[:2])[2]
    # Waves do not apply to persistent tiles (each CTA loops; h200_v27: at 2:128 the cost pick of
    # 128 x 128 ran gate/up 10-15% slower than 128 x 256), so they keep the widest that fills the SMs.
    for bn in (256, 128):
        tile = PERSISTENT_STAGED.get((bm, bn)) if persist else TILE_TABLE[(bm, bn)]
        if tile is not None and ntok > bn // 2 and row_tiles * -(-ntok // bn) >= sms * tile.ctas_per_sm:
            return tile
    return TILE_TABLE[(bm, 128)]


def grouped(tile: WgTile, per_split: int, gathered: bool) -> WgTile:
    """The decode tile a gathered call runs: GROUPED_TILES' where each CTA has GROUPED_MIN_STEPS
    steps or more (the same grid, so the same K splits), else ``tile``."""
    key = (tile.bm, tile.bn)
    ungrouped = (TILE_TABLE.get(key), NARROW_TILES.get(key))
    if gathered and key in GROUPED_TILES and tile in ungrouped and per_split >= GROUPED_MIN_STEPS:
        return GROUPED_TILES[key]
    return tile


def _narrow(ntok: int, rows: int) -> bool:
    """Whether choose_tile gives a gathered call a NARROW_TILES tile."""
    return NARROW_GATHERED and ntok <= 32 and rows > spmm_mma_sp.DECODE_FEW_ROWS


def decode_rows(ntok: int, rows: int, k: int, v: int, m: int, sms: int) -> int:
    """The decode kernel's row tile for a gathered call that it could run, or 0 where a NARROW_TILES tile runs
    it instead: row_tile(v, m), or at V = 64 two V-row blocks a CTA (DECODE_TWO_BLOCKS, its X slices half as
    many bytes) where the 64-row tile would give the call to the narrow tile and DECODE_TWO_BLOCKS_OVER_NARROW
    keeps it, or (DECODE_TWO_BLOCKS_PAST_TM) where the 64-row tile runs a weight too small for the narrow tile at
    slices of at least the weight's bytes and 128-row CTAs (row tiles x their most K splits) can still reach every
    one of `sms` SMs."""
    compact = rows * k * 4 // m  # bytes of the kept values (2 of every M columns, 16-bit)

    def keeps(bm, limits=None):  # DECODE_OVER_NARROW: T x m and the slices' bytes small enough at this row tile
        max_tm, max_slices, max_bytes = limits or DECODE_OVER_NARROW[bm]
        return (ntok * m <= max_tm and compact * ntok * m // (2 * bm) <= max_slices
                and (max_bytes is None or compact < max_bytes))

    bm = row_tile(v, m)
    two = DECODE_TWO_BLOCKS and bm == 64 and m > 4
    if keeps(bm):  # (v309-v312: two blocks here too won on some weights, lost on others; no rule found, NOTES)
        return bm
    if not (_narrow(ntok, rows) and compact >= max(NARROW_DECODE_MIN_BYTES, NARROW_DECODE_BYTE_TOKENS[bm] // ntok)):
        # the decode kernel as the fallback (a weight too small for the narrow tile)
        ctas = -(-rows // 128) * min(spmm_mma_sp.layout_steps(k, m), spmm_mma_sp.DECODE_MAX_SPLITS)
        past = 0 < DECODE_TWO_BLOCKS_PAST_TM <= ntok * m <= 2 * spmm_mma_sp.DECODE_MAX_X_PER_W * bm and ctas >= sms
        return 128 if two and past else bm
    return 128 if two and keeps(128, DECODE_TWO_BLOCKS_OVER_NARROW) else 0


def choose_splits(tile: WgTile, ntok: int, rows: int, steps: int, sms: int) -> int:
    """K splits of a wgmma.sp tile (the bn = 64 decode tiles only), within one wave of its CTAs."""
    if not tile.splittable:
        return 1
    return spmm_mma_sp.splits_for(tile.row_tiles(rows) * -(-ntok // tile.bn), steps, sms * tile.ctas_per_sm)


# --------------------------------------------------------------------------------------------
# layout: the fragment image (A registers and metadata words in the consumers' load order),
# derived from the mma.sp kernel's "sm80" layout; V % 64 != 0 runs the mma.sp kernel on that one.


FRAG_ROWS = 256  # the fragment image's rows are padded to the largest CTA row tile


def frag_rows(r: int) -> int:
    """Rows of the fragment image of an R-row weight (R padded to whole FRAG_ROWS)."""
    return -(-r // FRAG_ROWS) * FRAG_ROWS


def _frag_index(device):
    """Per thread t of a consumer warpgroup (w = t // 32, gid = t % 32 // 4, tig = t % 4): the row
    and group of each A register i (row 16w + gid + 8(i & 1), group tig + 4(i >> 1) of the k32
    step); and per metadata word c = 16w + 2 gid + h (the words of the threads with tig = h < 2,
    the pair that sparsity selector 0 reads; tig 2 and 3 load their partner's): its rows
    (16w + gid, + 8) and which byte pair of theirs it carries (h)."""
    t = torch.arange(128, device=device)
    w, gid, tig = t // 32, (t % 32) // 4, t % 4
    i = torch.arange(4, device=device)
    c = torch.arange(64, device=device)
    return (16 * w + gid)[:, None] + 8 * (i & 1)[None, :], tig[:, None] + 4 * (i >> 1)[None, :], \
        16 * (c // 16) + (c % 16) // 2, c % 2


def build_frag_layout(values: torch.Tensor, meta: torch.Tensor) -> tuple:
    """(afrag [RB64, steps, 2, 128, 8] in the values' dtype, mfrag int32 [RB64, steps, 64, 2])
    from the sm80 layout: the wgmma.sp A registers (4 x 32 bits) of every (64-row block, stage,
    k32 step, thread) and the metadata words of the 64 threads that selector 0 reads, in the order
    the consumers load them (wgmma_sp_layout's a_fragments / metadata_words_from_bytes, for all
    blocks at once; v52: 8 bytes per row and stage, as the codes themselves). Rows past R: zero
    values, valid codes. RB64 is padded to whole FRAG_ROWS tiles."""
    r, gp = values.shape[0], values.shape[1]
    rows = frag_rows(r)
    steps = gp // KS
    words = torch.zeros(rows, gp, dtype=torch.int32, device=values.device)
    words[:r] = values.contiguous().view(torch.int32).view(r, gp)
    codes = torch.full((rows, gp // 2), spmm_mma_sp._PAD_CODE_BYTE, dtype=torch.uint8, device=values.device)
    codes[:r] = meta
    arow, agrp, row, h = _frag_index(values.device)
    blocks = words.view(rows // 64, 64, steps * 2, 8).permute(0, 2, 1, 3)     # [RB, k32 steps, 64, 8]
    afrag = blocks[:, :, arow, agrp].reshape(rows // 64, steps, 2, 128, 4).contiguous().view(values.dtype)
    cb = codes.view(rows // 64, 64, steps * 2, 4)
    lo = cb[:, row]                                                            # [RB, 64, k32, 4]
    hi = cb[:, row + 8]
    pick = torch.stack([2 * h, 2 * h + 1], 1)                                  # [64, 2]
    idx = pick[None, :, None, :].expand(rows // 64, 64, steps * 2, 2)
    word = torch.cat([lo.gather(3, idx), hi.gather(3, idx)], 3)                # [RB, 64, k32, 4] bytes
    mfrag = word.contiguous().view(torch.int32)[..., 0]                        # [RB, 64, k32]
    mfrag = mfrag.view(rows // 64, 64, steps, 2).permute(0, 2, 1, 3).contiguous()
    return afrag, mfrag


def sm80_from_frag_layout(afrag: torch.Tensor, mfrag: torch.Tensor, r: int) -> tuple:
    """Inverse of :func:`build_frag_layout`: (values [R, Gp, 2], meta uint8 [R, Gp/2])."""
    rb, steps = afrag.shape[0], afrag.shape[1]
    gp = steps * KS
    arow, agrp, row, h = _frag_index(afrag.device)
    blocks = torch.empty(rb, steps * 2, 64, 8, dtype=torch.int32, device=afrag.device)
    blocks[:, :, arow, agrp] = afrag.contiguous().view(torch.int32).view(rb, steps * 2, 128, 4)
    values = blocks.permute(0, 2, 1, 3).reshape(rb * 64, gp)[:r].contiguous().view(afrag.dtype).view(r, gp, 2)
    word = mfrag.permute(0, 2, 1, 3).reshape(rb, 64, steps * 2).contiguous().view(torch.uint8).view(rb, 64, steps * 2, 4)
    word = word.permute(0, 2, 1, 3)  # [RB, k32, 64 words, 4 bytes]
    cb = torch.empty(rb, steps * 2, 64, 4, dtype=torch.uint8, device=afrag.device)
    for j in range(2):  # bytes 2h + j of rows `row` (lo) and `row` + 8 (hi)
        cb[:, :, row, 2 * h + j] = word[..., j]
        cb[:, :, row + 8, 2 * h + j] = word[..., 2 + j]
    return values, cb.permute(0, 2, 1, 3).reshape(rb * 64, gp // 2)[:r].contiguous()


def _frag(layout: tuple) -> tuple:
    values, meta, cols = layout
    return (*build_frag_layout(values, meta), cols)


def build_layout(vw: VNMWeight) -> tuple:
    """(afrag, mfrag, cols) for V % 64 == 0 or M = 4, else the mma.sp kernel's sm80 layout."""
    if row_tile(vw.cfg.v, vw.cfg.m) is None:
        return spmm_mma_sp.build_layout(vw)
    return _frag(spmm_mma_sp.build_rows(vw))


def layout_of(vw: VNMWeight) -> tuple:
    """The cached layout: the fragment image, or (V % 64 != 0) the same cache entry as
    ``spmm_mma_sp.layout_of(vw)``, which the mma.sp fallback reads."""
    if row_tile(vw.cfg.v, vw.cfg.m) is None:
        return spmm_mma_sp.layout_of(vw)
    return vw.layout(LAYOUT, spmm_mma_sp.settled_build(build_layout))


def canonical_from_layout(values, meta, cols, shape, cfg) -> tuple:
    """The canonical (values, positions, columns) back from the layout (for backward)."""
    if values.dim() == 5:
        values, meta = sm80_from_frag_layout(values, meta, shape[0])
    return spmm_mma_sp.canonical_from_layout(values, meta, cols, shape, cfg)


# "As 2:4" (spmm_mma_sp's): here X is read by TMA with no X^T, at the 2:4 instruction count (M/4 times the
# gathered path's math): a trade that can pay at small M, where the gather is the bound (NOTES).
LAYOUT_AS_2_4 = "wgmma_sp_as_2_4"


def build_layout_as_2_4(vw: VNMWeight) -> tuple:
    return _frag(spmm_mma_sp.as_2_4_rows(vw))


def layout_as_2_4(vw: VNMWeight) -> tuple:
    """(afrag, mfrag, None) of the weight packed as 2:4, cached on it."""
    return vw.layout(LAYOUT_AS_2_4, spmm_mma_sp.settled_build(build_layout_as_2_4))


def spmm_sm90a_as_2_4(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """:func:`spmm_sm90a` on the :func:`layout_as_2_4` operands of a V:2:M weight (M % 4 == 0),
    X read by TMA where :func:`x_direct` allows."""
    kw.setdefault("tma_x", x_direct(x.reshape(-1, in_features), False))
    return spmm_sm90a(x, values, meta, None, bias, out_features, in_features, v, 4, **kw)


def canonical_from_layout_as_2_4(values, meta, cols, shape, cfg) -> tuple:
    """The weight's own canonical parts (at its M) back from the 2:4 operands (for backward)."""
    return spmm_mma_sp.canonical_from_as_2_4_layout(*sm80_from_frag_layout(values, meta, shape[0]), None, shape, cfg)


# The union layout (spmm_mma_sp's, V < 64): its fragment image, run on the 64-row tiles of V = 64.
LAYOUT_UNION = "wgmma_sp_union"


def layout_union(vw: VNMWeight) -> tuple:
    """(afrag, mfrag, cols) of the union layout, cached on the weight."""
    return vw.layout(LAYOUT_UNION, spmm_mma_sp.settled_build(lambda w: _frag(spmm_mma_sp.union_rows(w))))


def spmm_sm90a_union(x, values, meta, cols, bias, out_features, in_features, v, m, **kw):
    """:func:`spmm_sm90a` on the :func:`layout_union` operands of a V:2:M weight (V < 64)."""
    return spmm_sm90a(x, values, meta, cols, bias, out_features, in_features, spmm_mma_sp.UNION_ROWS,
                      spmm_mma_sp.union_m(v, m), **kw)


def canonical_from_layout_union(values, meta, cols, shape, cfg) -> tuple:
    """The weight's canonical parts back from its union fragment image (for backward)."""
    return spmm_mma_sp.canonical_from_union_layout(*sm80_from_frag_layout(values, meta, shape[0]), cols, shape, cfg)


# --------------------------------------------------------------------------------------------
# launch


_sms = spmm_mma_sp._sms  # SMs of a device (a name of this module's own, which tests replace to shrink its grids)


# Persistent launches number their tiles in bands of this many row tiles (0: one band of all rows,
# row tile fastest), so that the CTAs running at once need a band of A and a few token tiles of X
# in L2 rather than all of A (LLaMA gate/up: 11008 x 4096, ~50 MB of weights, 0.73-0.80 of
# cuSPARSELt in grid v24c against 0.86-0.90 for 4096 x 4096). Measured within the noise (NOTES v27, v231):
# off.
RASTER_ROWS = 0

# Compile-time knobs of the .cu (macro -> value) for experiments, e.g. scripts/ab_wgmma.py:
# {"VNM_WG_COLUMN_LOOKAHEAD": 1}. Empty: the source's defaults. Part of the JIT cache key.
DEFINES: dict = {}
# The gather addresses X^T with 32-bit byte offsets (v18: ~11 instead of ~19 producer instructions
# per copy, 5-14% faster); a larger X^T runs in token chunks (tests lower this to exercise them).
GATHER_BYTES_MAX = 2**32


# v220: a persistent cluster grid holds as many clusters as the GPU runs at once (the driver's count,
# GPC placement included: clusters that do not fit wait for a whole cluster's tiles to end), not
# SMs / cluster; cuSPARSELt's 4-CTA clusters run 30 on the H200's 132 SMs (NOTES v54). H200, us, off /
# on (ab_cluster_wave_h200_v220.txt): the 4-CTA persistent staged tile 4096^2 x 8192 426 -> 271, 4096 x
# 11008 x 8192 1121 -> 720, 1024 x 4096 x 8192 124 -> 92 (still slower than CLUSTER_2_4_TILE in turns, v221);
# CLUSTER_2_4_TILE (2 CTAs) even (all fit).
CLUSTER_WAVE_BY_DRIVER = True  # (A/B switch)


@functools.lru_cache(maxsize=256)
def _cluster_wave(device_index: int, name: str, threads: int, smem: int, cluster: int) -> int | None:
    """CTAs of the clusters of kernel ``name`` that device ``device_index`` (the current one) runs at
    once, or None where the driver cannot say (the grid then stays SMs / cluster clusters)."""
    try:
        return max(1, _kernel(name).max_active_clusters(threads, (cluster, 1, 1), shared_mem=smem)) * cluster
    except RuntimeError:  # e.g. no current context on this thread (v220's probe outside torch)
        return None


def _kernel(name: str):
    return jit.get_kernel(SOURCE, name, params=_PARAMS, defines=DEFINES)


# Plain 2:4 reads X by TMA wherever x_direct allows (v9: passed the GPU tests and sanitizers; on
# the H200 quick grid it doubled the 2:4 speed-up at T >= 2048, 0.54x -> 1.09x, and beat the
# gathered and mma.sp paths at every T). False restores the gathered X^T path (for A/B runs).
TMA_X_BY_DEFAULT = True


def x_box(tile: WgTile) -> int:
    """Tokens per TMA box of a row-major X: a cluster tile's share of its tokens, else at most the
    .cu's VNM_WG_X_BOX (64, or DEFINES' for A/B runs); the kernel loads only the boxes that start
    before T."""
    return tile.bn // tile.cluster if tile.cluster > 1 else min(tile.bn, int(DEFINES.get("VNM_WG_X_BOX", 64)))


def _rows_by_tma(x2: torch.Tensor) -> bool:
    """Whether TMA can read x2 [T, K] as row-major boxes: contiguous, K % 8 == 0, 16-byte aligned."""
    return x2.stride(1) == 1 and x2.stride(0) == x2.shape[1] and x2.shape[1] % 8 == 0 and x2.data_ptr() % 16 == 0


def x_direct(x2: torch.Tensor, has_cols: bool) -> int:
    """How B can be X itself through TMA (no X^T copy), the kernel's TMA_X: plain 2:4 (no column
    gather) with a 16-byte aligned base, and 1 for a row-major X with K % 8 == 0, 2 for a
    feature-major one (X^T's rows, T tokens apart or more, a multiple of 8); else 0."""
    if has_cols or x2.data_ptr() % 16:
        return 0
    ntok, k = x2.shape
    if _rows_by_tma(x2):
        return 1
    return 2 if ntok > 1 and x2.stride(0) == 1 and x2.stride(1) >= ntok and x2.stride(1) % 8 == 0 else 0


# v207: X^T by TMA (a feature-major x) reads its last token box as far as the rows' pitch and the
# storage allow, not past T (its columns past T only feed accumulator columns that are not stored).
# H200, plain 2:4, rows 256 tokens apart, T = 200, us: 11008 x 4096 37.8-39.1 -> 34.7-34.9, 4096 x 11008
# 35.0 -> 32.4, 4096^2 18.3 -> 17.3. (A/B switch.)
XT_MAP_PADDED = True


def _rows_read(xt: torch.Tensor, box: int) -> torch.Tensor:
    """xt [K, T] (unit column stride) widened to T rounded up to ``box`` columns where its row pitch
    and storage hold them, else as it is."""
    k, t = xt.shape
    width = min(-(-t // box) * box, xt.stride(0))
    end = xt.storage_offset() + (k - 1) * xt.stride(0) + width
    if width <= t or end * xt.element_size() > xt.untyped_storage().nbytes():
        return xt
    return xt.as_strided((k, width), xt.stride())


def spmm_sm90a(x, values, meta, cols, bias, out_features, in_features, v, m, *, tile: WgTile | None = None,
               splits: int | None = None, out: torch.Tensor | None = None, tma_x: bool | None = None):
    """Y = x @ W.T (+ bias) with wgmma.mma_async.sp; operands from :func:`layout_of` (the fragment
    image; the "sm80" layout runs the SMEM_A_TILES or, for V % 64 != 0, the mma.sp kernel).

    V % 64 != 0 runs the cp.async mma.sp kernel (same operands). Plain 2:4 (m = 4) can read X by
    TMA where :func:`x_direct` allows: ``tma_x=True``, or by itself once ``TMA_X_BY_DEFAULT``.
    ``tile`` and ``splits`` exist for tests and tuning. ``out``: a contiguous [T, R] buffer, or a
    feature-major one (the transpose of a contiguous [R, T]: Y^T, which a next gathered call reads
    without transposing; v137), which a launch without K splits writes itself and every other
    case by a copy.
    """
    if out is None or out.is_contiguous():
        return _spmm_sm90a(x, values, meta, cols, bias, out_features, in_features, v, m, tile, splits, out, tma_x, None)
    if out.dim() != 2 or out.shape != (x.numel() // max(1, in_features), out_features) or out.stride() != (1, out.shape[0]):
        raise ValueError(f"out must be a contiguous [T, R] tensor or the transpose of a contiguous [R, T] one "
                         f"(T = {x.numel() // max(1, in_features)}, R = {out_features}); got shape {tuple(out.shape)}, "
                         f"strides {out.stride()}")
    y = _spmm_sm90a(x, values, meta, cols, bias, out_features, in_features, v, m, tile, splits, None, tma_x, out)
    if y.data_ptr() != out.data_ptr():  # (the kernel wrote Y row-major: a K-split or decode-kernel call)
        out.copy_(y.reshape(out.shape))
    return out.view(*x.shape[:-1], out_features)


# v224: plain 2:4 on a feature-major x (grid v216, `auto_xt` against `auto`, us): at T = 4 (rows 4 tokens
# apart: no X^T by TMA) the x went to rows and back to a padded X^T (two transposes) for the gathered tile,
# 12.8 / 23.1 / 23.6 / 8.1 against 9.0 / 17.3 / 17.0 / 4.7 on rows (LLaMA q/k/v/o, gate/up, down, BERT
# FFN2); at few tokens X^T by TMA reads 16- to 64-byte rows once per row tile, gate/up T = 8 / 16 32.2 /
# 22.2 against 17.2 / 17.3. So such an x goes to rows (one transpose, as_rows) and X comes by TMA as rows
# where TMA cannot read it as X^T (v224: T = 4 -16..-29%, T = 13 and 100 -22..-30%), and at few tokens on
# many rows: XT_AS_ROWS_UPTO, (rows at least, tokens at most) pairs (v224, v226: T = 8 on 4096-5120 rows
# -7..-15%, gate/up T = 16 / 32 -25 / -21%; T = 16 on 4096 rows +3..-2%, T = 64 +7..+15%, BERT FFN2's
# 1024 rows +9..+20% at T = 8-64).
XT_AS_ROWS = True  # (A/B switch)
XT_AS_ROWS_UPTO = ((4096, 8), (8192, 32))


def xt_as_rows(ntok: int, rows: int, xt_by_tma: bool) -> bool:
    """Whether plain 2:4 on a feature-major x of ``ntok`` tokens goes to rows first (XT_AS_ROWS_UPTO);
    xt_by_tma: TMA can read it as X^T (x_direct's mode 2)."""
    return XT_AS_ROWS and (not xt_by_tma or any(rows >= r and ntok <= t for r, t in XT_AS_ROWS_UPTO))


def _spmm_sm90a(x, values, meta, cols, bias, out_features, in_features, v, m, tile, splits, out, tma_x, yt):
    """spmm_sm90a; yt: the feature-major out, which the one-launch path writes as Y^T (the others
    return Y row-major for the caller to copy)."""
    a_regs = values.dim() == 5  # the fragment image (layout_of); else the sm80 layout (SMEM_A_TILES)
    if row_tile(v, m) is None:
        if a_regs:
            raise ValueError(f"the fragment layout needs V % 64 == 0 or M = 4, got V = {v}")
        if tile is not None:
            raise ValueError(f"tile {tile} needs V % 64 == 0, got V = {v}")
        return spmm_mma_sp.spmm_sm80(x, values, meta, cols, bias, out_features, in_features, v, m,
                                     splits=splits, out=out)
    if values.dim() == 4:  # the sm80 layout, in blocks since v340: the SMEM_A_TILES' TMA boxes read it row-major
        values, meta = spmm_mma_sp.rows_of(values, meta, out_features)
    k, r = in_features, out_features
    y, x2, bias, done = spmm_mma_sp.prologue(x, bias, r, k, out if yt is None else yt)
    if done is not None:
        return done
    ntok = x2.shape[0]
    # the launches below that cannot write Y^T write a row-major y for the caller to copy
    row_major = (lambda: y) if yt is None else (lambda: torch.empty(ntok, r, dtype=x.dtype, device=x.device))
    mode = x_direct(x2, cols is not None)
    if (m == 4 and tile is None and tma_x is None and x2.stride(0) == 1 and x2.stride(1) != 1
            and xt_as_rows(ntok, r, mode == 2)):
        x2 = spmm_mma_sp.as_rows(x2)  # (one transpose: X by TMA as rows)
        mode = x_direct(x2, False)
    direct = mode if (TMA_X_BY_DEFAULT if tma_x is None else tma_x) else 0
    if direct == 2:
        x2 = spmm_mma_sp.whole_lines(x2)
    # 1-8 tokens: the one-launch decode kernel, on this same image (so compiled graphs, which keep
    # this layout for every T, run it too, and a model holds one image for prefill and decode);
    # not plain 2:4 with X by TMA, whose staged tile is faster at every T (v89, H200, T = 1-8:
    # LLaMA shapes -8..-25%, 4096 x 11008 T = 8 20.5 -> 15.7 us; 1024 x 4096 -10..0%), nor V:2:M
    # where decode_rows says (v114), nor a feature-major x that the tiles read as it is (v143:
    # 4096^2 128:2:8 T = 8 10.6 us in the decode kernel, which reads rows, 6.6 on the narrow tile)
    union = m >> 16  # (a union layout's window shift: no decode kernel, no tuning)
    decodable = (a_regs and tile is None and splits is None and tma_x is None and not (m == 4 and direct)
                 and not spmm_mma_sp.is_feature_major(x2) and not union)
    sms = _sms(x.device.index if x.device.index is not None else torch.cuda.current_device())
    gathered_decode = decodable and cols is not None and ntok <= spmm_mma_sp.DECODE_MAX_TOKENS
    bm = decode_rows(ntok, r, k, v, m, sms) if gathered_decode else 0  # (0: the narrow tile, prefill, or plain 2:4's)
    plan = (spmm_mma_sp.preferred_decode_plan(x.device, ntok, r, k, v, m, x.dtype, image=True, bm=bm)
            if decodable and (bm or cols is None) else None)
    if decodable and autotune.enabled() and ntok <= TUNE_DECODE_MAX_TOKENS and spmm_mma_sp.decode_route_on():
        plans = [p for rows in ((64, 128) if cols is not None and v == 64 else (0,))
                 for p in spmm_mma_sp.decode_plans(x.device, ntok, r, values.shape[1], v, m, x.dtype, True, rows)]
        tuned = (_tuned_decode(x, x2, values, meta, cols, bias, r, k, v, m, ntok, direct, plans, row_major, plan)
                 if plans else None)
        if tuned is not None:
            plan, tile, splits = tuned
    if plan is not None:
        y = row_major()
        spmm_mma_sp.spmm_decode(x2, values, meta, cols, bias, y, r, k, v, m, plan, image=True)
        return y.view(*x.shape[:-1], r)
    if tma_x and not mode:
        raise ValueError(f"tma_x=True needs m = 4, a 16-byte aligned base and a row-major x with K % 8 == 0 or a "
                         f"feature-major one with a row stride of a multiple of 8 (m = {m}, x strides {x2.stride()}, K = {k})")
    # (the X^T row stride: a feature-major x's own, else the transposed copy's; checked before the
    # transpose, which a chunked call makes per chunk)
    ldxt = max(x2.stride(1) if x2.stride(0) == 1 else 0, spmm_mma_sp.xt_pitch(ntok))
    if not direct and (k * ldxt + ntok) * x.element_size() >= GATHER_BYTES_MAX:
        return _token_chunks(x, x2, row_major(), values, meta, cols, bias, r, k, v, m, tile, splits)
    xt, ldx, ntok_load = (x2, k, ntok) if direct else spmm_mma_sp.feature_major(x2, cols)
    if tile is None and splits is None and autotune.enabled() and a_regs and not union:
        tile, splits = _tuned(x, values, meta, cols, bias, r, k, v, m, ntok, sms, direct)
    chosen = tile is None
    tile = tile or choose_tile(ntok, r, v, sms, spmm_mma_sp.effective_m(m), direct, k)
    if not a_regs and tile.a_regs:
        tile = SMEM_A_TABLE[(tile.bm, tile.bn)]
    if a_regs != tile.a_regs:
        raise ValueError(f"tile {tile} {'needs' if tile.a_regs else 'cannot take'} the fragment layout")
    if cols is not None and v % tile.bm:
        raise ValueError(f"tile {tile} does not fit V = {v} (bm must divide V)")
    if not tile.takes(direct):
        raise ValueError(f"tile {tile} cannot read this X (m = {m}, X by TMA: {direct}; x strides {x2.stride()}): "
                         f"clusters take plain 2:4 on a row-major X, the 256 x 128 staged tile plain 2:4 by TMA")
    if a_regs and tile.row_tiles(r) * tile.bm > values.shape[0] * 64:  # the consumers read whole m64 blocks
        raise ValueError(f"tile {tile} reads past the fragment image ({values.shape[0] * 64} rows for R = {r})")
    gp = values.shape[1] * (KS if a_regs else 1)
    steps = gp // KS
    splits_given = splits is not None
    if not splits_given:
        splits = choose_splits(tile, ntok, r, steps, sms)
    if splits > 1 and not tile.splittable:
        raise ValueError(f"split-K needs a bn = 64 tile, got {tile}")
    if tile.grid(r, ntok, splits, sms)[1] > spmm_mma_sp.MAX_GRID_Y:  # one tile per CTA over too many token tiles
        if not splits_given:
            splits = 1  # (its own choice: the persistent form has none)
        if splits > 1 or tile.cluster > 1:
            raise ValueError(f"tile {tile} with {splits} K splits cannot take {ntok} tokens (grid y > "
                             f"{spmm_mma_sp.MAX_GRID_Y}); the persistent tiles can")
        tile = dataclasses.replace(tile, persistent=True, copy_steps=1)  # a 1-D grid of CTAs looping over tiles
    per_split = -(-steps // splits)
    splits = -(-steps // per_split)
    if chosen:
        tile = grouped(tile, per_split, cols is not None)
    partial = torch.empty(splits, ntok, r, dtype=torch.float32, device=x.device) if splits > 1 else TRACE
    grid = tile.grid(r, ntok, splits, sms)
    xtail = jit.NO_TENSOR_MAP
    if direct == 1:  # X row-major: boxes of 64 k x x_box tokens (K-major B), the last one as short as T allows
        box = x_box(tile)
        xmap = jit.tensor_map_2d(x2, (4 * KS, box))
        tail = -(-(ntok % box) // 8) * 8  # (the kernel's: T's rows past the last whole box, rounded up to 8)
        if tile.cluster == 1 and 0 < tail < box:
            xtail = jit.tensor_map_2d(x2, (4 * KS, tail))
    elif direct == 2:  # X^T's rows: boxes of 64 k x 64 (or bn) tokens, GatherB's slabs (MN-major B)
        box = min(tile.bn, 64)
        xmap = jit.tensor_map_2d(_rows_read(x2.t(), box) if XT_MAP_PADDED else x2.t(), (box, 4 * KS),
                                 swizzle=min(2 * tile.bn, 128))
    else:
        xmap = jit.NO_TENSOR_MAP
    # a feature-major out: the kernel's epilogue writes Y^T [R, T] where there are no K splits, else the reduction
    to_yt = yt is not None
    # A by TMA: a box of 2*KS values x bm rows per stage, whose 64B swizzle is the kernel's A image
    amap = jit.NO_TENSOR_MAP if a_regs else jit.tensor_map_2d(values.view(r, -1), (2 * KS, tile.bm), swizzle=64)
    name, smem = tile.name(x.dtype, cols is not None, splits > 1, direct, to_yt and splits == 1), tile.smem(to_yt)
    if tile.persistent and tile.cluster > 1 and CLUSTER_WAVE_BY_DRIVER:
        wave = _cluster_wave(x.device.index or 0, name, tile.threads, smem, tile.cluster)
        grid = (min(grid[0], wave or grid[0]), *grid[1:])
    _kernel(name).launch(
        grid, (tile.threads, 1, 1),
        (values, meta, cols, xt, bias, y, partial, r, k, ntok, ntok_load, ldx, gp, m, v, per_split, RASTER_ROWS,
         xmap, amap, xtail),
        shared_mem=smem, cluster=(tile.cluster, 1, 1) if tile.cluster > 1 else None, pdl=True,
    )
    if splits > 1:
        spmm_mma_sp.reduce_splits(partial, bias, y, sms)
    return y if to_yt else y.view(*x.shape[:-1], r)


def _token_chunks(x, x2, y, values, meta, cols, bias, r, k, v, m, tile, splits):
    """The gathered call in token chunks whose X^T stays under GATHER_BYTES_MAX (the gather's
    32-bit byte offsets); each chunk writes its own rows of y."""
    # (k + 1) x pitch elements bound each chunk's k x pitch + tokens
    chunk = spmm_mma_sp.xt_tokens_within((GATHER_BYTES_MAX // x.element_size() - 1) // (k + 1))
    if chunk < 8:
        raise ValueError(f"K = {k} is too large for the gathered wgmma.sp kernel (X^T rows of 8 tokens "
                         f"must stay under {GATHER_BYTES_MAX} bytes)")
    for t0 in range(0, x2.shape[0], chunk):
        spmm_sm90a(x2[t0:t0 + chunk].contiguous(), values, meta, cols, bias, r, k, v, m, tile=tile, splits=splits,
                   out=y[t0:t0 + chunk], tma_x=False)
    return y.view(*x.shape[:-1], r)


def _tune_tiles(cols, r: int, v: int, direct: int) -> list:
    """The tiles autotune times, those fitting V: the default ones, persistent ones and, with X by
    TMA, the cluster and staged 2:4 ones, else the grouped and narrow staged ones (each won some
    shapes on the H200)."""
    own = CLUSTER_TILES + STAGED_2_4_TILES if direct else tuple(GROUPED_TILES.values()) + tuple(NARROW_TILES.values())
    return [t for t in TILES + PERSISTENT_TILES + own if (cols is None or (v % t.bm == 0 and t.gathers))
            and t.fits_frag_image(r) and t.takes(direct)]


def _tuned(x, values, meta, cols, bias, r, k, v, m, ntok, sms, direct) -> tuple:
    """(tile, splits) that autotune picks among _tune_tiles."""
    steps = values.shape[1]  # the fragment image's (autotune runs on it only)
    return autotune.tile_and_splits(
        ("wgmma_sp", "wgmma_sp_tma", "wgmma_sp_tma_xt")[direct], x, r, k, ntok, v, m, _tune_tiles(cols, r, v, direct),
        functools.partial(choose_splits, ntok=ntok, rows=r, steps=steps, sms=sms),
        lambda t, s, weights=(values, meta): spmm_sm90a(x, *weights, cols, bias, r, k, v, m, tile=t, splits=s,
                                                         tma_x=direct),
        choose_tile(ntok, r, v, sms, m, direct, k), (values, meta))


# Autotune times the decode kernel's plans beside the tiles up to this many tokens: the route and the
# decode kernel's split count won by shape at T = 1-8 with no rule (v247-v250, H200: 10-30% on a third
# of the cells). From T = 1 since the tuner times calls back to back (autotune.TIMING "rotate", v257:
# 0.988 of the heuristic's time, 0.91-1.04); timed flushed and apart, T = 1 ran 0.7% slower, up to 16%
# (v255).
TUNE_DECODE_MAX_TOKENS = spmm_mma_sp.DECODE_DEFAULT_MAX_TOKENS


def _tuned_decode(x, x2, values, meta, cols, bias, r, k, v, m, ntok, direct, plans, row_major, heuristic_plan):
    """(decode plan, None, None) or (None, tile, splits) that autotune picks among the decode
    kernel's ``plans`` and _tune_tiles, where the heuristic's (``heuristic_plan``, else its tile)
    yields only to a win by the margin; None where nothing is cached and nothing may be timed."""
    steps, sms = values.shape[1], _sms(x.device.index if x.device.index is not None else torch.cuda.current_device())
    plan_name = "decode/{}x{}/k{}".format
    configs = {plan_name(*p[:3]): (p, None, None) for p in plans}
    splits_of = functools.partial(choose_splits, ntok=ntok, rows=r, steps=steps, sms=sms)
    configs.update({name: (None, t, s) for name, (t, s) in autotune.tile_configs(
        _tune_tiles(cols, r, v, direct), splits_of).items()})
    if heuristic_plan is not None:
        default = plan_name(*heuristic_plan[:3])
    else:
        tile = choose_tile(ntok, r, v, sms, m, direct, k)
        default = autotune.config_name(tile, splits_of(tile))

    def launch(plan, tile, splits, weights=(values, meta)):
        if plan is not None:
            return spmm_mma_sp.spmm_decode(x2, *weights, cols, bias, row_major(), r, k, v, m, plan, image=True)
        return spmm_sm90a(x, *weights, cols, bias, r, k, v, m, tile=tile, splits=splits, tma_x=direct)

    return autotune.pick("wgmma_sp_decode", x, r, k, ntok, v, m, configs, launch, default, (values, meta))


def name_expressions(dtype: torch.dtype, tiles: tuple | None = None, arch: str | None = None) -> list[str]:
    """Every kernel of this file for one dtype (what the compile-everything test builds), or of
    ``tiles`` only (all for sm_90a: ``arch`` as spmm_mma_sp.name_expressions')."""
    tiles = ALL_TILES if tiles is None else tiles
    # the Y^T epilogue (feature-major out, v137) and X^T by TMA (plain 2:4 on a feature-major x) on
    # the tiles that run them by default; others compile them on first use
    with_yt = TILES + PERSISTENT_TILES + (CLUSTER_2_4_TILE,)
    with_xt = TILES + STAGED_2_4_TILES
    return [t.name(dtype, c, s, d, yt) for t in tiles for c, d in ((True, 0), (False, 0), (False, 1), (False, 2))
            if (t.gathers or not c) and t.takes(d) and (d < 2 or t in with_xt)
            for s, yt in ((False, False), (True, False), (False, True)) if (not s or t.splittable) and (not yt or t in with_yt)]


def supported(device: torch.device) -> tuple[bool, str]:
    major, minor = torch.cuda.get_device_capability(device)
    if (major, minor) != (9, 0):
        return False, f"wgmma.mma_async.sp needs sm_90a (H100/H200), this GPU is sm_{major}{minor}"
    return jit.available()
