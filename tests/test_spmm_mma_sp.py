"""The mma.sp V:N:M SpMM kernel (csrc/spmm_mma_sp.cu) against its fp32 reference.

CPU: every kernel variant compiles for sm_80 and sm_90a with NVRTC (a syntax error never costs GPU
time). GPU (marked, skipped without CUDA): correctness over T, ragged R/K, every v, m, dtype, bias,
every tile, split-K, feature-major input, CUDA graphs, torch.compile, opcheck, bad inputs.
"""

import dataclasses
import itertools

import pytest
import torch

import vnmsparse as vs
from vnmsparse import ops
from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

from spmm_cases import check_case, needs_nvrtc, random_vnm



@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_every_variant_compiles(arch, dtype, tmp_path, monkeypatch):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    module = jit.compile(K.SOURCE, K.name_expressions(dtype, arch), arch)
    resources = module.resources()
    assert set(resources) == set(K.name_expressions(dtype, arch))
    for name, res in resources.items():
        assert res.stack_bytes <= 64, f"{name}: {res}"
    # v354: no mma.sp tile spills, and each fits the CTAs an SM that its table plans (its __launch_bounds__)
    for tile in K.TILES + tuple(K.WS_TILES.values()) + (tuple(K.WS_PREFILL_TILES.values()) if arch == "sm_90a" else ()):
        for cols, split, xrow in itertools.product((True, False), (False, True), (False, True)):
            if (split and tile.producers) or (xrow and (cols or tile.bulk or tile.producers)):
                continue
            res = resources[tile.name(dtype, cols, split, xrow)]
            assert res.spills == 0 and res.stack_bytes == 0, f"{tile} cols={cols} split={split} xrow={xrow}: {res}"
            assert res.registers * tile.threads * tile.ctas_per_sm <= 65536, f"{tile}: {res.registers} registers"
    for tile in K.GATHER_FORMS:  # (their __launch_bounds__ plan by the windows' shared memory)
        for split, xgm in itertools.product((False, True), (8, 16)):
            res = resources[tile.name(dtype, True, split, True, xgm)]
            assert res.spills == 0 and res.stack_bytes == 0, f"{tile} split={split} xgm={xgm}: {res}"
    if arch == "sm_90a":  # (its producers, at 40 registers, keep one word of their tile state on the stack: 1 load a tile)
        res = resources[K.ws_forms(K.WS_TILES[128])["persistent"].name(dtype, True, False)]
        assert res.spills <= 8 and res.stack_bytes <= 8, res


@needs_nvrtc
def test_cluster_split_epilogue_compiles(tmp_path, monkeypatch):
    """v389: the split variants of the cp.async tiles with the cluster epilogue (VNM_CLUSTER_SPLITS, sm_90a): their
    fp32 sums fit the ring's shared memory (a static_assert) and nothing spills."""
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    names = [t.name(torch.bfloat16, cols, True, xrow) for t in K.TILE_TABLE[False].values()
             for cols, xrow in ((True, False), (False, False), (False, True))]
    module = jit.compile(K.SOURCE, names, "sm_90a", defines={"VNM_CLUSTER_SPLITS": 1})
    for name, res in module.resources().items():
        assert res.spills == 0 and res.stack_bytes == 0, f"{name}: {res}"


def test_gather_window_rule(monkeypatch):
    """Which calls gather from X's rows in the kernel (GATHER_ROWS, v392's and v396's measured regime): column lists,
    m <= 16 (the window: 8 or 16 columns a group), T <= 32, fewer steps than choose_splits splits (so unsplit) or a
    weight of at most 4096 x 1024 (split calls too), a cp.async decode tile, a row-major X of 16-byte runs; the form's
    name and shared memory."""
    x = torch.empty(32, 1040, dtype=torch.bfloat16, device="meta")[:, :1024]
    cols, tile, steps, rows = torch.zeros(1, 1, dtype=torch.int32), K.TILE_TABLE[False][(64, 32)], 4, 8192
    monkeypatch.setattr(K, "GATHER_ROWS", False)
    assert K.gather_window(x, cols, 8, tile, steps, rows) == 0
    monkeypatch.setattr(K, "GATHER_ROWS", True)
    assert [K.gather_window(x, cols, m, tile, steps, rows) for m in (5, 8, 9, 16, 17, 32)] == [8, 8, 16, 16, 0, 0]
    assert K.gather_window(x, None, 4, tile, steps, rows) == 0  # plain 2:4: reads_rows' form
    assert K.gather_window(x, cols, 8 | 1 << 16, tile, steps, rows) == 0  # a union layout
    assert K.gather_window(torch.empty(33, 1024, dtype=torch.bfloat16, device="meta"), cols, 8, tile, steps, rows) == 0
    assert K.choose_splits(tile, 32, 4096, K.GATHER_ROWS_MAX_STEPS, 132) == 1
    split = K.MIN_STEPS_TO_SPLIT  # (a call choose_splits may split: only a small weight's)
    assert K.gather_window(x, cols, 8, tile, split, rows) == 0
    assert K.gather_window(x, cols, 8, tile, split, 4096) == 8 and K.GATHER_ROWS_SPLIT_MAX_WEIGHTS == 4096 * 1024
    assert K.gather_window(x[:, :1020], cols, 8, tile, steps, rows) == 0  # K % 8
    assert K.gather_window(x.t().contiguous().t(), cols, 8, tile, steps, rows) == 0  # feature-major: read as X^T
    for other in (K.TILE_TABLE[True][(128, 64)], K.WS_TILES[128], K.TILE_TABLE[False][(64, "prefill")],
                  K.TILE_TABLE[False][(64, 64)], K.TILE_TABLE[False][(32, 32)]):
        assert K.gather_window(x, cols, 8, other, steps, rows) == 0
    assert tile.name(torch.bfloat16, True, True, True, 16).endswith(", true, true, true, 16>")
    with pytest.raises(ValueError, match="row-major X"):
        tile.name(torch.bfloat16, False, False, True, 8)
    with pytest.raises(ValueError, match="row-major X"):
        tile.name(torch.bfloat16, True, False, False, 8)
    # B's ring holds [bn][16 xgm] windows a stage, and one [bn][64] gathered tile follows
    wide = K.TILE_TABLE[False][(64, 64)]
    stage = (64 * 2 * K.KS + K.KS * 16 * 64) * 2 + 64 * K.KS // 2
    assert wide.smem(16) == 3 * stage + 64 * 64 * 2 and wide.smem(0) == wide.smem_bytes


