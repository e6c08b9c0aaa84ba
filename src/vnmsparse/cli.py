"""The ``vnmsparse`` command: env, check, cache, bench, demo."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import platform
import sys
import time


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def compute_paths() -> list[tuple[str, bool, str]]:
    """(path, available, why) for every way this install can run spmm."""
    import torch

    paths = [("reference (PyTorch, any device)", True, "always")]
    try:
        kernels = importlib.import_module("vnmsparse.kernels")
        paths.extend(getattr(kernels, "available_paths", lambda: [])())
    except ImportError as e:
        paths.append(("Sparse Tensor Core kernels", False, f"kernels not importable: {e}"))
    if not torch.cuda.is_available():
        paths.append(("CUDA", False, "no CUDA device visible to torch"))
    return paths


def cmd_env(args) -> int:
    import torch

    import vnmsparse

    print(f"vnmsparse {vnmsparse.__version__}")
    print(f"python {platform.python_version()} ({sys.executable}) on {platform.platform()}")
    print(f"  {'torch':18s} {torch.__version__}")  # with its local build tag (+cpu, +cu130)
    for dist in ("numpy", "safetensors", "cuda-core", "cuda-bindings", "nvidia-cuda-nvrtc", "cuda-pathfinder", "transformers"):
        print(f"  {dist:18s} {_version(dist)}")
    print(f"torch CUDA build: {torch.version.cuda}; cuSPARSELt: {_cusparselt_version()}")
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            print(f"  cuda:{i} {p.name}, sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, {p.total_memory / 2**30:.0f} GiB")
    else:
        print("  no CUDA device")
    print("compute paths:")
    for name, ok, why in compute_paths():
        print(f"  [{'x' if ok else ' '}] {name}: {why}")
    return 0


def _cusparselt_version() -> str:
    import torch

    try:
        return str(torch.backends.cusparselt.version())
    except Exception:  # not built with cuSPARSELt
        return "unavailable"


def cmd_check(args) -> int:
    """Prune -> pack -> save -> load -> spmm round trip on a random weight; prints sizes and errors."""
    import os
    import tempfile

    import torch

    import vnmsparse as vs

    cfg = vs.VNMConfig.parse(args.vnm)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16
    torch.manual_seed(0)
    r, k, t = args.rows, args.cols, args.tokens
    dense = torch.randn(r, k)
    t0 = time.perf_counter()
    mask = vs.vnm_mask(dense.abs(), cfg)
    t_mask = time.perf_counter() - t0
    w = (dense * mask).to(dtype)
    vw = vs.pack(w, cfg)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.safetensors")
        vs.save(path, {"w": vw})
        file_bytes = os.path.getsize(path)
        vw2 = vs.load(path)["w"].to(device)
    exact = torch.equal(vs.unpack(vw2).cpu(), w)
    x = torch.randn(t, k, dtype=dtype, device=device)
    y = vs.spmm(x, vw2)
    ref = x.double() @ w.to(device).double().t()
    rel = ((y.double() - ref).norm() / ref.norm()).item()
    print(f"weight {r}x{k} {cfg} ({dtype}), device {device}")
    print(f"  vnm_mask: {t_mask * 1e3:.0f} ms; kept fraction {mask.float().mean().item():.4f} (density {cfg.density:.4f})")
    print(f"  packed: {vw}")
    for part, b in vw.nbytes_by_part().items():
        print(f"    {part:9s} {b:>10d} bytes")
    print(f"  dense {vw.dense_nbytes} bytes; packed/dense = {vw.nbytes / vw.dense_nbytes:.4f}; file {file_bytes} bytes")
    print(f"  save/load/unpack bitwise exact: {exact}")
    print(f"  spmm x[{t},{k}] relative error vs float64: {rel:.2e}")
    ok = exact and rel < 1e-2
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def _define(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier() or not value.lstrip("-").isdigit():
        raise argparse.ArgumentTypeError(f"--define takes NAME=INT (a C macro name and an integer), got {text!r}")
    return name, int(value)


def _compile_one(job):
    from vnmsparse.kernels import jit

    source, name, arch, defines = job
    jit.compile(source, [name], arch, defines=defines)
    return name


def cmd_cache(args) -> int:
    from vnmsparse.kernels import jit

    if args.action == "warm":
        import concurrent.futures
        import os

        import torch

        from vnmsparse.kernels import spmm_mma_sp, spmm_wgmma_sp

        archs = args.arch or [jit.default_arch() if torch.cuda.is_available() else "sm_80"]
        kernels = [(spmm_mma_sp, lambda a: True), (spmm_wgmma_sp, lambda a: a == "sm_90a")]
        defines = dict(args.define or ())
        jobs = [(mod.SOURCE, n, a, defines) for a in archs for mod, wanted in kernels if wanted(a)
                for dt in (torch.float16, torch.bfloat16) for n in mod.name_expressions(dt, arch=a)
                if args.match is None or args.match in n]
        if not jobs:
            print(f"no kernel variant for {', '.join(archs)} has a name containing {args.match!r}", file=sys.stderr)
            return 1
        t0 = time.perf_counter()
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs or os.cpu_count()) as pool:
            done = sum(1 for _ in pool.map(_compile_one, jobs))
        print(f"compiled {done} kernels for {', '.join(archs)}{f' with {defines}' if defines else ''} in {time.perf_counter() - t0:.1f} s into {jit.cache_dir()}")
        return 0
    if args.action == "ls":
        entries = jit.cache_entries()
        print(f"cache: {jit.cache_dir()} ({len(entries)} entries)")
        for e in entries:
            print("  " + "  ".join(f"{k}={v}" for k, v in e.items()))
    else:
        from vnmsparse.kernels import autotune

        print(f"removed {jit.clear_cache()} entries from {jit.cache_dir()}"
              + (" and the autotune choices" if autotune.clear() else ""))
    return 0


def cmd_bench(args, rest) -> int:
    if args.what == "e2e":
        from vnmsparse import bench_e2e

        return bench_e2e.main(rest)
    from vnmsparse import bench

    return bench.main([args.what, *rest])


def cmd_demo(rest) -> int:
    from vnmsparse import demo

    return demo.main(rest)


def _vnm_arg(text: str):
    """argparse type for --vnm: a bad pattern is a usage error (exit 2), not a traceback."""
    from vnmsparse.config import VNMConfig

    try:
        return VNMConfig.parse(text)
    except (TypeError, ValueError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="vnmsparse", description="V:N:M sparse matmul on Sparse Tensor Cores")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("env", help="versions, devices, GPU arch and available compute paths")
    p = sub.add_parser("check", help="prune/pack/save/load/spmm round trip on a random weight")
    p.add_argument("--vnm", default="64:2:8", type=_vnm_arg, help="pattern v:n:m (default 64:2:8)")
    p.add_argument("--rows", type=_positive_int, default=1000)
    p.add_argument("--cols", type=_positive_int, default=1000)
    p.add_argument("--tokens", type=_positive_int, default=7)
    p.add_argument("--device", default=None)
    p = sub.add_parser("cache", help="list, clear or warm the compiled-kernel cache")
    p.add_argument("action", choices=["ls", "clear", "warm"], help="warm: compile every kernel variant now")
    p.add_argument("--arch", action="append", help="with warm: target such as sm_80 or sm_90a (repeatable)")
    p.add_argument("--jobs", type=int, default=None, help="with warm: parallel compiler processes")
    p.add_argument("--define", action="append", type=_define, metavar="NAME=INT",
                   help="with warm: a kernel knob (a kernel module's DEFINES entry, for A/B runs) to compile with (repeatable)")
    p.add_argument("--match", default=None, metavar="TEXT", help="with warm: only the variants whose name contains TEXT")
    p = sub.add_parser("bench", help="benchmarks (run 'vnmsparse bench spmm --help', 'vnmsparse bench e2e --help')", add_help=False)
    p.add_argument("what", choices=["spmm", "e2e"])
    sub.add_parser("demo", help="prune MiniLM to V:N:M, pack it, compare accuracy/bytes/latency (run 'vnmsparse demo --help')",
                   add_help=False)
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":
        return cmd_bench(args, rest)
    if args.command == "demo":
        return cmd_demo(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command is None:
        parser.print_help()
        return 0
    return {"env": cmd_env, "check": cmd_check, "cache": cmd_cache}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
