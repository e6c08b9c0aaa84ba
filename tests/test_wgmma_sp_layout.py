"""wgmma.mma_async.sp operand layouts (issue 4 groundwork).

CPU: every probe of csrc/wgmma_sp_probe.cu compiles for sm_90a with NVRTC, without spills; the
pure-torch layout builders of vnmsparse.kernels.wgmma_sp_layout round-trip and agree with the
kernel-side formulas (ldmatrix, byte permute). GPU (``-m gpu`` on an H100/H200): each
single-instruction probe equals ``A_dense @ B`` in fp32, and wrong layouts are caught.
"""

import subprocess

import pytest
import torch

from vnmsparse.kernels import jit
from vnmsparse.kernels import wgmma_sp_layout as L

from spmm_cases import cuobjdump, needs_cuobjdump

nvrtc_ok, nvrtc_reason = jit.available()
needs_nvrtc = pytest.mark.skipif(not nvrtc_ok, reason=f"NVRTC unavailable: {nvrtc_reason}")
gpu = pytest.mark.gpu

DTYPES = (torch.bfloat16, torch.float16)
NS = (64, 128, 256)
# (a_source, a_swizzle, b_major, b_swizzle): the layouts the Hopper kernel is planned around.
CORE = (("regs", 0, "k", 128), ("regs", 0, "mn", 128), ("smem", 64, "k", 128), ("smem", 64, "mn", 128))
# Other legal layouts, to pin down the descriptor formulas beyond the planned ones:
# (a_source, a_swizzle, b_major, b_swizzle, groups of the tile).
EXTRA = (
    ("regs", 0, "mn", 64, 16), ("regs", 0, "mn", 32, 16), ("regs", 0, "mn", 0, 16),
    ("regs", 0, "k", 0, 16), ("regs", 0, "k", 64, 8),
    ("smem", 0, "mn", 128, 16), ("smem", 32, "mn", 128, 8), ("smem", 128, "mn", 128, 32),
)


def core_names():
    return [L.probe_name(dt, n, a, asw, bm, bsw, sel)
            for dt in DTYPES for n in NS for (a, asw, bm, bsw) in CORE for sel in (0, 1)]


def extra_names():
    return [L.probe_name(torch.bfloat16, n, a, asw, bm, bsw, 0) for n in (64, 256) for (a, asw, bm, bsw, _) in EXTRA]


def rel_err(d, ref):
    d, ref = d.double().cpu(), ref.double().cpu()
    return float(torch.linalg.norm(d - ref) / torch.linalg.norm(ref))


# --------------------------------------------------------------------------------------- compile


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jit, "_modules", {})
    monkeypatch.setattr(jit, "_kernels", {})
    return tmp_path


@needs_nvrtc
def test_probes_compile_for_sm90a_without_spills(fresh_cache):
    names = core_names() + extra_names()
    module = jit.compile(L.PROBE_SOURCE, names, "sm_90a")
    res = module.resources()
    assert set(res) == set(names)
    for name, r in res.items():
        assert r.spills == 0 and r.stack_bytes == 0, (name, r)
        n = int(name.split(",")[1])
        # The body is really there (an sm_90a-only guard that failed would leave an empty kernel):
        # N/2 accumulators live across the instruction.
        assert r.registers >= n // 2 + 8, (name, r)
    assert "serializ" not in module.log.lower(), module.log  # ptxas warns if it serialises wgmma


