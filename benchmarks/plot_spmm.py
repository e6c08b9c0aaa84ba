"""Rewrite the markdown summary and the plot of an SpMM benchmark CSV.

For a run that was cut short (the CSV is written row by row) or to re-plot on another machine:

    python benchmarks/plot_spmm.py benchmarks/results/spmm_<tag>.csv   # -> spmm_<tag>.md, .png
"""

import sys
from pathlib import Path

try:
    import vnmsparse  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vnmsparse.bench import main  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    sys.exit(main(["spmm", "--from-csv", sys.argv[1]]))
