"""Compile, in parallel, the gathered sm_90a kernels of given tiles under experiment defines (a session script's
warm-up: `cache warm` builds the defaults only, and a test compiles its variants one at a time):
  python scripts/warm_defines.py VNM_WG_TMA_RUNS=1 [--tiles wg128x256s6r1,...]   (default: every tile)"""
import argparse
import concurrent.futures
import os
import time

import torch

from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_wgmma_sp as W


def _one(job):
    name, defines = job
    jit.compile(W.SOURCE, [name], "sm_90a", defines=defines)
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("defines", nargs="+", help="NAME=VALUE")
    ap.add_argument("--tiles", default=None, help="comma-separated tile names (default: all)")
    args = ap.parse_args()
    defines = dict(d.split("=", 1) for d in args.defines)
    defines = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in defines.items()}
    tiles = W.ALL_TILES if args.tiles is None else tuple(t for t in W.ALL_TILES if str(t) in args.tiles.split(","))
    names = [n for dt in (torch.float16, torch.bfloat16) for n in W.name_expressions(dt, tiles)]
    t0 = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        done = sum(1 for _ in pool.map(_one, [(n, defines) for n in names]))
    print(f"compiled {done} kernels with {defines} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
