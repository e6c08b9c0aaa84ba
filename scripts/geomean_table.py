"""Geomean speedup over cuBLAS (the bench CSV's `speedup`) per pattern and T, one column per path.

    python scripts/geomean_table.py CSV PATH[,PATH...]
"""

import csv
import math
import sys
from collections import defaultdict


def main(csv_path: str, paths: list[str]) -> None:
    rows = csv.DictReader(line for line in open(csv_path) if not line.startswith("#"))
    q = defaultdict(list)
    for r in rows:
        if r["status"] == "ok" and r["speedup"]:
            q[(r["pattern"], int(r["T"]), r["path"])].append(float(r["speedup"]))
        elif r["status"] != "ok":
            print(f"{r['status']}: {r['shape']} T={r['T']} {r['pattern']} {r['path']} {r.get('note', '')}")
    keys = sorted({(p, t) for p, t, _ in q}, key=lambda k: (int(k[0].split(":")[-1]), k[0], k[1]))
    print(f"{'pattern':>9} {'T':>5} " + " ".join(f"{p:>16}" for p in paths) + "   (geomean x cuBLAS)")
    for p, t in keys:
        cells = [q.get((p, t, path)) for path in paths]
        print(f"{p:>9} {t:>5} " + " ".join(
            f"{math.exp(sum(map(math.log, c)) / len(c)):16.2f}" if c else f"{'-':>16}" for c in cells))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(","))
