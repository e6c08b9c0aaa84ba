"""Sparsity patterns the pruners target, and the functions that turn scores into masks.

The V:N:M rule itself lives in :mod:`vnmsparse.format`: :func:`~vnmsparse.vnm_mask` for element
scores and :func:`~vnmsparse.format.vnm_pair_mask` for *pair* scores (under second-order pruning
the cost of keeping two columns is not the sum of two element scores); every mask here comes from
one of them.

Besides ``VNMConfig`` (the kernel format), pruning needs patterns that no kernel runs but that
are the baselines and the intermediate steps of gradual pruning:

* :class:`NM` ``n:m``: plain per-row N:M (each row keeps n of every m consecutive columns);
* :class:`Unstructured`: keep a fraction of each matrix anywhere (``"75%"`` = 75% sparse);
* :class:`Stacked` ``j x v:2:m``: the union of j disjoint V:N:M masks (4j columns per block,
  2j per row), so a gradual schedule can shrink towards ``v:2:m`` while the column sharing
  the final pattern needs is already in place.
"""

from __future__ import annotations

import dataclasses
from typing import Union

import torch

from ..config import COLUMNS_PER_BLOCK, N_KEPT_PER_ROW, VNMConfig
from ..format import check_vnm, vnm_mask


@dataclasses.dataclass(frozen=True)
class NM:
    """Plain per-row N:M: every row keeps ``n`` of each group of ``m`` consecutive columns."""

    n: int
    m: int

    def __post_init__(self):
        if not (isinstance(self.n, int) and isinstance(self.m, int) and 0 < self.n <= self.m):
            raise ValueError(f"NM pattern needs integers 0 < n <= m, got {self.n}:{self.m}")

    def __str__(self):
        return f"{self.n}:{self.m}"


@dataclasses.dataclass(frozen=True)
class Unstructured:
    """Keep the ``density`` fraction of highest-score entries of each matrix (1.0 = dense)."""

    density: float

    def __post_init__(self):
        if not (isinstance(self.density, (int, float)) and 0.0 < self.density <= 1.0):
            raise ValueError(f"Unstructured density must be in (0, 1], got {self.density!r}")

    def __str__(self):
        return "dense" if self.density == 1.0 else f"{100 * (1 - self.density):g}%"


@dataclasses.dataclass(frozen=True)
class Stacked:
    """Union of ``copies`` disjoint ``cfg`` masks, chosen greedily (best V:N:M mask first)."""

    cfg: VNMConfig
    copies: int

    def __post_init__(self):
        if not isinstance(self.cfg, VNMConfig):
            raise TypeError(f"Stacked.cfg must be a VNMConfig, got {type(self.cfg).__name__}")
        if not (isinstance(self.copies, int) and 1 <= self.copies <= self.cfg.m // COLUMNS_PER_BLOCK):
            raise ValueError(f"Stacked copies must be in [1, m // 4 = {self.cfg.m // 4}], got {self.copies!r}")

    def __str__(self):
        return f"{self.copies}x{self.cfg}"


Pattern = Union[VNMConfig, NM, Unstructured, Stacked]
DENSE = Unstructured(1.0)


def as_pattern(spec) -> Pattern:
    """Parse a pattern: a Pattern object, or a string.

    ``"64:2:8"`` -> VNMConfig; ``"2:4"`` -> VNMConfig 64:2:4 (plain 2:4 has no column sharing);
    ``"2:8"`` -> NM; ``"75%"`` -> Unstructured(0.25); ``"dense"``; ``"3x64:2:16"`` -> Stacked.
    """
    if isinstance(spec, (VNMConfig, NM, Unstructured, Stacked)):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"pattern must be a VNMConfig, NM, Unstructured, Stacked or a string, got {type(spec).__name__}")
    text = spec.strip().lower()
    if text == "dense":
        return DENSE
    if text.endswith("%"):
        try:
            sparsity = float(text[:-1]) / 100
        except ValueError:
            raise ValueError(f"pattern {spec!r}: expected a sparsity like '75%'") from None
        return Unstructured(1.0 - sparsity)
    if "x" in text:
        copies, _, rest = text.partition("x")
        return Stacked(VNMConfig.parse(rest), int(copies))
    parts = text.split(":")
    if len(parts) == 2 and parts[1] != str(COLUMNS_PER_BLOCK):
        try:
            return NM(int(parts[0]), int(parts[1]))
        except ValueError:
            raise ValueError(f"pattern {spec!r}: expected 'n:m' with integers") from None
    return VNMConfig.parse(text)


