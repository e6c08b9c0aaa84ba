"""Score the cp.async kernel's narrow / wide prefill-tile rule on tile_sweep.py output (NOTES v341, v352).

python scripts/wave_fit.py benchmarks/results/tile_sweep_h100_v341.txt [SMS]

For each cell (R x K, T, pattern) with both tiles timed (wide: the 128-row prefill tile, 128 x 128 since v352; narrow:
128 x 64), the rule picks the narrow tile where its whole waves are fewer than the wide tile's times a cost c(K)
(spmm_mma_sp.choose_tile with NARROW_PREFILL_COST = c). Printed: the sum of
the picked times over the best pick's, for constant costs and for costs c0 + c1 / steps (steps: K's pipeline steps,
the per-CTA fill and epilogue amortised over them), in whole or fractional waves, and the cells the best rule still
gets wrong.
"""
import itertools
import re
import sys

from vnmsparse.config import VNMConfig
from vnmsparse.kernels import spmm_mma_sp as K

CELL = re.compile(r"^(\d+)x(\d+) T=(\d+) (\S+): dense")
TILE = re.compile(r"^\s+tile (\d+),(\d+),(\d+),(\d+),(\d+)\s+([\d.]+) us")


def cells(path: str) -> list[dict]:
    out, cur = [], None
    for line in open(path):
        if m := CELL.match(line):
            r, k, t, pattern = int(m[1]), int(m[2]), int(m[3]), m[4]
            cur = {"r": r, "k": k, "t": t, "pattern": pattern, "times": {}}
            out.append(cur)
        elif (m := TILE.match(line)) and cur is not None:
            tile = K.TileConfig(*(int(m[i]) for i in range(1, 6)))
            cur["times"].setdefault(tile, []).append(float(m[6]))
    narrow, wide = K.TILE_TABLE[False][(128, "prefill_narrow")], K.TILE_TABLE[False][(128, "prefill")]
    return [dict(c, narrow=min(c["times"][narrow]), wide=min(c["times"][wide]), tiles=(narrow, wide))
            for c in out if narrow in c["times"] and wide in c["times"]]


def waves(tile, rows: int, ntok: int, sms: int, whole: bool = True) -> float:
    """Waves of the tile's grid (whole, as choose_tile counts them, or fractional: the last one part full)."""
    ctas = -(-rows // tile.bm) * -(-ntok // tile.bn)
    return -(-ctas // (sms * tile.ctas_per_sm)) if whole else ctas / (sms * tile.ctas_per_sm)


def picks(cs: list[dict], cost, sms: int, whole: bool = True) -> list[bool]:
    """Whether the rule picks the wide tile in each cell (as choose_tile, with cost(cell) for the constant)."""
    out = []
    for c in cs:
        narrow, wide = c["tiles"]
        wn, ww = (waves(t, c["r"], c["t"], sms, whole) for t in (narrow, wide))
        out.append(not wn < ww * cost(c))
    return out


def score(cs: list[dict], chosen: list[bool]) -> float:
    best = sum(min(c["narrow"], c["wide"]) for c in cs)
    return sum(c["wide"] if w else c["narrow"] for c, w in zip(cs, chosen)) / best - 1


def main() -> None:
    path, sms = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 132
    cs = cells(path)
    for c in cs:
        c["steps"] = K.layout_steps(c["k"], VNMConfig.parse(c["pattern"]).m)
    print(f"{len(cs)} cells; never wide {100 * score(cs, [False] * len(cs)):+.1f}%")
    rules = {f"c = {c0:.2f}" + (f" + {c1} / steps" if c1 else ""): (lambda c, c0=c0, c1=c1: c0 + c1 / c["steps"])
             for c0, c1 in itertools.product([0.9 + 0.05 * i for i in range(15)], [0, 2, 4, 8, 16, 32])}
    scored = sorted((score(cs, picks(cs, rule, sms, whole)), name + ("" if whole else ", fractional waves"), rule, whole)
                    for name, rule in rules.items() for whole in (True, False))
    for s, name, _, _ in scored[:8]:
        print(f"  {name:46s} {100 * s:+.2f}%")
    s, name, rule, whole = scored[0]
    for c, w in zip(cs, picks(cs, rule, sms, whole)):
        if (c["wide"] < c["narrow"]) != w and abs(c["wide"] / c["narrow"] - 1) > 0.01:
            print(f"  {name} misses {c['r']}x{c['k']} T={c['t']} {c['pattern']}: narrow {c['narrow']} wide {c['wide']}")


if __name__ == "__main__":
    main()
