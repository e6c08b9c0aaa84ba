"""V:N:M SpMM benchmark: same as ``vnmsparse bench spmm``; ``--help`` lists the options.

    python benchmarks/bench_spmm.py --quick                     # ~1 min on an H200
    python benchmarks/bench_spmm.py --shapes llama7b --tokens 1,16,2048 --patterns 2:4,64:2:8
    python benchmarks/bench_spmm.py --dry-run                   # the grid and its estimated time
"""

import sys
from pathlib import Path

try:
    import vnmsparse  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vnmsparse.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["spmm", *sys.argv[1:]]))
