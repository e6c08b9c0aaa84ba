"""VNMConfig: the (v, n, m) parameters of a V:N:M sparse weight.

A weight of shape [R, K] is cut into blocks of ``v`` consecutive rows by ``m``
consecutive columns. Each block keeps 4 of its m columns (shared by its rows)
and each row keeps ``n`` = 2 of those 4, which is the 2:4 pattern that Sparse
Tensor Cores execute. Density is therefore n / m.
"""

from __future__ import annotations

import dataclasses
import os

# The Sparse Tensor Core mapping: 4 kept columns per block, 2:4 inside them.
N_KEPT_PER_ROW = 2
COLUMNS_PER_BLOCK = 4


@dataclasses.dataclass(frozen=True)
class VNMConfig:
    """The V:N:M pattern ``v:n:m``.

    Rules (each broken rule raises ``ValueError`` naming it):
      * ``n == 2`` (Sparse Tensor Cores run 2:4 inside the 4 kept columns);
      * ``m >= 4``, any integer (``m == 4`` is plain 2:4 and ``v`` is then irrelevant);
      * ``v`` a positive multiple of 16.
    """

    v: int
    n: int
    m: int

    def __post_init__(self):
        for name in ("v", "n", "m"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"VNMConfig.{name} must be an int, got {type(value).__name__} {value!r}")
        if self.n != N_KEPT_PER_ROW:
            raise ValueError(
                f"VNMConfig rule n == 2 broken: n={self.n} (Sparse Tensor Cores keep 2 of every 4 "
                "gathered columns per row)"
            )
        if self.m < COLUMNS_PER_BLOCK:
            raise ValueError(f"VNMConfig rule m >= 4 broken: m={self.m}")
        if self.v <= 0 or self.v % 16:
            raise ValueError(f"VNMConfig rule 'v is a positive multiple of 16' broken: v={self.v}")

    @classmethod
    def parse(cls, text: str) -> "VNMConfig":
        """Parse ``"v:n:m"`` (e.g. ``"64:2:8"``) or ``"2:4"`` (plain 2:4, v set to 64)."""
        if isinstance(text, VNMConfig):
            return text
        if not isinstance(text, str):
            raise TypeError(f"VNMConfig.parse expects a string like '64:2:8', got {type(text).__name__}")
        parts = text.strip().split(":")
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"VNMConfig.parse: {text!r} is not 'v:n:m' with integers (e.g. '64:2:8')") from None
        if len(numbers) == 2 and numbers[1] == COLUMNS_PER_BLOCK:
            return cls(64, numbers[0], numbers[1])
        if len(numbers) != 3:
            raise ValueError(
                f"VNMConfig.parse: {text!r} must have three fields 'v:n:m' (only plain '2:4' may omit v)"
            )
        return cls(*numbers)

    def __str__(self) -> str:
        return f"{self.v}:{self.n}:{self.m}"

    @property
    def density(self) -> float:
        return self.n / self.m

    @property
    def is_2to4(self) -> bool:
        """m == 4: every column is kept, so there are no column indices to store."""
        return self.m == COLUMNS_PER_BLOCK

    def groups(self, k: int) -> int:
        """Number of m-wide column groups covering k columns (the last may be narrower)."""
        return -(-k // self.m)

    def row_blocks(self, r: int) -> int:
        """Number of v-high row blocks covering r rows (the last may be shorter)."""
        return -(-r // self.v)


def env_flag(name: str) -> bool:
    """True when environment variable ``name`` is set to a true-ish value (1/true/yes/on)."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
