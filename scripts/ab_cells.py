"""Same-run A/B of bench paths, cell by cell: each other path's time over the first one's (> 1: the first is
faster) for every cell where some path moves more than --min, then the geomean per (path, pattern).

    python scripts/ab_cells.py CSV FIRST OTHER [OTHER...] [--min 0.02]
"""
import argparse
import csv
import math
from collections import defaultdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--min", type=float, default=0.02, help="show cells where some ratio moves more than this")
    args = ap.parse_args()
    first, others = args.paths[0], args.paths[1:]
    rows = [r for r in csv.DictReader(line for line in open(args.csv) if not line.startswith("#")) if r["status"] == "ok"]
    t = {(r["shape"], int(r["T"]), r["pattern"], r["path"]): float(r["t_us"]) for r in rows}
    per = defaultdict(list)
    print(f"{'shape':18s} {'T':>3} {'pattern':9s} {first:>9} " + " ".join(f"{p:>9}" for p in others) + "  (us; x = other / first)")
    for shape, tok, pattern, path in sorted(t, key=lambda c: (c[0], int(c[2].split(":")[-1]), c[2], c[1])):
        if path != first or not all((shape, tok, pattern, p) in t for p in others):
            continue
        base = t[(shape, tok, pattern, first)]
        ratios = [t[(shape, tok, pattern, p)] / base for p in others]
        for p, q in zip(others, ratios):
            per[(p, pattern)].append(q)
        if any(abs(q - 1) > args.min for q in ratios):
            print(f"{shape:18s} {tok:3d} {pattern:9s} {base:9.2f} " + " ".join(
                f"{t[(shape, tok, pattern, p)]:9.2f}" for p in others) + "  " + " ".join(f"x{q:.3f}" for q in ratios))
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    for p in others:
        cells = [q for (path, _), qs in per.items() if path == p for q in qs]
        print(f"{p} / {first}: geomean {geo(cells):.4f} over {len(cells)} cells; by pattern " + ", ".join(
            f"{pat} {geo(qs):.3f}" for (path, pat), qs in sorted(per.items()) if path == p))


if __name__ == "__main__":
    main()