def density(pattern) -> float:
    """Fraction of entries a full-size matrix keeps."""
    p = as_pattern(pattern)
    if isinstance(p, VNMConfig):
        return p.density
    if isinstance(p, NM):
        return p.n / p.m
    if isinstance(p, Stacked):
        return p.copies * p.cfg.density
    return float(p.density)


def group_width(pattern):
    """Columns covered by one mask decision (m), or None when the whole row is one decision."""
    p = as_pattern(pattern)
    if isinstance(p, VNMConfig):
        return p.m
    if isinstance(p, (NM, Stacked)):
        return p.m if isinstance(p, NM) else p.cfg.m
    return None


def pattern_mask(scores: torch.Tensor, pattern) -> torch.Tensor:
    """bool mask [R, K] of the pattern keeping the most total score (larger score = keep)."""
    p = as_pattern(pattern)
    if scores.dim() != 2:
        raise ValueError(f"scores must be 2-D [rows, columns], got shape {tuple(scores.shape)}")
    if isinstance(p, VNMConfig):
        return vnm_mask(scores, p)
    if isinstance(p, Stacked):
        # Already chosen entries get a score below every real one (scores are >= 0 in practice,
        # but shift anyway) so each next copy picks from what is left.
        s = scores.float()
        s = s - s.min() + 1.0
        mask = torch.zeros_like(s, dtype=torch.bool)
        for _ in range(p.copies):
            mask |= vnm_mask(s.masked_fill(mask, 0.0), p.cfg)
        return mask
    if isinstance(p, NM):
        r, k = scores.shape
        out = torch.zeros(r, k, dtype=torch.bool, device=scores.device)
        for start in range(0, k, p.m):
            part = scores[:, start : start + p.m]
            keep = min(p.n, part.shape[1])  # a narrower tail group keeps at most n
            out[:, start : start + p.m].scatter_(1, torch.topk(part, keep, dim=1, sorted=False).indices, True)
        return out
    keep = round(p.density * scores.numel())
    out = torch.zeros(scores.numel(), dtype=torch.bool, device=scores.device)
    out[torch.topk(scores.flatten(), keep, sorted=False).indices] = True
    return out.view(scores.shape)


def check_pattern(weight_or_mask: torch.Tensor, pattern) -> None:
    """Raise ValueError if the nonzeros (or True entries) break the pattern."""
    p = as_pattern(pattern)
    nz = weight_or_mask if weight_or_mask.dtype == torch.bool else weight_or_mask != 0
    if isinstance(p, VNMConfig):
        return check_vnm(nz, p)
    r, k = nz.shape
    if isinstance(p, (NM, Stacked)):
        m = group_width(p)
        per_row = p.n if isinstance(p, NM) else N_KEPT_PER_ROW * p.copies
        g = -(-k // m)
        padded = torch.cat([nz, nz.new_zeros(r, g * m - k)], 1).view(r, g, m)
        if (padded.sum(-1) > per_row).any():
            raise ValueError(f"not {p}: a row keeps more than {per_row} of {m} columns")
        if isinstance(p, Stacked):
            v = p.cfg.v
            rb = -(-r // v)
            blocks = torch.cat([padded, padded.new_zeros(rb * v - r, g, m)]).view(rb, v, g, m)
            if (blocks.any(1).sum(-1) > COLUMNS_PER_BLOCK * p.copies).any():
                raise ValueError(f"not {p}: a {v}x{m} block uses more than {4 * p.copies} columns")
        return None
    if int(nz.sum()) > round(p.density * nz.numel()):
        raise ValueError(f"not {p}: {int(nz.sum())} nonzeros, at most {round(p.density * nz.numel())} allowed")
    return None


