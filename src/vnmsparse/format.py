"""The V:N:M rule, in one place: mask selection, checking, and the canonical packed storage.

Canonical storage of a weight W[R, K] under ``cfg = v:2:m`` (G = ceil(K/m) column groups,
RB = ceil(R/v) row blocks; the last group may be narrower than m, the last row block
shorter than v):

=============  =========================  ===================================================
part           dtype / shape               meaning
=============  =========================  ===================================================
``values``     W's dtype ``[R, G, 2]``     the 2 stored values of row r in group g, in
                                           increasing column order (explicit zeros allowed)
``positions``  uint8 ``[R, ceil(G/2)]``    one 4-bit code per (r, g): group g's code is the
                                           low nibble of byte ``g // 2`` when g is even, the
                                           high nibble when odd. Code = ``p0 | p1 << 2`` with
                                           ``0 <= p0 < p1 <= 3``: the slots, among the block's
                                           4 columns, of ``values[r, g, 0]`` and ``[.., 1]``
``columns``    uint8 (m <= 256), int16,    the block's 4 kept columns as offsets inside the
               int32 ``[RB, G, 4]``        group, strictly increasing, each < m. Not stored
                                           for m == 4 (plain 2:4 keeps every column)
=============  =========================  ===================================================

The dense column of stored value (r, g, j) is ``g*m + columns[r // v, g, p_j]``. Only a tail
group narrower than 4 columns can name a column >= K; its value is then zero. All tensors are
little-endian, C-contiguous; the layout is portable and is what ``save`` writes. Kernels derive
their own permuted layouts from it (cached on the VNMWeight, never serialised).
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Optional

import torch

from .config import COLUMNS_PER_BLOCK, N_KEPT_PER_ROW, VNMConfig

# Exact search over every 4-column subset while it has at most this many candidates.
EXACT_QUAD_LIMIT = 4096
# Elements per chunk of the quad search: small enough to stay in cache (measured ~2x faster than
# 64M-element chunks on a 2-core CPU) and to bound peak memory.
_CHUNK_ELEMENTS = 1 << 20

PACKABLE_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


# --------------------------------------------------------------------------------------------
# input checks shared by the public functions


def _as_config(cfg) -> VNMConfig:
    if isinstance(cfg, VNMConfig):
        return cfg
    if isinstance(cfg, str):
        return VNMConfig.parse(cfg)
    raise TypeError(f"cfg must be a VNMConfig or a 'v:n:m' string, got {type(cfg).__name__}")


def _check_matrix(name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dim() != 2:
        raise ValueError(f"{name} must be 2-D [rows, columns], got shape {tuple(t.shape)}")


# --------------------------------------------------------------------------------------------
# mask selection


def _combinations(m: int, k: int, device) -> torch.Tensor:
    return torch.tensor(list(itertools.combinations(range(m), k)), dtype=torch.long, device=device).view(-1, k)


def _pair_table(device):
    """The 6 pairs of 4 slots, in lexicographic order (so ties pick the lowest slots)."""
    return _combinations(COLUMNS_PER_BLOCK, N_KEPT_PER_ROW, device)


def _top2_of_quads(s: torch.Tensor, quads: torch.Tensor) -> torch.Tensor:
    """Per-row best-pair sum for every quad: s [..., w], quads [Q, 4] (ascending) -> [..., Q].

    Split a quad (a, b, c, d) into the pairs (a, b) and (c, d): its two largest elements are
    both maxima, or both of one pair. So it costs a few gathers from per-pair tables instead of
    six pair sums per quad."""
    w = s.shape[-1]
    pair_index = torch.zeros(w, w, dtype=torch.long, device=s.device)
    pairs = _combinations(w, N_KEPT_PER_ROW, s.device)
    pair_index[pairs[:, 0], pairs[:, 1]] = torch.arange(pairs.shape[0], device=s.device)
    ab, cd = pair_index[quads[:, 0], quads[:, 1]], pair_index[quads[:, 2], quads[:, 3]]
    first, second = s[..., pairs[:, 0]], s[..., pairs[:, 1]]
    pair_sum, pair_max = first + second, torch.maximum(first, second)
    best = pair_max[..., ab]
    best.add_(pair_max[..., cd])
    torch.maximum(best, pair_sum[..., ab], out=best)
    return torch.maximum(best, pair_sum[..., cd], out=best)


def _block_view(s: torch.Tensor, v: int) -> torch.Tensor:
    """[R, G, w] -> [RB, v, G, w], padding the last row block with zero scores (which favour no quad)."""
    r = s.shape[0]
    rb = -(-r // v)
    if rb * v != r:
        s = torch.cat([s, s.new_zeros(rb * v - r, *s.shape[1:])])
    return s.view(rb, v, *s.shape[1:])


def _best_quads_exact(sb: torch.Tensor, quads: torch.Tensor) -> torch.Tensor:
    """sb [RB, v, G, w] -> index into quads of the best quad per block, [RB, G]."""
    rb, v, g, _ = sb.shape
    per_rb = max(1, _CHUNK_ELEMENTS // max(1, v * g * quads.shape[0]))
    best = []
    for i in range(0, rb, per_rb):
        total = _top2_of_quads(sb[i : i + per_rb], quads).sum(1)  # [rb', G, Q]
        best.append(total.argmax(-1))  # first maximum: lexicographically smallest quad
    return torch.cat(best)


def _objective(sb: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
    """Block objective (sum over rows of each row's best pair) of one quad per block: cols [RB, G, 4]."""
    idx = cols.unsqueeze(1).expand(-1, sb.shape[1], -1, -1)
    return _top2_of_quads(torch.gather(sb, -1, idx), _identity_quad(sb.device)).squeeze(-1).sum(1)


def _identity_quad(device):
    return torch.arange(COLUMNS_PER_BLOCK, device=device).view(1, COLUMNS_PER_BLOCK)


def _best_quads_heuristic(sb: torch.Tensor, m: int) -> torch.Tensor:
    """Large m: exact search among the L columns with the largest summed score, then swap hill-climbing.

    The candidate set contains the 4 columns with the largest summed score and both steps only
    accept improvements, so the result is never worse than that baseline."""
    L = max(k for k in range(COLUMNS_PER_BLOCK, m + 1) if math.comb(k, COLUMNS_PER_BLOCK) <= EXACT_QUAD_LIMIT)
    totals = sb.sum(1)  # [RB, G, m]
    # A stable descending sort, not topk: among equal totals the lowest columns become candidates
    # (topk's tie order is unspecified and differs between devices).
    top = torch.sort(totals, dim=-1, descending=True, stable=True).indices[..., :L]
    cand = torch.sort(top, dim=-1).values  # [RB, G, L]
    sc = torch.gather(sb, -1, cand.unsqueeze(1).expand(-1, sb.shape[1], -1, -1))
    quads = _combinations(L, COLUMNS_PER_BLOCK, sb.device)
    cols = torch.gather(cand, -1, quads[_best_quads_exact(sc, quads)])  # [RB, G, 4], ascending
    best = _objective(sb, cols)
    for _ in range(8):  # a few rounds of "replace one kept column by one other column"
        improved = False
        for slot in range(COLUMNS_PER_BLOCK):
            for c in range(m):
                trial = cols.clone()
                trial[..., slot] = c
                ok = (trial != c).sum(-1) == COLUMNS_PER_BLOCK - 1  # c not already kept
                value = _objective(sb, trial)
                better = ok & (value > best)
                if better.any():
                    cols = torch.where(better.unsqueeze(-1), trial, cols)
                    best = torch.where(better, value, best)
                    improved = True
        if not improved:
            break
    return torch.sort(cols, dim=-1).values


def _select_columns(s: torch.Tensor, v: int) -> torch.Tensor:
    """s [R, G, w] (w >= 4) -> kept columns per block [RB, G, 4], ascending, maximising the score."""
    w = s.shape[-1]
    sb = _block_view(s, v)
    if w == COLUMNS_PER_BLOCK:
        return _identity_quad(s.device).expand(*sb.shape[:1], sb.shape[2], -1).clone()
    if math.comb(w, COLUMNS_PER_BLOCK) <= EXACT_QUAD_LIMIT:
        quads = _combinations(w, COLUMNS_PER_BLOCK, s.device)
        return quads[_best_quads_exact(sb, quads)]
    return _best_quads_heuristic(sb, w)


def _mask_groups(s: torch.Tensor, v: int) -> torch.Tensor:
    """Mask for whole groups: s [R, G, w] -> bool [R, G, w]."""
    r, g, w = s.shape
    mask = torch.zeros(r, g, w, dtype=torch.bool, device=s.device)
    if w <= N_KEPT_PER_ROW:
        return mask.fill_(True)
    if w < COLUMNS_PER_BLOCK:  # a narrow tail group keeps all its columns, 2 per row
        cols = torch.arange(w, device=s.device).expand(r, g, w)
        pairs = _combinations(w, N_KEPT_PER_ROW, s.device)
    else:
        cols = _select_columns(s, v).repeat_interleave(v, 0)[:r]  # [R, G, 4]
        pairs = _pair_table(s.device)
    sq = torch.gather(s, -1, cols)
    best = (sq[..., pairs[:, 0]] + sq[..., pairs[:, 1]]).argmax(-1)  # first max: lowest slots
    kept = torch.gather(cols, -1, pairs[best])  # [R, G, 2]
    return mask.scatter_(-1, kept, True)


def _by_groups(t: torch.Tensor, m: int, fn: Callable[[torch.Tensor, int], torch.Tensor]):
    """Apply fn(groups [R, G, w], w) to the full m-wide groups and to the narrower tail group."""
    k = t.shape[1]
    full = k // m
    out = []
    if full:
        out.append(fn(t[:, : full * m].reshape(t.shape[0], full, m), m).reshape(t.shape[0], full * m))
    if k - full * m:
        w = k - full * m
        out.append(fn(t[:, full * m :].reshape(t.shape[0], 1, w), w).reshape(t.shape[0], w))
    return torch.cat(out, 1) if len(out) != 1 else out[0]


def vnm_mask(scores: torch.Tensor, cfg) -> torch.Tensor:
    """The V:N:M mask that keeps the most total score.

    For every block of ``v`` rows by ``m`` columns, picks the 4 columns and, inside them, each
    row's 2 columns, maximising the sum of kept scores. The search is exact whenever
    C(m, 4) <= 4096 (m <= 19); beyond that it searches exactly among the block's 19 columns
    with the largest summed score and then improves by single-column swaps, which is never worse
    than keeping the 4 columns of largest summed score. Ties go to the lowest column indices.

    Ragged shapes are handled: the last row block may have fewer than v rows and the last column
    group w < m columns (it keeps min(4, w) columns, at most 2 per row).

    Args:
        scores: [R, K] real tensor, larger = more important (e.g. ``weight.abs()``). Finite.
        cfg: VNMConfig or "v:n:m" string.
    Returns:
        bool tensor [R, K] on scores' device.
    """
    cfg = _as_config(cfg)
    _check_matrix("scores", scores)
    if scores.dtype == torch.bool or scores.is_complex():
        raise TypeError(f"scores must be a real-valued tensor, got dtype {scores.dtype}")
    if scores.numel() == 0:
        return torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    s = scores if scores.dtype == torch.float64 else scores.float()
    if not torch.isfinite(s).all():
        bad = (~torch.isfinite(s)).nonzero()[0].tolist()
        raise ValueError(f"scores must be finite (no NaN/inf); first bad entry at row {bad[0]}, column {bad[1]}")
    return _by_groups(s, cfg.m, lambda g, w: _mask_groups(g, cfg.v)).contiguous()


def random_vnm_mask(shape, cfg, *, generator: Optional[torch.Generator] = None, device=None) -> torch.Tensor:
    """A uniformly random V:N:M mask of ``shape`` (4 random columns per block, 2 random of those
    per row): what benchmarks and kernel tests use, far cheaper than :func:`vnm_mask`'s search."""
    cfg = _as_config(cfg)
    r, k = (int(d) for d in shape)
    g = cfg.groups(k)
    device = generator.device if generator is not None else (device or "cpu")
    keys = torch.rand(cfg.row_blocks(r), g, cfg.m, generator=generator, device=device)
    keys[:, -1, k - (g - 1) * cfg.m :] += 2  # columns past K (tail group) go last
    cols = torch.topk(keys, min(COLUMNS_PER_BLOCK, cfg.m), dim=-1, largest=False).indices
    cols = cols.repeat_interleave(cfg.v, 0)[:r]
    slots = torch.topk(torch.rand(r, g, cols.shape[-1], generator=generator, device=device), N_KEPT_PER_ROW, dim=-1).indices
    mask = torch.zeros(r, g * cfg.m, dtype=torch.bool, device=device)
    dense_cols = torch.gather(cols, -1, slots) + cfg.m * torch.arange(g, device=device).view(1, g, 1)
    mask.scatter_(1, dense_cols.view(r, -1), True)
    return mask[:, :k].contiguous()


# The same rule for scores that are not sums over elements (second-order keep-pair costs).


def pair_table(w: int, device=None) -> torch.Tensor:
    """The C(w, 2) column pairs of a w-wide group, [P, 2], in itertools.combinations order."""
    return _combinations(w, N_KEPT_PER_ROW, device)


def exact_pair_search(m: int) -> bool:
    """Whether :func:`vnm_pair_mask` can search every 4-column subset of an m-wide group."""
    return math.comb(m, COLUMNS_PER_BLOCK) <= EXACT_QUAD_LIMIT


# Elements per chunk of the pair-score quad search (bounds peak memory; the gather is [rb, v, G, Q, 6]).
_PAIR_CHUNK_ELEMENTS = 1 << 24


def vnm_pair_mask(pair_scores: torch.Tensor, v: int, w: int) -> torch.Tensor:
    """The V:N:M rule with pair scores: per v-row block choose 4 of the w columns, per row the
    best pair among them, maximising the summed score of the kept pairs (exact search).

    pair_scores: [R, G, P] for G groups of width w, P = C(w, 2) in :func:`pair_table` order.
    v = 1 means no column sharing (plain 2:w). Returns bool [R, G, w]. Ties go to the
    lexicographically smallest quad / pair, as in ``vnm_mask``.
    """
    r, g, p = pair_scores.shape
    pairs = pair_table(w, pair_scores.device)
    if p != pairs.shape[0]:
        raise ValueError(f"pair_scores has {p} pairs per group, expected C({w}, 2) = {pairs.shape[0]}")
    if v == 1 or w <= COLUMNS_PER_BLOCK:
        # Every pair fits in some quad (or the block keeps all w <= 4 columns).
        best = pair_scores.argmax(-1)
    else:
        if not exact_pair_search(w):
            raise ValueError(f"vnm_pair_mask: C({w}, 4) quads exceed the exact-search limit {EXACT_QUAD_LIMIT}")
        quads = _combinations(w, COLUMNS_PER_BLOCK, pair_scores.device)  # [Q, 4]
        index = torch.zeros(w, w, dtype=torch.long, device=pair_scores.device)
        index[pairs[:, 0], pairs[:, 1]] = torch.arange(p, device=pair_scores.device)
        slot_pairs = pair_table(COLUMNS_PER_BLOCK, pair_scores.device)  # [6, 2] slots of a quad
        quad_pairs = index[quads[:, slot_pairs[:, 0]], quads[:, slot_pairs[:, 1]]]  # [Q, 6]
        rb = -(-r // v)
        s = pair_scores.float()  # ordering is all the search needs; halves the [.., Q, 6] gather
        if rb * v != r:  # a short last row block: zero rows favour no quad
            s = torch.cat([s, s.new_zeros(rb * v - r, g, p)])
        s = s.view(rb, v, g, p)
        step = max(1, _PAIR_CHUNK_ELEMENTS // (v * g * quad_pairs.numel()))
        chosen = torch.cat(
            [s[i : i + step][..., quad_pairs].amax(-1).sum(1).argmax(-1) for i in range(0, rb, step)]
        )  # [RB, G] quad index
        allowed = quad_pairs[chosen].repeat_interleave(v, 0)[:r]  # [R, G, 6] pair ids in the quad
        best = torch.gather(allowed, -1, torch.gather(pair_scores, -1, allowed).argmax(-1, keepdim=True)).squeeze(-1)
    mask = torch.zeros(r, g, w, dtype=torch.bool, device=pair_scores.device)
    return mask.scatter_(-1, pairs[best], True)


# --------------------------------------------------------------------------------------------
# checking


def _first_violation(weight_or_mask: torch.Tensor, cfg: VNMConfig) -> Optional[str]:
    nz = weight_or_mask if weight_or_mask.dtype == torch.bool else weight_or_mask != 0
    r, k = nz.shape
    if nz.numel() == 0:
        return None
    g = cfg.groups(k)
    pad = g * cfg.m - k
    if pad:
        nz = torch.cat([nz, nz.new_zeros(r, pad)], 1)
    per_row = nz.view(r, g, cfg.m).sum(-1)  # [R, G]
    cols_used = _block_view(nz.view(r, g, cfg.m), cfg.v).any(1).sum(-1)  # [RB, G]
    row_bad = per_row > N_KEPT_PER_ROW
    block_bad = cols_used > COLUMNS_PER_BLOCK
    # Rank violations by (row block, group); a block-level one comes before its rows' ones.
    rows_of_block = _block_view(row_bad.unsqueeze(-1), cfg.v).squeeze(-1).any(1)  # [RB, G]
    any_bad = block_bad | rows_of_block
    if not any_bad.any():
        return None
    rb, grp = any_bad.nonzero()[0].tolist()
    r0, r1 = rb * cfg.v, min(r, (rb + 1) * cfg.v) - 1
    c0, c1 = grp * cfg.m, min(k, (grp + 1) * cfg.m) - 1
    where = f"row block {rb} (rows {r0}..{r1}), column group {grp} (columns {c0}..{c1})"
    if block_bad[rb, grp]:
        return (
            f"not V:N:M {cfg}: {where}: {int(cols_used[rb, grp])} columns hold nonzeros, "
            f"at most {COLUMNS_PER_BLOCK} allowed per {cfg.v}x{cfg.m} block"
        )
    row = r0 + int(row_bad[r0 : r1 + 1, grp].nonzero()[0])
    return (
        f"not V:N:M {cfg}: {where}: row {row} holds {int(per_row[row, grp])} nonzeros, "
        f"at most {N_KEPT_PER_ROW} allowed per row and group"
    )


def check_vnm(weight_or_mask: torch.Tensor, cfg) -> None:
    """Raise ValueError naming the first offending row block, column group and reason, if any."""
    cfg = _as_config(cfg)
    _check_matrix("weight", weight_or_mask)
    msg = _first_violation(weight_or_mask, cfg)
    if msg:
        raise ValueError(msg)


def is_vnm(weight_or_mask: torch.Tensor, cfg) -> bool:
    """True when the nonzeros (or True entries of a bool mask) follow the V:N:M pattern cfg."""
    cfg = _as_config(cfg)
    _check_matrix("weight", weight_or_mask)
    return _first_violation(weight_or_mask, cfg) is None


# --------------------------------------------------------------------------------------------
# packed storage


def columns_dtype(m: int) -> torch.dtype:
    """Smallest integer type holding column offsets 0..m-1."""
    if m <= 256:
        return torch.uint8
    return torch.int16 if m <= 32768 else torch.int32


def _first_slots(flags: torch.Tensor, count: int) -> torch.Tensor:
    """Indices of the `count` set flags along the last dim, topped up with the lowest unset ones, ascending."""
    w = flags.shape[-1]
    key = (~flags).to(torch.int32) * w + torch.arange(w, device=flags.device, dtype=torch.int32)
    return torch.sort(torch.sort(key, dim=-1).indices[..., :count], dim=-1).values


class VNMWeight:
    """A V:N:M weight in canonical packed storage (see the module docstring for the layout).

    Build one with :func:`pack`; inspect ``shape``, ``cfg``, ``dtype``, ``device``, ``nbytes`` and
    ``nbytes_by_part()``; move it with ``.to()``. Kernel layouts are derived on demand and cached.
    """

    def __init__(self, values, positions, columns, shape, cfg):
        cfg = _as_config(cfg)
        shape = tuple(int(d) for d in shape)
        validate_parts(values, positions, columns, shape, cfg)
        # The canonical parts are C-contiguous (kernels and save rely on it); views are copied.
        values, positions = values.contiguous(), positions.contiguous()
        columns = None if columns is None else columns.contiguous()
        self._set(values, positions, columns, shape, cfg)

    @classmethod
    def _trusted(cls, values, positions, columns, shape, cfg) -> "VNMWeight":
        self = cls.__new__(cls)
        self._set(values, positions, columns, shape, cfg)
        return self

    def _set(self, values, positions, columns, shape, cfg):
        self.values, self.positions, self.columns = values, positions, columns
        self.shape, self.cfg = shape, cfg
        self._layouts = {}

    @property
    def dtype(self) -> torch.dtype:
        return self.values.dtype

    @property
    def device(self) -> torch.device:
        return self.values.device

    @property
    def out_features(self) -> int:
        return self.shape[0]

    @property
    def in_features(self) -> int:
        return self.shape[1]

    def parts(self) -> dict:
        """The stored tensors by name (``columns`` absent for plain 2:4)."""
        parts = {"values": self.values, "positions": self.positions}
        if self.columns is not None:
            parts["columns"] = self.columns
        return parts

    def nbytes_by_part(self) -> dict:
        return {name: t.numel() * t.element_size() for name, t in self.parts().items()}

    @property
    def nbytes(self) -> int:
        return sum(self.nbytes_by_part().values())

    @property
    def dense_nbytes(self) -> int:
        return self.shape[0] * self.shape[1] * self.values.element_size()

    def to(self, device=None, dtype=None, non_blocking: bool = False) -> "VNMWeight":
        """Copy to another device and/or values dtype (fp16/bf16/fp32); returns self if nothing changes."""
        if isinstance(device, torch.dtype):
            device, dtype = None, device
        if dtype is not None and dtype not in PACKABLE_DTYPES:
            raise TypeError(f"VNMWeight values dtype must be one of {PACKABLE_DTYPES}, got {dtype}")
        device = self.device if device is None else torch.device(device)
        dtype = self.dtype if dtype is None else dtype
        if device == self.device and dtype == self.dtype:
            return self
        move = lambda t: None if t is None else t.to(device=device, non_blocking=non_blocking)
        values = self.values.to(device=device, dtype=dtype, non_blocking=non_blocking)
        return VNMWeight._trusted(values, move(self.positions), move(self.columns), self.shape, self.cfg)

    def cuda(self, device=None) -> "VNMWeight":
        return self.to(torch.device("cuda") if device is None else torch.device("cuda", device))

    def cpu(self) -> "VNMWeight":
        return self.to("cpu")

    def layout(self, name: str, build: Callable[["VNMWeight"], tuple]) -> tuple:
        """A kernel layout derived from the canonical storage, built once and cached on this weight."""
        cached = self._layouts.get(name)
        if cached is None:
            cached = self._layouts[name] = build(self)
        return cached

    def __repr__(self) -> str:
        r, k = self.shape
        parts = ", ".join(f"{n}={_human(b)}" for n, b in self.nbytes_by_part().items())
        return (
            f"VNMWeight({r}x{k}, {self.cfg}, {str(self.dtype).replace('torch.', '')}, device={self.device}, "
            f"{_human(self.nbytes)} = {self.nbytes / max(1, self.dense_nbytes):.3f} of dense [{parts}])"
        )


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024


def part_shapes(shape, cfg: VNMConfig) -> dict:
    """Expected shape and dtype of every stored part for a [R, K] weight."""
    r, k = shape
    g = cfg.groups(k)
    shapes = {"positions": ((r, -(-g // 2)), torch.uint8)}
    if not cfg.is_2to4:
        shapes["columns"] = ((cfg.row_blocks(r), g, COLUMNS_PER_BLOCK), columns_dtype(cfg.m))
    return shapes


# The 6 valid 4-bit position codes p0 | p1 << 2 with p0 < p1.
_VALID_CODES = [p0 | p1 << 2 for p0, p1 in itertools.combinations(range(COLUMNS_PER_BLOCK), N_KEPT_PER_ROW)]


def validate_parts(values, positions, columns, shape, cfg: VNMConfig) -> None:
    """Check packed parts completely (shapes, dtypes, index ranges, codes), raising ValueError/TypeError.

    After this passes, no kernel indexing by these parts can read outside the weight's bounds."""
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"VNMWeight shape must be (rows, columns) >= 0, got {shape}")
    r, k = shape
    g = cfg.groups(k)
    for name, t in (("values", values), ("positions", positions)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"VNMWeight.{name} must be a tensor, got {type(t).__name__}")
    if values.dtype not in PACKABLE_DTYPES:
        raise TypeError(f"VNMWeight.values dtype must be one of {PACKABLE_DTYPES}, got {values.dtype}")
    if tuple(values.shape) != (r, g, N_KEPT_PER_ROW):
        raise ValueError(f"VNMWeight.values must have shape {(r, g, N_KEPT_PER_ROW)} for {shape} at {cfg}, got {tuple(values.shape)}")
    expected = part_shapes(shape, cfg)
    given = {"positions": positions, "columns": columns}
    for name, (want_shape, want_dtype) in expected.items():
        t = given[name]
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"VNMWeight.{name} is missing (needed for {cfg})")
        if t.dtype != want_dtype:
            raise TypeError(f"VNMWeight.{name} must be {want_dtype} for {cfg}, got {t.dtype}")
        if tuple(t.shape) != want_shape:
            raise ValueError(f"VNMWeight.{name} must have shape {want_shape} for {shape} at {cfg}, got {tuple(t.shape)}")
        if t.device != values.device:
            raise ValueError(f"VNMWeight parts must share one device: values on {values.device}, {name} on {t.device}")
    if cfg.is_2to4 and columns is not None:
        raise ValueError("VNMWeight.columns must be None for plain 2:4 (m == 4): every column is kept")
    codes = _decode_codes(positions, g)
    valid = torch.zeros(16, dtype=torch.bool, device=codes.device)
    valid[_VALID_CODES] = True
    if codes.numel() and not valid[codes.long()].all():
        row, grp = (~valid[codes.long()]).nonzero()[0].tolist()
        raise ValueError(f"VNMWeight.positions: invalid 2:4 code {int(codes[row, grp])} at row {row}, group {grp} (need p0 < p1 <= 3)")
    if g % 2 and positions.numel() and (positions[:, -1] >> 4).any():
        raise ValueError("VNMWeight.positions: the unused high nibble of the last byte must be 0")
    if columns is not None and columns.numel():
        c = columns.long()
        if (c < 0).any() or (c >= cfg.m).any():
            bad = ((c < 0) | (c >= cfg.m)).nonzero()[0].tolist()
            raise ValueError(f"VNMWeight.columns: index {int(c[tuple(bad)])} out of range [0, {cfg.m}) at row block {bad[0]}, group {bad[1]}")
        if not (c[..., 1:] > c[..., :-1]).all():
            bad = (~(c[..., 1:] > c[..., :-1])).nonzero()[0].tolist()
            raise ValueError(f"VNMWeight.columns must be strictly increasing; not at row block {bad[0]}, group {bad[1]}")
        tail = k - (g - 1) * cfg.m  # width of the last group; only one narrower than 4 may name columns >= K
        if COLUMNS_PER_BLOCK <= tail < cfg.m and (c[:, -1] >= tail).any():
            rb = int((c[:, -1] >= tail).any(-1).nonzero()[0])
            raise ValueError(
                f"VNMWeight.columns: row block {rb}, group {g - 1} names a column >= K = {k} "
                f"(the last group has {tail} >= 4 columns, so its kept columns must lie inside it)"
            )
    if values.numel():
        dense_col = _dense_columns(positions, columns, shape, cfg)
        outside = dense_col >= k
        if outside.any() and (values[outside] != 0).any():
            raise ValueError("VNMWeight.values: a value stored at a column >= K (tail group) must be zero")


def _decode_codes(positions: torch.Tensor, g: int) -> torch.Tensor:
    """uint8 [R, ceil(G/2)] -> 4-bit codes [R, G]."""
    both = torch.stack([positions & 0xF, positions >> 4], -1)
    return both.view(positions.shape[0], 2 * positions.shape[1])[:, :g]


def _slots(positions: torch.Tensor, g: int) -> torch.Tensor:
    """Slot indices p0, p1 per (row, group): [R, G, 2] int64."""
    codes = _decode_codes(positions, g).long()
    return torch.stack([codes & 3, codes >> 2], -1)


def _block_columns(columns: Optional[torch.Tensor], r: int, g: int, cfg: VNMConfig, device) -> torch.Tensor:
    """Per-row kept columns [R, G, 4] (int64) from the per-block ones."""
    if columns is None:
        return _identity_quad(device).expand(r, g, COLUMNS_PER_BLOCK)
    return columns.long().repeat_interleave(cfg.v, 0)[:r]


def _dense_columns(positions, columns, shape, cfg: VNMConfig) -> torch.Tensor:
    """Dense column index of every stored value: [R, G, 2] int64."""
    r, k = shape
    g = cfg.groups(k)
    cols = torch.gather(_block_columns(columns, r, g, cfg, positions.device), -1, _slots(positions, g))
    return cols + cfg.m * torch.arange(g, device=positions.device).view(1, g, 1)


def pack(weight: torch.Tensor, cfg) -> VNMWeight:
    """Pack a dense weight with zeros that satisfies V:N:M into canonical storage.

    fp16/bf16 anywhere, fp32 on CPU. Fewer nonzeros than allowed is fine (explicit zeros are
    stored). A weight that breaks the pattern raises the ValueError of :func:`check_vnm`; it is
    never silently re-pruned. ``unpack(pack(w))`` is bitwise equal to ``w`` (a -0.0 at a position
    that is not stored comes back as +0.0).
    """
    cfg = _as_config(cfg)
    _check_matrix("weight", weight)
    if weight.dtype not in PACKABLE_DTYPES:
        raise TypeError(f"pack: weight dtype must be float16 or bfloat16 (float32 on CPU), got {weight.dtype}")
    if weight.dtype == torch.float32 and weight.device.type != "cpu":
        raise TypeError("pack: float32 weights are packed on CPU only (kernels take float16/bfloat16)")
    check_vnm(weight, cfg)
    r, k = weight.shape
    g = cfg.groups(k)
    w = weight.contiguous()
    if g * cfg.m != k:
        w = torch.cat([w, w.new_zeros(r, g * cfg.m - k)], 1)
    w = w.view(r, g, cfg.m)
    if cfg.is_2to4:
        columns = None
    else:
        used = _block_view(w != 0, cfg.v).any(1)  # [RB, G, m]
        columns = _first_slots(used, COLUMNS_PER_BLOCK).to(columns_dtype(cfg.m))
    # Values move as raw bits: a float gather may rewrite NaN payloads (bf16 on CPU does).
    quad = torch.gather(_bits(w), -1, _block_columns(columns, r, g, cfg, w.device))  # [R, G, 4]
    slots = _first_slots(quad.view(w.dtype) != 0, N_KEPT_PER_ROW)  # [R, G, 2], p0 < p1
    values = torch.gather(quad, -1, slots).view(w.dtype).contiguous()
    codes = (slots[..., 0] | (slots[..., 1] << 2)).to(torch.uint8)  # [R, G]
    if g % 2:
        codes = torch.cat([codes, codes.new_zeros(r, 1)], 1)
    codes = codes.view(r, codes.shape[1] // 2, 2)
    positions = (codes[..., 0] | (codes[..., 1] << 4)).contiguous()
    return VNMWeight._trusted(values, positions, columns, (r, k), cfg)


def cat_rows(weights) -> VNMWeight:
    """The weights stacked along their rows (output features), as ``pack(torch.cat(dense, 0))``
    without unpacking: sibling layers that read the same input (q / k / v, gate / up) as one
    call. They must share the pattern, K, dtype and device, and every one but the last must have
    a whole number of V-row blocks (a block keeps one column set, so it cannot span two weights)."""
    weights = list(weights)
    if not weights or not all(isinstance(w, VNMWeight) for w in weights):
        raise TypeError("cat_rows expects a non-empty sequence of VNMWeight")
    first = weights[0]
    for i, w in enumerate(weights):
        same = (w.cfg, w.in_features, w.dtype, w.device) == (first.cfg, first.in_features, first.dtype, first.device)
        if not same:
            raise ValueError(f"cat_rows: weight {i} is {w.cfg} K = {w.in_features} {w.dtype} on {w.device}, weight 0 "
                             f"{first.cfg} K = {first.in_features} {first.dtype} on {first.device}: they must match")
        if i + 1 < len(weights) and w.out_features % first.cfg.v:
            raise ValueError(f"cat_rows: weight {i} has {w.out_features} rows, not a multiple of V = {first.cfg.v}: "
                             "only the last weight may end in a partial V-row block")
    columns = None if first.columns is None else torch.cat([w.columns for w in weights])
    rows = sum(w.out_features for w in weights)
    return VNMWeight._trusted(torch.cat([w.values for w in weights]), torch.cat([w.positions for w in weights]),
                              columns, (rows, first.in_features), first.cfg)


def unpack(vw: VNMWeight) -> torch.Tensor:
    """The dense weight [R, K] (dtype of the values), exactly as packed."""
    if not isinstance(vw, VNMWeight):
        raise TypeError(f"unpack expects a VNMWeight, got {type(vw).__name__}")
    return unpack_parts(vw.values, vw.positions, vw.columns, vw.shape, vw.cfg)


def unpack_parts(values, positions, columns, shape, cfg: VNMConfig) -> torch.Tensor:
    r, k = shape
    g = cfg.groups(k)
    dense = _bits(values).new_zeros(r, g * cfg.m)  # raw bits, so that NaN payloads survive too
    if values.numel():
        dense.scatter_(1, _dense_columns(positions, columns, shape, cfg).view(r, -1), _bits(values).reshape(r, -1))
    return dense[:, :k].contiguous().view(values.dtype)


def union_columns(vw: VNMWeight, rows: int) -> torch.Tensor:
    """For each block of ``rows`` rows (a multiple of V): the columns that its V-row blocks keep, as
    offsets inside each group, topped up with the lowest others to 4 x rows / V, ascending: int64
    [ceil(R / rows), G, 4 x rows / V]. A row keeps at most 2 of them (its own block's), so the
    weight restricted to them is plain 2:4 over each 4 consecutive ones: what a kernel whose row tile
    spans several V-row blocks gathers (the kernels' union layouts)."""
    if not isinstance(vw, VNMWeight):
        raise TypeError(f"union_columns expects a VNMWeight, got {type(vw).__name__}")
    v, m = vw.cfg.v, vw.cfg.m
    width = COLUMNS_PER_BLOCK * rows // v if rows % v == 0 else 0
    if vw.columns is None or not 0 < width <= m:
        raise ValueError(f"union_columns: rows must be a multiple of V with 4 x rows / V <= M on a V:2:M weight "
                         f"(M > 4), got rows = {rows} for {vw.cfg}")
    rb, g, _ = vw.columns.shape
    per = rows // v
    used = torch.zeros(-(-rb // per) * per, g, m, dtype=torch.bool, device=vw.device)
    used[:rb].scatter_(2, vw.columns.long(), True)
    return _first_slots(used.view(-1, per, g, m).any(1), width)


_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _bits(t: torch.Tensor) -> torch.Tensor:
    """The same memory as an integer tensor of the same element size."""
    return t.view(_INT_OF_SIZE[t.element_size()])