def test_warp_specialised_tile_choice():
    for v in (16, 32, 48, 64, 96, 128, 256):
        for m in (4, 8, 16):
            tile = K.ws_tile(v, m)
            if m != 4 and v % 64:
                assert tile is None
            else:
                assert tile.producers > 0 and (m == 4 or v % tile.bm == 0) and tile.threads == 32 * (
                    (tile.bm // tile.wm) * (tile.bn // tile.wn) + tile.producers)
    with pytest.raises(ValueError, match="split-K"):
        K.WS_TILES[128].name(torch.bfloat16, True, True)
    with pytest.raises(ValueError, match="persistent"):
        dataclasses.replace(K.TILE_TABLE[False][(128, "prefill")], persistent=True).name(torch.bfloat16, True, False)
    with pytest.raises(ValueError, match="column lists"):
        K.ws_forms(K.WS_TILES[128])["persistent"].name(torch.bfloat16, False, False)
    # the persistent form: the epilogue's tile after the ring (the .cu's WsPlan), one CTA an SM
    tile = K.ws_forms(K.WS_TILES[128])["persistent"]
    stage = (128 * 2 * K.KS + 4 * K.KS * 256) * 2 + 128 * K.KS // 2
    assert tile.smem_bytes == 3 * stage + 256 * (128 + 8) * 2 + 2 * 3 * 8 and tile.ctas_per_sm == 1
    assert str(tile) == "ws4p128x256w64x64s3P" and tile.name(torch.half, True, False).endswith("3, 4, true, true>")


def test_tile_choice_respects_v():
    for v in (16, 32, 48, 64, 96, 128, 256):
        for t in (1, 7, 16, 33, 64, 65, 4096):
            tile = K.choose_tile(t, v)
            assert v % tile.bm == 0 and tile in K.TILES
            # without column lists (m = 4) a prefill takes the 128-row tile whatever V; gathered
            # calls at T = 33-64 at most 64 rows (v176)
            free = K.choose_tile(t, v, has_cols=False)
            assert free in K.TILES and free.bm == (128 if t > 64 else K.row_tile(v))
            assert tile.bm == (min(K.row_tile(v), 64) if 32 < t <= 64 else free.bm if t <= 64 else K.row_tile(v))


def test_decode_token_tile_cap(monkeypatch):
    """DECODE_MAX_TOKEN_TILE = 32 (an A/B knob): T = 33-64 runs as two 32-token tiles of the row tile of V."""
    assert K.choose_tile(64, 128).bn == 64
    monkeypatch.setattr(K, "DECODE_MAX_TOKEN_TILE", 32)
    assert [(K.choose_tile(t, 128).bm, K.choose_tile(t, 128).bn) for t in (1, 32, 33, 64)] == [(128, 16)] + [(128, 32)] * 3
    assert K.choose_tile(65, 128).bn == 128  # (prefill unchanged)


def test_prefill_tile_by_waves():
    """Given rows and SMs, a 128-row prefill takes 128 x 128 (64 x 64 warp tiles, v352) unless the 128 x 64 tile's
    whole waves cost less, at NARROW_PREFILL_COST of its own each: where the 128 x 128 grid fits one wave (v213) or
    rounds up worse."""
    wide, narrow = K.TILE_TABLE[False][(128, "prefill")], K.TILE_TABLE[False][(128, "prefill_narrow")]
    assert (wide.ctas_per_sm, narrow.ctas_per_sm) == (2, 3)
    assert (wide.bn, wide.wm, wide.wn, narrow.bn) == (128, 64, 64, 64)
    for rows, t, want in ((1024, 4096, wide), (1024, 2048, narrow), (4096, 2048, wide), (4096, 8192, wide),
                          (11008, 8192, wide), (11008, 2048, narrow), (1024, 300, narrow)):
        assert K.choose_tile(t, 128, rows=rows, sms=132) is want, (rows, t)
        assert K.choose_tile(t, 64, has_cols=False, rows=rows, sms=132) is want, (rows, t)
    assert K.choose_tile(4096, 128) is wide and K.choose_tile(4096, 64, rows=1024, sms=132).bm == 64
    assert K.choose_tile(64, 128, rows=1024, sms=132).bn == 64  # decode: not a prefill tile
    assert K.choose_tile(4096, 128, bulk=True, rows=1024, sms=132) is K.TILE_TABLE[True][(128, "prefill")]
    # v365: on sm_90a the gathered 128 x 128 prefill runs the two-CTA warp-specialised form (same tile, same grid), the
    # 64-row one 64 x 256's; not without column lists, nor where the grid has fewer CTAs than WS_MIN_FILL of the SMs
    # (K splits there), but also where the narrow tile's waves cost less unless the ws grid has one to two CTAs an SM
    ws, ws64 = K.WS_PREFILL_TILES[128], K.WS_PREFILL_TILES[64]
    assert (ws.bm, ws.bn, ws.producers, ws.ctas_per_sm) == (wide.bm, wide.bn, 4, wide.ctas_per_sm)
    assert (ws64.bm, ws64.bn, ws64.producers, ws64.ctas_per_sm) == (64, 256, 4, 2)
    assert K.choose_tile(4096, 128, rows=4096, sms=132, sm90a=True) is ws
    assert K.choose_tile(4096, 128, has_cols=False, rows=4096, sms=132, sm90a=True) is wide
    assert K.choose_tile(512, 128, rows=4096, sms=132, sm90a=True) is ws  # 128 CTAs: 0.97 of the SMs
    assert K.choose_tile(256, 128, rows=4096, sms=132, sm90a=True) is not ws  # 64 CTAs: 0.48
    assert K.choose_tile(2048, 128, rows=11008, sms=132) is narrow
    assert K.choose_tile(2048, 128, rows=11008, sms=132, sm90a=True) is ws
    assert K.choose_tile(512, 128, rows=5120, sms=132) is narrow
    assert K.choose_tile(512, 128, rows=5120, sms=132, sm90a=True) is narrow  # 160 CTAs: 1.2 an SM
    assert K.choose_tile(4096, 64, rows=4096, sms=132, sm90a=True) is ws64
    assert K.choose_tile(2048, 64, rows=1024, sms=132, sm90a=True) is K.TILE_TABLE[False][(64, "prefill")]  # 128 CTAs
    assert K.choose_tile(8192, 64, rows=1024, sms=132, sm90a=True) is ws64
    # every cp.async tile fits the 99 KB of shared memory that sm_86 / sm_89 allow a CTA
    assert all(t.smem_bytes <= 99 * 1024 for t in K.TILE_TABLE[False].values())


def test_split_choice_evens_the_sm_loads():
    """At T <= 64 the cp.async tiles take K splits more while each lowers the most work any SM
    gets (v161, v175); elsewhere the wave rule stands."""
    steps = K.layout_steps(4096, 8)
    cases = {  # (rows, v, T): splits on 132 SMs
        (11008, 64, 16): 3,  # 172 row tiles: 1 split puts two CTAs on 40 SMs, 2 give each SM 1.5, 3 4/3
        (11008, 64, 64): 3,
        (11008, 128, 64): 3,  # (the same 64-row tile, v175)
        (11008, 128, 32): 3,  # 86 row tiles: 3 splits (loads 0.67) beat 4 (0.75)
        (4096, 64, 64): 4,  # 64 row tiles: the wave rule's 4 (0.5), not 5 (0.6)
        (13824, 64, 16): 1,  # 216 row tiles: 2 splits would not lower the load (2 either way)
        (11008, 64, 256): 1,  # prefill: unchanged
    }
    for (rows, v, t), want in cases.items():
        tile = K.choose_tile(t, v)
        assert K.choose_splits(tile, t, rows, steps, 132) == want, (rows, v, t)
    # v388: a call of 4 steps (K = 1024 at 2:16, 4096 at 2:64) runs unsplit; one of 8 (K = 1024 at 2:8) still splits
    for t in (1, 32, 64):
        tile = K.choose_tile(t, 128)
        assert K.choose_splits(tile, t, 4096, K.layout_steps(1024, 16), 132) == 1
        assert K.choose_splits(tile, t, 4096, K.layout_steps(4096, 64), 132) == 1
        assert K.choose_splits(tile, t, 4096, K.layout_steps(1024, 8), 132) == 4



# ------------------------------------------------------------------------------------------------
# GPU


def bulk_modes():
    """The kernels to check on this GPU: cp.async everywhere, bulk copies on sm_90."""
    return (False, True) if K.supported(torch.device("cuda"), bulk=True)[0] else (False,)


def run_case(r, k, t, v, m, dtype, bias, gen, *, tile=None, splits=None, lead=(), bulk=False):
    launch = K.spmm_sm90 if bulk else K.spmm_sm80
    return check_case(lambda x, vw, b, out: launch(x, *K.layout_of(vw, bulk), b, r, k, v, m, tile=tile, splits=splits, out=out),
                      r, k, t, v, m, dtype, bias, gen, lead=lead, what=f"tile={tile} splits={splits} bulk={bulk}")


@pytest.mark.gpu
@pytest.mark.parametrize("wide", [False, True])
def test_feature_major_transposes(monkeypatch, wide):
    """X^T padded to rows of xt_pitch(T) tokens, zeros past T, bit-exact, by either transpose kernel (the
    16-byte one only where rows allow; others fall back), for ragged T and K and strided rows; a
    token-contiguous x whose rows the gather cannot read (T % 8 != 0, or a pitch of no 8 tokens)
    to rows and back."""
    monkeypatch.setattr(K, "TRANSPOSE16", wide)
    gen = torch.Generator().manual_seed(11)
    for t, k, dtype in ((1, 8, torch.bfloat16), (7, 64, torch.float16), (100, 1000, torch.bfloat16),
                        (333, 4096, torch.float16), (64, 1003, torch.bfloat16), (1000, 72, torch.bfloat16)):
        x = torch.randn(t, k, generator=gen).to(dtype).cuda()
        fm = torch.randn(k, t + 3, generator=gen).to(dtype).cuda()[:, :t].t()  # pitch t + 3
        for xin in (x, torch.randn(t, k + 8, generator=gen).to(dtype).cuda()[:, :k], x.t().contiguous().t(), fm):
            if K.is_feature_major(xin):
                continue
            xt, ldx, n = K.feature_major(xin)
            assert ldx == K.xt_pitch(t) and n == -(-t // 8) * 8 and xt.shape == (k, ldx)
            assert torch.equal(xt[:, :t], xin.t()) and not xt[:, t:].any()


def test_read_rows_are_the_kept_columns():
    """The transpose's row mask is exactly the columns some block keeps (below K: a tail group's
    columns past K are never read), kept with the layout's column words where they are at most
    READ_ROWS_MAX_FRACTION of K, and only for that tensor."""
    gen = torch.Generator().manual_seed(5)
    for r, k, v, m in ((256, 4096, 128, 128), (1024, 4096, 128, 128), (256, 1000, 64, 100), (100, 37, 64, 16),
                       (300, 130, 64, 8), (64, 250, 32, 32)):
        cfg = vs.VNMConfig(v, 2, m)
        vw = vs.pack(random_vnm(r, k, cfg, torch.float32, "cpu", gen), cfg)
        cols = K.build_layout(vw)[2]
        kept = {g * m + c for rb in vw.columns.tolist() for g, cs in enumerate(rb) for c in cs if g * m + c < k}
        reads = K.read_rows(cols)
        if len(kept) > K.READ_ROWS_MAX_FRACTION * k:
            assert reads is None
            continue
        assert reads is not None and reads.dtype == torch.uint8 and reads.shape == (k,)
        assert set(reads.nonzero().flatten().tolist()) == kept
        assert K.read_rows(cols.clone()) is None  # another tensor: every row


@pytest.mark.parametrize("v,m,r,k", [(64, 8, 130, 520), (128, 16, 300, 1000), (16, 4, 40, 88), (32, 32, 16, 200),
                                     (128, 128, 7, 4096)])
def test_blocked_layouts_as_the_kernels_read_them(v, m, r, k):
    """The sm80 layout (blocks of BLOCK_ROWS) and the sm90 one (blocks of the row tile of V), read as the kernels'
    copies read them (load_a_codes: a stage of a row tile is its blocks' contiguous tiles, chunk i of A landing at
    shared-memory chunk i, row i / 4 reading logical chunk c at position swizzle<4>(row, c); the codes' 8 bytes a
    row, 16-row tiles paired as lanes read them: test_paired_codes_as_lanes_read_them), are the row-major operands, padded rows zero with padding codes; they decode back to the
    canonical parts by the decoders registered for them."""
    cfg = vs.VNMConfig(v, 2, m)
    vw = vs.pack(random_vnm(r, k, cfg, torch.bfloat16, "cpu", torch.Generator().manual_seed(r + k)), cfg)
    rows, meta_rows, cols = K.build_rows(vw)
    steps = K.layout_steps(k, m)
    assert rows.shape == (r, steps * K.KS, 2) and meta_rows.shape == (r, steps * K.KS // 2)
    for name, layout, block in ((K.LAYOUT, K.build_layout(vw), K.BLOCK_ROWS),
                                (K.LAYOUT_BULK, K.build_bulk_layout(vw), K.row_tile(v))):
        values, meta, cols_l = layout
        rb = -(-r // block)
        assert values.shape == (rb, steps, block, 2 * K.KS) and meta.shape == (rb, steps, block, K.KS // 2)
        assert (cols_l is None) == (cols is None) and (cols is None or torch.equal(cols_l, cols))
        padded_rows = torch.cat([rows.reshape(r, -1), rows.new_zeros(rb * block - r, steps * 2 * K.KS)])
        padded_codes = torch.cat([meta_rows, meta_rows.new_full((rb * block - r, steps * K.KS // 2), 0x44)])
        for row0 in range(0, rb * block, 128 if block == K.BLOCK_ROWS else block):  # the widest row tile
            tile_rows = min(128, rb * block - row0) if block == K.BLOCK_ROWS else block
            for s in range(steps):
                a = values[row0 // block:(row0 + tile_rows) // block, s].reshape(tile_rows, 4, 8)  # smem chunks
                codes = K.pair_codes(meta[row0 // block:(row0 + tile_rows) // block, s], inverse=True)
                codes = codes.reshape(tile_rows, K.KS // 2)
                for c in range(4):
                    pos = c ^ ((torch.arange(tile_rows) // 2) & 3)
                    want = padded_rows[row0:row0 + tile_rows, s * 2 * K.KS + 8 * c:s * 2 * K.KS + 8 * c + 8]
                    assert torch.equal(a[torch.arange(tile_rows), pos], want)
                assert torch.equal(codes, padded_codes[row0:row0 + tile_rows, s * K.KS // 2:(s + 1) * K.KS // 2])
        parts = ops.LAYOUT_DECODERS[name](values, meta, cols_l, (r, k), cfg)
        assert torch.equal(vs.format.unpack_parts(*parts, (r, k), cfg), vs.unpack(vw))
    # where the row tile of V is BLOCK_ROWS the two layouts are the same tensors, cached once
    assert (K.layout_of(vw, True)[0] is K.layout_of(vw)[0]) == (K.row_tile(v) == K.BLOCK_ROWS)
    assert (K.LAYOUT_BULK in vw._layouts) == (K.row_tile(v) != K.BLOCK_ROWS)
    x = torch.randn(3, k).bfloat16()
    for launch, layout in ((K.spmm_sm80, K.build_rows(vw)), (K.spmm_sm80, K.build_bulk_layout(vw) if v > 16 else None),
                           (K.spmm_sm90, K.build_layout(vw) if v > 16 else None)):
        if layout is not None:  # (a layout of other blocks, or none: a clear error before any launch)
            with pytest.raises(ValueError, match="layout holds values"):
                launch(x, *layout, None, r, k, v, m)


def test_paired_codes_as_lanes_read_them():
    """v359: the blocked layouts hold each 16-row tile's codes as its lanes read them, lane (gid, tig) 8 bytes at
    gid * 16 + (tig & 1) * 8: the mma.sp metadata words of rows gid and gid + 8 (a byte permute of the rows' codes,
    as the kernels did before); they decode back to the same weight."""
    cfg = vs.VNMConfig(128, 2, 8)
    r, k = 200, 1000
    vw = vs.pack(random_vnm(r, k, cfg, torch.bfloat16, "cpu", torch.Generator().manual_seed(5)), cfg)
    for name, build in ((K.LAYOUT, K.build_layout), (K.LAYOUT_BULK, K.build_bulk_layout)):
        values, meta, cols = build(vw)
        plain = K.pair_codes(meta, inverse=True)  # the rows' codes, [.., 16 rows, KS / 2] a tile
        if name == K.LAYOUT:
            assert torch.equal(K.rows_of(values, meta, r)[1], K.build_rows(vw)[1])
        rows = plain.reshape(-1, 16, K.KS // 2).view(torch.int32)  # [tiles, 16 rows, 2 words]
        paired = meta.reshape(-1, 8, 2, 2, 4).view(torch.int32).squeeze(-1)  # [tiles, gid, h, s]
        for gid in range(8):
            lo, hi = rows[:, gid].long() & 0xFFFFFFFF, rows[:, gid + 8].long() & 0xFFFFFFFF
            for h in range(2):  # __byte_perm(lo, hi, 0x5410 / 0x7632)
                want = (lo >> 16 * h & 0xFFFF) | (hi >> 16 * h & 0xFFFF) << 16
                assert torch.equal(paired[:, gid, h].long() & 0xFFFFFFFF, want)
        parts = ops.LAYOUT_DECODERS[name](values, meta, cols, (r, k), cfg)
        assert torch.equal(vs.format.unpack_parts(*parts, (r, k), cfg), vs.unpack(vw))


def union_weight_as_read(values, meta, cols, r, k, v, m):
    """The dense weight that the kernels read from a union layout: virtual group g's 4 columns are
    offsets (the bytes of cols[row // 64, g]) into M window g >> shift, as the .cu's gshift computes."""
    shift = K.union_shift(v, m)
    gp = values.shape[1]
    offs = cols.contiguous().view(torch.uint8).view(cols.shape[0], gp, 4).long()
    codes = torch.stack([meta & 0xF, meta >> 4], -1).view(r, gp).long()
    dense = torch.zeros(r, (gp >> shift) * m + m)
    for row in range(r):
        at = (torch.arange(gp) >> shift) * m
        for j, slot in enumerate((codes[row] & 3, codes[row] >> 2)):
            col = at + offs[row // K.UNION_ROWS].gather(1, slot.view(gp, 1)).flatten()
            dense[row].index_put_((col,), values[row, :, j].float(), accumulate=True)
    assert not dense[:, k:].any()  # (past K: zeros only, which the kernels' zero fill matches)
    return dense[:, :k]


@pytest.mark.parametrize("v,m,r,k", [(16, 64, 100, 300), (32, 32, 64, 256), (16, 128, 70, 1000), (32, 128, 33, 129),
                                     (16, 32, 128, 64), (32, 16, 130, 4000), (16, 256, 64, 600)])
def test_union_layout(v, m, r, k):
    """The union layout (V < 64 on 64-row tiles) read as the kernels read it is the weight; it
    decodes back to the canonical parts; its transpose mask is the union's columns below K."""
    cfg = vs.VNMConfig(v, 2, m)
    gen = torch.Generator().manual_seed(v + m + r)
    w = random_vnm(r, k, cfg, torch.bfloat16, "cpu", gen)
    vw = vs.pack(w, cfg)
    values, meta, cols = K.build_union_layout(vw)
    per = K.UNION_ROWS // v
    assert K.union_m(v, m) == m | (per.bit_length() - 1) << 16 and K.effective_m(K.union_m(v, m)) == m // per
    steps = values.shape[1]
    assert values.shape == (-(-r // K.BLOCK_ROWS), steps, K.BLOCK_ROWS, 2 * K.KS) and meta.shape[:3] == values.shape[:3]
    assert cols.shape == (-(-r // K.UNION_ROWS), steps * K.KS)
    assert torch.equal(union_weight_as_read(*K.rows_of(values, meta, r), cols, r, k, v, m), w.float())
    parts = K.canonical_from_union_layout(values, meta, cols, (r, k), cfg)
    assert torch.equal(vs.format.unpack_parts(*parts, (r, k), cfg), w)
    union = vs.format.union_columns(vw, K.UNION_ROWS)
    read = {g * m + c for rb in union.tolist() for g, cs in enumerate(rb) for c in cs if g * m + c < k}
    reads = K.read_rows(cols)
    assert reads is None or set(reads.nonzero().flatten().tolist()) == read


def test_union_layout_applies_where_it_gathers_less_than_the_window():
    assert [K.union_shift(v, m) for v, m in ((16, 32), (16, 16), (32, 16), (32, 8), (64, 128), (128, 16),
                                             (16, 256), (32, 256), (48, 128), (8, 64))] == \
        [2, None, 1, None, None, None, 2, 1, None, 3]
    vw = vs.pack(torch.zeros(64, 64, dtype=torch.bfloat16), vs.VNMConfig(64, 2, 16))
    with pytest.raises(ValueError, match="union layout"):
        K.build_union_layout(vw)
    with pytest.raises(ValueError, match="multiple of V"):
        vs.format.union_columns(vw, 96)


def test_plain_2_4_reads_row_major_x_where_rows_allow():
    """reads_rows: plain 2:4 (m == 4, no column lists) on a row-major X of 16-byte aligned rows (K % 8 == 0, a
    pitch of whole 8 elements, a 16-byte aligned start); never a gathered or union form, nor a feature-major X
    (read as X^T as it is), nor with XROW_2_4 off."""
    x = torch.zeros(300, 1040, dtype=torch.bfloat16)
    assert K.reads_rows(x[:, :1024], None, 4)
    assert K.reads_rows(x[:1, :1024], None, 4)
    assert not K.reads_rows(x[:, :1024], torch.zeros(1, 1, dtype=torch.int32), 4)  # gathered
    assert not K.reads_rows(x[:, :1024], None, 8) and not K.reads_rows(x[:, :1024], None, 4 | 1 << 16)
    assert not K.reads_rows(x[:, :1020], None, 4)  # K % 8
    assert not K.reads_rows(x.view(-1)[:299 * 1036].view(299, 1036)[:, :1032], None, 4)  # pitch 1036
    # a thread's copies step over rows by 32-bit offsets (v354): rows 2^26 elements apart are transposed instead
    near, far = (torch.empty(2, n, dtype=torch.bfloat16, device="meta")[:, :1024] for n in ((1 << 26) - 8, 1 << 26))
    assert K.reads_rows(near, None, 4) and not K.reads_rows(far, None, 4)
    assert not K.reads_rows(x.view(-1)[1:1 + 1024 * 64].view(64, 1024), None, 4)  # 2-byte aligned start
    assert not K.reads_rows(x[:, :1024].t().contiguous().t(), None, 4) and not K.reads_rows(x.t(), None, 4)
    assert K.TILE_TABLE[False][(128, "prefill")].name(torch.bfloat16, False, False, True).endswith(", true>")
    for tile, cols in ((K.TILE_TABLE[False][(128, "prefill")], True), (K.TILE_TABLE[True][(128, "prefill")], False),
                       (K.WS_TILES[128], False)):
        with pytest.raises(ValueError, match="row-major X"):
            tile.name(torch.bfloat16, cols, False, True)


@pytest.mark.gpu
@pytest.mark.parametrize("tile", list(K.TILE_TABLE[False].values()), ids=str)
def test_row_major_x_on_every_cp_async_tile(tile, monkeypatch):
    """Plain 2:4 on a row-major X runs without a transpose on every cp.async tile, unsplit and split: ragged T and
    R, a partial last stage of K, rows strided past K; X that the kernel cannot read so (K % 8 != 0, a start not
    16-byte aligned) is transposed as before. Against fp32, outputs poisoned, fresh random inputs."""
    transposes = []
    real = K.feature_major
    monkeypatch.setattr(K, "feature_major", lambda *a, **kw: transposes.append(1) or real(*a, **kw))
    gen = torch.Generator().manual_seed(tile.bm * 1000 + tile.bn)
    cases = ((260, 520, 33, None, 8, 0, True), (130, 1024, 300, 3, 0, 0, True), (64, 136, 1, None, 16, 0, True),
             (200, 4104, 129, 2, 0, 0, True), (100, 522, 40, None, 0, 0, False), (100, 528, 40, None, 0, 1, False))
    for i, (r, k, t, splits, extra, offset, rows) in enumerate(cases):
        dtype = (torch.bfloat16, torch.float16)[i % 2]
        cfg = vs.VNMConfig(64, 2, 4)
        w = random_vnm(r, k, cfg, dtype, "cuda", gen)
        pitch = k + extra
        buf = torch.randn(t * pitch + offset, generator=gen).to(dtype).cuda()
        x = buf[offset:].view(t, pitch)[:, :k]
        b = torch.randn(r, generator=gen).to(dtype).cuda()
        out = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
        assert K.reads_rows(x, None, 4) == rows
        transposes.clear()
        y = K.spmm_sm80(x, *K.layout_of(vs.pack(w, cfg)), b, r, k, 64, 4, tile=tile, splits=splits, out=out)
        torch.cuda.synchronize()
        assert bool(transposes) != rows
        ref = x.float() @ w.float().t() + b.float()
        assert not torch.isnan(y).any(), f"unwritten outputs: {tile} R={r} K={k} T={t} splits={splits}"
        err = ((y.float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, f"rel err {err:.3e}: {tile} R={r} K={k} T={t} splits={splits} pitch={pitch}"


@pytest.mark.parametrize("lines", [False, True])
def test_xt_pitch(monkeypatch, lines):
    """X^T's row pitch: whole 16-byte rows, with XT_PITCH_LINES whole 128-byte lines past 64 tokens
    and a power of two below; xt_tokens_within inverts it (the gather's token chunks rely on that)."""
    monkeypatch.setattr(K, "XT_PITCH_LINES", lines)
    expect = {1: 8, 7: 8, 9: 16, 24: 24, 40: 40, 64: 64, 65: 72, 1000: 1000}
    if lines:
        expect.update({24: 32, 40: 64, 65: 128, 1000: 1024})
    assert {t: K.xt_pitch(t) for t in expect} == expect
    for p in list(range(0, 300)) + [1023, 1024, 2**31 // 4097]:
        n = K.xt_tokens_within(p)
        assert n % 8 == 0 and (n == 0 or K.xt_pitch(n) <= p) and (p < 8 or K.xt_pitch(n + 8) > p)


@pytest.mark.gpu
@pytest.mark.parametrize("wide", [False, True])
def test_transpose_of_read_rows_only(monkeypatch, wide):
    """With a weight's row mask the transpose writes its rows (bit-exact, zeros past T) and leaves
    the others as they were; gathered calls on such weights never read those: with every fresh
    buffer (X^T's, Y's) filled with NaN first, both kernels match fp32 (ragged T and K, splits)."""
    monkeypatch.setattr(K, "TRANSPOSE16", wide)
    gen = torch.Generator().manual_seed(12)
    empty = torch.empty
    monkeypatch.setattr(torch, "empty", lambda *a, **kw: empty(*a, **kw).fill_(float("nan")) if
                        kw.get("dtype", torch.get_default_dtype()).is_floating_point else empty(*a, **kw))
    for r, k, t, v, m in ((256, 4096, 1000, 128, 128), (200, 1003, 77, 64, 100), (512, 2048, 64, 64, 64)):
        cfg = vs.VNMConfig(v, 2, m)
        w = random_vnm(r, k, cfg, torch.bfloat16, "cuda", gen)
        vw = vs.pack(w, cfg)
        reads = K.read_rows(K.layout_of(vw)[2])
        assert reads is not None
        x = torch.randn(t, k, generator=gen).bfloat16().cuda()
        xt, ldx, _ = K.feature_major(x, K.layout_of(vw)[2])
        kept = reads.bool()
        assert torch.equal(xt[kept, :t], x.t()[kept]) and not xt[kept, t:].any() and xt[~kept].isnan().all()
        ref = x.float() @ w.float().t()
        calls = [lambda: K.spmm_sm80(x, *K.layout_of(vw), None, r, k, v, m),
                 lambda: K.spmm_sm80(x, *K.layout_of(vw), None, r, k, v, m, splits=3)]
        if W.supported(x.device)[0] and v % 64 == 0:
            calls.append(lambda: W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, v, m))
        for call in calls:
            y = call()
            assert not y.isnan().any() and ((y.float() - ref).norm() / ref.norm()).item() < 1e-2


TOKENS = (1, 7, 64, 1000, 4096)
VS = (16, 32, 64, 128)
MS = (4, 5, 8, 10, 16, 32, 100, 128)


@pytest.mark.gpu
@pytest.mark.parametrize("v,m", list(itertools.product(VS, MS)))
def test_patterns(v, m):
    gen = torch.Generator().manual_seed(v * 1000 + m)
    for bulk in bulk_modes():
        for i, t in enumerate(TOKENS):
            r = v * 3 + 8 * (i % 3) + (5 if i % 2 else 0)  # ragged: not a multiple of v, sometimes odd
            k = m * 37 + (3 if i % 2 else 0) + i          # ragged: partial last group
            dtype = (torch.bfloat16, torch.float16)[i % 2]
            run_case(r, k, t, v, m, dtype, bias=bool(i % 2 == 0), gen=gen, bulk=bulk)


@pytest.mark.gpu
@pytest.mark.parametrize("tile", K.TILES, ids=str)
def test_every_tile(tile):
    if tile.bulk and tile.bulk not in bulk_modes():
        pytest.skip("bulk-copy kernel needs sm_90")
    gen = torch.Generator().manual_seed(7)
    v = tile.bm if tile.bulk else 128  # the bulk layout's row tile is V's
    for has_cols, t in ((True, 300), (False, 33)):
        m = 16 if has_cols else 4
        run_case(260, m * 41 + 2, t, v, m, torch.bfloat16, True, gen, tile=tile, bulk=tile.bulk)


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["", "two_ctas", "wide", "persistent"])
@pytest.mark.parametrize("v,m", [(64, 4), (128, 4), (64, 8), (128, 8), (64, 16), (128, 32), (128, 5), (64, 100)])
def test_warp_specialised_tiles(v, m, form, monkeypatch):
    """The warp-specialised prefill kernel (opt-in path mma_sp_ws): ragged R and K, T not a
    multiple of the token tile, both dtypes, bias, and a K long enough to cycle the ring. v363, the forms whose
    consumers take the producer warpgroup's registers (setmaxnreg, sm_90a): `two_ctas`, the ring shortened to fit two
    CTAs an SM; `wide`, 128 x 256 (8 consumer warps); `persistent`, 128 x 256 striding over the tiles (on a GPU of
    3 SMs, as the launch sees it: each CTA runs several tiles, ragged ones among them, through one ring)."""
    if form == "persistent":
        monkeypatch.setattr(K, "_sms", lambda index: 3)
    tile = K.ws_tile(v, m)
    if form:
        if torch.cuda.get_device_capability() != (9, 0):
            pytest.skip("the setmaxnreg forms need sm_90a")
        if form not in K.ws_forms(tile) or (form == "persistent" and m == 4):
            pytest.skip(f"{tile} has no {form} form" + (" without column lists" if m == 4 else ""))
        tile = K.ws_forms(tile)[form]
        assert tile.ctas_per_sm == (2 if form == "two_ctas" else 1) and tile.persistent == (form == "persistent")
    if tile.smem_bytes > torch.cuda.get_device_properties(0).shared_memory_per_block_optin:
        pytest.skip(f"{tile} needs {tile.smem_bytes} bytes of shared memory")
    gen = torch.Generator().manual_seed(v * 100 + m)
    for i, (r, k, t) in enumerate(((3 * v + 5, 37 * m + 3, 65), (2 * v, 1000 * m // 8 + 1, 300), (1000, 4096, 1000))):
        run_case(r, k, t, v, m, (torch.bfloat16, torch.float16)[i % 2], bool(i % 2 == 0), gen, tile=tile)


def test_autotune_candidates(monkeypatch):
    """Autotune times the cp.async tiles whose rows divide V (any tile without column lists), each
    with its own split rule (a merge once dropped ``_tuned`` and only an autotuned call would have
    found out)."""
    monkeypatch.setattr(K, "_sms", lambda index: 132)
    values = torch.zeros(256, 64, 2)  # the sm80 layout's shape: R x Gp x 2 (4 stages of KS groups)
    cols = torch.zeros(4, 64, dtype=torch.int32)  # [R / V, Gp]
    for m, c, fits in ((8, cols, lambda t: 64 % t.bm == 0), (4, None, lambda t: True)):
        seen = {}
        monkeypatch.setattr(K.autotune, "tile_and_splits", lambda kernel, *a: seen.setdefault(kernel, a) and (None, None))
        assert K._tuned(torch.zeros(8, 256), values, None, c, None, 256, 256, 64, m, 8) == (None, None)
        tiles = seen["mma_sp"][6]
        assert tiles and set(tiles) == {t for t in K.TILE_TABLE[False].values() if fits(t)}
        assert all(seen["mma_sp"][7](t) >= 1 for t in tiles) and seen["mma_sp"][9] in tiles  # (the heuristic's)
    # on sm_90a a gathered prefill also times the warp-specialised forms, unsplit (their route's, v365)
    monkeypatch.setattr(K, "_on_sm90a", lambda x: True)
    x = torch.zeros(4096, 256)
    seen = {}
    monkeypatch.setattr(K.autotune, "tile_and_splits", lambda kernel, *a: seen.setdefault(kernel, a) and (None, None))
    K._tuned(x, torch.zeros(1024, 64, 2), None, torch.zeros(8, 64, dtype=torch.int32), None, 1024, 256, 128, 8, 4096)
    tiles, splits, default = seen["mma_sp"][6], seen["mma_sp"][7], seen["mma_sp"][9]
    assert set(K.WS_PREFILL_TILES.values()) <= set(tiles) and all(splits(t) == 1 for t in K.WS_PREFILL_TILES.values())
    assert default is K.WS_PREFILL_TILES[128]


@pytest.mark.gpu
@pytest.mark.parametrize("r", [4096, 515, 258, 1])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_reduce_splits(r, dtype, monkeypatch):
    """The split-K reduction, 4 outputs per thread (R % 4 == 0, aligned y and bias, v56) or one,
    against the fp32 sum in split order, bitwise equal between the two; with and without bias, y
    a misaligned view (the scalar path)."""
    gen = torch.Generator().manual_seed(r)
    for splits, ntok in ((4, 64), (3, 1), (1, 9)):
        partial = torch.randn(splits, ntok, r, generator=gen).cuda()
        bias = torch.randn(r, generator=gen).to(dtype).cuda()
        for b in (bias, None):
            ref = partial.sum(0) + (b.float() if b is not None else 0)
            ys = []
            monkeypatch.setattr(K, "REDUCE_VEC_MIN", 0)
            for vec in (64, 256, 0):
                monkeypatch.setattr(K, "REDUCE_VEC", vec)
                buf = torch.full((ntok * r + 1,), float("nan"), dtype=dtype, device="cuda")
                for y in (buf[:ntok * r].view(ntok, r), buf[1:].view(ntok, r)):  # aligned, then misaligned
                    K.reduce_splits(partial, b, y, 132)
                    torch.cuda.synchronize()
                    torch.testing.assert_close(y.float(), ref, rtol=1e-2, atol=1e-2)
                    ys.append(y.clone())
            assert all(torch.equal(ys[0], y) for y in ys[1:]), (r, splits, ntok)


@pytest.mark.gpu
@pytest.mark.parametrize("splits", [2, 3, 7])
def test_split_k(splits):
    gen = torch.Generator().manual_seed(splits)
    for bulk in bulk_modes():
        run_case(515, 2048 + 5, 9, 64, 8, torch.float16, True, gen, splits=splits, bulk=bulk)
        run_case(512, 4096, 64, 128, 32, torch.bfloat16, False, gen, splits=splits, bulk=bulk)


def check_against_default(ys, ref, what):
    """ys = (a knob's output, the default path's) of one call: written, < 1e-2 of fp32 ref, bit-identical."""
    torch.cuda.synchronize()
    assert not torch.isnan(ys[0]).any(), f"unwritten outputs: {what}"
    err = ((ys[0].float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"rel err {err:.3e}: {what}"
    assert torch.equal(ys[0], ys[1]), what


@pytest.mark.gpu
def test_split_k_as_a_cluster(monkeypatch):
    """v389 (CLUSTER_SPLITS, off: v392 measured it slower): on sm_90 the K splits of a cp.async call (2-8) sum their
    tiles over a thread-block cluster in the kernel; bit-identical to the fp32 partials + splitk_reduce (the same
    order: bias, then the splits in turn), for every decode tile and a prefill one, ragged R / K / T, bias or not, a
    feature-major x (no transpose) beside the row-major one; 12 asked (9 or 11 where the steps allow: past the
    portable cluster) take the partials either way."""
    if not K._sm90a(torch.cuda.current_device()):
        pytest.skip("thread-block clusters: sm_90")
    gen = torch.Generator().manual_seed(389)
    cases = [((bm, bn), r, k, t, v, m) for (bm, bn), (r, k, t, v, m) in itertools.product(
        [(128, 16), (128, 32), (128, 64), (64, 16), (64, 32), (64, 64), (32, 32), (16, 64)],
        [(300, 1000, 5, 128, 8), (1027, 2048 + 8, 64, 128, 16)])]
    cases += [((128, "prefill"), 260, 4096, 200, 128, 8), ((64, 32), 520, 2048, 20, 64, 4)]  # (2:4: X rows read)
    for i, (key, r, k, t, v, m) in enumerate(cases):
        tile = K.TILE_TABLE[False][key]
        v = v if v % tile.bm == 0 else tile.bm
        dtype = torch.bfloat16 if i % 2 else torch.float16
        cfg = vs.VNMConfig(v, 2, m)
        w = random_vnm(r, k, cfg, dtype, "cuda", gen)
        weights = K.layout_of(vs.pack(w, cfg))
        x = torch.randn(t, k, generator=gen).to(dtype).cuda()
        if i % 4 == 3 and t % 8 == 0:
            x = x.t().contiguous().t()  # (feature-major: read as X^T, no transpose)
        b = torch.randn(r, generator=gen).to(dtype).cuda() if i % 3 else None
        ref = x.float() @ w.float().t() + (b.float() if b is not None else 0)
        for splits in (2, 5, 8, 12):
            ys = []
            for clustered in (True, False):
                monkeypatch.setattr(K, "CLUSTER_SPLITS", clustered)
                out = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
                ys.append(K.spmm_sm80(x, *weights, b, r, k, v, m, tile=tile, splits=splits, out=out))
            check_against_default(ys, ref, f"{tile} R={r} K={k} T={t} {cfg} splits={splits}: cluster sums differ "
                                  f"from splitk_reduce's")


@pytest.mark.gpu
@pytest.mark.parametrize("tile", K.GATHER_FORMS, ids=str)
def test_gathered_from_x_rows(tile, monkeypatch):
    """v391 (GATHER_ROWS, on since v392 at T <= 32 on unsplit calls; here every form of it): a decode call of a
    gathered weight (m <= 16) reads X's rows and picks the kept columns in the kernel, with no transpose launch;
    bit-identical to the transposed X^T path (the same B values, the same mma order) on each decode tile, both
    windows (m = 5, 8 / 10, 16), ragged R, K % 8 == 0 with a partial last stage, T = 1-64 with a partial token tile,
    rows strided past K, bias or not, unsplit, split and (sm_90) clustered; against fp32, outputs poisoned."""
    gen = torch.Generator().manual_seed(391 + K.GATHER_FORMS.index(tile))
    monkeypatch.setattr(K, "GATHER_ROWS_MAX_TOKENS", 64)  # (the kernel past the regime it is routed in)
    monkeypatch.setattr(K, "GATHER_ROWS_MAX_STEPS", 1 << 20)
    monkeypatch.setattr(K, "GATHER_TILE_TOKENS", (16, 32, 64))
    transposes = []
    real = K.feature_major
    monkeypatch.setattr(K, "feature_major", lambda *a, **kw: transposes.append(1) or real(*a, **kw))
    clusters = (False, True) if K._sm90a(torch.cuda.current_device()) else (False,)
    shapes = [(300, 1000, 1, 8), (1027, 2048 + 8, 64, 16), (130, 1032, 33, 5), (520, 1024, 7, 10)]
    first = K.GATHER_FORMS.index(tile)
    for i, (r, k, t, m) in enumerate(shapes[(first + j) % len(shapes)] for j in (0, 1)):
        v = max(tile.bm, 64)
        dtype = torch.bfloat16 if i % 2 else torch.float16
        cfg = vs.VNMConfig(v, 2, m)
        w = random_vnm(r, k, cfg, dtype, "cuda", gen)
        weights = K.layout_of(vs.pack(w, cfg))
        x = torch.randn(t, k + 8 * (i % 3), generator=gen).to(dtype).cuda()[:, :k]  # (rows strided past K)
        b = torch.randn(r, generator=gen).to(dtype).cuda() if i % 3 else None
        ref = x.float() @ w.float().t() + (b.float() if b is not None else 0)
        for splits, clustered in [(1, False)] + [(s, c) for s in (2, 4) for c in clusters]:
            monkeypatch.setattr(K, "CLUSTER_SPLITS", clustered)
            ys = []
            for gathered in (True, False):
                monkeypatch.setattr(K, "GATHER_ROWS", gathered)
                transposes.clear()
                out = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
                ys.append(K.spmm_sm80(x, *weights, b, r, k, v, m, tile=tile, splits=splits, out=out))
                gathers = gathered and K.gather_window(x, weights[2], m, tile, weights[0].shape[1], r) > 0  # (the windows fit the GPU)
                assert bool(transposes) != gathers, f"{tile} {cfg}: transposed={bool(transposes)}"
            check_against_default(ys, ref, f"{tile} R={r} K={k} T={t} {cfg} splits={splits} clustered={clustered}: "
                                  f"gathered from X's rows differs from X^T's")


@pytest.mark.gpu
def test_llm_shapes_and_leading_dims():
    gen = torch.Generator().manual_seed(3)
    for bulk in bulk_modes():
        run_case(4096, 4096, 4096, 64, 8, torch.bfloat16, True, gen, bulk=bulk)
        run_case(11008, 4096, 16, 128, 16, torch.bfloat16, False, gen, bulk=bulk)
        run_case(1024, 4096, 37, 64, 32, torch.bfloat16, True, gen, lead=(3,), bulk=bulk)


@pytest.mark.gpu
def test_public_spmm_dispatches_to_kernel_and_handles_layouts():
    gen = torch.Generator().manual_seed(5)
    cfg = vs.VNMConfig(64, 2, 8)
    w = random_vnm(192, 1000, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    ref = lambda x: x.float() @ w.float().t()
    x = torch.randn(96, 1000, generator=gen).bfloat16().cuda()
    for xin in (x, x[:, :].t().contiguous().t(), x[::2], torch.randn(1, 1001, generator=gen).bfloat16().cuda()[:, 1:].expand(5, 1000)):
        y = vs.spmm(xin, vw)
        assert ((y.float() - ref(xin)).norm() / ref(xin).norm()).item() < 1e-2
    assert {"sm80", "sm90", "wgmma_sp"} & set(vw._layouts), "the kernel path was not taken"


@pytest.fixture
def fake_sm90(monkeypatch):
    """An sm_90 device as the decode planner sees it (no GPU, no NVRTC needed); its cached device
    check is cleared before and after, so no test sees another's fake."""
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (9, 0))
    monkeypatch.setattr(K, "supported", lambda d, bulk=False: (True, ""))
    K._decode_supported.cache_clear()
    K.decode_plan.cache_clear()
    yield
    K._decode_supported.cache_clear()
    K.decode_plan.cache_clear()


def test_decode_plan_on_the_fragment_image(monkeypatch, fake_sm90):
    """v52: the decode kernel reads the wgmma.sp fragment image only in 64-row blocks (row tiles of
    64 or 128); where it does, its plan is the one on its own image (the same shared memory: the
    image keeps 8 bytes of metadata per row and stage, as the codes) but for the copies of several
    steps there (v240: a ring of whole copies), and its kernel is named apart."""
    dev = torch.device("cuda", 0)
    monkeypatch.setattr(K, "_sms", lambda i: 132)
    monkeypatch.setattr(K, "DECODE_GROUP", 1)
    monkeypatch.setattr(K, "DECODE_AREG", 0)  # (A in registers: no slots, less shared memory, test below)
    K.decode_plan.cache_clear()
    for v, m in ((64, 4), (64, 8), (128, 8), (128, 32), (128, 128)):
        for t in (1, 4, 8):
            for steps in (2, 16, 64, 200):
                assert K.decode_plan(dev, t, 4096, steps, v, m, image=True) == K.decode_plan(dev, t, 4096, steps, v, m)
    for v in (16, 32, 48, 96):
        assert K.decode_plan(dev, 1, 4096, 16, v, 8) is not None
        assert K.decode_plan(dev, 1, 4096, 16, v, 8, image=True) is None
        assert not K.decode_preferred(dev, 1, 4096, 4096, v, 8, image=True)
    assert K.decode_name(torch.bfloat16, 128, 8, True, True).endswith(", true, true>")
    assert K.decode_name(torch.bfloat16, 128, 8, True) != K.decode_name(torch.bfloat16, 128, 8, True, True)
    # v304: two V = 64 blocks a 128-row CTA, on the fragment image, where each warp's rows lie in one block
    # (token tiles of at most 32), their column words counted twice in shared memory
    for t in (1, 8, 16, 32):
        plan = K.decode_plan(dev, t, 4096, 64, 64, 8, image=True, bm=128)
        assert plan is not None and plan[0] == 128 and K._decode_warp_tile(128, plan[1])[0] <= 64, plan
    assert K.decode_plan(dev, 64, 4096, 64, 64, 8, image=True, bm=128) is None
    assert K.decode_plan(dev, 8, 4096, 64, 64, 8, bm=128) is None
    assert K.decode_smem_bytes(128, 8, 8, 8, 4, True, 64) - K.decode_smem_bytes(128, 8, 8, 8, 4, True, 128) == 8 * K.KS * 4
    assert K.decode_vblocks(128, 64, 4) == 1 and K.decode_vblocks(64, 64, 8) == 1
    assert K.decode_plan(dev, 8, 4096, 64, 64, 4, image=True, bm=128) is not None  # (plain 2:4: no column words)


def test_two_block_route_keeps_a_decode_plan(monkeypatch, fake_sm90):
    """Wherever spmm_wgmma_sp.decode_rows sends a V = 64 call to 128-row decode CTAs (two V-row blocks each, v304-v306),
    the 128-row plan exists whenever the 64-row one would have: the route never trades the decode kernel away."""
    dev = torch.device("cuda", 0)
    monkeypatch.setattr(K, "_sms", lambda i: 132)
    K.decode_plan.cache_clear()
    routed = 0
    for r in (130, 1100, 3072, 4096, 11008, 28672):
        for k in (1003, 4096, 11008):
            for m in (5, 8, 16, 32, 64, 128, 256):
                for t in (1, 2, 3, 4, 6, 8, 12, 16):
                    if W.decode_rows(t, r, k, 64, m, 132) == 128:
                        routed += 1
                        assert (K.preferred_decode_plan(dev, t, r, k, 64, m, image=True, bm=128) is not None
                                or K.preferred_decode_plan(dev, t, r, k, 64, m, image=True) is None), (r, k, m, t)
    assert routed > 50, routed


def test_decode_plan(monkeypatch, fake_sm90):
    """The one-launch decode kernel applies to T <= 64 on sm_90 with at most 8 K splits (a cluster)
    of at most DECODE_MAX_STEPS resident steps whose X slice and shared memory fit; its splits
    divide the steps with none empty."""
    dev = torch.device("cuda", 0)
    monkeypatch.setattr(K, "_sms", lambda i: 132)
    assert K.decode_plan(dev, 65, 4096, 32, 64, 8) is None  # too many tokens
    assert K.decode_plan(dev, 64, 4096, 32, 64, 256) is None  # one step is wider than the slice
    assert K.decode_plan(dev, 1, 4096, 2 * 9 * 8, 64, 128) is None  # would need more than 8 splits
    assert K.decode_plan(dev, 1, 4096, 8 * K.DECODE_MAX_STEPS + 1, 64, 4) is None  # too many steps
    for t in (1, 8, 9, 16, 17, 32, 33, 64):
        for rows, steps, v, m in ((4096, 32, 64, 8), (11008, 86, 128, 8), (4096, 2, 128, 32), (48, 1, 16, 5),
                                  (4096, 6, 64, 16), (4096, 43, 128, 16), (4096, 128, 64, 4)):
            plan = K.decode_plan(dev, t, rows, steps, v, m)
            bn = 8 if t <= 8 else 16 if t <= 16 else 32 if t <= 32 else 64
            if plan is None:  # e.g. LLaMA down (K 11008, 2:8) at T > 32
                per_cap = min(K.DECODE_MAX_STEPS, K.DECODE_MAX_SLICE_BYTES // (bn * 2) // (K.KS * m))
                assert -(-steps // max(per_cap, 1)) > K.DECODE_MAX_SPLITS or per_cap == 0 or \
                    K.decode_smem_bytes(K.row_tile(v), bn, -(-steps // K.DECODE_MAX_SPLITS), m, K.DECODE_MAX_SPLITS, False) > K.DECODE_MAX_SMEM
                continue
            bm, bn2, splits, per = plan
            assert bn2 == bn and v % bm == 0 and 1 <= splits <= K.DECODE_MAX_SPLITS, (t, rows, steps, m)
            assert per <= K.DECODE_MAX_STEPS and bn * per * K.KS * m * 2 <= K.DECODE_MAX_SLICE_BYTES
            assert (splits - 1) * per < steps <= splits * per, (rows, steps, m, splits, per)
            assert K.decode_smem_bytes(bm, bn, per, m, splits, False) <= K.DECODE_MAX_SMEM
    assert K.decode_plan(dev, 1, 4096, 32, 64, 8)[2:] == (8, 4)  # 64 row tiles: 8 splits of 4 steps
    assert K.decode_preferred(dev, 1, 4096, 4096, 64, 8) and K.decode_preferred(dev, 8, 4096, 4096, 64, 8)
    assert not K.decode_preferred(dev, 9, 4096, 4096, 64, 8)  # past DECODE_DEFAULT_MAX_TOKENS
    assert not K.decode_preferred(dev, 16, 4096, 4096, 128, 8)
    # few rows (<= DECODE_FEW_ROWS) at M >= 8: up to DECODE_FEW_ROWS_MAX_TOKENS; plain 2:4 not
    few, t_few = K.DECODE_FEW_ROWS, K.DECODE_FEW_ROWS_MAX_TOKENS
    assert K.decode_preferred(dev, t_few, few, 4096, 128, 8) and not K.decode_preferred(dev, t_few + 1, few, 4096, 128, 8)
    assert not K.decode_preferred(dev, 9, 2 * few, 4096, 128, 8) and not K.decode_preferred(dev, 9, few, 4096, 64, 4)
    assert not K.decode_preferred(dev, 8, 4096, 4096, 64, 64)  # X slice > 2x the weight bytes
    assert not K.decode_preferred(dev, 1, 4096, 8 * K.DECODE_MAX_STEPS * K.KS * 4 + 4, 64, 4)  # no plan
    monkeypatch.setenv("VNM_DECODE", "0")
    assert not K.decode_preferred(dev, 1, 4096, 4096, 64, 8)
    monkeypatch.delenv("VNM_DECODE")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (8, 0))
    K._decode_supported.cache_clear()  # the decode check and the plans are cached
    K.decode_plan.cache_clear()
    assert K.decode_plan(dev, 1, 4096, 32, 64, 8) is None  # no clusters before sm_90


@pytest.mark.parametrize("v,m,r,k", [(64, 8, 4096, 4096), (128, 128, 300, 11008), (16, 5, 48, 333), (64, 10, 200, 1003),
                                     (32, 100, 96, 6408)])
def test_decode_kernel_gather_stays_in_its_slice(v, m, r, k, monkeypatch, fake_sm90):
    """The decode kernel's index math, emulated on the CPU with a real layout: every slice column a
    lane reads for its B fragment (k-row 32 ks + 8 j + 2 tig + e of local step s: local group
    s*KS + 8 ks + 2 j + tig/2, slot 2 (tig & 1) + e) is the X column of that logical k-row (group,
    slot of its column word) and lies inside its CTA's slice [c0, c0 + width); the splits cover the
    steps exactly once."""
    monkeypatch.setattr(K, "_sms", lambda i: 132)
    cfg = vs.VNMConfig(v, 2, m)
    vw = vs.pack(random_vnm(r, k, cfg, torch.bfloat16, "cpu", torch.Generator().manual_seed(1)), cfg)
    cols = K.build_layout(vw)[2]
    steps = K.layout_steps(k, m)
    gp = steps * K.KS
    bm, _, splits, per = K.decode_plan(torch.device("cuda", 0), 1, r, steps, v, m)
    width = per * K.KS * m
    words = cols.to(torch.int64) & 0xFFFFFFFF if cols is not None else torch.full((1, gp), 0x03020100)
    lane = torch.arange(32)
    covered = []
    for z in range(splits):
        kbeg, kend = z * per, min(steps, z * per + per)
        c0 = kbeg * K.KS * m
        covered += list(range(kbeg, kend))
        gid, tig = lane // 4, lane % 4
        for s in range(kend - kbeg):
            for ks in range(2):
                for j in range(4):
                    for e in range(2):
                        g = s * K.KS + 8 * ks + 2 * j + tig // 2
                        col = g * m + ((words[:, kbeg * K.KS + g] >> (8 * (2 * (tig % 2) + e))) & 0xFF)
                        kr = 32 * ks + 8 * j + 2 * tig + e  # the fragment's logical k-row
                        gg = (kbeg + s) * K.KS + kr // 4
                        assert torch.equal(col + c0, gg * m + ((words[:, gg] >> (8 * (kr % 4))) & 0xFF))
                        assert int(col.min()) >= 0 and int(col.max()) < width, (z, s, ks, j, e)
    assert covered == list(range(steps))


def needs_sm90(fn):
    return pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 9,
                              reason="needs an sm_90 GPU (thread-block clusters)")(fn)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("v,m", [(16, 4), (16, 5), (32, 8), (64, 8), (128, 8), (64, 10), (128, 16), (64, 32),
                                 (128, 100), (64, 128)])
def test_decode_kernel(v, m):
    """The one-launch decode kernel (T <= 64, token tiles 16 / 32 / 64): ragged R and K, odd K
    (unaligned rows: the scalar slice loads), with and without splits, bias, both dtypes; poisoned
    outputs, fp32 reference."""
    gen = torch.Generator().manual_seed(v * 7 + m)
    for i, (t, r, k) in enumerate(((1, 4 * v + 5, 1003), (7, 3 * v, 64 * m + 8), (16, 515, 2053), (3, 2048, 4096),
                                   (17, 2 * v + 3, 1000), (33, 700, 999), (64, 4096, 2048))):
        dtype = (torch.bfloat16, torch.float16)[i % 2]
        steps = -(-(-(-k // m)) // K.KS)  # padded groups / KS
        if K.decode_plan(torch.device("cuda"), t, r, steps, v, m) is None:
            assert t > 16, (t, r, k, v, m)  # wide tiles leave large M to the three-launch path
            continue
        check_case(lambda x, vw, b, out: K.spmm_sm90_decode(x, *K.layout_of(vw, True), b, r, k, v, m, out=out),
                   r, k, t, v, m, dtype, bias=i % 2 == 0, gen=gen, what="decode kernel")


def test_decode_ring_and_group(monkeypatch):
    """A decode CTA's A slots hold DECODE_GROUP steps from DECODE_GROUP_MIN_STEPS steps on; its ring
    is whole groups (at most DECODE_RING of them, all with 0)."""
    monkeypatch.setattr(K, "DECODE_RING", 2)
    monkeypatch.setattr(K, "DECODE_GROUP", 2)
    monkeypatch.setattr(K, "DECODE_GROUP_MIN_STEPS", 8)
    monkeypatch.setattr(K, "DECODE_AREG", 0)
    assert [(K.decode_group(p, True, 64, 8), K.decode_ring(p, True, 64, 8)) for p in (1, 4, 7, 8, 13)] == [(1, 1), (1, 2), (1, 2), (2, 4), (2, 4)]
    assert (K.decode_group(13, False, 64, 8), K.decode_ring(13, False, 64, 8)) == (1, 2)  # the "sm90" image: one step a copy
    monkeypatch.setattr(K, "DECODE_RING", 0)
    assert (K.decode_group(13, True, 64, 8), K.decode_ring(13, True, 64, 8)) == (2, 14)  # all resident: 7 groups, the last of one step
    assert K.decode_smem_bytes(64, 8, 13, 8, 4, True) > K.decode_smem_bytes(64, 8, 12, 8, 4, True)
    assert K.decode_name(torch.bfloat16, 64, 8, True, True, True).endswith(", true, true, true>")
    with pytest.raises(ValueError, match="fragment image"):
        K.decode_name(torch.bfloat16, 64, 8, True, False, True)


def test_decode_a_in_registers_plan(monkeypatch):
    """v280: with DECODE_AREG, A and its codes go straight into registers on the fragment image at token
    tiles of at most DECODE_AREG_MAX_BN: no A slots, no codes in shared memory, no copies of several
    steps; the "sm90" image and wider token tiles keep the slots."""
    monkeypatch.setattr(K, "DECODE_GROUP", 2)
    monkeypatch.setattr(K, "DECODE_GROUP_MIN_STEPS", 8)
    monkeypatch.setattr(K, "DECODE_RING", 2)
    monkeypatch.setattr(K, "DECODE_AREG", 4)
    monkeypatch.setattr(K, "DECODE_AREG_SHORT", 8)
    monkeypatch.setattr(K, "DECODE_AREG_SHORT_STEPS", 4)
    monkeypatch.setattr(K, "DECODE_AREG_MAX_BM", 64)
    assert (K.decode_areg(True, 64, 8), K.decode_group(13, True, 64, 8), K.decode_ring(13, True, 64, 8)) == (4, 1, 0)
    assert [K.decode_areg(True, 64, 16, p) for p in (1, 4, 5, 13)] == [8, 8, 4, 4]  # short CTAs load deeper
    assert (K.decode_areg(True, 64, 32), K.decode_group(13, True, 64, 32)) == (0, 2)
    assert (K.decode_areg(True, 128, 8), K.decode_ring(13, True, 128, 8)) == (0, 4)  # 128-row tiles keep the slots
    assert (K.decode_areg(False, 64, 8), K.decode_ring(13, False, 64, 8)) == (0, 2)
    with_slots = K.decode_smem_bytes(64, 8, 13, 8, 4, False)
    assert with_slots - K.decode_smem_bytes(64, 8, 13, 8, 4, True) == 2 * 64 * 2 * K.KS * 2 + 13 * 64 * K.KS // 2
    assert K.decode_name(torch.bfloat16, 64, 8, True, True, areg=4).endswith(", true, false, 4>")
    assert K.decode_name(torch.bfloat16, 64, 8, True, True, areg=4) in K.name_expressions(torch.bfloat16)
    with pytest.raises(ValueError, match="not both"):
        K.decode_name(torch.bfloat16, 64, 8, True, True, True, 4)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("ring,group", [(1, 1), (2, 1), (3, 1), (1, 3), (2, 2)])
def test_decode_kernel_ring(ring, group, monkeypatch):
    """A tiles through `ring` slots (v34) of `group` steps each (v240; copies of several steps on
    the fragment image, V % 64 == 0): each slot refilled several times (its mbarrier's phase
    flips), K ranges that are not a multiple of the ring or of the group (a short last copy), one
    split and several."""
    monkeypatch.setattr(K, "DECODE_RING", ring)
    monkeypatch.setattr(K, "DECODE_GROUP", group)
    monkeypatch.setattr(K, "DECODE_AREG", 0)  # the slots, also on the fragment image's 64-row tiles
    monkeypatch.setattr(K, "DECODE_GROUP_MIN_STEPS", 1)
    K.decode_plan.cache_clear()
    gen = torch.Generator().manual_seed(ring)
    refilled = 0  # cases whose slots are refilled (more steps than the ring holds)
    try:
        for i, (t, r, k, v, m) in enumerate(((1, 300, 4100, 64, 8), (5, 2048, 4096, 128, 8), (8, 130, 2053, 16, 4),
                                             (16, 515, 8192, 64, 16), (3, 1000, 11008, 128, 4))):
            steps = -(-(-(-k // m)) // K.KS)
            image = group > 1 and v % 64 == 0
            plan = K.decode_plan(torch.device("cuda"), t, r, steps, v, m, image=image)
            assert plan is not None and (group > 1 or plan[3] > ring), (plan, ring)
            refilled += plan[3] > ring * group

            def launch(x, vw, b, out, plan=plan, image=image, r=r, k=k, v=v, m=m):
                if not image:
                    return K.spmm_sm90_decode(x, *K.layout_of(vw, True), b, r, k, v, m, out=out)
                K.spmm_decode(x, *W.layout_of(vw), b, out, r, k, v, m, plan, image=True)
                return out
            check_case(launch, r, k, t, v, m, (torch.bfloat16, torch.float16)[i % 2], bias=i % 2 == 0, gen=gen,
                       what=f"decode kernel, ring {ring}, group {group}")
        assert refilled >= 3, refilled
    finally:
        K.decode_plan.cache_clear()


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("depth", K.DECODE_AREG_DEPTHS)
def test_decode_kernel_a_in_registers(depth, monkeypatch):
    """v280: A and its codes loaded into registers `depth` steps ahead: CTAs of fewer steps than the
    queue and of several refills of it, one split and several, 64-row tiles and 128-row ones (not
    routed there, v281, but kept correct), token tiles of 8 and 16, ragged R and K, both dtypes, bias."""
    monkeypatch.setattr(K, "DECODE_AREG", depth)
    monkeypatch.setattr(K, "DECODE_AREG_SHORT", depth)
    monkeypatch.setattr(K, "DECODE_AREG_MAX_BM", 128)
    K.decode_plan.cache_clear()
    gen = torch.Generator().manual_seed(depth)
    pers = set()
    try:
        for i, (t, r, k, v, m) in enumerate(((1, 300, 4100, 64, 8), (5, 2048, 4096, 128, 8), (16, 515, 8192, 64, 16),
                                             (3, 1000, 11008, 128, 4), (9, 190, 16384, 64, 4), (2, 4096, 4096, 128, 32))):
            steps = -(-(-(-k // m)) // K.KS)
            plan = K.decode_plan(torch.device("cuda"), t, r, steps, v, m, image=True)
            assert plan is not None and K.decode_areg(True, plan[0], plan[1], plan[3]) == depth, plan
            pers.add(plan[3] > depth)

            def launch(x, vw, b, out, plan=plan, r=r, k=k, v=v, m=m):
                K.spmm_decode(x, *W.layout_of(vw), b, out, r, k, v, m, plan, image=True)
                return out
            check_case(launch, r, k, t, v, m, (torch.bfloat16, torch.float16)[i % 2], bias=i % 2 == 0, gen=gen,
                       what=f"decode kernel, A in registers {depth} steps ahead")
        assert pers == {True, False}, pers  # queues refilled and not
    finally:
        K.decode_plan.cache_clear()


@pytest.mark.gpu
@needs_sm90
def test_decode_kernel_two_v_blocks_a_cta(monkeypatch):
    """v304: V = 64 weights on 128-row decode tiles of the fragment image, each warp gathering with its own
    block's column words: R not a multiple of 128 (a last tile whose second block is partial or past R),
    token tiles of 8, 16 and 32, one split and several, both dtypes, bias."""
    gen = torch.Generator().manual_seed(304)
    dev = torch.device("cuda")
    splits = set()
    try:
        for i, (t, r, k, m) in enumerate(((1, 130, 4100, 8), (5, 197, 2053, 16), (8, 4096, 4096, 8), (16, 320, 1003, 10),
                                          (32, 2048, 8192, 16), (3, 11008, 4096, 32), (2, 64, 640, 8), (7, 200, 1003, 8))):
            steps = -(-(-(-k // m)) // K.KS)
            if i >= 6:  # one split: the plain epilogue
                monkeypatch.setattr(K, "DECODE_MAX_SPLITS", 1)
                K.decode_plan.cache_clear()
            plan = K.decode_plan(dev, t, r, steps, 64, m, image=True, bm=128)
            assert plan is not None and plan[0] == 128, plan
            splits.add(plan[2] > 1)

            def launch(x, vw, b, out, plan=plan, r=r, k=k, m=m):
                K.spmm_decode(x, *W.layout_of(vw), b, out, r, k, 64, m, plan, image=True)
                return out
            check_case(launch, r, k, t, 64, m, (torch.bfloat16, torch.float16)[i % 2], bias=i % 2 == 0, gen=gen,
                       what="decode kernel, two V-row blocks a CTA")
    finally:
        K.decode_plan.cache_clear()
    assert splits == {True, False}, splits


@pytest.mark.gpu
@needs_sm90
def test_decode_kernel_strided_x_and_graph_capture():
    """Rows of X with a pitch (a slice of a wider tensor), a broadcast row (stride 0), a token-
    contiguous X (made rows by the transpose kernel; K odd too), and the cluster launch inside a
    CUDA graph: replay equals eager."""
    gen = torch.Generator().manual_seed(17)
    cfg = vs.VNMConfig(64, 2, 8)
    w = random_vnm(1000, 2048, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    run = lambda x: K.spmm_sm90_decode(x, *K.layout_of(vw, True), None, 1000, 2048, 64, 8)  # noqa: E731
    wide = torch.randn(9, 2056, generator=gen).bfloat16().cuda()
    for x in (wide[:, 8:], wide[:1].expand(5, 2056)[:, :2048], wide[:4, 8:].t().contiguous().t()):
        ref = x.float() @ w.float().t()
        assert ((run(x).float() - ref).norm() / ref.norm()).item() < 1e-2
    w_odd = random_vnm(300, 1001, cfg, torch.bfloat16, "cuda", gen)
    vw_odd = vs.pack(w_odd, cfg)
    for t in (2, 5, 7):
        x = torch.randn(1001, t, generator=gen).bfloat16().cuda().t()
        ref = x.float() @ w_odd.float().t()
        y = K.spmm_sm90_decode(x, *K.layout_of(vw_odd, True), None, 300, 1001, 64, 8)
        assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    x = torch.randn(12, 2048, generator=gen).bfloat16().cuda()
    run(x)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = run(x)
    x.copy_(torch.randn(12, 2048, generator=gen).bfloat16())
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, run(x))


@pytest.mark.gpu
def test_cuda_graph_capture():
    gen = torch.Generator().manual_seed(11)
    cfg = vs.VNMConfig(64, 2, 16)
    vw = vs.pack(random_vnm(512, 2048, cfg, torch.bfloat16, "cuda", gen), cfg)
    x = torch.randn(33, 2048, generator=gen).bfloat16().cuda()
    b = torch.randn(512, generator=gen).bfloat16().cuda()
    y0 = vs.spmm(x, vw, b)  # warm-up compiles and builds the layout outside the capture
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        vs.spmm(x, vw, b)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = vs.spmm(x, vw, b)
    x.copy_(torch.randn(33, 2048, generator=gen).bfloat16())
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, vs.spmm(x, vw, b)) and not torch.equal(y, y0)


@pytest.mark.gpu
def test_torch_compile_fullgraph_matches_eager():
    gen = torch.Generator().manual_seed(13)
    cfg = vs.VNMConfig(128, 2, 8)
    vw = vs.pack(random_vnm(256, 512, cfg, torch.float16, "cuda", gen), cfg)
    bias = torch.randn(256, generator=gen).half().cuda()

    class Layer(torch.nn.Module):
        def __init__(self, act):
            super().__init__()
            self.act = act

        def forward(self, x):
            return self.act(vs.spmm(x, vw, bias))

    x = torch.randn(4, 50, 512, generator=gen).half().cuda()
    plain = Layer(torch.nn.Identity())
    assert torch.equal(plain(x), torch.compile(plain, fullgraph=True)(x))
    # Inductor fuses the gelu into its own kernel, so it may round differently from eager.
    gelu = Layer(torch.nn.functional.gelu)
    torch.testing.assert_close(torch.compile(gelu, fullgraph=True)(x), gelu(x), rtol=2e-3, atol=2e-3)


@pytest.mark.gpu
def test_opcheck_cuda():
    gen = torch.Generator().manual_seed(17)
    cfg = vs.VNMConfig(64, 2, 8)
    w = random_vnm(128, 256, cfg, torch.bfloat16, "cuda", gen)
    vw = vs.pack(w, cfg)
    x = torch.randn(10, 256, generator=gen).bfloat16().cuda()
    b = torch.randn(128, generator=gen).bfloat16().cuda()
    for bulk in bulk_modes():
        args = (x, *K.layout_of(vw, bulk), b, 128, 256, 64, 8, K.LAYOUT_BULK if bulk else K.LAYOUT)
        torch.library.opcheck(torch.ops.vnmsparse.spmm.default, args,
                              test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


@pytest.mark.gpu
def test_bad_inputs_on_gpu():
    cfg = vs.VNMConfig(64, 2, 8)
    vw = vs.pack(torch.zeros(64, 64, dtype=torch.bfloat16, device="cuda"), cfg)
    with pytest.raises(ValueError, match="weight is on"):
        vs.spmm(torch.zeros(2, 64, dtype=torch.bfloat16), vw)
    with pytest.raises(TypeError, match="dtype"):
        vs.spmm(torch.zeros(2, 64, dtype=torch.float16, device="cuda"), vw)
    with pytest.raises(ValueError, match="K"):
        vs.spmm(torch.zeros(2, 63, dtype=torch.bfloat16, device="cuda"), vw)
    x = torch.randn(300, 64, dtype=torch.bfloat16, device="cuda")  # a 128-row tile would read two blocks' columns
    with pytest.raises(ValueError, match="must divide V"):
        K.spmm_sm80(x, *K.layout_of(vw), None, 64, 64, cfg.v, cfg.m, tile=K.TILE_TABLE[False][(128, "prefill")])


def test_decode_route_for_2_4(fake_sm90, monkeypatch):
    """Plain 2:4 at 1-8 tokens prefers the decode kernel (v34: at every LLaMA-7B and BERT shape);
    spmm_sm90a runs the staged wgmma.sp tile instead where X can be read by TMA (v89)."""
    monkeypatch.setattr(K, "_sms", lambda index: 132)
    dev = torch.device("cuda", 0)
    for shape in ((4096, 4096), (11008, 4096), (1024, 4096), (4096, 11008)):
        assert K.decode_preferred(dev, 1, *shape, 64, 4) and K.decode_preferred(dev, 8, *shape, 64, 4), shape
        assert not K.decode_preferred(dev, 9, *shape, 64, 4)
    monkeypatch.setenv("VNM_DECODE", "0")
    assert not K.decode_preferred(dev, 1, 4096, 4096, 64, 4)


def test_decode_plan_takes_the_fewest_waves_then_the_most_splits(monkeypatch, fake_sm90):
    dev = torch.device("cuda", 0)
    monkeypatch.setattr(K, "_sms", lambda i: 132)
    at_once = {}  # splits -> clusters the (fake) GPU runs at once
    asked = set()  # dtypes the occupancy was asked for: the call's own (no kernel of the other compiled)
    monkeypatch.setattr(K, "_decode_clusters_at_once",
                        lambda d, bm, bn, smem, splits, dtype, image=False: asked.add(dtype) or at_once[splits])
    at_once.update({1: 20, 2: 20, 3: 40, 4: 90, 5: 80, 6: 86, 7: 60, 8: 50})  # 86 row tiles: one wave at 4 or 6 splits
    assert K.decode_plan(dev, 1, 11008, 32, 128, 8)[2:] == (6, 6)
    at_once.update({6: 40})
    assert K.decode_plan.__wrapped__(dev, 1, 11008, 32, 128, 8)[2:] == (4, 8)
    K.decode_plan.__wrapped__(dev, 1, 11008, 32, 128, 8, torch.float16)
    assert asked == {torch.bfloat16, torch.float16}
    at_once.update(dict.fromkeys(range(1, 9), 10))  # waves tie: the most splits of >= DECODE_MIN_SPLIT_STEPS
    assert K.decode_plan.__wrapped__(dev, 1, 11008, 8, 128, 32)[2:] == (8, 1)
    # autotune's candidates: one plan per split count, the planner's among them
    plans = K.decode_plans(dev, 1, 4096, 16, 64, 16)
    assert K.decode_plan(dev, 1, 4096, 16, 64, 16) in plans
    assert [p[2:] for p in plans] == [(1, 16), (2, 8), (3, 6), (4, 4), (6, 3), (8, 2)]
    assert all(p[3] * p[2] >= 16 > p[3] * (p[2] - 1) for p in plans)  # every step once
    assert K.decode_plans(dev, 65, 4096, 16, 64, 16) == []  # no plan past 64 tokens
    monkeypatch.setattr(K, "DECODE_MIN_SPLIT_STEPS", 2)
    assert K.decode_plan.__wrapped__(dev, 1, 11008, 8, 128, 32)[2:] == (4, 2)
    monkeypatch.setattr(K, "DECODE_ONE_WAVE", False)  # v13's rule
    assert K.decode_plan.__wrapped__(dev, 1, 11008, 32, 128, 8)[2:] == (7, 5)
