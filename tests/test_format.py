"""Tests of vnmsparse.config and vnmsparse.format: VNMConfig, vnm_mask, is_vnm/check_vnm, pack/unpack.

The oracles here are independent of the code under test: a brute-force numpy search for the
best mask of a block, and a numpy decoder written from the layout documented in format.py's
module docstring.
"""

import itertools
import math
import time

import numpy as np
import pytest
import torch
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

import vnmsparse as vs
from vnmsparse import VNMConfig, VNMWeight
from vnmsparse.format import columns_dtype, part_shapes

EXAMPLES = settings().max_examples  # of the loaded hypothesis profile (see conftest.py)
VS = (16, 32, 64, 128)
INT_VIEW = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}
FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view(INT_VIEW[t.dtype])


def assert_bitwise_equal(a: torch.Tensor, b: torch.Tensor):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(bits(a), bits(b))


# ------------------------------------------------------------------------------------ oracles


def blocks(r, k, cfg):
    """(row slice, column slice, width) of every v x m block, ragged tails included."""
    for rb in range(cfg.row_blocks(r)):
        for g in range(cfg.groups(k)):
            c0 = g * cfg.m
            w = min(cfg.m, k - c0)
            yield slice(rb * cfg.v, min(r, (rb + 1) * cfg.v)), slice(c0, c0 + w), w


def top2_rows(s: np.ndarray) -> float:
    """Sum over rows of each row's 2 largest entries (all entries when fewer than 3)."""
    if s.shape[1] <= 2:
        return float(s.sum())
    return float(np.sort(s, axis=1)[:, -2:].sum())


def brute_force_best(s: np.ndarray) -> float:
    """Best kept total of one block by enumerating every quad of columns x per-row top-2."""
    w = s.shape[1]
    if w < 4:
        return top2_rows(s)
    quads = np.array(list(itertools.combinations(range(w), 4)))
    sub = s[:, quads]  # [rows, Q, 4]
    pair_sums = np.stack([sub[..., i] + sub[..., j] for i, j in itertools.combinations(range(4), 2)], -1)
    return float(pair_sums.max(-1).sum(0).max())


def baseline_best(s: np.ndarray) -> float:
    """The 4 columns with the largest summed score (ties: lowest index), then per-row top-2."""
    cols = np.argsort(-s.sum(0), kind="stable")[:4]
    return top2_rows(s[:, np.sort(cols)])


