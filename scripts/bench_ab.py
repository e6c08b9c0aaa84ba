"""`vnmsparse bench spmm` with more paths: `auto` (vnmsparse.spmm) run with module attributes of the
kernels set otherwise for the call (host-side switches, read when the call is made, so a CUDA graph
captures the choice), timed in the same turns as every other path (GPU).

  python scripts/bench_ab.py --path "auto_before:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (0, 0, None), 128: (0, 0, None)}" \
      -- bench spmm --quick --tokens 1,4,8 --paths auto,auto_before --out $OUT

Each --path is NAME[@BASE]:MODULE.ATTR=LITERAL[;MODULE.ATTR=LITERAL...], MODULE one of vnmsparse.kernels' modules;
BASE the path switched (default `auto`), e.g. "mma_sp_before@mma_sp:spmm_mma_sp.XROW_2_4=False"; a NAME ending in
_xt times the switched path on X stored feature-major, as `auto_xt`.
"""
import argparse
import ast
import importlib
import sys

from vnmsparse import bench, cli


def switched(fn, settings):
    def path(x, vw, bias=None):
        saved = [(mod, attr, getattr(mod, attr)) for mod, attr, _ in settings]
        for mod, attr, value in settings:
            setattr(mod, attr, value)
        try:
            return fn(x, vw, bias)
        finally:
            for mod, attr, value in saved:
                setattr(mod, attr, value)
    return path


def parse(spec):
    name, assignments = spec.split(":", 1)
    settings = []
    for item in assignments.split(";"):
        target, literal = item.split("=", 1)
        module, attr = target.strip().rsplit(".", 1)
        mod = importlib.import_module(f"vnmsparse.kernels.{module}")
        if not hasattr(mod, attr):
            raise SystemExit(f"vnmsparse.kernels.{module} has no attribute {attr}")
        settings.append((mod, attr, ast.literal_eval(literal.strip())))
    return name, settings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", action="append", default=[], help="NAME[@BASE]:MODULE.ATTR=LITERAL[;...]")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="-- then the vnmsparse command line")
    args = ap.parse_args()
    extra = [parse(spec) for spec in args.path]
    original = bench.vnm_paths

    def vnm_paths(device):
        paths, note = original(device)
        for spec, settings in extra:
            name, _, base = spec.partition("@")
            if (base or "auto") not in paths:
                raise SystemExit(f"--path {spec}: no path {base!r} on this device (have {', '.join(paths)})")
            paths[name] = switched(paths[base or "auto"], settings)
            if name.endswith("_xt"):
                paths[name] = bench._on_feature_major(paths[name])
        return paths, note

    bench.vnm_paths = vnm_paths
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    sys.exit(cli.main(rest))


if __name__ == "__main__":
    main()
