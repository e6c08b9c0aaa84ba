"""The Hopper wgmma.mma_async.sp V:N:M SpMM (csrc/spmm_wgmma_sp.cu) against its fp32 reference.

CPU: every kernel variant compiles for sm_90a with NVRTC, without spills, with the planned register
split; its SASS holds HGMMA.SP with a transposed (MN-major) B and the setmaxnreg reallocation;
the layout round-trips; tiles fit the shared memory they were planned for. GPU (marked; skipped
without an sm_90 device): correctness over T, ragged R/K, every v (16/32 through the mma.sp
fallback), m, dtype, bias, every tile, split-K, feature-major input and output, CUDA graphs, opcheck,
backward.
"""

import itertools
import subprocess
import types

import pytest
import torch

import vnmsparse as vs
from vnmsparse import ops
from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_mma_sp
from vnmsparse.kernels import spmm_wgmma_sp as W

from spmm_cases import check_case, cuobjdump, needs_cuobjdump, needs_nvrtc, random_vnm

DTYPES = (torch.float16, torch.bfloat16)


_MODULES = {}


def compiled(dtype):
    """One sm_90a build of every variant per dtype, shared by the CPU tests of this file."""
    if dtype not in _MODULES:
        _MODULES[dtype] = jit.compile(W.SOURCE, W.name_expressions(dtype), "sm_90a")
    return _MODULES[dtype]


# ------------------------------------------------------------------------------------------ compile


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_variant_compiles_without_spills(dtype):
    module = compiled(dtype)
    resources = module.resources()
    assert set(resources) == set(W.name_expressions(dtype))
    # ptxas silently turns the wgmma pipeline synchronous (a wait after every HGMMA) when it sees
    # a hazard it cannot order, and only says so in this advisory (seen: C7515 with power-of-two
    # stage counts before the consumer loop got `#pragma unroll 1`).
    serialized = [line for line in module.log.splitlines() if "wgmma.mma_async instructions are serialized" in line]
    assert not serialized, serialized[:2]
    assert all(r.spills == 0 and r.stack_bytes == 0 for r in resources.values()), resources
    for tile in W.TILES + W.SMEM_A_TILES:
        for c, s in itertools.product((True, False) if tile.mb == 1 else (False,), (False, True) if tile.splittable else (False,)):
            res = resources[tile.name(dtype, c, s)]
            assert res.spills == 0 and res.stack_bytes == 0, (tile, c, s, res)
            # ptxas allocates the entry cap that the setmaxnreg split was planned for.
            per_cta = 65536 // tile.ctas_per_sm
            assert res.registers * tile.threads <= per_cta, (tile, res)
            if tile.bm == 128:
                assert res.registers == 168, (tile, res)
            elif tile.ctas_per_sm == 2:
                assert res.registers == 128, (tile, res)
            else:
                assert res.registers >= 160, (tile, res)  # one consumer warpgroup, 128 accumulators
    log = module.log.lower()
    assert "serializ" not in log, module.log  # ptxas warns when it has to serialise wgmma
    assert "c7508" not in log and "setmaxnreg" not in log, module.log  # setmaxnreg ignored


@needs_nvrtc
def test_experiment_knobs_compile_without_spills():
    """The compile-time knobs of scripts/ab_wgmma.py (v96's column look-ahead of 3; leaving the B
    copies or the wgmma out; the 64-bit gather addresses of v17; the A-register ring's depth and
    the L2 prefetch of v21; the stage-clock trace of v113, its epilogue marks on the persistent tiles
    of v147, and their A preloads before the epilogue, as before v148, with thread 0 issuing all of a
    stage's copies, as before v235; the one-store-per-element
    staging of the epilogue, as before v164) stay buildable for A/B runs."""
    defines = {"VNM_WG_COLUMN_LOOKAHEAD": 3, "VNM_WG_SKIP_B": 1, "VNM_WG_SKIP_MMA": 1, "VNM_WG_GATHER_OFF32": 0,
               "VNM_WG_AREG_SETS": 3, "VNM_WG_TRACE": 1}
    module = jit.compile(W.SOURCE, W.name_expressions(torch.bfloat16, W.TILES + W.SMEM_A_TILES), "sm_90a", defines=defines)
    assert all(r.spills == 0 and r.stack_bytes == 0 for r in module.resources().values())
    assert "serializ" not in module.log.lower(), module.log
    names = [t.name(torch.bfloat16, c, False, 0 if c else 1) for t in W.PERSISTENT_TILES if t.mb == 1 for c in (True, False)]
    module = jit.compile(W.SOURCE, names, "sm_90a", defines={"VNM_WG_PRELOAD_LATE": 0, "VNM_WG_TRACE": 1,
                                                             "VNM_WG_SPLIT_ISSUE": 0})
    assert all(r.spills == 0 and r.stack_bytes == 0 for r in module.resources().values())
    # the epilogue's staging by one shared store per element (one-block tiles), Y and Y^T
    names = [t.name(torch.bfloat16, c, False, 0, yt) for t in W.TILES + W.PERSISTENT_TILES if t.mb == 1
             for c in (True, False) for yt in (False, True)]
    module = jit.compile(W.SOURCE, names, "sm_90a", defines={"VNM_WG_EPI_STMATRIX": 0})
    assert all(r.spills == 0 and r.stack_bytes == 0 for r in module.resources().values())
    # the L2 prefetch adds producer registers: it fits the one-block tiles (the 256 x 128 one spills)
    names = [t.name(torch.bfloat16, False, False, True) for t in W.TILES if t.mb == 1]
    module = jit.compile(W.SOURCE, names, "sm_90a", defines={"VNM_WG_AREG_PREFETCH": 4})
    assert all(r.spills == 0 and r.stack_bytes == 0 for r in module.resources().values())


def _sass_by_kernel(cubin: bytes, tmp_path) -> dict:
    path = tmp_path / "wgmma_sp.cubin"
    path.write_bytes(cubin)
    sass = subprocess.run([cuobjdump(), "--dump-sass", str(path)], capture_output=True, text=True,
                          check=True).stdout
    out, name = {}, None
    for line in sass.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return out


@needs_nvrtc
@needs_cuobjdump
@pytest.mark.parametrize("dtype", DTYPES)
def test_sass_has_sparse_hgmma_and_register_split(dtype, tmp_path):
    module = compiled(dtype)
    sass = _sass_by_kernel(module.cubin, tmp_path)
    ptx_type = {torch.bfloat16: "BF16", torch.float16: "F16"}[dtype]
    for tile in W.TILES:
        for c, s in itertools.product((True, False), (False, True) if tile.splittable else (False,)):
            if c and not tile.gathers:  # two m64 blocks per consumer: plain 2:4 only (name_expressions)
                continue
            lines = sass[module.symbols[tile.name(dtype, c, s)]]
            hgmma = [ln for ln in lines if "HGMMA" in ln]
            want = f"HGMMA.SP.64x{tile.bn}x32.F32" + (".BF16" if dtype == torch.bfloat16 else "")
            assert len(hgmma) >= 2 and len(hgmma) % 2 == 0, (tile, hgmma)
            assert all(want in ln and "tnspB" in ln and ("BF16" in ln) == (ptx_type == "BF16") for ln in hgmma), \
                (tile, ptx_type, hgmma)
            assert not any("HMMA" in ln and "HGMMA" not in ln for ln in lines), tile
            assert not any(" STL" in ln or " LDL" in ln for ln in lines), tile
            assert any("USETMAXREG.DEALLOC" in ln for ln in lines), tile
            if tile.bm == 128 or tile.ctas_per_sm == 2:
                assert any("USETMAXREG.TRY_ALLOC" in ln for ln in lines), tile
            # one group in flight: the consumer waits for <= 1 outstanding wgmma group per stage
            assert any("WARPGROUP.DEPBAR.LE gsb0, 0x1" in ln for ln in lines), tile
            assert sum("LDGSTS" in ln for ln in lines) >= 3, tile  # cp.async producer



# ------------------------------------------------------------------------------------- host side


def test_tiles_fit_shared_memory():
    for tile in W.TILES + W.SMEM_A_TILES + W.STAGED_TILES + tuple(W.GROUPED_TILES.values()):
        assert tile.smem_bytes <= 232448, tile  # 227 KB per-CTA opt-in limit
        assert tile.ctas_per_sm * (tile.smem_bytes + 1024) <= spmm_mma_sp.SMEM_PER_SM, tile
        assert tile.stages >= 3
        # the epilogue staging [bn][bm + 8] reuses the pipeline buffers
        assert tile.bn * (tile.bm + 8) * 2 <= tile.stages * tile.stage_bytes
    assert len({(t.bm, t.bn) for t in W.TILES}) == len(W.TILES) == len(W.TILE_TABLE) + 1  # + 256 x 128


def test_tune_tiles_gathered_one_block_per_consumer():
    """Autotune's candidates for a gathered weight are tiles with a gathered variant only: at V = 256 the 256 x 128
    two-block tiles (plain 2:4 only) fit V but are left out; plain 2:4 keeps them."""
    gathered = W._tune_tiles(object(), 4096, 256, 0)
    assert gathered and all(t.gathers and 256 % t.bm == 0 for t in gathered)
    assert any(t.mb == 2 for t in W._tune_tiles(None, 4096, 256, 1))