def doc_dense_columns(vw: VNMWeight) -> np.ndarray:
    """Dense column of every stored value [R, G, 2], decoded with nothing but the documented layout."""
    r, k = vw.shape
    v, m = vw.cfg.v, vw.cfg.m
    g = -(-k // m)
    assert vw.values.shape == (r, g, 2)
    assert vw.positions.dtype == torch.uint8 and vw.positions.shape == (r, -(-g // 2))
    pos = vw.positions.numpy().astype(np.int64)
    codes = np.stack([pos & 0xF, pos >> 4], -1).reshape(r, -1)[:, :g]  # even group: low nibble
    if g % 2 and r:
        assert (pos[:, -1] >> 4 == 0).all(), "unused high nibble must be 0"
    slots = np.stack([codes & 3, codes >> 2], -1)  # [R, G, 2]
    assert (slots[..., 0] < slots[..., 1]).all(), "p0 < p1"
    if vw.columns is None:
        assert m == 4
        per_block = np.broadcast_to(np.arange(4), (r, g, 4))
    else:
        cols = vw.columns.numpy().astype(np.int64)
        assert cols.shape == (-(-r // v), g, 4)
        assert (cols >= 0).all() and (cols < m).all() and (np.diff(cols, axis=-1) > 0).all()
        per_block = cols[np.arange(r) // v]
    dense_col = np.take_along_axis(per_block, slots, -1) + m * np.arange(g).reshape(1, g, 1)
    assert (np.diff(dense_col, axis=-1) > 0).all(), "values are stored in column order"
    return dense_col


def doc_decode(vw: VNMWeight) -> torch.Tensor:
    """Dense weight rebuilt from the parts with nothing but the documented layout (numpy, bitwise)."""
    r, k = vw.shape
    g = vw.cfg.groups(k)
    dense_col = doc_dense_columns(vw)
    vals = vw.values.float().numpy()
    assert (vals[dense_col >= k] == 0).all(), "a value stored beyond column K must be zero"
    dense = np.zeros((r, g * vw.cfg.m), dtype=np.int64)
    rows = np.broadcast_to(np.arange(r).reshape(r, 1, 1), dense_col.shape)
    dense[rows.reshape(-1), dense_col.reshape(-1)] = bits(vw.values).numpy().astype(np.int64).reshape(-1)
    return torch.from_numpy(dense[:, :k].copy()).to(INT_VIEW[vw.dtype]).view(vw.dtype)


def stored_mask(vw: VNMWeight) -> torch.Tensor:
    """bool [R, K]: the dense positions that hold a stored value."""
    r, k = vw.shape
    dense_col = doc_dense_columns(vw)
    full = np.zeros((r, vw.cfg.groups(k) * vw.cfg.m), dtype=bool)
    full[np.broadcast_to(np.arange(r).reshape(r, 1, 1), dense_col.shape).reshape(-1), dense_col.reshape(-1)] = True
    return torch.from_numpy(full[:, :k].copy())


def random_vnm(rng: np.random.Generator, r, k, cfg, keep=1.0) -> np.ndarray:
    """A random V:N:M weight built directly (not via vnm_mask): per block a random set of
    min(4, w) columns, per row a random min(2, .) of them, each value kept with prob ``keep``."""
    w_ = np.zeros((r, k))
    for rows, cols, w in blocks(r, k, cfg):
        n = rows.stop - rows.start
        kept = np.sort(rng.choice(w, min(4, w), replace=False)) + cols.start
        per_row = np.argsort(rng.random((n, kept.size)), 1)[:, : min(2, kept.size)]
        cc = kept[per_row]
        vals = rng.choice([-1.0, 1.0], cc.shape) * 2.0 ** rng.uniform(-8, 8, cc.shape)
        vals = np.where(rng.random(cc.shape) < keep, vals, 0.0)  # +0.0, never -0.0
        w_[np.arange(rows.start, rows.stop)[:, None], cc] = vals
    return w_


# ---------------------------------------------------------------------------------- strategies


@st.composite
def shapes_and_cfgs(draw, max_m=130):
    v = draw(st.sampled_from(VS))
    m = draw(st.one_of(st.integers(4, min(19, max_m)), st.integers(min(20, max_m), max_m)))
    # whole blocks plus a remainder, so that ragged tails and several blocks are both common
    r = draw(st.integers(0, 2)) * v + draw(st.one_of(st.sampled_from([0, 1, 2, v - 1]), st.integers(0, v - 1)))
    k = draw(st.integers(0, 3)) * m + draw(st.one_of(st.sampled_from([0, 1, 2, 3, 4, m - 1]), st.integers(0, m - 1)))
    return max(r, 1), max(k, 1), VNMConfig(v, 2, m)


SCORE_KINDS = ("normal", "abs", "ties", "sparse", "float64", "bfloat16", "int64", "huge", "tiny")


def make_scores(kind: str, r: int, k: int, seed: int) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((r, k))
    if kind == "normal":
        return torch.tensor(x, dtype=torch.float32)
    if kind == "abs":
        return torch.tensor(np.abs(x), dtype=torch.float32)
    if kind == "ties":
        return torch.tensor(rng.integers(0, 3, (r, k)), dtype=torch.float32)
    if kind == "sparse":
        return torch.tensor(np.abs(x) * (rng.random((r, k)) < 0.1), dtype=torch.float32)
    if kind == "float64":
        return torch.tensor(x, dtype=torch.float64)
    if kind == "bfloat16":
        return torch.tensor(np.abs(x), dtype=torch.bfloat16)
    if kind == "int64":
        return torch.tensor(rng.integers(-5, 10, (r, k)), dtype=torch.int64)
    if kind == "huge":
        return torch.tensor(np.abs(x) * 1e30, dtype=torch.float32)
    if kind == "tiny":
        return torch.tensor(np.abs(x) * 1e-30, dtype=torch.float32)
    raise AssertionError(kind)


# ----------------------------------------------------------------------------------- VNMConfig


def test_config_parse_round_trip_and_density():
    cfg = VNMConfig.parse("64:2:8")
    assert cfg == VNMConfig(64, 2, 8) and str(cfg) == "64:2:8" and cfg.density == 2 / 8
    assert VNMConfig.parse(str(cfg)) == cfg
    assert VNMConfig.parse(" 32 : 2 : 16 ") == VNMConfig(32, 2, 16)
    assert VNMConfig.parse(cfg) is cfg
    plain = VNMConfig.parse("2:4")
    assert plain.is_2to4 and plain.density == 0.5 and VNMConfig.parse(str(plain)) == plain
    assert not cfg.is_2to4
    for v in VS:
        for m in (4, 5, 7, 8, 16, 19, 20, 33, 128, 130, 256, 300):
            c = VNMConfig(v, 2, m)
            assert VNMConfig.parse(str(c)) == c and c.density == 2 / m
    assert cfg.groups(0) == 0 and cfg.groups(8) == 1 and cfg.groups(9) == 2
    assert cfg.row_blocks(0) == 0 and cfg.row_blocks(64) == 1 and cfg.row_blocks(65) == 2


@pytest.mark.parametrize(
    "text, match",
    [
        ("64:2", "three fields"),
        ("2:8", "three fields"),
        ("64:2:8:1", "three fields"),
        ("a:b:c", "integers"),
        ("", "integers"),
        ("64:2:8.0", "integers"),
        ("64:3:8", "n == 2"),
        ("3:4", "n == 2"),
        ("64:2:3", "m >= 4"),
        ("64:2:0", "m >= 4"),
        ("8:2:8", "multiple of 16"),
        ("0:2:8", "multiple of 16"),
        ("-64:2:8", "multiple of 16"),
        ("24:2:8", "multiple of 16"),
    ],
)
def test_config_parse_errors(text, match):
    with pytest.raises(ValueError, match=match):
        VNMConfig.parse(text)


@pytest.mark.parametrize("args", [(64.0, 2, 8), (64, True, 8), ("64", 2, 8), (64, 2, None)])
def test_config_rejects_non_int(args):
    with pytest.raises(TypeError, match="must be an int"):
        VNMConfig(*args)


def test_config_parse_rejects_non_string():
    with pytest.raises(TypeError, match="expects a string"):
        VNMConfig.parse(64)


def test_config_is_frozen_and_hashable():
    cfg = VNMConfig(64, 2, 8)
    with pytest.raises(Exception):
        cfg.v = 32
    assert {cfg: 1}[VNMConfig.parse("64:2:8")] == 1


# ------------------------------------------------------------------------------------ vnm_mask


@settings(max_examples=6 * EXAMPLES)
@given(case=shapes_and_cfgs(), kind=st.sampled_from(SCORE_KINDS), seed=st.integers(0, 2**32 - 1))
@example(case=(1, 1, VNMConfig(16, 2, 4)), kind="normal", seed=0)
@example(case=(1, 3, VNMConfig(16, 2, 8)), kind="normal", seed=1)
@example(case=(17, 11, VNMConfig(16, 2, 8)), kind="ties", seed=2)
@example(case=(33, 42, VNMConfig(32, 2, 19)), kind="abs", seed=3)
@example(case=(65, 45, VNMConfig(64, 2, 20)), kind="normal", seed=4)
@example(case=(129, 131, VNMConfig(128, 2, 130)), kind="sparse", seed=5)
@example(case=(5, 7, VNMConfig(16, 2, 4)), kind="int64", seed=6)
def test_mask_valid_and_optimal(case, kind, seed):
    r, k, cfg = case
    event("m >= 20 (heuristic)" if cfg.m >= 20 else "m <= 19 (exact)")
    event(f"rows: {'1' if r == 1 else 'ragged' if r % cfg.v else 'whole blocks'}")
    event(f"columns: {'< 4' if k < 4 else 'ragged' if k % cfg.m else 'whole groups'}")
    event(f"blocks: {cfg.row_blocks(r) * cfg.groups(k)}")
    scores = make_scores(kind, r, k, seed)
    mask = vs.vnm_mask(scores, cfg)
    assert mask.dtype == torch.bool and mask.shape == (r, k) and mask.device == scores.device
    assert vs.is_vnm(mask, cfg)
    vs.check_vnm(mask, cfg)
    # what the search optimised: float64 scores as given, everything else as float32
    s = (scores if scores.dtype == torch.float64 else scores.float()).double().numpy()
    mk = mask.numpy()
    for rows, cols, w in blocks(r, k, cfg):
        sb, mb = s[rows, cols], mk[rows, cols]
        assert (mb.sum(1) == min(2, w)).all(), f"each row keeps min(2, w)={min(2, w)} per group"
        assert mb.any(0).sum() <= min(4, w), "at most min(4, w) columns per block"
        kept = float((sb * mb).sum())
        tol = 1e-5 * float(np.abs(sb).sum()) + 1e-300
        if w <= 19:
            best = brute_force_best(sb)
            assert abs(kept - best) <= tol, f"block {rows}, {cols}: kept {kept}, optimum {best}"
        else:
            base = baseline_best(sb)
            assert kept >= base - tol, f"block {rows}, {cols}: kept {kept} < baseline {base}"
    # the kept-column storage: exactly 4 strictly increasing columns per block, holding the mask
    vw = vs.pack(mask.to(torch.float16), cfg)
    assert torch.equal(vs.unpack(vw) != 0, mask)
    if vw.columns is not None:
        c = vw.columns.long()
        assert ((c[..., 1:] > c[..., :-1]).all()) and (c >= 0).all() and (c < cfg.m).all()


def test_mask_beats_summed_score_baseline():
    """A block where the 4 columns of largest summed score are not the best quad."""
    block = np.zeros((16, 8))
    block[:, 0:3] = 3.0  # three columns of 3 everywhere: sums 48
    block[:8, 3:5] = 5.0  # two columns of 5 in the top half: sums 40
    # baseline keeps 0, 1, 2, 3: rows 0..7 get 5 + 3, rows 8..15 get 3 + 3 -> 112
    # optimum keeps 3, 4 and two of 0..2: rows 0..7 get 10, rows 8..15 get 6 -> 128
    assert baseline_best(block) == 112 and brute_force_best(block) == 128
    for m in (8, 24, 64):  # exact search, and the heuristic (m >= 20) with zero filler columns
        s = np.zeros((16, m))
        s[:, :8] = block
        perm = np.random.default_rng(m).permutation(m)  # the good columns anywhere in the group
        s = s[:, perm]
        mask = vs.vnm_mask(torch.tensor(s), VNMConfig(16, 2, m)).numpy()
        assert (s * mask).sum() == 128, m


@pytest.mark.parametrize("m", [4, 5, 8, 13, 19, 20, 21, 30, 64, 130])
@pytest.mark.parametrize("fill", [0.0, 1.0, -2.0])
def test_mask_ties_keep_lowest_columns(m, fill):
    """Documented: ties go to the lowest column indices (also for the m >= 20 heuristic)."""
    cfg = VNMConfig(16, 2, m)
    r, k = 19, 2 * m + 3  # ragged on both axes; the tail group has 3 columns
    mask = vs.vnm_mask(torch.full((r, k), fill), cfg)
    expected = torch.zeros(r, k, dtype=torch.bool)
    for g0 in range(0, k, m):
        expected[:, g0 : g0 + 2] = True
    assert torch.equal(mask, expected)


def test_mask_exactly_four_columns_when_rows_disagree():
    """Four rows of one block each prefer a different pair: the block keeps 4 distinct columns."""
    s = torch.zeros(16, 12)
    s[0, [1, 5]] = 10
    s[1, [2, 7]] = 10
    s[2, [1, 2]] = 9
    s[3, [5, 7]] = 9
    s += torch.rand(16, 12) * 0.01
    mask = vs.vnm_mask(s, VNMConfig(16, 2, 12))
    assert mask.any(0).nonzero().flatten().tolist() == [1, 2, 5, 7]
    assert mask[0].nonzero().flatten().tolist() == [1, 5] and mask[1].nonzero().flatten().tolist() == [2, 7]


def test_mask_ignores_memory_layout():
    s = torch.rand(40, 70)
    cfg = VNMConfig(16, 2, 10)
    assert torch.equal(vs.vnm_mask(s.t().contiguous().t(), cfg), vs.vnm_mask(s, cfg))
    assert torch.equal(vs.vnm_mask(s, "16:2:10"), vs.vnm_mask(s, cfg))


@pytest.mark.parametrize("shape", [(0, 0), (0, 9), (9, 0), (0, 1)])
@pytest.mark.parametrize("spec", ["2:4", "16:2:8", "64:2:33"])
def test_mask_empty(shape, spec):
    mask = vs.vnm_mask(torch.rand(shape), spec)
    assert mask.dtype == torch.bool and mask.shape == shape
    assert vs.is_vnm(mask, spec)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_mask_rejects_non_finite(bad, dtype):
    s = torch.rand(20, 30, dtype=dtype)
    s[17, 23] = bad
    with pytest.raises(ValueError, match="finite.*row 17, column 23"):
        vs.vnm_mask(s, "16:2:8")


def test_mask_bad_inputs():
    with pytest.raises(TypeError, match="torch.Tensor"):
        vs.vnm_mask(np.ones((4, 4)), "2:4")
    for shape in [(4,), (2, 4, 4), ()]:
        with pytest.raises(ValueError, match="2-D"):
            vs.vnm_mask(torch.ones(shape), "2:4")
    with pytest.raises(TypeError, match="real-valued"):
        vs.vnm_mask(torch.ones(4, 4, dtype=torch.bool), "2:4")
    with pytest.raises(TypeError, match="real-valued"):
        vs.vnm_mask(torch.ones(4, 4, dtype=torch.complex64), "2:4")
    with pytest.raises(TypeError, match="VNMConfig"):
        vs.vnm_mask(torch.ones(4, 4), 4)
    with pytest.raises(ValueError, match="multiple of 16"):
        vs.vnm_mask(torch.ones(4, 4), "8:2:8")
    with pytest.raises(ValueError, match="n == 2"):
        vs.vnm_mask(torch.ones(4, 4), "16:4:8")
    with pytest.raises(ValueError, match="m >= 4"):
        vs.vnm_mask(torch.ones(4, 4), "16:2:2")


@pytest.mark.slow
def test_mask_timing_4096x11008():
    """Records vnm_mask's time at 64:2:8 on a 4096 x 11008 weight (fails only beyond 60 s)."""
    scores = torch.randn(4096, 11008, generator=torch.Generator().manual_seed(0)).abs_()
    t0 = time.perf_counter()
    mask = vs.vnm_mask(scores, "64:2:8")
    elapsed = time.perf_counter() - t0
    print(f"\nvnm_mask 4096x11008 64:2:8: {elapsed:.2f} s on {torch.get_num_threads()} threads")
    assert mask.sum().item() == 4096 * 11008 // 4
    assert elapsed < 60, f"vnm_mask took {elapsed:.1f} s"


# ------------------------------------------------------------------------------ is_vnm / check


def test_check_names_block_group_and_reason_for_columns():
    cfg = VNMConfig(16, 2, 8)
    w = torch.zeros(40, 30)
    # row block 1 (rows 16..31), group 2 (columns 16..23): 5 columns used, each row holds 1
    for i, c in enumerate([16, 18, 19, 21, 23]):
        w[16 + i, c] = 1.0
    assert not vs.is_vnm(w, cfg)
    with pytest.raises(ValueError) as e:
        vs.check_vnm(w, cfg)
    msg = str(e.value)
    assert "row block 1 (rows 16..31)" in msg and "column group 2 (columns 16..23)" in msg
    assert "5 columns hold nonzeros" in msg and "at most 4" in msg
    with pytest.raises(ValueError, match="row block 1 .*column group 2"):
        vs.pack(w.half(), cfg)


def test_check_names_block_group_and_reason_for_rows():
    cfg = VNMConfig(16, 2, 8)
    w = torch.zeros(40, 29)
    w[37, [24, 26, 27]] = 1.0  # last row block (rows 32..39), tail group (columns 24..28)
    with pytest.raises(ValueError) as e:
        vs.check_vnm(w, cfg)
    msg = str(e.value)
    assert "row block 2 (rows 32..39)" in msg and "column group 3 (columns 24..28)" in msg
    assert "row 37 holds 3 nonzeros" in msg and "at most 2" in msg
    assert not vs.is_vnm(w.bool(), cfg)


def test_check_reports_first_violation_in_block_order():
    cfg = VNMConfig(16, 2, 4)
    w = torch.zeros(48, 12)
    w[40, 8:11] = 1  # row block 2
    w[20, 4:7] = 1  # row block 1, group 1: reported first
    with pytest.raises(ValueError, match="row block 1 .* column group 1 .* row 20 holds 3"):
        vs.check_vnm(w, cfg)


def test_is_vnm_counts_nan_as_nonzero_and_neg_zero_as_zero():
    cfg = VNMConfig(16, 2, 4)
    w = torch.zeros(2, 4)
    w[0, :2] = 1
    w[0, 2] = float("nan")
    assert not vs.is_vnm(w, cfg)
    w[0, 2] = -0.0
    assert vs.is_vnm(w, cfg)


def test_is_vnm_bad_inputs():
    with pytest.raises(ValueError, match="2-D"):
        vs.is_vnm(torch.zeros(4), "2:4")
    with pytest.raises(TypeError, match="torch.Tensor"):
        vs.check_vnm([[0.0]], "2:4")
    with pytest.raises(TypeError, match="VNMConfig"):
        vs.is_vnm(torch.zeros(4, 4), None)
    assert vs.is_vnm(torch.zeros(0, 5), "16:2:8") and vs.is_vnm(torch.zeros(5, 0), "2:4")


# ------------------------------------------------------------------------------- pack / unpack


@settings(max_examples=4 * EXAMPLES)
@given(
    case=shapes_and_cfgs(),
    dtype=st.sampled_from(FLOATS),
    keep=st.sampled_from([1.0, 0.7, 0.2, 0.0]),
    seed=st.integers(0, 2**32 - 1),
)
@example(case=(1, 1, VNMConfig(16, 2, 4)), dtype=torch.float16, keep=1.0, seed=0)
@example(case=(1, 2, VNMConfig(16, 2, 9)), dtype=torch.bfloat16, keep=1.0, seed=0)
@example(case=(3, 11, VNMConfig(16, 2, 8)), dtype=torch.float32, keep=1.0, seed=0)  # tail w = 3
@example(case=(130, 300, VNMConfig(128, 2, 130)), dtype=torch.bfloat16, keep=0.7, seed=0)
def test_pack_unpack_round_trip_direct_weights(case, dtype, keep, seed):
    r, k, cfg = case
    w = torch.tensor(random_vnm(np.random.default_rng(seed), r, k, cfg, keep)).to(dtype)
    assert vs.is_vnm(w, cfg)
    vw = vs.pack(w, cfg)
    assert vw.shape == (r, k) and vw.cfg == cfg and vw.dtype == dtype and vw.device == w.device
    # parts: documented shapes and dtypes, contiguous
    g = cfg.groups(k)
    assert vw.values.shape == (r, g, 2) and vw.values.dtype == dtype
    for name, (shape, pdtype) in part_shapes((r, k), cfg).items():
        t = getattr(vw, name)
        assert tuple(t.shape) == shape and t.dtype == pdtype
    assert (vw.columns is None) == (cfg.m == 4)
    assert all(t.is_contiguous() for t in vw.parts().values())
    # the documented layout decodes to the weight, and unpack is its exact inverse
    assert_bitwise_equal(doc_decode(vw), w)
    assert_bitwise_equal(vs.unpack(vw), w)
    assert int((vw.values != 0).sum()) == int((w != 0).sum())
    # the public constructor accepts what pack produced
    again = VNMWeight(vw.values, vw.positions, vw.columns, vw.shape, str(cfg))
    assert_bitwise_equal(vs.unpack(again), w)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("spec, shape", [("2:4", (7, 13)), ("16:2:8", (33, 19)), ("32:2:21", (40, 50)), ("16:2:5", (16, 5))])
def test_pack_unpack_round_trip_from_vnm_mask(dtype, spec, shape):
    d = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    w = torch.where(vs.vnm_mask(d.abs(), spec), d, 0.0).to(dtype)
    vw = vs.pack(w, spec)
    assert_bitwise_equal(vs.unpack(vw), w)
    assert_bitwise_equal(doc_decode(vw), w)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("spec, shape", [("2:4", (5, 9)), ("16:2:8", (17, 21)), ("64:2:130", (3, 131))])
def test_pack_all_zero_weight(dtype, spec, shape):
    w = torch.zeros(shape, dtype=dtype)
    vw = vs.pack(w, spec)
    assert_bitwise_equal(vs.unpack(vw), w)
    assert not vw.values.any()
    if vw.columns is not None:  # nothing used: the lowest 4 columns, slots 0 and 1
        assert (vw.columns == torch.arange(4, dtype=vw.columns.dtype)).all()
    assert (vw.positions & 0xF == 0 | 1 << 2).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("spec", ["2:4", "16:2:8", "16:2:23"])
def test_pack_negative_zero(dtype, spec):
    """Documented: a -0.0 at a position that is not stored unpacks as +0.0; stored ones survive."""
    cfg = VNMConfig.parse(spec)
    rng = np.random.default_rng(7)
    w = torch.tensor(random_vnm(rng, 37, 50, cfg, keep=0.5)).to(dtype)
    neg = (w == 0) & torch.tensor(rng.random(w.shape) < 0.5)
    w[neg] = -0.0
    assert torch.signbit(w[neg]).all()
    vw = vs.pack(w, cfg)
    out = vs.unpack(vw)
    assert torch.equal(out, w)  # numerically
    stored = stored_mask(vw)
    assert torch.equal(bits(out)[stored], bits(w)[stored])  # bitwise where stored
    assert not torch.signbit(out[~stored]).any()  # +0.0 where not stored
    assert torch.signbit(out[stored & neg]).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_pack_keeps_special_values_bitwise(dtype):
    cfg = VNMConfig(16, 2, 8)
    w = torch.zeros(16, 16, dtype=dtype)
    w[0, [1, 3]] = torch.tensor([float("inf"), float("-inf")], dtype=dtype)
    w[1, [1, 2]] = torch.tensor([float("nan"), torch.finfo(dtype).tiny / 4], dtype=dtype)  # NaN, subnormal
    w[2, [0, 3]] = torch.tensor([torch.finfo(dtype).max, -torch.finfo(dtype).min], dtype=dtype)
    w[3, 9] = -0.0
    vw = vs.pack(w, cfg)
    assert_bitwise_equal(vs.unpack(vw), w)


def test_pack_non_contiguous_weight():
    d = torch.randn(48, 40)
    w = torch.where(vs.vnm_mask(d.abs(), "16:2:8"), d, 0.0).half()
    wt = w.t().contiguous().t()
    assert not wt.is_contiguous()
    assert_bitwise_equal(vs.unpack(vs.pack(wt, "16:2:8")), w)


@pytest.mark.parametrize("shape", [(0, 0), (0, 10), (10, 0), (0, 3)])
@pytest.mark.parametrize("spec", ["2:4", "16:2:8"])
def test_pack_empty(shape, spec):
    w = torch.zeros(shape, dtype=torch.bfloat16)
    vw = vs.pack(w, spec)
    assert vw.shape == shape and vw.nbytes == 0
    assert vs.unpack(vw).shape == shape
    VNMWeight(vw.values, vw.positions, vw.columns, shape, spec)
    repr(vw)


def test_pack_bad_inputs():
    with pytest.raises(TypeError, match="dtype"):
        vs.pack(torch.zeros(4, 4, dtype=torch.float64), "2:4")
    with pytest.raises(TypeError, match="dtype"):
        vs.pack(torch.zeros(4, 4, dtype=torch.int32), "2:4")
    with pytest.raises(ValueError, match="2-D"):
        vs.pack(torch.zeros(4, dtype=torch.float16), "2:4")
    with pytest.raises(ValueError, match="2-D"):
        vs.pack(torch.zeros(2, 4, 4, dtype=torch.float16), "2:4")
    with pytest.raises(TypeError, match="torch.Tensor"):
        vs.pack([[1.0]], "2:4")
    with pytest.raises(ValueError, match="row 0 holds 3"):
        vs.pack(torch.tensor([[1.0, 1.0, 1.0, 0.0]], dtype=torch.float16), "2:4")
    with pytest.raises(TypeError, match="VNMWeight"):
        vs.unpack(torch.zeros(2, 2))


# ----------------------------------------------------------------------------------- VNMWeight


def _small_vw(spec="16:2:8", shape=(20, 13), dtype=torch.bfloat16):
    cfg = VNMConfig.parse(spec)
    return vs.pack(torch.tensor(random_vnm(np.random.default_rng(0), *shape, cfg)).to(dtype), cfg)


def test_vnmweight_repr_nbytes_and_parts():
    vw = _small_vw()
    r, k, g = 20, 13, 2
    by_part = vw.nbytes_by_part()
    assert by_part == {"values": r * g * 2 * 2, "positions": r * 1, "columns": 2 * g * 4}
    assert vw.nbytes == sum(by_part.values()) and vw.dense_nbytes == r * k * 2
    text = repr(vw)
    for piece in ("VNMWeight(20x13", "16:2:8", "bfloat16", "device=cpu", f"{vw.nbytes / vw.dense_nbytes:.3f} of dense", "values=", "positions=", "columns="):
        assert piece in text, (piece, text)
    assert vw.in_features == 13 and vw.out_features == 20
    plain = _small_vw("2:4", (6, 10))
    assert "columns" not in plain.nbytes_by_part() and set(plain.parts()) == {"values", "positions"}
    assert "2:4" in repr(plain)


def test_packed_bytes_4096x4096_bf16():
    """Packed size of a 4096 x 4096 bf16 weight at 2:4, 64:2:8, 64:2:16 against dense (README)."""
    readme = {"2:4": 0.5625, "64:2:8": 0.285, "64:2:16": 0.143}
    dense_bytes = 4096 * 4096 * 2
    lines = [f"\n4096x4096 bf16: dense {dense_bytes} bytes"]
    for spec, expected in readme.items():
        cfg = VNMConfig.parse(spec)
        w = torch.zeros(4096, 4096, dtype=torch.bfloat16)
        w.view(4096, -1, cfg.m)[:, :, :2] = 1.0  # first 2 columns of every group
        vw = vs.pack(w, cfg)
        ratio = vw.nbytes / dense_bytes
        lines.append(f"  {spec:8s} {vw.nbytes:>9d} bytes = {ratio:.4f} of dense  {vw.nbytes_by_part()}")
        assert vw.dense_nbytes == dense_bytes
        assert round(ratio, 3 if spec != "2:4" else 4) == pytest.approx(expected, abs=1e-3)
        assert vw.nbytes == 4096 * cfg.groups(4096) * 4 + 4096 * cfg.groups(4096) // 2 + (
            0 if cfg.is_2to4 else 64 * cfg.groups(4096) * 4
        )
    print("\n".join(lines))


def test_vnmweight_to():
    vw = _small_vw(dtype=torch.float32)
    assert vw.to("cpu") is vw and vw.to(torch.float32) is vw and vw.cpu() is vw
    half = vw.to(torch.float16)
    assert half.dtype == torch.float16 and half.shape == vw.shape and half.cfg == vw.cfg
    assert torch.equal(vs.unpack(half), vs.unpack(vw).half())
    assert torch.equal(half.positions, vw.positions) and torch.equal(half.columns, vw.columns)
    bf = vw.to(device="cpu", dtype=torch.bfloat16)
    assert bf.dtype == torch.bfloat16 and torch.equal(vs.unpack(bf), vs.unpack(vw).bfloat16())
    assert vw.dtype == torch.float32  # unchanged
    with pytest.raises(TypeError, match="values dtype"):
        vw.to(torch.float64)
    with pytest.raises(TypeError, match="values dtype"):
        vw.to(dtype=torch.int8)


def test_vnmweight_constructor_makes_parts_contiguous():
    vw = _small_vw()
    values = vw.values.transpose(0, 1).contiguous().transpose(0, 1)
    columns = vw.columns.transpose(0, 1).contiguous().transpose(0, 1)
    assert not values.is_contiguous() and not columns.is_contiguous()
    again = VNMWeight(values, vw.positions, columns, vw.shape, vw.cfg)
    assert all(t.is_contiguous() for t in again.parts().values())
    assert_bitwise_equal(vs.unpack(again), vs.unpack(vw))


def test_vnmweight_layout_cache():
    vw = _small_vw()
    calls = []
    build = lambda w: calls.append(1) or (w.values * 2,)
    first = vw.layout("x2", build)
    assert vw.layout("x2", build) is first and len(calls) == 1


def _parts(spec="16:2:8", shape=(20, 13)):
    vw = _small_vw(spec, shape)
    return dict(values=vw.values.clone(), positions=vw.positions.clone(), columns=None if vw.columns is None else vw.columns.clone()), vw


@pytest.mark.parametrize(
    "change, error, match",
    [
        (lambda p: p.update(values=p["values"][:-1]), ValueError, "values must have shape"),
        (lambda p: p.update(values=p["values"].double()), TypeError, "values dtype"),
        (lambda p: p.update(values=p["values"].tolist()), TypeError, "must be a tensor"),
        (lambda p: p.update(positions=p["positions"].to(torch.int16)), TypeError, "positions must be torch.uint8"),
        (lambda p: p.update(positions=p["positions"][:, :0]), ValueError, "positions must have shape"),
        (lambda p: p.update(columns=None), ValueError, "columns is missing"),
        (lambda p: p.update(columns=p["columns"].to(torch.int32)), TypeError, "columns must be torch.uint8"),
        (lambda p: p.update(columns=p["columns"][:1]), ValueError, "columns must have shape"),
        (lambda p: p["columns"].__setitem__((1, 0, 3), 8), ValueError, "out of range"),
        (lambda p: p["columns"].__setitem__((1, 1, 2), p["columns"][1, 1, 1]), ValueError, "strictly increasing"),
        (lambda p: p["columns"].__setitem__((0, 0), torch.tensor([3, 2, 1, 0], dtype=torch.uint8)), ValueError, "strictly increasing"),
        (lambda p: p["positions"].__setitem__((3, 0), 0), ValueError, "invalid 2:4 code 0 at row 3, group 0"),
        (lambda p: p["positions"].__setitem__((4, 0), 1 | 1 << 2), ValueError, "invalid 2:4 code 5"),
        (lambda p: p["positions"].__setitem__((5, 0), 0b1001 | 0b0110 << 4), ValueError, "invalid 2:4 code 6 at row 5, group 1"),
        (lambda p: p["positions"].__setitem__((2, 0), 0xFF), ValueError, "invalid 2:4 code 15 at row 2, group 0"),
        (lambda p: p["positions"].__setitem__((7, 0), 1 | 4 << 4), ValueError, "invalid 2:4 code 1 at row 7, group 0"),
    ],
)
def test_vnmweight_rejects_bad_parts(change, error, match):
    parts, vw = _parts()
    change(parts)
    with pytest.raises(error, match=match):
        VNMWeight(parts["values"], parts["positions"], parts["columns"], vw.shape, vw.cfg)


def test_vnmweight_rejects_bad_parts_more():
    # odd number of groups: the unused high nibble must be 0
    parts, vw = _parts("16:2:8", (20, 21))  # G = 3
    parts["positions"][0, 1] |= 0x40
    with pytest.raises(ValueError, match="high nibble"):
        VNMWeight(parts["values"], parts["positions"], parts["columns"], vw.shape, vw.cfg)
    # plain 2:4 has no columns
    parts, vw = _parts("2:4", (6, 10))
    with pytest.raises(ValueError, match="must be None"):
        VNMWeight(parts["values"], parts["positions"], torch.zeros(1, 3, 4, dtype=torch.uint8), vw.shape, vw.cfg)
    # a nonzero value stored at a column >= K (a tail group narrower than 4)
    vw = vs.pack(torch.zeros(16, 10, dtype=torch.float16), "2:4")  # tail group: columns 8, 9
    values = vw.values.clone()
    values[0, 2] = torch.tensor([1.0, 1.0])  # group 2, slots 0 and 1... fine
    VNMWeight(values, vw.positions, None, vw.shape, vw.cfg)
    positions = vw.positions.clone()
    positions[0, 1] = (positions[0, 1] & 0xF0) | 2 | 3 << 2  # group 2: slots 2, 3 = columns 10, 11
    with pytest.raises(ValueError, match="column >= K"):
        VNMWeight(values, positions, None, vw.shape, vw.cfg)
    # a tail group of >= 4 columns must keep its 4 columns inside it (the only columns >= K are
    # in tails narrower than 4)
    cfg = VNMConfig(16, 2, 8)
    vw = vs.pack(torch.zeros(16, 13, dtype=torch.float16), cfg)  # tail group: 5 columns
    columns = vw.columns.clone()
    columns[0, 1] = torch.tensor([0, 1, 5, 6], dtype=torch.uint8)
    with pytest.raises(ValueError, match="names a column >= K = 13"):
        VNMWeight(vw.values, vw.positions, columns, vw.shape, cfg)
    # shape
    with pytest.raises(ValueError, match="shape"):
        VNMWeight(vw.values, vw.positions, vw.columns, (16, 13, 1), cfg)
    with pytest.raises(ValueError, match="shape"):
        VNMWeight(vw.values, vw.positions, vw.columns, (-16, 13), cfg)


# ---------------------------------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gpu_mask_pack_unpack(dtype):
    cfg = VNMConfig(64, 2, 8)
    d = torch.randn(200, 300, device="cuda")
    mask = vs.vnm_mask(d.abs(), cfg)
    assert mask.is_cuda and vs.is_vnm(mask, cfg)
    # CUDA sums in another order than the CPU, so near-ties may break differently: same kept total.
    cpu_mask = vs.vnm_mask(d.abs().cpu(), cfg)
    kept = lambda mk: (d.abs().cpu().double() * mk.cpu()).sum().item()
    assert kept(mask) == pytest.approx(kept(cpu_mask), rel=1e-6)
    w = torch.where(mask, d, torch.zeros_like(d)).to(dtype)
    vw = vs.pack(w, cfg)
    assert vw.device.type == "cuda"
    assert_bitwise_equal(vs.unpack(vw).cpu(), w.cpu())
    back = vw.cpu()
    assert back.device.type == "cpu" and torch.equal(back.columns, vw.columns.cpu())
    assert vw.cpu().cuda().device.type == "cuda"


@pytest.mark.gpu
def test_gpu_pack_rejects_float32():
    with pytest.raises(TypeError, match="float32"):
        vs.pack(torch.zeros(16, 8, device="cuda"), "16:2:8")


@pytest.mark.gpu
def test_gpu_parts_on_mixed_devices():
    vw = _small_vw()
    with pytest.raises(ValueError, match="one device"):
        VNMWeight(vw.values.cuda(), vw.positions, vw.columns, vw.shape, vw.cfg)


@pytest.mark.parametrize("cfg", ["2:4", "64:2:8", "16:2:5", "128:2:32"])
def test_cat_rows_equals_packing_the_stacked_dense_weights(cfg):
    cfg = VNMConfig.parse(cfg)
    gen = torch.Generator().manual_seed(cfg.m)
    rows = (2 * cfg.v, cfg.v, 3 * cfg.v + 5)  # the last one ends in a partial V-row block
    dense = [(torch.randn(r, 203, generator=gen) * vs.random_vnm_mask((r, 203), cfg, generator=gen)).bfloat16()
             for r in rows]
    got = vs.cat_rows([vs.pack(w, cfg) for w in dense])
    want = vs.pack(torch.cat(dense), cfg)
    assert got.shape == want.shape == (sum(rows), 203) and got.cfg == cfg
    assert torch.equal(vs.unpack(got), torch.cat(dense))
    for name, part in want.parts().items():
        assert torch.equal(got.parts()[name], part), name
    VNMWeight(got.values, got.positions, got.columns, got.shape, got.cfg)  # validates


def test_cat_rows_rejects_what_cannot_stack():
    cfg = VNMConfig.parse("64:2:8")
    w = lambda r, k=64, c=cfg, dt=torch.bfloat16: vs.pack(torch.zeros(r, k, dtype=dt), c)  # noqa: E731
    with pytest.raises(ValueError, match="not a multiple of V = 64"):
        vs.cat_rows([w(100), w(64)])
    vs.cat_rows([w(64), w(100)])  # a partial block last is fine
    with pytest.raises(ValueError, match="must match"):
        vs.cat_rows([w(64), w(64, 96)])
    with pytest.raises(ValueError, match="must match"):
        vs.cat_rows([w(64), w(64, c=VNMConfig.parse("128:2:8"))])
    with pytest.raises(ValueError, match="must match"):
        vs.cat_rows([w(64), w(64, dt=torch.float16)])
    with pytest.raises(TypeError, match="non-empty sequence of VNMWeight"):
        vs.cat_rows([])
    with pytest.raises(TypeError, match="non-empty sequence of VNMWeight"):
        vs.cat_rows([w(64), torch.zeros(64, 64)])