@needs_nvrtc
@needs_cuobjdump
def test_probe_sass_has_one_sparse_hgmma(fresh_cache, tmp_path):
    names = [L.probe_name(torch.bfloat16, 256, "regs", 0, "mn", 128, 0),
             L.probe_name(torch.float16, 64, "smem", 64, "k", 128, 1)]
    module = jit.compile(L.PROBE_SOURCE, names, "sm_90a")
    cubin = tmp_path / "probe.cubin"
    cubin.write_bytes(module.cubin)
    sass = subprocess.run([cuobjdump(), "--dump-sass", str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    lines = [ln for ln in sass.splitlines() if "HGMMA" in ln]
    assert len(lines) == 2, lines
    assert any("HGMMA.SP.64x256x32.F32.BF16" in ln and "tnspB" in ln for ln in lines), lines
    assert any("HGMMA.SP.64x64x32.F32 " in ln and "tnspB" not in ln for ln in lines), lines


# ---------------------------------------------------------------------------------- layouts (CPU)


def _tile(groups=16, dtype=torch.bfloat16, seed=0):
    return L.random_tile(64, groups, dtype, torch.Generator().manual_seed(seed))


def test_dense_from_parts_matches_canonical_rule():
    values, positions = _tile(16)
    dense = L.dense_from_parts(values, positions)
    codes = L.unpack_codes(positions, 16)
    assert (L.pack_codes(codes) == positions).all()
    for r in (0, 17, 63):
        for g in (0, 5, 15):
            p0, p1 = int(codes[r, g]) & 3, int(codes[r, g]) >> 2
            assert p0 < p1
            row = dense[r, 4 * g: 4 * g + 4]
            assert row[p0] == values[r, g, 0] and row[p1] == values[r, g, 1]
            assert (row != 0).sum() <= 2


@pytest.mark.parametrize("kstep", [0, 1])
def test_a_fragments_round_trip_and_cover_the_kstep(kstep):
    values, _ = _tile(16)
    frags = L.a_fragments(values, kstep)
    back = L.values_from_a_fragments(frags, values.dtype, 16, kstep)
    sl = slice(8 * kstep, 8 * kstep + 8)
    assert torch.equal(back[:, sl], values[:, sl])
    assert (back.view(torch.int16)[:, 8 * (1 - kstep): 8 * (1 - kstep) + 8] == 0).all()
    rows, groups = L._a_index(kstep)
    keys = (rows * 64 + groups).flatten()
    assert keys.unique().numel() == 64 * 8  # every (row, group) of the k-step exactly once


@pytest.mark.parametrize("kstep", [0, 1])
def test_a_fragments_equal_ldmatrix_x4_of_the_stored_rows(kstep):
    """Per warp, register i is ldmatrix.x4's matrix i when lane l addresses row 16w + (l & 15),
    stored column 16*ks + 8*(l >> 4): the load the kernel will use for register-sourced A."""
    values, _ = _tile(16)
    s = L.stored_matrix(values).contiguous().view(torch.int32)  # [64, 16] pairs of columns
    frags = L.a_fragments(values, kstep)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(4):
            r0, c0 = 16 * w + 8 * (i & 1), 16 * kstep + 8 * (i >> 1)  # matrix i: rows r0.., cols c0..
            expect = s[r0 + lane // 4, (c0 + 2 * (lane % 4)) // 2]
            assert frags[t, i] == expect


@pytest.mark.parametrize("kstep", [0, 1])
def test_metadata_words_reproduce_canonical_codes(kstep):
    values, positions = _tile(16, seed=3)
    same = L.metadata_words(positions, kstep, 0, "same")
    assert torch.equal(same, L.metadata_words(positions, kstep, 1, "same"))
    assert torch.equal(same, L.metadata_words_from_bytes(positions, kstep))  # the kernel's byte permute
    codes = L.unpack_codes(positions, 16)
    sl = slice(8 * kstep, 8 * kstep + 8)
    for sel in (0, 1):
        words = L.metadata_words(positions, kstep, sel, "wrong")
        back = L.codes_from_metadata_words(words, kstep, sel, groups=16)
        assert torch.equal(back[:, sl], codes[:, sl])
        other = L.codes_from_metadata_words(words, kstep, 1 - sel, groups=16)[:, sl]
        assert (other != codes[:, sl]).all()  # the ignored pair is wrong in every nibble
        assert all(int(c) in L.VALID_CODES for c in other.flatten())  # ... but valid


def test_metadata_word_bit_layout_by_hand():
    codes = torch.full((64, 8), 0b0100, dtype=torch.uint8)
    codes[5, 0:4] = torch.tensor([0b1110, 0b1001, 0b1100, 0b1000], dtype=torch.uint8)  # row 5, groups 0..3
    codes[13, 4] = 0b1101  # row 13 = row 5 + 8, group 4
    words = L._to_u32(L.metadata_words(L.pack_codes(codes), 0, 0))
    t = 4 * 5 + 0  # warp 0, gid 5, tig 0: groups 0..3
    assert int(words[t]) == 0x4444_8C9E
    t = 4 * 5 + 1  # tig 1: groups 4..7, row 13's group 4 in bits 16..19
    assert int(words[t]) == 0x444D_4444


def test_accumulator_layout_round_trip_and_coverage():
    for n in NS:
        row, col = L.accumulator_coords(n)
        assert (row * n + col).flatten().unique().numel() == 64 * n
        dmat = torch.randn(64, n)
        assert torch.equal(L.decode_accumulators(L.encode_accumulators(dmat), n), dmat)
    row, col = L.accumulator_coords(64)
    assert (int(row[37, 6]), int(col[37, 6])) == (16 * 1 + 1 + 8, 8 * 1 + 2 * 1 + 0)


B_LAYOUTS = [("mn", 128, 64), ("mn", 64, 64), ("mn", 32, 64), ("mn", 0, 64), ("k", 128, 64), ("k", 0, 64),
             ("k", 64, 32), ("mn", 128, 32), ("k", 128, 32)]


@pytest.mark.parametrize("major,swizzle,kelems", B_LAYOUTS)
@pytest.mark.parametrize("n", NS)
def test_b_image_is_a_bijection_and_round_trips(major, swizzle, kelems, n):
    b = torch.randn(kelems, n).to(torch.bfloat16)
    img = L.b_smem_image(b, major, swizzle)
    assert img.nbytes % 16 == 0 and img.nbytes == n * (max(2 * kelems, swizzle) if major == "k" else 2 * kelems)
    off = (L.kmajor_offsets(n, kelems, swizzle, img.lbo, img.sbo) if major == "k"
           else L.mnmajor_offsets(kelems, n, swizzle, img.lbo, img.sbo))
    assert off.flatten().unique().numel() == kelems * n and int(off.max()) < img.nbytes
    assert torch.equal(L.b_from_smem_image(img, kelems, n), b)
    if swizzle:
        raw = off ^ (((off >> 7) & (swizzle // 16 - 1)) << 4)  # the swizzle is an involution
        assert torch.equal(off // swizzle, raw // swizzle)  # it only permutes chunks inside a row


def test_b_image_formulas_by_hand():
    b = torch.arange(64 * 128, dtype=torch.float32).reshape(64, 128).to(torch.float16)
    mn = L.b_smem_image(b, "mn", 128)
    assert (mn.lbo, mn.sbo, mn.kstep_bytes) == (64 * 128, 1024, 4096)
    # (k=9, n=70): slab 1, k-group 1, row 1 of the atom, chunk 0 ^ 1 = 1, element 6 of it.
    assert mn.data[(8192 + 1024 + 128 + 16 + 12) // 2] == b[9, 70]
    kk = L.b_smem_image(b, "k", 128)
    assert (kk.sbo, kk.kstep_bytes) == (1024, 64)
    # (k=33, n=10): 8-row group 1, row 2, byte 66 -> chunk 4 ^ 2 = 6, byte 2 of it.
    assert kk.data[(1024 + 256 + 96 + 2) // 2] == b[33, 10]


def test_a_image_round_trips_and_kstep_offsets():
    values, _ = _tile(16)
    for sw in (64, 0):
        img = L.a_smem_image(values, sw)
        s = L.stored_matrix(values)
        off = L.kmajor_offsets(64, 32, sw, img.lbo, img.sbo)
        assert torch.equal(img.data[off // 2], s)
        assert img.kstep_bytes == (32 if sw else 2 * img.lbo)
    assert L.a_smem_image(values, 64).sbo == 512


def test_descriptor_bitfields():
    d = L.make_descriptor(0x400, 16, 1024, 128)
    assert d == 0x40 | (1 << 16) | (64 << 32) | (1 << 62)
    for sw in L.SWIZZLES:
        f = L.decode_descriptor(L.make_descriptor(0x1230, 8192, 512, sw))
        assert f == {"addr": 0x1230, "lbo": 8192, "sbo": 512, "base_offset": 0, "swizzle": sw}
    assert L.decode_descriptor(L.make_descriptor(0, 16, 256, 32))["swizzle"] == 32
    assert (L.make_descriptor(0, 0, 0, 64) >> 62) == 2 and (L.make_descriptor(0, 0, 0, 32) >> 62) == 3


def test_reference_is_the_kstep_slice():
    values, positions = _tile(16)
    b = torch.randn(64, 64).to(torch.bfloat16)
    full = L.dense_from_parts(values, positions).float() @ b.float()
    assert torch.allclose(L.reference(values, positions, b, 0) + L.reference(values, positions, b, 1), full,
                          rtol=1e-4, atol=1e-3)


def _cute_read(desc, major, x_size, k_size):
    """Byte address of element (x, k) read through a descriptor, per CuTe's canonical GMMA layouts
    (cute/atom/mma_traits_sm90_gmma.hpp, in 16-byte units): an independent phrasing of the
    module's byte formulas, with CUTLASS's LBO/SBO role assignment."""
    f = L.decode_descriptor(desc)
    sw, lbo, sbo = f["swizzle"], f["lbo"] // 16, f["sbo"] // 16
    w = sw // 16 if sw else 1
    x = torch.arange(x_size)[:, None]
    k = torch.arange(k_size)[None, :]
    if major == "k":   # S: ((8,m),(T,k)):((W,SBO),(1,T))   none: ((8,m),(T,2)):((1,SBO),(1,LBO))
        unit = (x % 8) * w + (x // 8) * sbo + k // 8 if sw else (x % 8) + (x // 8) * sbo + (k // 8) * lbo
        byte = f["addr"] + unit * 16 + (k % 8) * 2
    else:              # S: ((T,W,n),(8,k)):((1,T,LBO),(W,SBO))   none: ((T,1,n),(8,k)):((1,T,SBO),(1,LBO))
        unit = ((x // 8) % w + (x // (8 * w)) * lbo + (k % 8) * w + (k // 8) * sbo if sw
                else (x // 8) * sbo + (k % 8) + (k // 8) * lbo)
        byte = f["addr"] + unit * 16 + (x % 8) * 2
    return L.swizzle_offset(byte, sw)


def _emulate_probe(launch, a_source, b_major, sel):
    """What the probe computes, from its launch arguments alone (A regs per CUTLASS ALayout_64x32,
    metadata per ELayout_64x32, smem operands per _cute_read)."""
    (a_regs, meta, a_data, _, a_lbo, a_sbo, a_koff, b_data, _, b_lbo, b_sbo, b_koff, _) = launch["args"]
    fields = launch["name"].split(",")
    a_sw, b_sw, n = int(fields[3]), int(fields[5]), launch["n"]
    bm = b_data[_cute_read(L.make_descriptor(b_koff, b_lbo, b_sbo, b_sw), b_major, n, 32) // 2].t().float()
    if a_source == "smem":
        stored = a_data[_cute_read(L.make_descriptor(a_koff, a_lbo, a_sbo, a_sw), "k", 64, 16) // 2].float()
    else:
        stored = torch.zeros(64, 16)
        pairs = a_regs.view(b_data.dtype).reshape(128, 4, 2).float()
        for t in range(128):
            w, gid, tig = t // 32, (t % 32) // 4, t % 4
            for r in range(4):  # value mode (4, 2, 2):(k+1, m+8, k+16) of logical k; 2 stored per 4
                stored[16 * w + gid + 8 * (r & 1), 2 * (tig + 4 * (r >> 1)) + torch.arange(2)] = pairs[t, r]
    a = torch.zeros(64, 32)
    words = L._to_u32(meta)
    for t in range(128):
        w, gid, tig = t // 32, (t % 32) // 4, t % 4
        if tig >> 1 != sel:
            continue
        for half in range(2):  # thread mode (2, 2, 8, 4):(k+16, 0, m+1, m+16); value (16, 2):(k, m+8)
            r = 16 * w + gid + 8 * half
            for c in range(4):
                code = (int(words[t]) >> (16 * half + 4 * c)) & 0xF
                g = 4 * (tig & 1) + c
                a[r, 4 * g + (code & 3)] += stored[r, 2 * g]
                a[r, 4 * g + (code >> 2)] += stored[r, 2 * g + 1]
    return a @ bm


@pytest.mark.parametrize("a_source,a_swizzle,b_major,b_swizzle,groups",
                         [(*c, 16) for c in CORE] + list(EXTRA))
def test_launch_arguments_against_cute_canonical_layouts(a_source, a_swizzle, b_major, b_swizzle, groups):
    for kstep in range(groups // 8):
        sel = kstep % 2
        values, positions = _tile(groups, seed=kstep)
        b = torch.randn(4 * groups, 128, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
        launch = L.probe_launch(values, positions, b, a_source=a_source, a_swizzle=a_swizzle, b_major=b_major,
                                b_swizzle=b_swizzle, sel=sel, kstep=kstep, device="cpu")
        assert len(launch["args"]) == len(L.PROBE_PARAMS)
        d = _emulate_probe(launch, a_source, b_major, sel)
        assert rel_err(d, L.reference(values, positions, b, kstep)) < 1e-3


# ---------------------------------------------------------------------------------- probes (GPU)


@pytest.fixture(scope="module")
def probe_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VNM_CACHE_DIR", str(tmp_path_factory.mktemp("wgmma_sp_cache")))
        yield


def _inputs(groups, n, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    values, positions = L.random_tile(64, groups, dtype, g)
    b = torch.randn(4 * groups, n, generator=g).to(dtype)
    return values, positions, b


@gpu
@pytest.mark.parametrize("kstep", [0, 1])
@pytest.mark.parametrize("sel", [0, 1])
@pytest.mark.parametrize("a_source,a_swizzle,b_major,b_swizzle", CORE)
@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["bf16", "f16"])
def test_probe_equals_dense_matmul(probe_cache, dtype, n, a_source, a_swizzle, b_major, b_swizzle, sel, kstep):
    values, positions, b = _inputs(16, n, dtype, seed=n + 7 * sel + 3 * kstep)
    # Unselected metadata pair poisoned with valid-but-wrong codes: also proves the selector.
    d = L.run_probe(values, positions, b, a_source=a_source, a_swizzle=a_swizzle, b_major=b_major,
                    b_swizzle=b_swizzle, sel=sel, kstep=kstep, others="wrong")
    assert torch.isfinite(d).all(), "NaN left in the output: a register the instruction did not write"
    assert rel_err(d, L.reference(values, positions, b, kstep)) < 1e-2


@gpu
@pytest.mark.parametrize("a_source,a_swizzle,b_major,b_swizzle,groups", EXTRA)
@pytest.mark.parametrize("n", (64, 256))
def test_probe_extra_layouts(probe_cache, n, a_source, a_swizzle, b_major, b_swizzle, groups):
    for kstep in range(groups // 8):
        values, positions, b = _inputs(groups, n, torch.bfloat16, seed=11 + kstep)
        d = L.run_probe(values, positions, b, a_source=a_source, a_swizzle=a_swizzle, b_major=b_major,
                        b_swizzle=b_swizzle, kstep=kstep)
        assert torch.isfinite(d).all()
        assert rel_err(d, L.reference(values, positions, b, kstep)) < 1e-2, kstep


@gpu
@pytest.mark.parametrize("a_source", ["regs", "smem"])
def test_wrong_metadata_is_detected(probe_cache, a_source):
    values, positions, b = _inputs(16, 128, torch.bfloat16, seed=5)
    ref = L.reference(values, positions, b, 0)
    kw = dict(a_source=a_source, b_major="mn", b_swizzle=128, sel=0)
    good = L.run_probe(values, positions, b, **kw)
    assert rel_err(good, ref) < 1e-2
    words = L.metadata_words(positions, 0, 0, "same")
    tig = torch.arange(128) % 4
    swapped = words.clone()  # the two k-halves exchanged between lanes tig 0 and tig 1
    swapped[tig == 0], swapped[tig == 1] = words[tig == 1], words[tig == 0]
    rows_swapped = words.clone()  # rows gid and gid + 8 exchanged (16-bit halves swapped)
    u = L._to_u32(words)
    rows_swapped[:] = L._to_i32(((u & 0xFFFF) << 16) | (u >> 16))
    only_wrong_pair = L.metadata_words(positions, 0, 1, "wrong")  # right codes in tig 2,3 only
    other_kstep = L.metadata_words(positions, 1, 0, "same")
    for bad in (swapped, rows_swapped, only_wrong_pair, other_kstep):
        d = L.run_probe(values, positions, b, meta=bad, **kw)
        assert rel_err(d, ref) > 0.2


@gpu
def test_wrong_a_register_order_is_detected(probe_cache):
    values, positions, b = _inputs(16, 64, torch.float16, seed=9)
    ref = L.reference(values, positions, b, 0)
    frags = L.a_fragments(values, 0)
    for perm in ([0, 2, 1, 3], [1, 0, 3, 2]):
        d = L.run_probe(values, positions, b, a_regs=frags[:, perm], b_major="k", b_swizzle=128)
        assert rel_err(d, ref) > 0.2


@pytest.mark.parametrize("n", [64, 128, 256])
def test_kmajor_128b_image_is_what_a_tma_box_writes(n):
    """The TMA_X path of spmm_wgmma_sp.cu: one 2-D TMA box of 64 k (128 B) x n tokens with
    CU_TENSOR_MAP_SWIZZLE_128B writes token t's 16-byte chunk c at t*128 + 16*(c ^ (t % 8)) (the
    box's rows are 128 B, the swizzle XORs the chunk with the row inside each 1024-B atom). The
    kernel's B descriptor (K-major, 128B swizzle, SBO 1024) must read exactly that image."""
    t = torch.arange(n)[:, None]
    k = torch.arange(64)[None, :]
    tma = t * 128 + 16 * ((2 * k // 16) ^ (t % 8)) + (2 * k) % 16
    lbo, sbo = L.kmajor_layout(n, 64, 128)
    assert sbo == 1024
    assert torch.equal(L.kmajor_offsets(n, 64, 128, lbo, sbo), tma)