def test_tile_choice(monkeypatch):
    assert W.row_tile(64) == 64 and W.row_tile(128) == 128 and W.row_tile(256) == 128 and W.row_tile(192) == 64
    for v in (16, 32, 48, 96):
        assert W.row_tile(v) is None
        with pytest.raises(ValueError):
            W.choose_tile(100, 512, v)
    for v in (64, 128, 192, 256):
        for t in (1, 7, 16, 33, 64, 65, 200, 1000, 4096, 65536):
            for rows in (64, 260, 4096, 11008):
                tile = W.choose_tile(t, rows, v, 132)
                assert v % tile.bm == 0
                if t <= 32 and rows > 1024:  # V:2:M on the 16- and 32-token staged tiles (v114)
                    assert tile == W.NARROW_TILES[(tile.bm, 16 if t <= 16 else 32)] and tile.splittable
                    continue
                assert tile in W.TILES
                if t <= 64 or -(-rows // tile.bm) * -(-t // 128) <= 66:  # (mid T on few rows: v103)
                    assert tile.bn == 64 and tile.splittable
    assert W.choose_tile(8192, 4096, 128, 132).bn == 256
    # one wave of 128 x 256 tiles over two of 128 x 128 (BERT FFN2, T = 4096), not over one of them
    assert W.choose_tile(4096, 1024, 128, 132, m=4).bn == 256 and W.choose_tile(2048, 1024, 128, 132, m=4).bn == 128
    # persistent from PERSISTENT_MIN_M on, at prefill sizes only (decode keeps its K splits)
    assert W.choose_tile(8192, 4096, 128, 132, m=W.PERSISTENT_MIN_M) in W.PERSISTENT_TILES
    assert W.choose_tile(4096, 11008, 128, 132, m=128).bn == 256  # persistent: no wave cost
    assert W.choose_tile(8192, 4096, 128, 132, m=W.PERSISTENT_MIN_M // 2) in W.TILES
    # ... at any K (v172), taking A through the ring by bulk copies (v170), 64-row ones 128 tokens wide
    for t, rows, v, k in ((8192, 11008, 128, 4096), (4096, 1024, 128, 4096), (8192, 4096, 64, 4096),
                          (8192, 4096, 128, 11008), (8192, 4096, 64, 11008)):
        tile = W.choose_tile(t, rows, v, 132, m=128, k=k)
        assert tile in W.PERSISTENT_STAGED.values() and tile.staged and (v == 128 or tile.bn == 128), tile
    # ... or, under PERSISTENT_MAX_STEPS, where K gives a tile at most that many k-steps (4K / M
    # gathered columns, 64 a step)
    monkeypatch.setattr(W, "PERSISTENT_MAX_STEPS", 2)
    assert W.choose_tile(8192, 11008, 128, 132, m=128, k=4096).persistent
    assert W.choose_tile(8192, 4096, 128, 132, m=128, k=11008) in W.TILES
    assert W.choose_tile(16, 4096, 128, 132, m=128).splittable
    # plain 2:4 at T <= 64: the staged tiles, as narrow as T where X comes by TMA
    assert [W.choose_tile(t, 4096, 128, 132, m=4, tma_x=True).bn for t in (9, 16, 17, 32, 33, 64)] == [16, 16, 32, 32, 64, 64]
    assert {W.choose_tile(t, 4096, 128, 132, m=4).bn for t in (9, 16, 32, 64)} == {64}
    # mid T: the decode tiles where the prefill tile's grid would leave half the SMs idle
    assert W.choose_tile(128, 4096, 128, 132) == W.TILE_TABLE[(128, 64)]  # 32 CTAs of 128 x 128
    assert W.choose_tile(256, 4096, 128, 132, m=4) == W.STAGED_2_4  # 64
    # ... but plain 2:4 by TMA keeps a prefill tile and splits K, up to WIDE_SPLITS_MAX splits (v132):
    # 128 x 256 where its grid is one wave (v194), else the cost rule's
    wide = W.choose_tile(256, 4096, 128, 132, m=4, tma_x=True)
    assert wide == W.TILE_TABLE[(128, 256)] and W.choose_splits(wide, 256, 4096, 64, 132) == 4
    # 256 x 128 where its one wave beats two of 128 x 128 (v196: LLaMA gate/up T = 300), not two of its own
    assert W.choose_tile(300, 11008, 128, 132, m=4, tma_x=True) == W.TALL_TILE
    assert W.choose_tile(300, 11008, 128, 132, m=4) == W.TILE_TABLE[(128, 128)]  # (by TMA only)
    assert W.choose_tile(512, 11008, 128, 132, m=4, tma_x=2) == W.TILE_TABLE[(128, 256)]  # (row-major X: v215's below)
    assert W.choose_tile(300, 13824, 128, 132, m=4, tma_x=True) == W.TILE_TABLE[(128, 256)]
    assert W.choose_tile(128, 4096, 128, 132, m=4, tma_x=True) == W.TILE_TABLE[(128, 128)]  # 32 CTAs: 4 splits
    assert W.choose_tile(256, 1024, 128, 132, m=4, tma_x=True) == W.STAGED_2_4  # 16 CTAs: 8 splits would be too many
    assert W.choose_tile(128, 4096, 128, 132, m=8) == W.TILE_TABLE[(128, 64)]  # gathered: the decode tiles
    assert W.choose_tile(512, 4096, 128, 132).bn == 128  # 128 CTAs
    assert W.choose_tile(128, 11008, 128, 132).bn == 128  # LLaMA gate/up: 86 row tiles
    assert W.choose_tile(1024, 1024, 128, 132, m=16) == W.TILE_TABLE[(128, 64)]  # 64 CTAs
    # gathered decode tiles copy 4 stages at a time where a CTA runs >= GROUPED_MIN_STEPS steps
    for (bm, bn), g4 in W.GROUPED_TILES.items():
        r1 = W.TILE_TABLE[(bm, 64)] if bn == 64 else W.NARROW_TILES[(bm, bn)]
        assert g4.copy_steps == 4 and (g4.bm, g4.bn, g4.staged) == (bm, bn, True) and g4.splittable
        assert W.grouped(r1, W.GROUPED_MIN_STEPS, True) == g4
        assert W.grouped(r1, W.GROUPED_MIN_STEPS - 1, True) == r1 and W.grouped(r1, 32, False) == r1
        assert W.grouped(W.TILE_TABLE[(bm, 128)], 32, True) == W.TILE_TABLE[(bm, 128)]
    assert len(W.GROUPED_TILES) == 6 and str(W.GROUPED_TILES[(128, 64)]) == "wg128x64s12t1g4"
    assert W.GROUPED_TILES[(128, 64)].name(torch.bfloat16, True, True).endswith(", 1, 2, false, 1, 4>")
    # gathered T <= 8 leaves the decode kernel for the narrow tiles on large weights only, and not while T x m and
    # the bytes of the X slices are small (DECODE_OVER_NARROW); 0: the narrow tile, else the decode kernel's row tile
    rows_of = lambda *case: [W.decode_rows(*c, 132) for c in case]
    assert rows_of((12, 11008, 4096, 128, 8), (8, 4096, 11008, 128, 16), (1, 28672, 8192, 128, 8)) == [0, 0, 0]
    assert rows_of((2, 13824, 5120, 128, 8), (8, 11008, 4096, 128, 8)) == [0, 0]
    assert rows_of((4, 11008, 4096, 128, 8), (4, 4096, 11008, 128, 16), (8, 4096, 4096, 128, 8)) == [128] * 3
    assert rows_of((8, 1024, 65536, 128, 8), (8, 5120, 5120, 128, 8)) == [128] * 2
    # 64-row tiles; a V = 64 weight that they leave to the narrow tile runs two V-row blocks a 128-row CTA
    # where that tile keeps it (v304)
    assert rows_of((8, 11008, 4096, 64, 8), (2, 28672, 8192, 64, 8), (4, 13824, 5120, 64, 8)) == [0, 0, 0]
    assert rows_of((4, 11008, 4096, 64, 8), (2, 13824, 5120, 64, 16), (1, 28672, 8192, 64, 8)) == [64] * 3  # 7 MiB (v319)
    assert rows_of((4, 11008, 4096, 64, 16), (8, 5120, 5120, 64, 8), (4, 8192, 8192, 64, 16)) == [128] * 3
    # ... and where the 64-row tile runs a weight too small for the narrow tile from T x m = 128 to its plan's limit,
    # if 128-row CTAs (row tiles x K splits) still reach every SM (v306)
    assert rows_of((8, 5120, 5120, 64, 32), (4, 4096, 4096, 64, 32), (2, 11008, 4096, 64, 64)) == [128] * 3
    assert rows_of((8, 4096, 4096, 64, 8), (4, 3072, 1024, 64, 32), (1, 4096, 4096, 64, 128)) == [64] * 3
    assert rows_of((4, 28672, 8192, 64, 128), (4, 1024, 4096, 64, 16)) == [64] * 2  # past the plan's T x m; T x m 64
    assert W.decode_rows(4, 4096, 4096, 64, 32, 300) == 64  # (256 CTAs of 128 rows would leave SMs idle)
    assert rows_of((2, 11008, 4096, 64, 8), (1, 4096, 11008, 64, 8), (1, 13824, 5120, 64, 16)) == [64] * 3
    monkeypatch.setattr(W, "DECODE_TWO_BLOCKS_PAST_TM", 0)
    assert rows_of((8, 5120, 5120, 64, 32), (4, 11008, 4096, 64, 16)) == [64, 128]
    monkeypatch.setattr(W, "DECODE_TWO_BLOCKS", False)
    assert rows_of((4, 11008, 4096, 64, 16), (8, 5120, 5120, 64, 8)) == [0, 0]
    for bad in (dict(stages=10), dict(stages=4), dict(persistent=True), dict(staged=False)):
        with pytest.raises(ValueError, match="copy_steps"):
            W.WgTile(**{**dict(bm=128, bn=64, stages=12, a_regs=True, staged=True, copy_steps=4), **bad})
    # ... in 64 rows where 128-row tiles number between half the SMs and all of them (LLaMA gate/up)
    assert [W.choose_tile(t, 11008, 128, 132, m=4, tma_x=True) for t in (16, 32, 64)] == [W.STAGED_2_4_HALF[n] for n in (16, 32, 64)]
    # ... at every T (since v204 X's last box reads no rows past T; v204b)
    assert [W.choose_tile(t, 11008, 128, 132, m=4, tma_x=True) for t in (1, 21, 33, 40, 54)] == [
        W.STAGED_2_4_HALF[n] for n in (16, 32, 64, 64, 64)]
    assert W.choose_tile(64, 11008, 128, 132, m=4) == W.STAGED_2_4 and W.choose_tile(64, 4096, 128, 132, m=4, tma_x=True) == W.STAGED_2_4
    for v in (16, 32, 64):  # m = 4 keeps every column: the row tile ignores V
        assert W.row_tile(v, 4) == 128 and W.choose_tile(4096, 4096, v, 132, m=4).bm == 128
    # plain 2:4 on a row-major X: 128 x 256 over more CTAs than SMs runs as the staged persistent tile
    # in clusters of 2 (v215)
    c2 = W.CLUSTER_2_4_TILE
    assert (c2.bn, c2.staged, c2.persistent, c2.cluster) == (256, True, True, 2) and c2 in W.CLUSTER_TILES
    for t, rows in ((8192, 4096), (2048, 11008), (2048, 4096), (8192, 1024), (4096, 13824)):
        assert W.choose_tile(t, rows, 128, 132, m=4, tma_x=1) == c2, (t, rows)
        assert W.choose_tile(t, rows, 128, 132, m=4, tma_x=2) != c2  # X^T: no cluster variant
        assert W.choose_tile(t, rows, 128, 132, m=4) != c2 and W.choose_tile(t, rows, 128, 132, m=8, tma_x=0) != c2
    assert W.choose_tile(4096, 1024, 128, 132, m=4, tma_x=1) == W.TILE_TABLE[(128, 256)]  # 128 CTAs: one wave
    assert W.choose_tile(8192, 1408, 128, 132, m=4, tma_x=1) == c2  # 11 row tiles: one padding tile (the image has it)
    assert W.choose_tile(1024, 11008, 128, 132, m=4, tma_x=1) == c2 == W.choose_tile(1100, 4096, 128, 132, m=4, tma_x=1)
    # ... not below CLUSTER_2_4_MIN_TOKENS, nor where the last token tile is mostly past T (v217)
    assert W.choose_tile(400, 13824, 128, 132, m=4, tma_x=1) == W.TILE_TABLE[(128, 256)]
    assert W.choose_tile(600, 11008, 128, 132, m=4, tma_x=1) != c2 and W.choose_tile(1300, 4096, 128, 132, m=4, tma_x=1) != c2
    monkeypatch.setattr(W, "CLUSTER_2_4", False)
    assert W.choose_tile(8192, 4096, 128, 132, m=4, tma_x=1) == W.TILE_TABLE[(128, 256)]


def test_cluster_wave_from_the_driver(monkeypatch):
    """A persistent cluster grid holds the clusters the driver says run at once (v220), in CTAs;
    where the driver cannot answer, None (the grid keeps SMs / cluster clusters)."""
    class Kernel:
        def __init__(self, count):
            self.count = count

        def max_active_clusters(self, block, cluster, shared_mem=0):
            if self.count is None:
                raise RuntimeError("cuOccupancyMaxActiveClusters failed: CUDA_ERROR_INVALID_CONTEXT")
            return self.count

    for count, want in ((30, 120), (0, 4), (None, None)):
        W._cluster_wave.cache_clear()
        monkeypatch.setattr(W, "_kernel", lambda name, count=count: Kernel(count))
        assert W._cluster_wave(0, "k", 384, 190_000, 4) == want
    W._cluster_wave.cache_clear()


def test_split_choice():
    tile = W.TILE_TABLE[(128, 64)]
    assert W.choose_splits(tile, 8, 4096, 256, 132) > 1  # decode: 32 CTAs for 132 SMs
    assert W.choose_splits(tile, 8, 4096, 3, 132) == 1
    assert W.choose_splits(W.TILE_TABLE[(128, 256)], 8192, 4096, 256, 132) == 1
    assert W.choose_splits(W.TILE_TABLE[(128, 128)], 512, 1024, 64, 132) == 4  # 32 CTAs (v132's wide splits)
    assert W.choose_splits(W.PERSISTENT_TILES[0], 512, 1024, 64, 132) == 1  # persistent: no splits
    assert W.choose_splits(tile, 64, 4096, 172, 132) == 4  # 32 row tiles: 4 splits make one wave
    assert W.choose_splits(tile, 64, 11008, 64, 132) == 1  # 86 row tiles: a second wave costs more
    assert W.choose_splits(W.TILE_TABLE[(64, 64)], 64, 4096, 64, 132) == 4  # 2 CTAs per SM


@pytest.mark.parametrize("v,m,r,k", [(64, 4, 130, 67), (64, 8, 64, 1000), (128, 10, 260, 371), (128, 128, 300, 4000),
                                     (64, 5, 200, 33), (256, 16, 512, 100), (32, 8, 100, 300), (16, 4, 40, 88)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layout_round_trip(v, m, r, k, dtype):
    gen = torch.Generator().manual_seed(v + m + r + k)
    cfg = vs.VNMConfig(v, 2, m)
    w = random_vnm(r, k, cfg, dtype, "cpu", gen)
    vw = vs.pack(w, cfg)
    values, meta, cols = W.build_layout(vw)
    if W.row_tile(v, m) is None:  # the mma.sp fallback's sm80 layout, shared with that kernel
        assert all(a is b for a, b in zip(W.layout_of(vw), spmm_mma_sp.layout_of(vw)) if a is not None)
    else:  # the fragment image: whole 256-row tiles, whole stages
        steps = -(-cfg.groups(k) // W.KS)
        assert values.shape == (-(-r // 256) * 4, steps, 2, 128, 8) and values.dtype == dtype
        assert meta.shape == (-(-r // 256) * 4, steps, 64, 2)  # the words selector 0 reads (v52)
        assert W.layout_of(vw)[0] is W.layout_of(vw)[0]  # cached on the weight
    back = W.canonical_from_layout(values, meta, cols, vw.shape, cfg)
    assert torch.equal(back[0], vw.values) and torch.equal(back[1], vw.positions)
    assert (back[2] is None) == (vw.columns is None)
    if vw.columns is not None:
        assert torch.equal(back[2], vw.columns)
    assert torch.equal(vs.unpack(vw), w)
    # the decoder the op's backward uses is registered under the layout name
    assert ops.LAYOUT_DECODERS[W.LAYOUT] is W.canonical_from_layout
    assert ops.CUDA_LAYOUTS[W.LAYOUT] is W.spmm_sm90a


def test_fragment_image_is_what_each_thread_loads():
    """Per thread t of a consumer warpgroup and k32 step: the image's A registers are
    wgmma_sp_layout.a_fragments (the probe-proven layout, also mma.sp m16n8k32's per warp) and the
    metadata pair it loads, word 16w + 2 gid + (tig & 1) (v52: only the pair selector 0 reads is
    stored), is metadata_words(..., "same"), for every tig."""
    from vnmsparse.kernels import wgmma_sp_layout as L

    gen = torch.Generator().manual_seed(3)
    cfg = vs.VNMConfig(64, 2, 8)
    vw = vs.pack(random_vnm(64, 8 * 2 * W.KS, cfg, torch.bfloat16, "cpu", gen), cfg)
    afrag, mfrag, _ = W.build_layout(vw)
    values, meta, _ = spmm_mma_sp.build_rows(vw)
    t = torch.arange(128)
    wc = 16 * (t // 32) + 2 * ((t % 32) // 4) + (t % 2)
    for step in range(2):
        for ks in range(2):
            g0 = step * W.KS
            sl = values[:, g0:g0 + W.KS]
            assert torch.equal(afrag[0, step, ks].contiguous().view(torch.int32), L.a_fragments(sl, ks))
            words = L.metadata_words(meta[:, g0 // 2:(g0 + W.KS) // 2], ks, 0, "same")
            assert torch.equal(mfrag[0, step, wc, ks], words)


@pytest.mark.parametrize("v,m,r,k", [(64, 8, 130, 520), (128, 16, 300, 1000), (64, 32, 64, 4096), (16, 4, 40, 88),
                                     (16, 16, 50, 96), (32, 32, 70, 200)])
def test_layout_as_2_4_round_trip(v, m, r, k):
    cfg = vs.VNMConfig(v, 2, m)
    gen = torch.Generator().manual_seed(m)
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16()
    vw = vs.pack(w, cfg)
    values, meta, cols = W.layout_as_2_4(vw)
    assert cols is None and W.layout_as_2_4(vw)[0] is values  # cached on the weight
    parts = W.canonical_from_layout_as_2_4(values, meta, cols, (r, k), cfg)
    assert torch.equal(vs.format.unpack_parts(*parts, (r, k), cfg), w)
    values, meta, cols = spmm_mma_sp.build_as_2_4_layout(vw)  # (the mma.sp kernel's form, of which that is the image)
    assert cols is None and values.shape[1] * W.KS * 4 >= k
    parts = spmm_mma_sp.canonical_from_as_2_4_layout(values, meta, cols, (r, k), cfg)
    assert torch.equal(vs.format.unpack_parts(*parts, (r, k), cfg), w)


def test_layout_as_2_4_needs_m_multiple_of_4():
    cfg = vs.VNMConfig(64, 2, 10)
    vw = vs.pack(torch.zeros(64, 100, dtype=torch.bfloat16), cfg)
    with pytest.raises(ValueError, match="M % 4"):
        W.layout_as_2_4(vw)


def test_out_must_be_row_major_or_feature_major():
    x, vals = torch.zeros(8, 64), torch.zeros(1)
    for bad in (torch.zeros(16, 9)[:, :8].t(), torch.zeros(16, 16).t()[:8, ::2]):
        with pytest.raises(ValueError, match="transpose of a contiguous"):
            W.spmm_sm90a(x, vals, vals, None, None, 16, 64, 128, 8, out=bad)


def test_x_direct_modes():
    """TMA_X: 1 for a row-major x (K % 8 == 0), 2 for a feature-major one (X^T's rows, a multiple
    of 8 apart), 0 where the gather runs (column lists, misaligned or odd strides)."""
    x = torch.zeros(16, 64)
    assert W.x_direct(x, False) == 1 and W.x_direct(x, True) == 0
    assert W.x_direct(torch.zeros(64, 16).t(), False) == 2
    assert W.x_direct(torch.zeros(64, 24)[:, :13].t(), False) == 2  # padded X^T rows, ragged T
    assert W.x_direct(torch.zeros(64, 13).t(), False) == 0  # rows 26 bytes apart
    assert W.x_direct(torch.zeros(16, 66)[:, :63], False) == 0  # odd K, padded rows
    assert W.x_direct(torch.zeros(16, 65)[:, 1:], False) == 0  # base 4 bytes in


def test_not_a_cpu_path():
    from vnmsparse.kernels import spmm_paths

    assert "wgmma_sp" not in spmm_paths("cpu")
    if not torch.cuda.is_available():  # asking for "cuda" without one: the reference path, no error
        assert list(spmm_paths("cuda")) == ["reference"]


# ------------------------------------------------------------------------------------------- GPU


def wgmma_ok() -> bool:
    return torch.cuda.is_available() and W.supported(torch.device("cuda"))[0]


needs_sm90a = pytest.mark.skipif(not torch.cuda.is_available() or not wgmma_ok(),
                                 reason="needs an sm_90 GPU (H100/H200) and NVRTC")


def run_case(r, k, t, v, m, dtype, bias, gen, *, tile=None, splits=None, lead=(), tma_x=None):
    return check_case(lambda x, vw, b, out: W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, v, m, tile=tile, splits=splits,
                                                         out=out, tma_x=tma_x),
                      r, k, t, v, m, dtype, bias, gen, lead=lead, what=f"tile={tile} splits={splits} tma_x={tma_x}")


TOKENS = (1, 7, 64, 1000, 4096)
VS = (16, 32, 64, 128)  # 16 and 32 run the mma.sp fallback
MS = (4, 5, 8, 10, 16, 32, 100, 128)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("v,m", list(itertools.product(VS, MS)))
def test_patterns(v, m):
    gen = torch.Generator().manual_seed(v * 1000 + m)
    for i, t in enumerate(TOKENS):
        r = v * 3 + 8 * (i % 3) + (5 if i % 2 else 0)  # ragged: not a multiple of v, sometimes odd
        k = m * 37 + (3 if i % 2 else 0) + i          # ragged: partial last group
        dtype = (torch.bfloat16, torch.float16)[i % 2]
        run_case(r, k, t, v, m, dtype, bias=bool(i % 2 == 0), gen=gen)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", W.SMEM_A_TILES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_smem_a_tile(tile, dtype):
    """v20's tiles (A by TMA into shared memory, from the sm80 layout), kept for A/B runs."""
    gen = torch.Generator().manual_seed(7)
    v = 128  # every tile (bm 64 or 128) fits V = 128
    for has_cols, t, r in ((True, 300, 260), (False, 33, 260), (True, 1000, 389), (True, 64, 256)):
        m = 16 if has_cols else 4
        for bias in (True, False):
            check_case(lambda x, vw, b, out: W.spmm_sm90a(x, *spmm_mma_sp.layout_of(vw), b, r, m * 41 + 2, v, m,
                                                          tile=tile, out=out),
                       r, m * 41 + 2, t, v, m, dtype, bias, gen, what=f"tile={tile}")


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", [t for t in W.TILES if t.splittable], ids=str)
def test_every_tile_split_k(tile):
    gen = torch.Generator().manual_seed(23)
    run_case(260, 8 * 16 * 9 + 5, 20, 128, 8, torch.bfloat16, True, gen, tile=tile, splits=3)
    run_case(256, 4096, 64, 128, 4, torch.float16, False, gen, tile=tile, splits=5)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", W.TILES, ids=str)
def test_x_by_tma(tile):
    """Plain 2:4 with K % 8 == 0 reads X through TMA: ragged T, R and K tails (zero fill past the
    tensor; the last box as short as T allows, v204: 8-56 rows of 64, or a whole one at T = 121), every
    tile, split-K on the decode tile; the X^T gather gives the same answer."""
    gen = torch.Generator().manual_seed(tile.bm + tile.bn)
    for r, k, t in ((260, 8 * 131, 300), (389, 72, 1000), (128, 4096, 7), (200, 1000, 1), (130, 520, 200), (136, 1024, 121)):
        for dtype, bias in ((torch.bfloat16, True), (torch.float16, False)):
            run_case(r, k, t, 64, 4, dtype, bias, gen, tile=tile, tma_x=True)
    run_case(300, 2048, 33, 64, 4, torch.bfloat16, True, gen, tile=tile, tma_x=False)
    if tile.splittable:
        run_case(256, 4096, 40, 64, 4, torch.bfloat16, True, gen, tile=tile, splits=5, tma_x=True)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", W.TILES + W.STAGED_2_4_TILES, ids=str)
def test_x_feature_major_by_tma(tile):
    """Plain 2:4 on a feature-major x (X^T's rows, NaN past T) reads it by TMA into the MN-major
    image (TMA_X = 2): ragged T, R and K (odd too), both dtypes, bias, split-K where the tile
    splits, and a feature-major out as well (Y^T from the epilogue or the split reduction)."""
    gen = torch.Generator().manual_seed(tile.bm * 5 + tile.bn)

    def case(r, k, t, dtype, bias, y_t=False, **kw):
        def launch(x, vw, b, out):
            xt = torch.full((k, -(-t // 8) * 8 + 8), float("nan"), dtype=dtype, device="cuda")
            xt[:, :t] = x.t()
            xf = xt[:, :t].t()
            assert W.x_direct(xf, False) == 2
            if y_t:
                out = torch.full((r, t), float("nan"), dtype=dtype, device="cuda").t()
            y = W.spmm_sm90a(xf, *W.layout_of(vw), b, r, k, 128, 4, tile=tile, out=out, tma_x=True, **kw)
            assert y.data_ptr() == out.data_ptr()
            return y

        check_case(launch, r, k, t, 128, 4, dtype, bias, gen, what=f"tile={tile} X^T by TMA y_t={y_t} {kw}")

    for r, k, t in ((260, 8 * 131, 300), (389, 72, 1000), (300, 1001, 7), (513, 4096, 257), (128, 1000, 2)):
        for dtype, bias in ((torch.bfloat16, True), (torch.float16, False)):
            case(r, k, t, dtype, bias)
    case(260, 1000, 300, torch.bfloat16, True, y_t=True)
    if tile.splittable:
        case(256, 4096, 40, torch.bfloat16, True, splits=5)
        case(256, 4096, 40, torch.bfloat16, True, y_t=True, splits=5)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", W.TILES + W.STAGED_TILES + W.PERSISTENT_TILES + tuple(W.GROUPED_TILES.values()), ids=str)
def test_every_tile(tile):
    """Every tile (A and metadata from the fragment image into registers, v21): gathered and plain
    2:4 (X^T and X by TMA; a tile without an X^T variant refuses it), ragged R, K and T, both
    dtypes, bias, split-K on the decode tiles."""
    gen = torch.Generator().manual_seed(tile.bm * 7 + tile.bn)

    def case(r, k, t, v, m, dtype, bias, **kw):
        check_case(lambda x, vw, b, out: W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, v, m, tile=tile, out=out, **kw),
                   r, k, t, v, m, dtype, bias, gen, what=f"tile={tile} {kw}")

    for r, k, t in ((260, 8 * 131, 300), (389, 72, 1000), (300, 1000, 7), (513, 4096, 257)):
        for dtype, bias in ((torch.bfloat16, True), (torch.float16, False)):
            case(r, k, t, 128, 4, dtype, bias, tma_x=True)
            if tile.mb == 1 and not tile.x_by_tma_only:
                case(r, k + 3, t, 128, 16, dtype, bias)
    if tile.x_by_tma_only:
        with pytest.raises(ValueError, match="cannot read this X"):
            case(300, 2048, 33, 64, 4, torch.bfloat16, True, tma_x=False)
    else:
        case(300, 2048, 33, 64, 4, torch.bfloat16, True, tma_x=False)
    if tile.splittable:
        case(256, 4096, 40, 64, 4, torch.bfloat16, True, splits=5, tma_x=True)
        if not tile.x_by_tma_only:
            case(260, 8 * 16 * 9 + 5, 20, 128, 8, torch.float16, True, splits=3)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("raster", [0, 3])
@pytest.mark.parametrize("tile", W.PERSISTENT_TILES, ids=str)
def test_persistent_tile_loops(tile, raster, monkeypatch):
    """Persistent tiles (v24) on a grid made small (as if the GPU had 3 SMs), so that each CTA runs
    many tiles: the ring's stage and phase carry across tiles whose step count is no multiple of
    the stages, ragged last tiles in R and T, the epilogue in 64-token passes; tiles numbered in
    bands of 3 row tiles too (RASTER_ROWS, the last band ragged: every tile written once)."""
    gen = torch.Generator().manual_seed(tile.bm * 5 + tile.bn)
    monkeypatch.setattr(W, "_sms", lambda index: 3)
    monkeypatch.setattr(W, "RASTER_ROWS", raster)

    def case(r, k, t, v, m, dtype, bias, **kw):
        check_case(lambda x, vw, b, out: W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, v, m, tile=tile, out=out, **kw),
                   r, k, t, v, m, dtype, bias, gen, what=f"tile={tile} {kw}")

    assert tile.grid(1000, 1000, 1, 3)[0] == 3 * tile.ctas_per_sm
    for r, k, t in ((1000, 8 * 71, 700), (389, 4096, 1000), (260, 72, 1)):
        case(r, k, t, 128, 4, torch.bfloat16, True, tma_x=True)
        case(r, k, t, 128, 4, torch.float16, False, tma_x=False)
        if tile.mb == 1:
            case(r, k + 3, t, 128, 16, torch.bfloat16, True)
            case(r, k, t, tile.bm, 8, torch.float16, True)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("tile", W.CLUSTER_TILES, ids=str)
def test_cluster_multicast(tile, monkeypatch):
    """Clusters of row tiles sharing X by TMA multicast (v25): row tiles padded to whole clusters
    (odd counts, R not a multiple of the tile), ragged T and K, T = 1; the X^T path is refused. A
    persistent one runs on whole clusters of a small grid (3 SMs: one cluster)."""
    gen = torch.Generator().manual_seed(tile.bn + 3)
    if tile.persistent:
        monkeypatch.setattr(W, "_sms", lambda index: 3)
        assert tile.grid(1000, 1000, 1, 3)[0] == tile.cluster

    def case(r, k, t, dtype, bias, **kw):
        check_case(lambda x, vw, b, out: W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, 128, 4, tile=tile, out=out, **kw),
                   r, k, t, 128, 4, dtype, bias, gen, what=f"tile={tile}")

    for r, k, t in ((389, 8 * 131, 300), (128, 72, 1000), (260, 4096, 1), (1000, 1000, 257)):
        if not tile.fits_frag_image(r):  # 4-CTA clusters at R = 128
            with pytest.raises(ValueError, match="reads past the fragment image"):
                case(r, k, t, torch.bfloat16, True)
            continue
        case(r, k, t, torch.bfloat16, True)
        case(r, k, t, torch.float16, False)
    grid = tile.grid(389, 300, 1, 132)
    assert tile.row_tiles(389) == 4 and grid == ((4 * -(-300 // tile.bn), 1, 1) if tile.persistent else (4, -(-300 // tile.bn), 1))
    cfg = vs.VNMConfig.parse("2:4")
    vw = vs.pack(random_vnm(256, 64, cfg, torch.bfloat16, "cuda", gen), cfg)
    x = torch.randn(8, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="cannot read this X"):
        W.spmm_sm90a(x, *W.layout_of(vw), None, 256, 64, 128, 4, tile=tile, tma_x=False)
    with pytest.raises(ValueError, match="cannot read this X"):  # X^T by TMA: no multicast form
        W.spmm_sm90a(x.t().contiguous().t(), *W.layout_of(vw), None, 256, 64, 128, 4, tile=tile)


def test_xt_as_rows_rule():
    """v226's measured bounds: a feature-major x goes to rows where TMA cannot read it as X^T, and at few
    tokens on many rows (T <= 8 from 4096 rows, T <= 32 from 8192), never at 1024 rows or T = 64."""
    assert W.xt_as_rows(4, 1024, False) and W.xt_as_rows(100, 1024, False)
    assert W.xt_as_rows(8, 4096, True) and W.xt_as_rows(32, 11008, True)
    assert not any(W.xt_as_rows(t, r, True) for t, r in ((8, 1024), (16, 4096), (64, 11008), (2048, 4096)))


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("r,t", [(1000, 4), (1000, 13), (1000, 8), (4096, 8), (4096, 16), (8192, 32), (8192, 40),
                                 (300, 100)])
def test_feature_major_2to4_as_rows(r, t, monkeypatch):
    """Plain 2:4 on a feature-major x (rows T tokens apart) goes to rows where TMA cannot read it as
    X^T (T % 8 != 0) and at few tokens on many rows (v224, v226); the result matches either way."""
    gen = torch.Generator().manual_seed(r + t)
    seen = []
    as_rows = spmm_mma_sp.as_rows
    monkeypatch.setattr(spmm_mma_sp, "as_rows", lambda x2: seen.append(x2.shape) or as_rows(x2))

    def launch(x, vw, b, out):
        return W.spmm_sm90a(x.t().contiguous().t(), *W.layout_of(vw), b, r, 264, 128, 4, out=out)

    check_case(launch, r, 264, t, 128, 4, torch.bfloat16, True, gen, what="feature-major x")
    want = W.xt_as_rows(t, r, t % 8 == 0)
    assert bool(seen) == want, (r, t, seen)


@pytest.mark.gpu
@needs_sm90a
def test_gather_in_token_chunks(monkeypatch):
    """An X^T past the gather's 32-bit offsets runs in token chunks (the limit lowered here), from
    a row-major x and from a token-contiguous view, with split-K too; a K that no chunk fits is refused."""
    gen = torch.Generator().manual_seed(31)
    monkeypatch.setattr(W, "GATHER_BYTES_MAX", 2 * 1000 * 200)  # chunks of 192 tokens at K = 1000
    run_case(300, 1000, 1000, 128, 8, torch.bfloat16, True, gen)
    run_case(260, 1000, 777, 64, 16, torch.float16, False, gen, lead=(3,))
    run_case(260, 1000, 100, 128, 8, torch.bfloat16, True, gen, splits=3, tile=[t for t in W.TILES if t.splittable][0])
    cfg = vs.VNMConfig.parse("128:2:8")
    w = (torch.randn(128, 1000) * vs.random_vnm_mask((128, 1000), cfg, generator=gen)).to(torch.bfloat16)
    vw = vs.pack(w.cuda(), cfg)
    xt = torch.randn(1000, 400, dtype=torch.bfloat16, device="cuda").t()  # token-contiguous view
    ref = xt.float() @ w.cuda().float().t()
    assert ((W.spmm_sm90a(xt, *W.layout_of(vw), None, 128, 1000, 128, 8).float() - ref).norm() / ref.norm()) < 1e-2
    monkeypatch.setattr(W, "GATHER_BYTES_MAX", 1000)
    with pytest.raises(ValueError, match="too large for the gathered"):
        W.spmm_sm90a(xt, *W.layout_of(vw), None, 128, 1000, 128, 8)


def test_as_2_4_route_predicate(monkeypatch):
    """64:2:8 (and V % 64 != 0 where the union layout gathers at least half the window) runs as 2:4 from AS_2_4_MIN_TOKENS tokens on (AS_2_4_MANY_ROWS_MIN_TOKENS on more than
    sms / 2 row tiles of 128), for a TMA-readable X, unless VNM_AS_2_4=0."""
    import types

    import vnmsparse.kernels as kernels

    monkeypatch.setattr(W, "_sms", lambda index: 132)
    gen = torch.Generator().manual_seed(3)
    vw8 = vs.pack(random_vnm(128, 512, vs.VNMConfig(64, 2, 8), torch.bfloat16, "cpu", gen), vs.VNMConfig(64, 2, 8))
    vw16 = vs.pack(random_vnm(128, 512, vs.VNMConfig(64, 2, 16), torch.bfloat16, "cpu", gen), vs.VNMConfig(64, 2, 16))
    big = torch.zeros(kernels.AS_2_4_MIN_TOKENS, 512, dtype=torch.bfloat16)
    assert kernels._as_2_4(big, vw8, big.shape[0])
    assert not kernels._as_2_4(big[:-1], vw8, big.shape[0] - 1)  # too few tokens
    assert not kernels._as_2_4(big, vw16, big.shape[0])  # M = 16: the gathered kernel is faster
    for cfg in ("16:2:16", "16:2:32", "32:2:16"):  # ... but for V % 64 != 0 (the mma.sp kernel's, v269)
        small_v = vs.pack(random_vnm(128, 512, vs.VNMConfig.parse(cfg), torch.bfloat16, "cpu", gen), cfg)
        assert kernels._as_2_4(big, small_v, big.shape[0])
    for cfg, least in (("16:2:8", 2), ("16:2:16", 2), ("32:2:8", 2), ("16:2:12", 2), ("16:2:32", 256), ("16:2:10", None)):
        small_v = types.SimpleNamespace(cfg=vs.VNMConfig.parse(cfg), shape=(128, 512))  # (v275: as 2:4 from 2 tokens
        x = torch.zeros(least or 8192, 512, dtype=torch.bfloat16)  # where the window is the union)
        assert kernels._as_2_4(x, small_v, x.shape[0]) == (least is not None), cfg
        assert not kernels._as_2_4(x[:-1], small_v, x.shape[0] - 1), cfg
    tall_small_v = types.SimpleNamespace(cfg=vs.VNMConfig(16, 2, 16), shape=(11008, 512))
    assert kernels._as_2_4(big, tall_small_v, big.shape[0])  # small V: whatever the rows (v270)
    for cfg in ("32:2:32", "16:2:64", "32:2:64", "32:2:128"):  # the union layout's (v271)
        small_v = types.SimpleNamespace(cfg=vs.VNMConfig.parse(cfg), shape=(128, 512))
        assert not kernels._as_2_4(torch.zeros(8192, 512, dtype=torch.bfloat16), small_v, 8192), cfg
    vw8_128 = vs.pack(random_vnm(128, 512, vs.VNMConfig(128, 2, 8), torch.bfloat16, "cpu", gen), vs.VNMConfig(128, 2, 8))
    assert not kernels._as_2_4(big, vw8_128, big.shape[0])  # V = 128: so is the gathered kernel (v21)
    assert not kernels._as_2_4(big.t().contiguous().t(), vw8, big.shape[0])  # not row-major: no TMA
    tall = types.SimpleNamespace(cfg=vw8.cfg, shape=(66 * 128, 512))
    assert kernels._as_2_4(big, tall, big.shape[0])
    tall.shape = (66 * 128 + 1, 512)  # 67 row tiles: a wave spans < 2 token tiles (LLaMA gate/up)
    assert not kernels._as_2_4(big, tall, big.shape[0])
    many = torch.zeros(kernels.AS_2_4_MANY_ROWS_MIN_TOKENS, 512, dtype=torch.bfloat16)
    assert kernels._as_2_4(many, tall, many.shape[0])  # ... but from enough tokens (v266)
    assert not kernels._as_2_4(many[:-1], tall, many.shape[0] - 1)
    monkeypatch.setenv("VNM_AS_2_4", "0")
    assert not kernels._as_2_4(big, vw8, big.shape[0])


def test_union_route(monkeypatch):
    """V < 64 where the union gathers fewer columns than M: the union layout from UNION_MIN_TOKENS by
    effective M on sm_90a (as 2:4 first at effective M = 8), UNION_MMA_SP_MIN_TOKENS on the mma.sp kernel;
    a compiled graph's one layout at effective M <= 16 on sm_90a only; never with VNM_UNION=0."""
    import types

    import vnmsparse.kernels as kernels

    monkeypatch.setattr(spmm_mma_sp, "union_layout_of", lambda vw: ("sm80 union",))
    monkeypatch.setattr(W, "layout_union", lambda vw: ("fragment union",))
    monkeypatch.setattr(spmm_mma_sp, "decode_preferred", lambda *a, **kw: False)
    monkeypatch.setattr(spmm_mma_sp, "layout_of", lambda vw, bulk=False: ("sm80",))
    monkeypatch.setattr(W, "layout_of", lambda vw: ("fragment image",))
    monkeypatch.setattr(W, "layout_as_2_4", lambda vw: ("as 2:4",))

    def x_of(tokens):  # (what _select reads of a row-major CUDA x)
        return types.SimpleNamespace(shape=(tokens, 512), device=torch.device("cuda", 0), dtype=torch.bfloat16,
                                     numel=lambda: tokens * 512, is_contiguous=lambda: True)

    wg_union, sm80_union = (W.LAYOUT_UNION, ("fragment union",)), (spmm_mma_sp.LAYOUT_UNION, ("sm80 union",))
    for kind in (3, 1):
        monkeypatch.setattr(kernels, "best_kernel", lambda index, kind=kind: kind)
        want = wg_union if kind == 3 else sm80_union
        table = kernels.UNION_MIN_TOKENS if kind == 3 else kernels.UNION_MMA_SP_MIN_TOKENS
        for pattern, m_eff in (("16:2:32", 8), ("32:2:32", 16), ("16:2:64", 16), ("32:2:64", 32), ("16:2:128", 32), ("32:2:128", 64),
                               ("16:2:100", 25)):
            vw = types.SimpleNamespace(device=torch.device("cuda", 0), dtype=torch.bfloat16,
                                       cfg=vs.VNMConfig.parse(pattern), shape=(4096, 512))
            least = next(t for most, t in table if m_eff <= most)
            assert kernels._select(x_of(least), vw, None) == want, pattern
            assert kernels._select(x_of(least - 1), vw, None) != want, pattern
            assert (kernels._select(None, vw, None) == want) == (kind == 3 and m_eff <= 16), pattern
            if kind == 3 and m_eff == 8:  # as 2:4 from AS_2_4_MIN_TOKENS (v271)
                assert kernels._select(x_of(kernels.AS_2_4_MIN_TOKENS), vw, None)[0] == W.LAYOUT_AS_2_4
            monkeypatch.setenv("VNM_UNION", "0")
            assert kernels._select(x_of(8192), vw, None) != want
            monkeypatch.delenv("VNM_UNION")
        monkeypatch.setattr(spmm_mma_sp, "as_2_4_layout_of", lambda vw: ("sm80 as 2:4",))
        for pattern in ("16:2:8", "16:2:16", "32:2:8"):  # the mma.sp kernel: as 2:4 from AS_2_4_MMA_SP_MIN_TOKENS (v277)
            vw = types.SimpleNamespace(device=torch.device("cuda", 0), dtype=torch.bfloat16,
                                       cfg=vs.VNMConfig.parse(pattern), shape=(4096, 512))
            least = kernels.AS_2_4_MMA_SP_MIN_TOKENS
            if kind == 1:
                assert kernels._select(x_of(least), vw, None) == (spmm_mma_sp.LAYOUT_AS_2_4, ("sm80 as 2:4",)), pattern
                assert kernels._select(x_of(least - 1), vw, None) == (spmm_mma_sp.LAYOUT, ("sm80",)), pattern
                monkeypatch.setenv("VNM_AS_2_4", "0")
                assert kernels._select(x_of(least), vw, None) == (spmm_mma_sp.LAYOUT, ("sm80",)), pattern
                monkeypatch.delenv("VNM_AS_2_4")
        for pattern in ("64:2:32", "16:2:16", "32:2:8"):  # no union: a row tile in one block, or the whole window
            vw = types.SimpleNamespace(device=torch.device("cuda", 0), dtype=torch.bfloat16,
                                       cfg=vs.VNMConfig.parse(pattern), shape=(4096, 512))
            assert kernels._select(x_of(8192), vw, None)[0] not in \
                (W.LAYOUT_UNION, spmm_mma_sp.LAYOUT_UNION)


def test_layout_for_every_token_count_is_the_shared_one(monkeypatch):
    """With no x (what VNMLinear keeps for compiled graphs) the sm_90a selector gives the wgmma.sp
    kernel's layout (which serves every T; for V % 64 != 0 it is the cp.async kernel's), never a
    per-T one: not the decode kernel's image, which serves only T <= 64, nor the as-2:4 one."""
    import types

    import vnmsparse.kernels as kernels

    monkeypatch.setattr(kernels, "best_kernel", lambda index: 3)
    monkeypatch.setattr(spmm_mma_sp, "decode_preferred", lambda *a: True)
    monkeypatch.setattr(spmm_mma_sp, "layout_of", lambda vw, bulk=False: ("sm90 image" if bulk else "shared image",))
    monkeypatch.setattr(W, "layout_of", lambda vw: ("fragment image",))  # 2:4: the wgmma.sp kernel at every T
    for pattern, want in (("64:2:8", (W.LAYOUT, ("fragment image",))), ("64:2:4", (W.LAYOUT, ("fragment image",))),
                          ("128:2:32", (W.LAYOUT, ("fragment image",)))):
        vw = types.SimpleNamespace(device=torch.device("cuda", 0), dtype=torch.bfloat16,
                                   cfg=vs.VNMConfig.parse(pattern), shape=(4096, 4096))
        assert kernels._select(None, vw, None) == want, pattern


@pytest.mark.gpu
@needs_sm90a
def test_op_routes_by_pattern_and_tokens(monkeypatch):
    """vnmsparse.spmm on sm_90a: the wgmma.sp kernel's layout at every T, whose launcher runs the
    decode kernel on it up to 8 tokens, 16 at M >= 8 on few rows (V % 64 != 0: the decode kernel's
    own layout; plain 2:4 with X by TMA never), V:2:8 the as-2:4 layout from AS_2_4_MIN_TOKENS on
    (not with VNM_AS_2_4=0), V:2:16 the gathered one; results stay right."""
    import vnmsparse.kernels as kernels

    gen = torch.Generator().manual_seed(5)
    images = []
    decode = spmm_mma_sp.spmm_decode
    monkeypatch.setattr(spmm_mma_sp, "spmm_decode", lambda *a, image=False: images.append(image) or decode(*a, image=image))
    for pattern, t, want in (("2:4", 1, W.LAYOUT), ("2:4", 4, W.LAYOUT), ("2:4", 8, W.LAYOUT), ("2:4", 9, W.LAYOUT),
                             ("2:4", 300, W.LAYOUT), ("64:2:8", 1, W.LAYOUT), ("64:2:8", 8, W.LAYOUT),
                             ("64:2:8", 16, W.LAYOUT), ("32:2:8", 1, spmm_mma_sp.LAYOUT_DECODE),
                             ("64:2:8", 100, W.LAYOUT), ("64:2:8", 300, W.LAYOUT_AS_2_4),
                             ("64:2:16", 300, W.LAYOUT)):
        for disable in (False, True):
            monkeypatch.setenv("VNM_AS_2_4", "0" if disable else "1")
            cfg = vs.VNMConfig.parse(pattern)
            w = random_vnm(256, 1024, cfg, torch.bfloat16, "cuda", gen)
            vw = vs.pack(w, cfg)
            x = torch.randn(t, 1024, generator=gen).bfloat16().cuda()
            ref = x.float() @ w.float().t()
            images.clear()
            y = vs.spmm(x, vw)
            assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, (pattern, t)
            # 1-8 tokens: the decode kernel, on the fragment image where V % 64 == 0 (v52); up to
            # DECODE_FEW_ROWS_MAX_TOKENS at M >= 8 on so few rows (256 <= DECODE_FEW_ROWS, v81);
            # plain 2:4 with X by TMA (K % 8 == 0 here) the staged tile at every T (v89)
            decoded = cfg.m != 4 and (t <= 8 or (cfg.m >= 8 and t <= spmm_mma_sp.DECODE_FEW_ROWS_MAX_TOKENS))
            assert images == ([cfg.v % 64 == 0] if decoded else []), (pattern, t, images)
            # one weight image for every T where V % 64 == 0: no second ("sm90") copy for decode
            assert (spmm_mma_sp.LAYOUT_BULK in vw._layouts) == (cfg.v % 64 != 0 and t <= 8), (pattern, t)
            expect = W.LAYOUT if (disable and want == W.LAYOUT_AS_2_4) else want
            assert kernels._select(x, vw, None)[0] == expect, (pattern, t, disable)
            assert (W.LAYOUT_AS_2_4 in vw._layouts) == (expect == W.LAYOUT_AS_2_4), (pattern, t, disable)
    assert t >= kernels.AS_2_4_MIN_TOKENS


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("pattern,r,k,t", [("2:4", 200, 1002, 1), ("64:2:8", 130, 1003, 3), ("128:2:8", 300, 4096, 8),
                                           ("128:2:16", 4100, 2053, 2), ("64:2:32", 64, 8192, 5),
                                           ("128:2:128", 260, 16384, 1), ("128:2:10", 1000, 4000, 7),
                                           ("64:2:8", 64, 16400, 4)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_decode_kernel_on_the_fragment_image(pattern, r, k, t, dtype, monkeypatch):
    """The decode kernel reading the wgmma.sp fragment image (v52; spmm_sm90a at 1-8 tokens, plain
    2:4 only where X cannot be read by TMA: K % 8 != 0 here):
    ragged R and K, K splits over clusters (long K), with bias, against fp32 and bitwise against
    the same kernel on its own "sm90" image (the same mma.sp sequence and reduction)."""
    gen = torch.Generator().manual_seed(r + k + t)
    cfg = vs.VNMConfig.parse(pattern)
    w = random_vnm(r, k, cfg, dtype, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(t, k, generator=gen).to(dtype).cuda()
    b = torch.randn(r, generator=gen).to(dtype).cuda()
    ref = x.float() @ w.float().t() + b.float()
    images = []
    decode = spmm_mma_sp.spmm_decode
    monkeypatch.setattr(spmm_mma_sp, "spmm_decode", lambda *a, image=False: images.append(image) or decode(*a, image=image))
    out = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
    y = W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m, out=out)
    torch.cuda.synchronize()
    assert images == [True], images
    assert not torch.isnan(y).any()
    assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    y80 = spmm_mma_sp.spmm_sm90_decode(x, *spmm_mma_sp.layout_of(vw, True), b, r, k, cfg.v, cfg.m)
    assert torch.equal(y, y80)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("t,r,k,m", [(2, 11008, 4096, 8), (4, 11008, 4096, 16), (4, 4096, 4096, 32), (8, 5121, 5120, 8),
                                     (2, 11008, 4096, 64)])
def test_op_decode_row_tile_follows_decode_rows(t, r, k, m, monkeypatch):
    """spmm_sm90a at 1-8 tokens on a V = 64 weight runs the decode kernel on the row tile that decode_rows gives
    (128: two V-row blocks a CTA, by each of its rules, v304-v306; else 64), with bias, into a poisoned output."""
    gen = torch.Generator().manual_seed(t + r + m)
    cfg = vs.VNMConfig(64, 2, m)
    w = random_vnm(r, k, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(t, k, generator=gen).bfloat16().cuda()
    b = torch.randn(r, generator=gen).bfloat16().cuda()
    tiles = []
    decode = spmm_mma_sp.spmm_decode
    monkeypatch.setattr(spmm_mma_sp, "spmm_decode", lambda *a, image=False: tiles.append(a[10][0]) or decode(*a, image=image))
    out = torch.full((t, r), float("nan"), dtype=torch.bfloat16, device="cuda")
    y = W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, 64, m, out=out)
    torch.cuda.synchronize()
    want = W.decode_rows(t, r, k, 64, m, torch.cuda.get_device_properties(0).multi_processor_count)
    assert tiles == [want], (tiles, want)
    if torch.cuda.get_device_properties(0).multi_processor_count == 132:  # (H100 / H200 SXM: the measured routes)
        assert want == (64 if (t, r, m) == (2, 11008, 8) else 128), want
    assert not torch.isnan(y).any()
    ref = x.float() @ w.float().t() + b.float()
    assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2


@pytest.mark.gpu
@needs_sm90a
def test_decode_kernel_reads_weights_just_written():
    """The decode kernel loads its weight before its PDL wait (VNM_DEC_EARLY), so it takes PDL only on settled
    images (jit.settle): an image that the kernel right before it wrote (a copy_ into an unsettled clone) still
    gives that weight's product, call after call, eager and replayed in a graph."""
    gen = torch.Generator().manual_seed(5)
    cfg = vs.VNMConfig(64, 2, 8)
    r = k = 4096
    ws = [random_vnm(r, k, cfg, torch.bfloat16, "cuda", gen) for _ in range(2)]
    images = [W.layout_of(vs.pack(w, cfg)) for w in ws]
    assert all(jit.settled(*img) for img in images)
    buf = tuple(None if t is None else t.clone() for t in images[0])
    assert not jit.settled(*buf)
    x = torch.randn(1, k, generator=gen).bfloat16().cuda()
    refs = [x.float() @ w.float().t() for w in ws]

    def step(i):
        for dst, src in zip(buf, images[i % 2]):
            if dst is not None:
                dst.copy_(src)
        return W.spmm_sm90a(x, *buf, None, r, k, cfg.v, cfg.m)

    for i in range(6):
        y = step(i)
        assert ((y.float() - refs[i % 2]).norm() / refs[i % 2].norm()).item() < 1e-2, i
    outs = []
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(4):
            outs.append(step(i))
    for _ in range(3):
        for o in outs:
            o.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        for i, o in enumerate(outs):
            assert ((o.float() - refs[i % 2]).norm() / refs[i % 2].norm()).item() < 1e-2, i


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["wgmma_sp_as_2_4", "mma_sp_as_2_4"])
def test_as_2_4_path(name):
    """V:2:M (M % 4 == 0) run as 2:4 through the op on either kernel, forward and backward."""
    from vnmsparse.kernels import spmm_paths

    if name not in spmm_paths("cuda"):
        pytest.skip(f"{name} does not run on this GPU")
    path = spmm_paths("cuda")[name]
    gen = torch.Generator().manual_seed(11)
    for (v, m), (r, k, t) in itertools.product(((64, 8), (128, 16), (64, 32), (16, 16), (32, 32), (16, 64)),
                                               ((200, 1000, 300), (4096, 4096, 2048), (64, 520, 65), (300, 1000, 3))):
        cfg = vs.VNMConfig(v, 2, m)
        w = random_vnm(r, k, cfg, torch.bfloat16, "cuda", gen)
        x = torch.randn(t, k, generator=gen).bfloat16().cuda()
        b = torch.randn(r, generator=gen).bfloat16().cuda()
        ref = x.float() @ w.float().t() + b.float()
        y = path(x, vs.pack(w, cfg), b)
        assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, (cfg, r, k, t)
        if v % 64 and name == "wgmma_sp_as_2_4":  # small V goes this way by itself (v269, v275), or the union's (v271)
            y = vs.spmm(x, vs.pack(w, cfg), b)
            assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, (cfg, r, k, t)
    x.requires_grad_(True)
    path(x, vs.pack(w, cfg), b).float().sum().backward()
    assert torch.allclose(x.grad.float(), w.float().sum(0).expand(t, k), rtol=1e-2, atol=1e-1)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["wgmma_sp_union", "mma_sp_union"])
def test_union_paths(name):
    """V < 64 on 64-row tiles over the union of the blocks' columns (both kernels), through the op:
    ragged R (not a multiple of V or 64) and K, T from 1, both dtypes, bias, K splits, a feature-major
    out, backward."""
    from vnmsparse.kernels import spmm_paths

    paths = spmm_paths("cuda")
    if name not in paths:
        pytest.skip(f"{name} does not run on this GPU")
    path = paths[name]
    gen = torch.Generator().manual_seed(13)
    cases = ((16, 32), (32, 16), (16, 64), (32, 64), (16, 128), (32, 128), (16, 256))
    for i, ((v, m), t) in enumerate(itertools.product(cases, (1, 7, 64, 300, 1000, 4096))):
        r, k = 200 + 8 * (i % 3) + (5 if i % 2 else 0), m * 23 + (3 if i % 2 else 0)
        dtype = (torch.bfloat16, torch.float16)[i % 2]
        assert path.skip_reason(t, types.SimpleNamespace(cfg=vs.VNMConfig(v, 2, m))) is None
        check_case(lambda x, vw, b, out: path(x, vw, b), r, k, t, v, m, dtype, bool(i % 2 == 0), gen, what=name)
    for (v, m), (r, k, t) in itertools.product(((16, 64), (32, 32)), ((4096, 4096, 2048), (1000, 11008, 333))):
        check_case(lambda x, vw, b, out: path(x, vw, b), r, k, t, v, m, torch.bfloat16, True, gen, what=name)
    cfg = vs.VNMConfig(16, 2, 64)
    w = random_vnm(300, 1000, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(77, 1000, generator=gen).bfloat16().cuda()
    ref = x.float() @ w.float().t()
    if name == "wgmma_sp_union":
        layout = W.layout_union(vw)
        for splits in (1, 3):
            y = W.spmm_sm90a_union(x, *layout, None, 300, 1000, 16, 64, splits=splits)
            assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, splits
        yt = torch.full((300, 77), float("nan"), dtype=torch.bfloat16, device="cuda")
        W.spmm_sm90a_union(x, *layout, None, 300, 1000, 16, 64, out=yt.t())
        assert ((yt.t().float() - ref).norm() / ref.norm()).item() < 1e-2
    else:
        y = spmm_mma_sp.spmm_sm80_union(x, *spmm_mma_sp.union_layout_of(vw), None, 300, 1000, 16, 64, splits=3)
        assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    x.requires_grad_(True)
    path(x, vw).float().sum().backward()
    assert torch.allclose(x.grad.float(), w.float().sum(0).expand(77, 1000), rtol=1e-2, atol=1e-1)
    assert paths[name].skip_reason(1, vs.pack(torch.zeros(64, 64, dtype=torch.bfloat16), vs.VNMConfig(64, 2, 8)))


@pytest.mark.gpu
@needs_sm90a
def test_x_by_tma_needs_plain_2_4_and_aligned_rows():
    gen = torch.Generator().manual_seed(9)
    with pytest.raises(ValueError, match="tma_x"):
        run_case(128, 1000, 64, 64, 8, torch.bfloat16, False, gen, tma_x=True)
    with pytest.raises(ValueError, match="tma_x"):
        run_case(128, 1001, 64, 64, 4, torch.bfloat16, False, gen, tma_x=True)
    run_case(128, 1001, 64, 64, 4, torch.bfloat16, False, gen)  # odd K: the gather path


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("splits", [2, 3, 7, 12])
def test_split_k(splits):
    gen = torch.Generator().manual_seed(splits)
    run_case(515, 2048 + 5, 9, 64, 8, torch.float16, True, gen, splits=splits)
    run_case(512, 4096, 64, 128, 32, torch.bfloat16, False, gen, splits=splits)
    run_case(384, 4096, 1, 64, 16, torch.bfloat16, True, gen, splits=splits)
    run_case(130, 4096, 100, 64, 8, torch.bfloat16, True, gen, splits=splits,
             tile=W.TILE_TABLE[(64, 64)])  # two token tiles, the last ragged


@pytest.mark.gpu
@needs_sm90a
def test_gathered_route_few_tokens():
    """vnmsparse.spmm on gathered calls of <= 32 tokens on large weights, as the route takes them (the narrow tiles
    on X^T; until the slab tiles went, the `on=False` half of their route test)."""
    gen = torch.Generator().manual_seed(31)
    for r, k, t, m in ((1100, 4096, 16, 8), (2048, 2048, 24, 16), (1100, 4096, 7, 32)):
        check_case(lambda x, vw, b, out: vs.spmm(x, vw, b), r, k, t, 128, m, torch.bfloat16, True, gen)


@pytest.mark.gpu
@needs_sm90a
def test_llm_shapes_and_leading_dims():
    gen = torch.Generator().manual_seed(3)
    run_case(4096, 4096, 4096, 64, 8, torch.bfloat16, True, gen)
    run_case(4096, 4096, 4096, 128, 8, torch.bfloat16, True, gen)
    run_case(11008, 4096, 16, 128, 16, torch.bfloat16, False, gen)
    run_case(1024, 4096, 37, 64, 32, torch.bfloat16, True, gen, lead=(3,))
    run_case(4096, 11008, 2048, 128, 64, torch.float16, False, gen)


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("repitch", [False, True])
@pytest.mark.parametrize("padded_map", [False, True])
def test_feature_major_pitch(repitch, padded_map, monkeypatch):
    """A feature-major x whose rows lie T rounded up to 8 (or to 64 + 8) tokens apart, NaN past T in
    its storage: with REPITCH copied to rows of xt_pitch(T) (bit-exact, zeros past T) from
    REPITCH_MIN_TOKENS where the pitch is no multiple of 64 (X^T by TMA, plain 2:4, only); that and
    the gather (both kernels) match fp32 with and without the map widened past T (XT_MAP_PADDED: NaN
    columns that no stored output reads)."""
    monkeypatch.setattr(spmm_mma_sp, "REPITCH", repitch)
    monkeypatch.setattr(W, "XT_MAP_PADDED", padded_map)
    gen = torch.Generator().manual_seed(21)
    for r, k, t, pitch, m in ((300, 1000, 200, 200, 4), (260, 4096, 1000, 1000, 16), (256, 512, 72, 136, 4),
                              (200, 1000, 40, 48, 4), (384, 1024, 200, 200, 16)):
        cfg = vs.VNMConfig(128, 2, m)
        w = random_vnm(r, k, cfg, torch.bfloat16, "cuda", gen)
        vw = vs.pack(w, cfg)
        x = torch.randn(t, k, generator=gen).bfloat16().cuda()
        store = torch.full((k, pitch), float("nan"), dtype=torch.bfloat16, device="cuda")
        store[:, :t] = x.t()
        xf = store[:, :t].t()
        lines = spmm_mma_sp.whole_lines(xf)
        if repitch and t >= spmm_mma_sp.REPITCH_MIN_TOKENS and pitch % 64:
            p = spmm_mma_sp.xt_pitch(t)
            assert lines.stride() == (1, p) and torch.equal(lines, x)
            assert not torch.as_strided(lines.t(), (k, p), (p, 1))[:, t:].any()  # zeros past T
        else:
            assert lines is xf
        ref = x.float() @ w.float().t()
        calls = [lambda: W.spmm_sm90a(xf, *W.layout_of(vw), None, r, k, 128, m)]
        if m > 4:
            calls.append(lambda: spmm_mma_sp.spmm_sm80(xf, *spmm_mma_sp.layout_of(vw), None, r, k, 128, m))
        for call in calls:
            y = call()
            assert not y.isnan().any() and ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, (r, k, t, pitch, m)


@pytest.mark.gpu
@needs_sm90a
def test_feature_major_input_and_paths_entry():
    from vnmsparse.kernels import spmm_paths

    gen = torch.Generator().manual_seed(5)
    cfg = vs.VNMConfig(64, 2, 8)
    w = random_vnm(192, 1000, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    path = spmm_paths("cuda")["wgmma_sp"]
    x = torch.randn(96, 1000, generator=gen).bfloat16().cuda()
    xs = (x, x.t().contiguous().t(), x[::2], torch.randn(1, 1001, generator=gen).bfloat16().cuda()[:, 1:].expand(5, 1000),
          x[:4].t().contiguous().t(), x[:13].t().contiguous().t())  # (token-contiguous at T % 8 != 0: decode kernel, narrow tile)
    for xin in xs:
        ref = xin.float() @ w.float().t()
        y = path(xin, vw)
        assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2


@pytest.mark.gpu
@needs_sm90a
@pytest.mark.parametrize("r,k,t,v,m", [
    (260, 1000, 300, 128, 8),  # gathered prefill tile writes Y^T itself; ragged R, T % 8 != 0 (scalar stores)
    (512, 2048, 296, 128, 32),  # ... 16-byte stores along tokens
    (384, 1024, 512, 64, 128),  # persistent tiles (M >= 64): 64-token passes
    (1000, 1000, 296, 64, 4),  # plain 2:4, X by TMA
    (4096, 512, 256, 128, 4),  # mid T 2:4 with K splits (v132): Y^T from the split reduction
    (2100, 520, 2050, 128, 4),  # 2:4 from 2048 tokens: the persistent cluster tile (v215), a padding row tile
    (4096, 1000, 40, 128, 16),  # the 64-token decode tile with K splits: the same
    (300, 1000, 4, 128, 8),  # the decode kernel: copied
    (2048, 1000, 16, 128, 16),  # the narrow gathered tile
])
def test_feature_major_out(r, k, t, v, m):
    """``out`` as the transpose of a contiguous [R, T] (Y^T, v137): filled whatever path runs,
    NaN-poisoned first; the result is ``out`` itself."""
    gen = torch.Generator().manual_seed(r + t)

    def launch(x, vw, b, _):
        out = torch.full((r, t), float("nan"), dtype=x.dtype, device="cuda").t()
        y = W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, v, m, out=out)
        assert y.data_ptr() == out.data_ptr() and y.stride() == (1, t)
        return y

    check_case(launch, r, k, t, v, m, torch.bfloat16, True, gen, what="feature-major out")


@pytest.mark.gpu
@needs_sm90a
def test_tile_must_fit_v():
    gen = torch.Generator().manual_seed(1)
    with pytest.raises(ValueError):
        run_case(128, 256, 8, 64, 8, torch.bfloat16, False, gen, tile=W.TILE_TABLE[(128, 64)])
    with pytest.raises(ValueError):
        run_case(128, 256, 8, 32, 8, torch.bfloat16, False, gen, tile=W.TILE_TABLE[(64, 64)])
    cfg = vs.VNMConfig(128, 2, 4)
    vw = vs.pack(random_vnm(130, 256, cfg, torch.bfloat16, "cuda", gen), cfg)
    afrag, mfrag, cols = W.layout_of(vw)
    x = torch.randn(8, 256, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="past the fragment image"):  # a truncated image is refused
        W.spmm_sm90a(x, afrag[:2], mfrag[:2], cols, None, 130, 256, 128, 4, tile=W.TILE_TABLE[(128, 64)])


@pytest.mark.gpu
@needs_sm90a
def test_cuda_graph_capture():
    gen = torch.Generator().manual_seed(11)
    cfg = vs.VNMConfig(64, 2, 16)
    vw = vs.pack(random_vnm(512, 2048, cfg, torch.bfloat16, "cuda", gen), cfg)
    ops_args = (*W.layout_of(vw), None, 512, 2048, 64, 16)
    for t in (33, 1000):  # split-K decode and a plain prefill grid
        x = torch.randn(t, 2048, generator=gen).bfloat16().cuda()
        b = torch.randn(512, generator=gen).bfloat16().cuda()
        args = lambda: (x, *ops_args[:3], b, *ops_args[4:])
        y0 = W.spmm_sm90a(*args())  # warm-up compiles outside the capture
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            W.spmm_sm90a(*args())
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = W.spmm_sm90a(*args())
        x.copy_(torch.randn(t, 2048, generator=gen).bfloat16())
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(y, W.spmm_sm90a(*args())) and not torch.equal(y, y0)


@pytest.mark.gpu
@needs_sm90a
def test_opcheck_and_backward():
    gen = torch.Generator().manual_seed(17)
    cfg = vs.VNMConfig(64, 2, 8)
    w = random_vnm(128, 256, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(10, 256, generator=gen).bfloat16().cuda()
    b = torch.randn(128, generator=gen).bfloat16().cuda()
    args = (x, *W.layout_of(vw), b, 128, 256, 64, 8, W.LAYOUT)
    torch.library.opcheck(torch.ops.vnmsparse.spmm.default, args,
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    xg = x.clone().requires_grad_(True)
    y = ops.spmm_op(xg, *W.layout_of(vw), b, 128, 256, 64, 8, W.LAYOUT)
    y.float().sum().backward()
    ref = torch.ones(10, 128, device="cuda") @ w.float()
    assert ((xg.grad.float() - ref).norm() / ref.norm()).item() < 1e-2


@pytest.mark.gpu
@needs_sm90a
def test_repeatable():
    """Deterministic: the same call twice gives bit-identical outputs (no races in the ring)."""
    gen = torch.Generator().manual_seed(29)
    cfg = vs.VNMConfig(128, 2, 8)
    vw = vs.pack(random_vnm(1024, 4096, cfg, torch.bfloat16, "cuda", gen), cfg)
    x = torch.randn(2048, 4096, generator=gen).bfloat16().cuda()
    for tile in [t for t in W.TILES if 128 % t.bm == 0]:  # bm divides V
        ys = [W.spmm_sm90a(x, *W.layout_of(vw), None, 1024, 4096, 128, 8, tile=tile) for _ in range(3)]
        assert torch.equal(ys[0], ys[1]) and torch.equal(ys[0], ys[2]), tile


def test_autotune_candidates(monkeypatch):
    """Autotune times the default, persistent and (X by TMA only) cluster tiles and the staged
    2:4 ones that fit V (gathered: the grouped and narrow staged ones)."""
    seen, split_fns, heuristic = {}, {}, {}
    monkeypatch.setattr(W.autotune, "tile_and_splits",
                        lambda kernel, *a: split_fns.setdefault(kernel, a[7]) and heuristic.setdefault(kernel, a[9])
                        and seen.setdefault(kernel, a[6]) and (None, None))
    values = torch.zeros(4, 80, 2, 128, 8)  # the fragment image's shape: 4 m64 blocks, 80 stages
    for direct, cols in ((True, None), (False, torch.zeros(1))):
        W._tuned(torch.zeros(8, 64), values, None, cols, None, 256, 2048, 64, 8, 8, 132, direct)
    assert all(heuristic[kernel] in seen[kernel] for kernel in seen)  # the margin's reference is a candidate
    fits = {t for t in W.TILES + W.PERSISTENT_TILES + W.CLUSTER_TILES + W.STAGED_2_4_TILES if t.fits_frag_image(256)}
    assert set(seen["wgmma_sp_tma"]) == fits and W.CLUSTER_TILES[0] in fits  # not the 4-CTA clusters at R = 256
    assert set(seen["wgmma_sp"]) == {t for t in W.TILES + W.PERSISTENT_TILES if t.bm == 64} | {t for t in W.GROUPED_TILES.values() if t.bm == 64} | {W.NARROW_TILES[(64, 16)], W.NARROW_TILES[(64, 32)]}  # V = 64
    # split candidates count the image's stages (not stages / KS)
    assert split_fns["wgmma_sp_tma"](W.STAGED_2_4) == W.choose_splits(W.STAGED_2_4, 8, 256, 80, 132) > 1


@pytest.mark.gpu
@needs_sm90a
def test_token_tiles_past_the_grid_limit(monkeypatch):
    """More token tiles than a grid's y holds (65535; lowered here): the wgmma.sp launch switches to
    the tile's persistent form (a 1-D grid), the mma.sp one runs in token chunks; a split or
    cluster tile is refused with the reason."""
    monkeypatch.setattr(spmm_mma_sp, "MAX_GRID_Y", 2)
    gen = torch.Generator().manual_seed(41)
    run_case(260, 1000, 1000, 128, 8, torch.bfloat16, True, gen)
    run_case(300, 1000, 777, 128, 4, torch.float16, False, gen, tma_x=True)
    check_case(lambda x, vw, b, out: spmm_mma_sp.spmm_sm80(x, *spmm_mma_sp.layout_of(vw), b, 200, 1003, 64, 8, out=out),
               200, 1003, 1000, 64, 8, torch.bfloat16, True, gen, what="mma.sp token chunks")
    with pytest.raises(ValueError, match="grid y"):
        run_case(256, 4096, 1000, 64, 4, torch.bfloat16, False, gen, tile=W.TILE_TABLE[(128, 64)], splits=3)
