"""Layer shapes, token counts and patterns of the SpMM benchmarks.

The tables live in ``vnmsparse.bench`` (one definition, used by ``vnmsparse bench spmm``);
this module re-exports them for scripts and notebooks::

    from shapes import SHAPES          # {"llama7b": {"gate_up": (11008, 4096), ...}, ...}
"""

import sys
from pathlib import Path

try:
    import vnmsparse  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vnmsparse.bench import GROUP_TOKENS, PATTERN_SETS, QUICK, SHAPES, SPATHA_H200, TOKENS  # noqa: E402

__all__ = ["SHAPES", "GROUP_TOKENS", "TOKENS", "PATTERN_SETS", "QUICK", "SPATHA_H200"]

if __name__ == "__main__":
    for group, layers in SHAPES.items():
        tokens = GROUP_TOKENS.get(group, TOKENS)
        for name, (r, k) in layers.items():
            print(f"{group}.{name}".ljust(22), f"{r:>6d} x {k:<6d} T = {','.join(map(str, tokens))}")
    for name, patterns in PATTERN_SETS.items():
        print(f"patterns {name}: {', '.join(patterns)}")
