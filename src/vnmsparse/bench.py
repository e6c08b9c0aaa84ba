"""SpMM benchmark harness: ``vnmsparse bench spmm`` and ``python benchmarks/bench_spmm.py``.

Every performance claim about vnmsparse is judged by this file. Per layer shape R x K, tokens T
and pattern it measures, in one process and on the same inputs:

  dense      cuBLAS ``F.linear(x, W)`` on the masked dense weight W: the baseline of every speedup
  cslt       cuSPARSELt 2:4, ``torch._cslt_sparse_mm(torch._cslt_compress(W24), x.t())``, alg_id 0
  cslt_best  the fastest of cuSPARSELt's own search and alg_id 0..3 (cuSPARSELt runs 2:4 only,
             so both are measured once per (shape, T) on a random 2:4 weight, under pattern 2:4)
  auto       ``vnmsparse.spmm``, plus every path ``vnmsparse.kernels.spmm_paths(device)`` offers

The method is METHOD below (shared/reference/performance.md section 6).

Outputs under ``--out``: ``spmm_<tag>.csv`` (environment as ``#`` lines, then one row per
(config, path), written and flushed as measured), ``spmm_<tag>.md`` (summary, issue targets,
original Spatha on the same GPU) and ``spmm_<tag>.png`` (needs matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import functools
import hashlib
import importlib
import importlib.metadata
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional

import torch
import torch.nn.functional as F

import vnmsparse
from vnmsparse.config import COLUMNS_PER_BLOCK, N_KEPT_PER_ROW, VNMConfig
from vnmsparse.format import VNMWeight
from vnmsparse.kernels import jit

METHOD = """\
* baselines: dense = cuBLAS ``F.linear`` on the masked weight of the same pattern (its zeros may
  make cuBLAS slightly faster: speedups err low); cuSPARSELt on a random 2:4 weight, per (shape, T).
* kernel time: a CUDA graph of N back-to-back calls, replayed ``--reps`` times (default 30; fewer,
  at least 5, when one path would take over ``--max-path-seconds``: see the ``reps`` column) with
  CUDA events around each replay; t = median(replay) / N, spread = p10..p90. The paths of a config
  (dense, cuSPARSELt's alg 0 and best, each vnmsparse path) take turns replay by replay, so that
  all see the same clock and temperature (the path timed right after cuBLAS ran 3-7% slower when
  each path ran its replays alone). The first vnmsparse path after the baselines ran 0-3% slower
  than the same kernels in second place on the 64-row decode tiles (v295; 3-5% with the short
  replays before it; not the baseline before it, not the activations' place in L2: v292-v294), so
  the path listed first gives the conservative figure. The N calls rotate over ``n_sets`` copies of (x,
  weight) whose total exceeds 2x the L2 size, so each call reads its weight and activations from HBM
  as in inference. (Rotation, not a flush: a flush kernel between calls would sit inside the timed
  graph.) At most ``--max-sets`` copies; the ``rot_MB`` column
  shows the working set, below 2x L2 for the smallest weights. If capture fails, CUDA events
  around an eager loop of the same calls (``method=events``, host overhead included).
* wall time: ``torch.cuda.synchronize`` around an eager loop of calls (host overhead included).
* clock: ``sm_MHz`` is the median SM clock nvidia-smi reported (every 20 ms, in the background)
  while a row's timed replays ran: under sustained sparse tensor-core load an H200 runs below its
  1980 MHz, and a ratio is read against the clock both sides actually got.
* sustained (``--sustain S``): after the turns, each path's graph is replayed alone, back to back, for S
  seconds (the host syncs every ~50 ms); ``sus_us`` is its time a call over that span, ``sus_MHz`` and
  ``sus_W`` the medians of nvidia-smi's clock and board power over its last two thirds, ``sus_mJ`` =
  ``sus_us`` x ``sus_W``, ``sus_speedup`` cuBLAS's ``sus_us`` over the path's. The short replays above sit
  between two regimes; a GPU kept busy (serving) meets its power limit (700 W on an H100 / H200 SXM),
  where a call's time is its energy over the limit (NOTES v311-v313). The next config's turns then start
  on a card at its power limit, so compare burst times from runs without ``--sustain``.
* correctness, every row: a fresh random x; each path's output vs ``F.linear`` on the same dense
  weight in fp32; relative Frobenius error <= 1e-2. The output's memory is poisoned with NaN
  first (freed NaN block of the output's size, which the caching allocator hands back) and any
  NaN/inf fails. FAIL rows are printed loudly and get no speedups.
* weights: random V:N:M masks (per v x m block 4 random columns, then a random 2 of those 4 per
  row), random normal values, never zero (cuBLAS runs faster on zeros), packed with
  ``vnmsparse.pack``. Built vectorised on the device.
"""

# ============================================================================================
# The grid (benchmarks/shapes.py re-exports these tables; this is their only definition)

# Layer shapes (R = out features, K = in features) per model; all divisible by 128.
SHAPES: dict[str, dict[str, tuple[int, int]]] = {
    "bert": {"qkv": (3072, 1024), "out": (1024, 1024), "ffn1": (4096, 1024), "ffn2": (1024, 4096)},
    "llama7b": {"qkvo": (4096, 4096), "qkv": (12288, 4096), "gate_up": (11008, 4096), "down": (4096, 11008)},
    "llama13b": {"qkvo": (5120, 5120), "gate_up": (13824, 5120), "down": (5120, 13824)},
    "llama70b": {"qo": (8192, 8192), "kv": (1024, 8192), "gate_up": (28672, 8192), "down": (8192, 28672)},
    # The VENOM artifact points (UDC-GAC/venom result/spmm_bert_spatha.csv): BERT-base and -large.
    "venom": {
        "base_attn": (768, 768), "base_ffn1": (3072, 768), "base_ffn2": (768, 3072),
        "large_attn": (1024, 1024), "large_ffn1": (4096, 1024), "large_ffn2": (1024, 4096),
    },
}
# Groups measured at a few token counts only (the artifact's batch 8 and 16 at seq 512).
GROUP_TOKENS = {"venom": (4096, 8192)}
TOKENS = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)

PATTERN_SETS = {
    "default": ["2:4"] + [f"{v}:2:{m}" for m in (8, 16, 32, 64, 128) for v in (64, 128)],
    "small_v": [f"{v}:2:{m}" for m in (8, 16, 32) for v in (16, 32)],
}
PATTERN_SETS["all"] = PATTERN_SETS["default"] + PATTERN_SETS["small_v"]

# --quick: about a minute on an H200 (see --dry-run). Explicit options override these.
QUICK = {  # bert.ffn2 and llama7b.qkvo at T=4096 are also points of the Spatha H200 table
    "shapes": "llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2",
    "tokens": "1,16,64,2048,4096,8192",
    "patterns": "2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128",
}
# --tiny (hidden, for the CPU test): shapes small enough for the PyTorch reference path.
TINY_SHAPES = {"tiny": {"a": (128, 256), "b": (256, 256)}}
TINY_TOKENS = (1, 8, 64)

# Dense-equivalent ceilings of the sparse instruction each path runs, measured on an H200
# (performance.md section 1.2). Paths not named here (auto, future ones) are held to the
# wgmma.sp ceiling: the best this hardware can do.
PEAK_SPARSE = {"mma_sp": 965e12, "mma_sp_bulk": 965e12, "mma_sp_decode": 965e12, "wgmma_sp": 1600e12}
PEAK_SPARSE_DEFAULT = 1600e12
BASELINE_PATHS = ("dense", "cslt", "cslt_best")
# Paths offered by the kernels package but timed only when --paths names them.
OPT_IN_PATHS = {"reference": "the PyTorch oracle (unpack + fp32 matmul): slow, and every row is checked against fp32 anyway",
                "wgmma_sp_as_2_4": "V:2:M (M % 4 == 0) run as plain 2:4 with X by TMA: an experiment for small M",
                "mma_sp_decode": "the one-launch decode kernel at any T <= 64 (`auto` runs it where it wins: T <= 8, "
                                  "T <= 16 on few rows at M >= 8; plain 2:4 only where X cannot be read by TMA)",
                "auto_xt": "vnmsparse.spmm on X stored feature-major (a [T, K] view of a [K, T] tensor): no X^T "
                           "transpose, the operand layout the original Spatha takes (its B = X^T)",
                "auto_tuned": "vnmsparse.spmm with VNM_AUTOTUNE on (the choices cached in the kernel cache's "
                              "autotune.json; clear it with `vnmsparse cache clear` to tune again)",
                "mma_sp_xt": "the mma_sp path on X stored feature-major: issue 3's kernel on the original Spatha's "
                             "terms (no X^T transpose; the issue's targets count it, on a row-major X)"}

# Original Spatha (UDC-GAC/venom, kernel unmodified, fp16, best valid config) on one H200, CUDA
# 13.0: speedup over cuBLAS fp16. Source: shared/reference/venom.md section 7. Key (R, K, T).
SPATHA_H200 = {
    (1024, 4096, 4096): {"cublas_us": 45.3, "128:2:4": 0.38, "128:2:8": 0.68, "128:2:16": 1.29, "128:2:32": 2.32,
                         "128:2:64": 3.83, "128:2:128": 5.61, "64:2:8": 0.59, "64:2:16": 1.09, "32:2:8": 0.41},
    (4096, 1024, 4096): {"cublas_us": 51.8, "128:2:4": 0.40, "128:2:8": 0.72, "128:2:16": 1.22, "128:2:32": 1.87,
                         "128:2:64": 2.48, "128:2:128": 2.98, "64:2:8": 0.65, "64:2:16": 1.14, "32:2:8": 0.51},
    (4096, 4096, 4096): {"cublas_us": 182.2, "128:2:4": 0.38, "128:2:8": 0.69, "128:2:16": 1.26, "128:2:32": 2.32,
                         "128:2:64": 3.88, "128:2:128": 5.65, "64:2:8": 0.64, "64:2:16": 1.17, "32:2:8": 0.49},
    (8192, 8192, 8192): {"cublas_us": 1747.0, "128:2:4": 0.45, "128:2:8": 0.84, "128:2:16": 1.67, "128:2:32": 3.26,
                         "128:2:64": 6.14, "128:2:128": 10.57, "64:2:8": 0.78, "64:2:16": 1.51, "32:2:8": 0.61},
}


@dataclasses.dataclass(frozen=True)
class Target:
    """One bar of issue 3: `metric` aggregated by `agg` over the rows of `regime`, per pattern of group width m."""

    paths: tuple
    regime: str
    m: Optional[int]  # None: every pattern with m >= min_m
    metric: str
    agg: str  # "geomean" or "min"
    bar: float
    text: str
    min_m: int = 4


_HOPPER = ("wgmma_sp", "auto")  # the library's default path is held to the Hopper bars
TARGETS = [
    Target(("mma_sp",), "T>=2048", 8, "speedup", "geomean", 1.9, "mma.sp: 2:8 >= 1.9x cuBLAS"),
    Target(("mma_sp",), "T>=2048", 16, "speedup", "geomean", 3.5, "mma.sp: 2:16 >= 3.5x cuBLAS"),
    Target(("mma_sp",), "T>=2048", 32, "speedup", "geomean", 5.0, "mma.sp: 2:32 >= 5x cuBLAS"),
    Target(("mma_sp",), "T<=64", None, "speedup", "min", 1.0, "mma.sp: decode not slower than dense from 2:8 on", 8),
    Target(_HOPPER, "T>=2048", 4, "speedup", "geomean", 1.7, "Hopper: 2:4 >= 1.7x cuBLAS"),
    Target(_HOPPER, "T>=2048", 4, "speedup_vs_cslt", "geomean", 1.15, "Hopper: 2:4 >= 1.15x cuSPARSELt best"),
    Target(_HOPPER, "T>=2048", 8, "speedup", "geomean", 3.4, "Hopper: V:2:8 >= 3.4x cuBLAS"),
    Target(_HOPPER, "T>=2048", 16, "speedup", "geomean", 6.0, "Hopper: V:2:16 >= 6x cuBLAS"),
    Target(_HOPPER, "T>=2048", 32, "speedup", "geomean", 10.0, "Hopper: V:2:32 >= 10x cuBLAS"),
    Target(_HOPPER, "T>=2048", 64, "frac_roofline", "geomean", 0.8, "Hopper: 2:64 >= 80% of roofline"),
    Target(_HOPPER, "T>=2048", 128, "frac_roofline", "geomean", 0.8, "Hopper: 2:128 >= 80% of roofline"),
    Target(_HOPPER, "T<=64", None, "frac_bytes", "geomean", 0.8, "Hopper: decode >= 80% of the weight-byte ceiling"),
]
REGIMES = {"T<=64": lambda t: t <= 64, "128<=T<=1024": lambda t: 128 <= t <= 1024, "T>=2048": lambda t: t >= 2048}

COLUMNS = [
    "shape", "R", "K", "T", "pattern", "v", "m", "path", "status", "t_us", "t_p10_us", "t_p90_us", "spread_pct",
    "wall_us", "speedup", "speedup_vs_cslt", "speedup_wall", "tflops", "frac_ideal", "frac_roofline", "frac_bytes",
    "weight_bytes", "weight_ratio", "weight_TBps", "rel_err", "method", "n_sets", "rot_MB", "calls", "reps",
    "first_ms", "sm_MHz", "sus_us", "sus_MHz", "sus_W", "sus_mJ", "sus_speedup", "note",
]
TEXT_COLUMNS = {"shape", "pattern", "path", "status", "method", "note"}

REL_TOL = 1e-2  # bf16/fp16 output vs fp32 reference; cuSPARSELt gives ~3e-4
MIN_REPS = 5  # floor when --max-path-seconds shortens a slow path's repetitions
MIN_REPLAY_S = 200e-6  # a replay this long makes event overhead (~us) negligible
WALL_TARGET_S = 0.05
# For the run-time estimate only: host cost of one eager call (performance.md section 2.3), fixed
# costs per config and per timed path (graph capture syncs, checks), a modest vnmsparse kernel rate.
HOST_S = {"dense": 15e-6, "cslt": 700e-6, "vnm": 100e-6}
PER_CONFIG_S, PER_PATH_S, VNM_RATE = 0.03, 0.015, 400e12
DEFAULT_PEAK_DENSE, DEFAULT_BW = 787e12, 4.26e12  # H200 (performance.md), until measured


# ============================================================================================
# Grid selection


@dataclasses.dataclass(frozen=True)
class Shape:
    name: str
    r: int
    k: int
    tokens: tuple


def select_shapes(spec: str, tokens: tuple, table=SHAPES) -> list[Shape]:
    """'llama7b,bert' (groups), 'llama7b.gate_up' (one layer) or '4096x1024' (ad hoc), comma-separated."""
    out = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        group, _, layer = item.partition(".")
        if group in table and (not layer or layer in table[group]):
            layers = [layer] if layer else list(table[group])
            allowed = GROUP_TOKENS.get(group)
            toks = tuple(t for t in tokens if allowed is None or t in allowed)
            out += [Shape(f"{group}.{name}", *table[group][name], toks) for name in layers]
        elif "x" in item and all(p.isdigit() for p in item.split("x")) and item.count("x") == 1:
            r, k = (int(p) for p in item.split("x"))
            out.append(Shape(item, r, k, tokens))
        else:
            known = ", ".join(f"{g} ({', '.join(ls)})" for g, ls in table.items())
            raise ValueError(f"unknown shape {item!r}; known groups and layers: {known}; or RxK")
    return [s for s in out if s.tokens]


def select_patterns(spec: str) -> list[VNMConfig]:
    """Pattern names ('default', 'small_v', 'all') and/or patterns ('2:4', '64:2:8'), comma-separated."""
    cfgs = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        for p in PATTERN_SETS.get(item, [item]):
            cfg = VNMConfig.parse(p)
            if cfg not in cfgs:
                cfgs.append(cfg)
    return cfgs


def select_tokens(spec: str) -> tuple:
    tokens = tuple(sorted({int(t) for t in spec.split(",") if t.strip()}))
    if not tokens or tokens[0] < 1:
        raise ValueError(f"--tokens needs positive integers, got {spec!r}")
    return tokens


def pattern_name(cfg: VNMConfig) -> str:
    return "2:4" if cfg.is_2to4 else str(cfg)


# ============================================================================================
# Random V:N:M weights

# The 6 ways to keep 2 of the 4 slots.
_PAIRS = [(a, b) for a in range(COLUMNS_PER_BLOCK) for b in range(a + 1, COLUMNS_PER_BLOCK)]


def random_vnm_mask(r: int, k: int, cfg, *, device=None, generator=None) -> torch.Tensor:
    """A uniformly random V:N:M mask [r, k] (bool): per v x m block 4 random columns, then 2 of them per row.

    Fully vectorised (no search), so it is cheap on the largest layers. Ragged shapes are built
    padded and cropped, which keeps them valid V:N:M (fewer columns is allowed)."""
    cfg = VNMConfig.parse(cfg) if isinstance(cfg, str) else cfg
    rb, g = cfg.row_blocks(r), cfg.groups(k)
    # argsort of uniform noise is a uniform permutation: its first 4 entries a uniform 4-subset.
    noise = torch.rand(rb, g, cfg.m, device=device, generator=generator)
    block_cols = noise.argsort(-1)[..., :COLUMNS_PER_BLOCK]  # [RB, G, 4]
    pairs = torch.tensor(_PAIRS, device=device)
    choice = torch.randint(len(_PAIRS), (rb * cfg.v, g), device=device, generator=generator)
    rows_cols = block_cols.repeat_interleave(cfg.v, 0)  # [RB*v, G, 4]
    kept = torch.gather(rows_cols, -1, pairs[choice])  # [RB*v, G, 2]
    mask = torch.zeros(rb * cfg.v, g, cfg.m, dtype=torch.bool, device=device)
    mask.scatter_(-1, kept, True)
    return mask.view(rb * cfg.v, g * cfg.m)[:r, :k].contiguous()


def random_vnm_weight(r: int, k: int, cfg, dtype, *, device=None, generator=None) -> torch.Tensor:
    """Dense [r, k] weight with zeros outside a random V:N:M mask and N(0, 1) values (never 0) inside."""
    w = torch.randn(r, k, dtype=dtype, device=device, generator=generator)
    w.masked_fill_(w == 0, 1.0)  # a stored zero would make the sparse side look faster
    return w.masked_fill_(~random_vnm_mask(r, k, cfg, device=device, generator=generator), 0.0)


def _clone_tree(obj):
    """Deep copy of the tensors in nested tuples/lists/dicts/dataclasses; anything else is shared."""
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, dict):
        return {k: _clone_tree(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_clone_tree(v) for v in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_clone_tree(v) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: _clone_tree(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init})
    return obj


def _tree_nbytes(obj) -> int:
    return sum(t.numel() * t.element_size() for t in jit.tensors_in(obj))


def clone_vnm(vw: VNMWeight) -> VNMWeight:
    """A copy of vw in new memory, including the kernel layouts already built on it.

    Copying the built layouts (a private cache of VNMWeight) saves rebuilding them for every
    rotation copy; a layout not cached there is simply rebuilt by the copy's first call."""
    parts = [None if t is None else t.clone() for t in (vw.values, vw.positions, vw.columns)]
    copy = VNMWeight._trusted(*parts, vw.shape, vw.cfg)
    copy._layouts = jit.settle(_clone_tree(getattr(vw, "_layouts", {})))  # as the originals (jit.settle)
    return copy


def resident_bytes(vw: VNMWeight) -> int:
    """Canonical parts plus cached kernel layouts: what a rotation copy occupies."""
    return vw.nbytes + _tree_nbytes(getattr(vw, "_layouts", {}))


class Copies:
    """Rotation copies of one weight, made on demand (copy 0 is the original)."""

    def __init__(self, original, clone=lambda t: t.clone()):
        self.items, self.clone = [original], clone

    def get(self, n: int) -> list:
        while len(self.items) < n:
            self.items.append(self.clone(self.items[0]))
        return self.items[:n]


# ============================================================================================
# Timing


@dataclasses.dataclass
class Timing:
    median_us: float
    p10_us: float
    p90_us: float
    wall_us: float
    method: str
    n_sets: int
    calls: int
    reps: int
    first_ms: float
    sm_mhz: float = math.nan  # median SM clock during the timed repetitions (SmClockMonitor)
    # --sustain: us a call, median SM clock and board power with the path replayed alone for seconds
    sus_us: float = math.nan
    sus_mhz: float = math.nan
    sus_w: float = math.nan


@dataclasses.dataclass
class Prepared:
    """A path ready to time: run(j) makes one repetition of `calls` calls (a graph replay on a GPU)."""
    run: Callable
    call: Callable
    calls: int
    n_sets: int
    reps: int
    first_s: float
    est_s: float
    method: str


def _percentile(xs: list, q: float) -> float:
    xs = sorted(xs)
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _timing(per_call_s: list, wall_s: float, method, n_sets, calls, reps, first_s, sm_mhz=math.nan) -> Timing:
    us = [t * 1e6 for t in per_call_s]
    return Timing(statistics.median(us), _percentile(us, 0.1), _percentile(us, 0.9), wall_s * 1e6, method,
                  n_sets, calls, reps, first_s * 1e3, sm_mhz)


class SmClockMonitor:
    """The GPU's SM clock (and power draw), sampled in the background: one ``nvidia-smi ... -lms``
    process streams a sample every ``period_ms`` into lists that :meth:`median` and
    :meth:`median_watts` read for a time window (``time.perf_counter`` seconds). Without nvidia-smi
    every median is NaN."""

    def __init__(self, gpu_id: str, period_ms: int = 20, popen=subprocess.Popen):
        self.times: list = []
        self.mhz: list = []
        self.watts: list = []
        self.proc = None
        query = ["nvidia-smi", f"--id={gpu_id}", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                 "-lms", str(period_ms)]
        try:
            self.proc = popen(query, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, lines) -> None:
        for line in lines:
            fields = line.split(",")
            try:
                mhz = float(fields[0])
            except ValueError:
                continue  # "[N/A]" or a partial line
            try:
                watts = float(fields[1])
            except (IndexError, ValueError):
                watts = math.nan
            self.watts.append(watts)  # (before times: a reader sees no time without its values)
            self.mhz.append(mhz)
            self.times.append(time.perf_counter())

    def median(self, t0: float, t1: float) -> float:
        """Median clock sampled in [t0, t1]; a window shorter than the period gets the last sample
        before t1; NaN when there is none."""
        return self._median(self.mhz, t0, t1)

    def median_watts(self, t0: float, t1: float) -> float:
        """Median power draw in [t0, t1], as :meth:`median`."""
        return self._median(self.watts, t0, t1)

    def _median(self, values: list, t0: float, t1: float) -> float:
        import bisect

        n = len(self.times)  # the reader only appends: a consistent prefix
        lo, hi = bisect.bisect_left(self.times, t0, 0, n), bisect.bisect_right(self.times, t1, 0, n)
        if hi > lo:
            return statistics.median(values[lo:hi])
        return values[hi - 1] if hi > 0 else math.nan

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()


def sustained(replay: Callable[[], None], seconds: float, sync: Callable[[], None],
              monitor: Optional[SmClockMonitor] = None) -> tuple[float, float, float]:
    """(seconds a replay, median SM MHz, median W) of replay() run back to back for about `seconds`:
    the regime of a GPU kept busy, where the board's power limit sets the clock and a call's time is
    its energy over the limit (NOTES v311-v313). The first third is left out of the medians (the
    limiter's response); the host syncs about every 50 ms of work, which bounds the queue."""
    sync()
    t0 = time.perf_counter()
    replay()
    sync()
    per_sync = max(1, math.ceil(0.05 / max(time.perf_counter() - t0, 1e-7)))
    start, reps = time.perf_counter(), 0
    while True:
        for _ in range(per_sync):
            replay()
        reps += per_sync
        sync()
        end = time.perf_counter()
        if end - start >= seconds:
            break
    settled = start + (end - start) / 3
    if monitor is None:
        return (end - start) / reps, math.nan, math.nan
    return (end - start) / reps, monitor.median(settled, end), monitor.median_watts(settled, end)


class Clock:
    """Times `call(i)` (i = rotation set) on the CPU with time.perf_counter; CudaClock overrides."""

    method = "cpu"
    monitor: Optional[SmClockMonitor] = None

    def __init__(self, device: torch.device):
        self.device = device

    def sync(self):
        pass

    def _first_and_warm(self, call, n_sets):
        t0 = time.perf_counter()
        call(0)  # JIT compile, lazy kernel layouts: reported as first_ms, never in the timings
        self.sync()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(n_sets):  # >= 3 warm-up calls, one per set: every copy is initialised
            call(i)
        self.sync()
        return first, (time.perf_counter() - t0) / n_sets

    def _wall(self, call, n_sets, est):
        calls = min(max(3, n_sets), max(3, int(WALL_TARGET_S / max(est, 1e-9))))
        self.sync()
        t0 = time.perf_counter()
        for j in range(calls):
            call(j % n_sets)
        self.sync()
        return (time.perf_counter() - t0) / calls

    def prepare(self, call, n_sets: int, reps: int, max_s: float) -> Prepared:
        first, est = self._first_and_warm(call, n_sets)
        reps = max(MIN_REPS, min(reps, int(max_s / max(est, 1e-9))))
        return Prepared(lambda j: call(j % n_sets), call, 1, n_sets, reps, first, est, self.method)

    def _time_one(self, p: Prepared, j: int) -> Callable[[], float]:
        """Run repetition j of p; returns what gives its seconds once the device is synced."""
        t0 = time.perf_counter()
        p.run(j)
        seconds = time.perf_counter() - t0
        return lambda: seconds

    def _mhz(self, t0: float, t1: float) -> float:
        return math.nan

    def time_group(self, preps: list) -> tuple[list, float]:
        """Per-call seconds of every repetition of each prepared path, the paths taking turns
        repetition by repetition (so each sees the same clock and temperature), and the median SM
        clock meanwhile."""
        pending = [[] for _ in preps]
        t0 = time.perf_counter()
        for j in range(max((p.reps for p in preps), default=0)):
            for p, out in zip(preps, pending):
                if j < p.reps:
                    out.append(self._time_one(p, j))
        self.sync()
        mhz = self._mhz(t0, time.perf_counter())
        return [[seconds() / p.calls for seconds in out] for p, out in zip(preps, pending)], mhz

    def measure_group(self, items: list, reps: int, max_s: float, sustain_s: float = 0.0) -> list:
        """Timing (or the exception it raised) of each (call, n_sets) in `items`, timed in turns; then,
        with `sustain_s`, each replayed alone for that long (:func:`sustained`)."""
        out = []
        for call, n_sets in items:
            try:
                out.append(self.prepare(call, n_sets, reps, max_s))
            except Exception as e:  # noqa: BLE001 - the path's row reports it
                out.append(e)
        ready = [i for i, p in enumerate(out) if isinstance(p, Prepared)]
        try:
            per, mhz = self.time_group([out[i] for i in ready])
        except Exception:  # noqa: BLE001 - a path failed mid-run: time each alone, so only it is lost
            per, mhz = [], math.nan
            for i in ready:
                try:
                    per.append(self.time_group([out[i]])[0][0])
                except Exception as e:  # noqa: BLE001
                    per.append(e)
        for i, times in zip(ready, per):
            p = out[i]
            try:
                if isinstance(times, Exception):
                    raise times
                out[i] = _timing(times, self._wall(p.call, p.n_sets, p.est_s), p.method, p.n_sets, p.calls, p.reps,
                                 p.first_s, mhz)
                if sustain_s > 0:
                    replay_s, sus_mhz, sus_w = sustained(lambda p=p: p.run(0), sustain_s, self.sync, self.monitor)
                    out[i] = dataclasses.replace(out[i], sus_us=replay_s / p.calls * 1e6, sus_mhz=sus_mhz, sus_w=sus_w)
            except Exception as e:  # noqa: BLE001
                out[i] = e
        return out

    def measure(self, call, n_sets: int, reps: int, max_s: float) -> Timing:
        timing = self.measure_group([(call, n_sets)], reps, max_s)[0]
        if isinstance(timing, Exception):
            raise timing
        return timing


class CudaClock(Clock):
    """CUDA-graph replay of N rotating calls, CUDA events per replay; eager events if capture fails."""

    method = "graph"

    def __init__(self, device: torch.device, monitor: Optional[SmClockMonitor] = None):
        super().__init__(device)
        self.side = torch.cuda.Stream(device)
        self.monitor = monitor

    def sync(self):
        torch.cuda.synchronize(self.device)

    def prepare(self, call, n_sets: int, reps: int, max_s: float) -> Prepared:
        stream = torch.cuda.current_stream(self.device)
        self.side.wait_stream(stream)
        with torch.cuda.stream(self.side):  # warm up off the default stream, as graph capture expects
            first, est = self._first_and_warm(call, n_sets)
        stream.wait_stream(self.side)
        # N: a multiple of n_sets (each copy equally often), long enough to dwarf event overhead and the replay's
        # start (its first call chains to nothing). est is eager, host-bound for short calls (~40 us a call where
        # the GPU takes 5), so the first graph is timed on the GPU and recaptured longer if short (v295: replays of
        # 6 decode calls cost the first vnmsparse path 4-5%)
        n, method = n_sets * max(1, math.ceil(MIN_REPLAY_S / (n_sets * max(est, 1e-7)))), "graph"
        try:
            graph = self._capture(call, n, n_sets)
            graph.replay()  # the first replay also uploads the graph
            gpu_s = self._replay_seconds(graph.replay)
            if gpu_s < MIN_REPLAY_S:
                n *= min(64, math.ceil(MIN_REPLAY_S / max(gpu_s, 1e-7)))  # (an empty graph: a bounded capture)
                graph.reset()
                graph = self._capture(call, n, n_sets)
                graph.replay()
            run = lambda j: graph.replay()
        except Exception as e:  # not capturable (host sync, foreign stream...): time it eagerly
            graph = None
            self.sync()
            method = f"events ({type(e).__name__}: {e}".splitlines()[0][:120] + ")"

            def run(_):
                for j in range(n):
                    call(j % n_sets)
            run(0)
        self.sync()
        t0 = time.perf_counter()
        run(0)
        self.sync()
        reps = max(MIN_REPS, min(reps, int(max_s / max(time.perf_counter() - t0, 1e-9))))
        return Prepared(run, call, n, n_sets, reps, first, est, method)

    @staticmethod
    def _capture(call, n: int, n_sets: int):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for j in range(n):
                call(j % n_sets)
        return graph

    def _replay_seconds(self, replay) -> float:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        replay()
        end.record()
        self.sync()
        return start.elapsed_time(end) * 1e-3

    def _time_one(self, p: Prepared, j: int) -> Callable[[], float]:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        p.run(j)
        end.record()
        return lambda: start.elapsed_time(end) * 1e-3

    def _mhz(self, t0: float, t1: float) -> float:
        return self.monitor.median(t0, t1) if self.monitor is not None else math.nan


def make_clock(device: torch.device) -> Clock:
    if device.type != "cuda":
        return Clock(device)
    return CudaClock(device, SmClockMonitor(smi_id(device)))


# ============================================================================================
# Paths


def _on_feature_major(fn):
    """The same call, timed on X stored feature-major (bench_config reads the flag)."""
    fm = functools.partial(fn)
    fm.feature_major = True
    return fm


def vnm_paths(device: torch.device) -> tuple[dict, str]:
    """name -> fn(x, vw, bias=None): 'auto' (vnmsparse.spmm) and every path the kernels package offers."""
    def auto(x, vw, bias=None):
        return vnmsparse.spmm(x, vw, bias)

    paths, note = {"auto": auto, "auto_xt": _on_feature_major(auto)}, ""
    try:
        kernels = importlib.import_module("vnmsparse.kernels")
        offered = getattr(kernels, "spmm_paths", None)
        if offered is None:
            note = "vnmsparse.kernels.spmm_paths not defined yet: only 'auto'"
        else:
            paths.update(offered(device))
            if "mma_sp" in paths:
                paths["mma_sp_xt"] = _on_feature_major(paths["mma_sp"])
            autotune = importlib.import_module("vnmsparse.kernels.autotune")

            def auto_tuned(x, vw, bias=None):
                with autotune.forced():  # (tuned in the warm-up calls; the graph replays the choice)
                    return vnmsparse.spmm(x, vw, bias)

            paths["auto_tuned"] = auto_tuned
    except Exception as e:  # a broken kernels package must not stop the baselines
        note = f"vnmsparse.kernels.spmm_paths failed ({type(e).__name__}: {e}): only 'auto'"
    return paths, note


def _cslt_mm(wc, xt, alg):
    alg_id, split_k, mode = alg
    if split_k == 1 and mode is None:
        return torch._cslt_sparse_mm(wc, xt, alg_id=alg_id)
    # Positional: the last argument is split_k_mode (int) or split_k_one_kernel (bool) by version.
    return torch._cslt_sparse_mm(wc, xt, None, None, None, False, alg_id, split_k, mode)


def cslt_search(wc, xt) -> Optional[tuple]:
    """cuSPARSELt's own choice (alg_id, split_k, mode) for this problem, if this torch can ask."""
    cusparselt = getattr(torch._C, "_cusparselt", None)
    if cusparselt is not None and hasattr(cusparselt, "mm_search"):
        alg_id, split_k, mode, *_ = cusparselt.mm_search(wc, xt, None, None, None, False)
        return int(alg_id), int(split_k), mode
    if hasattr(torch, "_cslt_sparse_mm_search"):
        return int(torch._cslt_sparse_mm_search(wc, xt)), 1, None
    return None


def cslt_unavailable(device: torch.device) -> str:
    if device.type != "cuda":
        return "cuSPARSELt needs CUDA"
    if not (torch.backends.cusparselt.is_available() and hasattr(torch, "_cslt_sparse_mm")):
        return "cuSPARSELt not available in this torch build"
    return ""


# ============================================================================================
# Environment and ceilings


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _run(cmd: list, cwd=None) -> str:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=20, check=True).stdout.strip()
    except Exception:
        return ""


def source_hash() -> str:
    """sha256 (12 hex) of the package's sources: identifies the code even where .git is absent."""
    digest = hashlib.sha256()
    root = Path(vnmsparse.__file__).resolve().parent
    for f in sorted(root.rglob("*")):
        if f.suffix in (".py", ".cu", ".cuh") and "__pycache__" not in f.parts:
            digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def git_commit() -> str:
    here = Path(__file__).resolve().parent
    commit = _run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here)
    if not commit:
        return "unknown (no git checkout)"
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here)
    return commit + (" + uncommitted changes" if dirty else "")


def smi_id(device: torch.device) -> str:
    """nvidia-smi's --id for a torch device: its UUID (CUDA_VISIBLE_DEVICES renumbers indices)."""
    uuid = getattr(torch.cuda.get_device_properties(device), "uuid", None)
    return f"GPU-{uuid}" if uuid else str(device.index or 0)


def nvidia_smi(device: torch.device) -> dict:
    """GPU name, driver, current/max SM clock and power limit, as nvidia-smi reports them now."""
    fields = ["name", "driver_version", "clocks.sm", "clocks.max.sm", "power.limit"]
    query = ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader"]
    out = _run(query + [f"--id={smi_id(device)}"])
    out = out or _run(query + [f"--id={device.index or 0}"])
    if not out:
        return {f: "nvidia-smi unavailable" for f in fields}
    return dict(zip(fields, (v.strip() for v in out.splitlines()[0].split(","))))


def collect_env(device: torch.device, args) -> dict:
    env = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": "vnmsparse bench " + " ".join(args.argv),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch CUDA": str(torch.version.cuda),
        "cuSPARSELt": str(torch.backends.cusparselt.version()) if torch.backends.cusparselt.is_available() else "unavailable",
        "triton": next((v for v in map(_version, ("triton", "pytorch-triton")) if v != "not installed"), "not installed"),
        "cuda-core": _version("cuda-core"),
        "nvidia-cuda-nvrtc": _version("nvidia-cuda-nvrtc"),
        "vnmsparse": vnmsparse.__version__,
        "git": git_commit(),
        "source sha256": source_hash(),
        "device": str(device),
        "dtype": str(args.dtype).replace("torch.", ""),
    }
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        env.update({f"gpu {k}": v for k, v in nvidia_smi(device).items()})
        env["gpu props"] = (f"{p.name}, sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
                            f"L2 {getattr(p, 'L2_cache_size', 0) / 2**20:.0f} MiB, {p.total_memory / 2**30:.0f} GiB")
    else:
        env["cpu"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} threads"
    return env


@dataclasses.dataclass
class Ceilings:
    dense_flops: float  # cuBLAS on an n^3 GEMM, FLOP/s
    copy_bw: float  # device-to-device copy, bytes/s counting read + write
    n: int
    copy_bytes: int


def measure_ceilings(clock: Clock, device: torch.device, dtype) -> Ceilings:
    """Re-measured each run: cuBLAS n^3 GEMM (n=8192) and a 2 GiB copy by an SM kernel (read + write counted)."""
    gpu = device.type == "cuda"
    n, nbytes = (8192, 2 << 30) if gpu else (512, 64 << 20)
    a, b = (torch.randn(n, n, dtype=dtype, device=device) for _ in range(2))
    t_mm = clock.measure(lambda i: F.linear(a, b), 3, 10, 1.0).median_us * 1e-6
    # An elementwise kernel, not copy_: a copy captured in a CUDA graph becomes a memcpy node that
    # the copy engines may run (grid v24: 2.7 TB/s on the H200, where SM-driven copies reach ~4.3).
    src = torch.ones(nbytes // 2, dtype=torch.float16, device=device)
    dst = torch.empty_like(src)
    t_copy = clock.measure(lambda i: torch.neg(src, out=dst), 3, 10, 1.0).median_us * 1e-6
    return Ceilings(2 * n**3 / t_mm, 2 * nbytes / t_copy, n, nbytes)


# ============================================================================================
# Metrics


def roofline_s(t: int, r: int, k: int, m_eff: int, peak: float, weight_bytes: int, bw: float, elt: int) -> float:
    """Lower bound on the time: sparse tensor work at the path's instruction ceiling, or the minimum bytes."""
    compute = 2 * t * r * k * (COLUMNS_PER_BLOCK / m_eff) / peak
    memory = (weight_bytes + elt * t * k + elt * t * r) / bw
    return max(compute, memory)


def path_peak(path: str, ceil: Ceilings) -> tuple[float, Optional[int]]:
    """(dense-equivalent FLOP/s ceiling, effective m) for a path; m None = the pattern's own m."""
    if path == "dense":
        return ceil.dense_flops, COLUMNS_PER_BLOCK
    if path.startswith("cslt"):
        return PEAK_SPARSE_DEFAULT, COLUMNS_PER_BLOCK  # cuSPARSELt exploits 2:4 only
    return PEAK_SPARSE.get(path, PEAK_SPARSE_DEFAULT), None


def make_row(sh: Shape, t: int, cfg: VNMConfig, path: str, timing: Optional[Timing], status: str, note: str,
             rel_err: float, weight_bytes: int, rot_bytes: int, elt: int) -> dict:
    row = dict.fromkeys(COLUMNS, math.nan)
    row.update(shape=sh.name, R=sh.r, K=sh.k, T=t, pattern=pattern_name(cfg), v=math.nan if cfg.is_2to4 else cfg.v,
               m=cfg.m, path=path, status=status, note=" ".join(note.split()), rel_err=rel_err, weight_bytes=weight_bytes,
               weight_ratio=weight_bytes / (elt * sh.r * sh.k), method="", rot_MB=rot_bytes / 1e6)
    if timing is not None:
        row.update(t_us=timing.median_us, t_p10_us=timing.p10_us, t_p90_us=timing.p90_us,
                   spread_pct=100 * (timing.p90_us - timing.p10_us) / timing.median_us, wall_us=timing.wall_us,
                   tflops=2 * t * sh.r * sh.k / (timing.median_us * 1e-6) / 1e12,
                   weight_TBps=weight_bytes / (timing.median_us * 1e-6) / 1e12, method=timing.method,
                   n_sets=timing.n_sets, calls=timing.calls, reps=timing.reps, first_ms=timing.first_ms,
                   sm_MHz=timing.sm_mhz, sus_us=timing.sus_us, sus_MHz=timing.sus_mhz, sus_W=timing.sus_w,
                   sus_mJ=timing.sus_us * timing.sus_w * 1e-3)
    return row


def add_speedups(row: dict, dense: Optional[dict], cslt_best_us: float, ceil: Ceilings, gpu: bool, elt: int) -> None:
    """Fill the columns relative to the same config's dense row and the (shape, T) cuSPARSELt best."""
    if row["status"] != "ok" or dense is None or dense["status"] != "ok":
        return  # FAIL/error rows, or no valid baseline: no speedups (they would mislead)
    t, r, k, m = row["T"], row["R"], row["K"], row["m"]
    row["speedup"] = dense["t_us"] / row["t_us"]
    row["speedup_wall"] = dense["wall_us"] / row["wall_us"]
    row["speedup_vs_cslt"] = cslt_best_us / row["t_us"]
    row["sus_speedup"] = dense["sus_us"] / row["sus_us"]  # (NaN without --sustain)
    peak, m_eff = path_peak(row["path"], ceil)
    m_eff = m_eff or m
    if row["path"] != "dense":
        row["frac_ideal"] = row["speedup"] / (m_eff / N_KEPT_PER_ROW)
        xy = elt * t * (k + r)
        row["frac_bytes"] = row["speedup"] / ((elt * r * k + xy) / (row["weight_bytes"] + xy))
    if gpu:  # the instruction ceilings are an H200's; meaningless elsewhere
        floor = roofline_s(t, r, k, m_eff, peak, row["weight_bytes"], ceil.copy_bw, elt)
        row["frac_roofline"] = floor / (row["t_us"] * 1e-6)


# ============================================================================================
# The run


class Budget:
    """Stops adding configs once the estimated next one would overrun `limit` seconds."""

    def __init__(self, limit: Optional[float]):
        self.limit, self.start, self.factor, self.skipped = limit, time.perf_counter(), 1.0, 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def allows(self, estimate: float) -> bool:
        """True if a config estimated at `estimate` s still fits; counts the ones that do not."""
        ok = self.limit is None or self.elapsed() + self.factor * estimate <= self.limit
        self.skipped += not ok
        return ok

    def learn(self, estimate: float, actual: float) -> None:
        # Geometric running mean of actual/estimate: the cost model only needs to be proportional.
        ratio = min(20.0, max(0.05, actual / max(estimate, 1e-6)))
        self.factor = math.sqrt(self.factor * ratio)


def n_sets_for(bytes_per_call: int, l2_bytes: int, max_sets: int) -> int:
    """Rotation copies so that their total exceeds 2x L2 (at least 3, at most max_sets)."""
    return max(3, min(max_sets, math.ceil(2 * l2_bytes / max(bytes_per_call, 1))))


def estimate_config_s(sh: Shape, t: int, cfg: VNMConfig, n_vnm: int, baseline: bool, ceil: Ceilings,
                      reps: int, max_s: float, l2: int, max_sets: int, elt: int, gpu: bool, sustain_s: float = 0.0) -> float:
    """Rough seconds for one config (warm-up, capture, replays, wall loop, check); --dry-run and --budget.

    Proportions matter more than the scale: --budget-seconds rescales it by what configs really took.
    vnmsparse kernels are assumed at a modest VNM_RATE and 60% of the copy bandwidth."""
    flops, xy = 2 * t * sh.r * sh.k, elt * t * (sh.r + sh.k)
    dense_w = elt * sh.r * sh.k
    # (dense-equivalent FLOP/s, weight bytes, bandwidth efficiency, host seconds per eager call)
    jobs = [(ceil.dense_flops, dense_w, 1.0, HOST_S["dense"])]
    vnm_bytes = dense_w * (2 + 4 / 16) / cfg.m  # 2 values + metadata per row and group, roughly
    jobs += [(VNM_RATE * cfg.m / COLUMNS_PER_BLOCK, vnm_bytes, 0.6, HOST_S["vnm"])] * n_vnm
    if baseline:  # cuSPARSELt default, the short candidate runs, the best
        jobs += [(1.3 * ceil.dense_flops, dense_w * 0.5625, 0.4, HOST_S["cslt"])] * 3
    total = PER_CONFIG_S + flops / 40e12 if gpu else 0.01  # bookkeeping + the fp32 reference
    for flop_rate, w_bytes, bw_eff, host in jobs:
        gpu_s = max(flops / flop_rate, (w_bytes + xy) / (bw_eff * ceil.copy_bw)) + 3e-6
        n = n_sets_for(int(w_bytes + xy), l2, max_sets) if gpu else 3
        calls = n * max(1, math.ceil(MIN_REPLAY_S / (n * gpu_s)))
        r = max(MIN_REPS, min(reps, int(max_s / (calls * gpu_s))))
        warm_and_wall = (n + 1 + min(n, 20)) * max(gpu_s, host)
        total += PER_PATH_S + warm_and_wall + calls * host + (r + 2) * calls * gpu_s
    return total + sustain_s * (1 + n_vnm + (2 if baseline else 0))


@dataclasses.dataclass
class Ctx:
    args: argparse.Namespace
    device: torch.device
    dtype: torch.dtype
    clock: Clock
    ceil: Ceilings
    paths: dict
    cslt_reason: str
    l2: int
    writer: "RowWriter"
    budget: Budget
    gen: torch.Generator
    rows: list = dataclasses.field(default_factory=list)
    cslt_best_us: dict = dataclasses.field(default_factory=dict)  # (shape, T) -> us
    build_s: float = 0.0  # weight construction, all patterns
    done: int = 0
    total: int = 0

    @property
    def gpu(self) -> bool:
        return self.device.type == "cuda"

    @property
    def elt(self) -> int:
        return torch.finfo(self.dtype).bits // 8

    def n_sets(self, bytes_per_call: int) -> int:
        return n_sets_for(bytes_per_call, self.l2, self.args.max_sets) if self.gpu else 3

    def randn(self, *shape) -> torch.Tensor:
        return torch.randn(*shape, dtype=self.dtype, device=self.device, generator=self.gen)


class RowWriter:
    """CSV with the environment as leading '#' lines; every row flushed as soon as it is measured (and kept in
    ``rows``, its missing columns empty)."""

    def __init__(self, path: Path, env: dict, columns: tuple = COLUMNS):
        self.path, self.columns, self.rows = path, columns, []
        self.f = open(path, "w", newline="")
        for k, v in env.items():
            self.f.write(f"# {k}: {v}\n")
        self.w = csv.DictWriter(self.f, columns, lineterminator="\n")
        self.w.writeheader()
        self.f.flush()

    def comment(self, k: str, v) -> None:
        self.f.write(f"# {k}: {v}\n")
        self.f.flush()

    def write(self, row: dict) -> None:
        full = {c: row.get(c, "") for c in self.columns}
        self.rows.append(full)
        self.w.writerow({c: _fmt(v) for c, v in full.items()})
        self.f.flush()

    def close(self):
        self.f.close()


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}" if math.isfinite(v) else ""
    return "" if v is None else str(v)


def _check(out: Callable, ref: torch.Tensor, elt_dtype, device) -> tuple[float, str]:
    """(relative Frobenius error, '' or why it failed) of out() against ref (fp32)."""
    if device.type == "cuda":  # hand the output allocation a NaN-filled block: unwritten outputs show up
        torch.empty(ref.shape, dtype=elt_dtype, device=device).fill_(math.nan)
    y = out().float()
    if tuple(y.shape) != tuple(ref.shape):
        return math.nan, f"output shape {tuple(y.shape)} != {tuple(ref.shape)}"
    if not torch.isfinite(y).all():
        return math.nan, f"{int((~torch.isfinite(y)).sum())} NaN/inf outputs"
    err = ((y - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    return err, "" if err <= REL_TOL else f"rel_err {err:.2e} > {REL_TOL:g}"


def _reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """fp32 x @ w.T with TF32 off, whatever the global setting."""
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return F.linear(x.float(), w.float())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


class DeviceLost(RuntimeError):
    """The CUDA context is unusable (e.g. an illegal address): nothing more can be measured."""


@dataclasses.dataclass
class Job:
    """One path's calls at a config: timed in turns with the config's other paths."""
    path: str
    cfg: VNMConfig
    call: Callable
    check: Callable
    n_sets: int
    weight_bytes: int
    rot_bytes: int
    note: str = ""


def _measure_jobs(ctx: Ctx, sh: Shape, t: int, jobs: list, reps=None) -> list[dict]:
    """A row per job, the jobs timed together (each repetition of every path in turn, so a path
    timed after a hot one is not penalised: h200_v31 saw 3-7% for the first path after cuBLAS);
    a path's errors become its row (status 'error') and never stop the run."""
    timings = ctx.clock.measure_group([(j.call, j.n_sets) for j in jobs], reps or ctx.args.reps, ctx.args.max_path_seconds,
                                      0.0 if reps else ctx.args.sustain)  # (not cuSPARSELt's short ranking runs)
    rows = []
    for job, timing in zip(jobs, timings):
        note = job.note
        try:
            if isinstance(timing, Exception):
                raise timing
            err, why = job.check()
            status = "ok" if not why else "FAIL"
            note = "; ".join(filter(None, [note, why]))
        except Exception as e:  # noqa: BLE001
            timing, err, status = None, math.nan, "error"
            note = "; ".join(filter(None, [note, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]]))
            device_alive(ctx.device, f"{job.path} at {sh.name} T={t} {pattern_name(job.cfg)}", e)
        rows.append(make_row(sh, t, job.cfg, job.path, timing, status, note, err, job.weight_bytes, job.rot_bytes, ctx.elt))
    return rows


def cslt_jobs(ctx: Ctx, sh: Shape, t: int, compressed: Copies, x_check, ref) -> tuple[list, str]:
    """cuSPARSELt's jobs at (shape, T): 'cslt' (alg_id 0) and, where another algorithm ranks
    faster on short runs, that one as 'cslt_best'; and the search's note. Measured once per
    (shape, T) and shared by every pattern. `compressed` holds copies of the compressed 2:4 weight
    whose fp32 product with x_check is ref."""
    cfg, elt = VNMConfig.parse("2:4"), ctx.elt
    tp = max(8, -(-t // 8) * 8)  # cuSPARSELt rejects a dense operand with 1 column (T=1): pad to 8
    note = f"T padded {t}->{tp}" if tp != t else ""
    wbytes = compressed.items[0].numel() * compressed.items[0].element_size()
    n = ctx.n_sets(wbytes + elt * tp * (sh.k + sh.r))
    xts = [F.pad(ctx.randn(t, sh.k), (0, 0, 0, tp - t)).t() for _ in range(n)]  # [K, Tp] views, as in the brief
    wcs = compressed.get(n)
    xt_check = F.pad(x_check, (0, 0, 0, tp - t)).t()

    def job(name, alg, sets=n, extra=""):
        call = lambda i: _cslt_mm(wcs[i], xts[i], alg)
        # The output is Y^T [R, Tp]: compare its first T columns, transposed.
        check = lambda: _check(lambda: _cslt_mm(wcs[0], xt_check, alg)[:, :t].t(), ref, ctx.dtype, ctx.device)
        rot = (wbytes + elt * tp * (sh.k + sh.r)) * sets
        return Job(name, cfg, call, check, sets, wbytes, rot, "; ".join(filter(None, [note, extra])))

    candidates, search_note = [], ""
    try:
        found = cslt_search(wcs[0], xt_check)
        if found:
            candidates.append(found)
            search_note = f"search chose alg_id={found[0]} split_k={found[1]}"
    except Exception as e:  # noqa: BLE001
        search_note = f"search failed: {type(e).__name__}"
    candidates += [(a, 1, None) for a in (1, 2, 3) if not any(c[:2] == (a, 1) for c in candidates)]
    # Rank the candidates on short runs (<= 8 sets, MIN_REPS); the winner is timed with the group.
    quick = []
    for alg in candidates:
        row = _measure_jobs(ctx, sh, t, [job("cslt_best", alg, sets=min(n, 8))], reps=MIN_REPS)[0]
        if row["status"] == "ok":
            quick.append((row["t_us"], alg))
    jobs = [job("cslt", (0, 1, None), extra="alg_id=0")]
    if quick and min(quick)[1] != (0, 1, None):
        alg = min(quick)[1]
        jobs.append(job("cslt_best", alg, extra=f"alg_id={alg[0]} split_k={alg[1]}"))
    return jobs, "; ".join(filter(None, [search_note, f"{len(quick)}/{len(candidates)} other algs ran"]))


def cslt_best_row(ctx: Ctx, sh: Shape, t: int, default: dict, best: Optional[dict], note: str) -> dict:
    """The 'cslt_best' row: the ranked winner where it beat alg_id 0 in the group, else alg_id 0."""
    if best is None or best["status"] != "ok" or (default["status"] == "ok" and best["t_us"] >= default["t_us"]):
        best = default
    best = dict(best, path="cslt_best", note="; ".join(filter(None, [best["note"], note])))
    if best["status"] == "ok":
        ctx.cslt_best_us[(sh.name, t)] = best["t_us"]
    return best


def bench_config(ctx: Ctx, sh: Shape, t: int, cfg: VNMConfig, w: torch.Tensor, dense: Copies,
                 vws: Optional[Copies], cslt: Optional[Copies], baseline: bool) -> list[dict]:
    """dense and every vnm path at one (shape, T, pattern), plus cuSPARSELt (copies `cslt`) when
    `baseline`: all timed in one group (measure_group)."""
    elt, skipped = ctx.elt, {}
    xy = elt * t * (sh.k + sh.r)
    dense_bytes = elt * sh.r * sh.k
    x_check = ctx.randn(t, sh.k)  # fresh: never one the timed calls saw
    ref = _reference(x_check, w)
    n_dense = ctx.n_sets(dense_bytes + xy)
    n_vnm = ctx.n_sets(resident_bytes(vws.items[0]) + xy) if vws else 0
    xs = [ctx.randn(t, sh.k) for _ in range(max(n_dense, n_vnm))]
    feature_major = functools.lru_cache(None)(lambda: ([x.t().contiguous().t() for x in xs], x_check.t().contiguous().t()))
    ws = dense.get(n_dense)
    jobs = [Job("dense", cfg, lambda i: F.linear(xs[i], ws[i]), lambda: _check(lambda: F.linear(x_check, w), ref, ctx.dtype, ctx.device),
                n_dense, dense_bytes, (dense_bytes + xy) * n_dense)]
    cslt_note = ""
    if baseline and ctx.cslt_reason:
        skipped.update({p: make_row(sh, t, VNMConfig.parse("2:4"), p, None, "skip", ctx.cslt_reason, math.nan, 0, 0, elt)
                        for p in ("cslt", "cslt_best")})
    elif baseline:
        more, cslt_note = cslt_jobs(ctx, sh, t, cslt, x_check, ref)
        jobs += more
    if vws is not None:
        copies = vws.get(n_vnm)
        vbytes = vws.items[0].nbytes
        rot = (resident_bytes(vws.items[0]) + xy) * n_vnm
        for name, fn in ctx.paths.items():
            why = getattr(fn, "skip_reason", lambda t, vw: None)(t, vws.items[0])
            if why:
                skipped[name] = make_row(sh, t, cfg, name, None, "skip", why, math.nan, 0, 0, elt)
                continue
            xs_fn, x_check_fn = feature_major() if getattr(fn, "feature_major", False) else (xs, x_check)
            call = lambda i, fn=fn, xs_fn=xs_fn: fn(xs_fn[i], copies[i])
            check = lambda fn=fn, x_check_fn=x_check_fn: _check(lambda: fn(x_check_fn, copies[0]), ref, ctx.dtype, ctx.device)
            jobs.append(Job(name, cfg, call, check, n_vnm, vbytes, rot))
    measured = {row["path"]: row for row in _measure_jobs(ctx, sh, t, jobs)}
    if "cslt" in measured:
        measured["cslt_best"] = cslt_best_row(ctx, sh, t, measured["cslt"], measured.get("cslt_best"), cslt_note)
    order = ["dense", "cslt", "cslt_best", *ctx.paths]
    rows = [r for p in order for r in (measured.get(p), skipped.get(p)) if r is not None]
    dense_row = rows[0]
    for row in rows:
        add_speedups(row, dense_row, ctx.cslt_best_us.get((sh.name, t), math.nan), ctx.ceil, ctx.gpu, elt)
    return rows


def _progress(ctx: Ctx, sh: Shape, t: int, cfg: VNMConfig, rows: list) -> None:
    parts = []
    for row in rows:
        if row["status"] == "ok":
            s = "" if row["path"] == "dense" else f" {row['speedup']:.2f}x"
            parts.append(f"{row['path']} {row['t_us']:.1f}us{s}")
        else:
            parts.append(f"{row['path']} {row['status'].upper()}")
    print(f"[{ctx.done}/{ctx.total} {ctx.budget.elapsed():.0f}s] {sh.name} {sh.r}x{sh.k} T={t} {pattern_name(cfg)}: "
          + " | ".join(parts), flush=True)
    for row in rows:
        if row["status"] in ("FAIL", "error"):
            print(f"  *** {row['status'].upper()} *** {row['path']} {sh.name} T={t} {pattern_name(cfg)}: {row['note']}",
                  file=sys.stderr, flush=True)


def plan_patterns(patterns: list, want_cslt: bool) -> list:
    """2:4 first (it carries the cuSPARSELt baseline, measured even when 2:4 itself is not asked for)."""
    want_24 = any(c.is_2to4 for c in patterns)
    return ([VNMConfig.parse("2:4")] if want_24 or want_cslt else []) + [c for c in patterns if not c.is_2to4]


def fits_shape(sh: Shape, cfg: VNMConfig) -> bool:
    return sh.k % cfg.m == 0 and (cfg.is_2to4 or sh.r % cfg.v == 0)


def run_grid(ctx: Ctx, shapes: list, patterns: list) -> None:
    """Loop shape -> pattern -> T, so each weight is built once and its rotation copies reused."""
    want_cslt = "cslt" in ctx.args.path_set
    want_24 = any(c.is_2to4 for c in patterns)
    for sh in shapes:
        for cfg in plan_patterns(patterns, want_cslt):
            if not fits_shape(sh, cfg):
                print(f"skip {sh.name} {pattern_name(cfg)}: R % v or K % m != 0")
                continue
            vnm = not cfg.is_2to4 or want_24  # 2:4 only for the baseline: no vnmsparse rows
            baseline = cfg.is_2to4 and want_cslt
            weights = None
            for t in sh.tokens:
                est = estimate_config_s(sh, t, cfg, len(ctx.paths) if vnm else 0, baseline, ctx.ceil, ctx.args.reps,
                                        ctx.args.max_path_seconds, ctx.l2, ctx.args.max_sets, ctx.elt, ctx.gpu,
                                        ctx.args.sustain)
                if not ctx.budget.allows(est):
                    continue
                t0, build_s = time.perf_counter(), 0.0
                try:
                    if weights is None:
                        weights = _build_weights(ctx, sh, cfg, vnm, baseline)
                        build_s = weights["seconds"]
                        ctx.build_s += build_s
                        print(f"  weights {sh.name} {pattern_name(cfg)}: {weights['seconds']:.2f} s "
                              "(mask, pack, compress, first calls)", flush=True)
                    rows = bench_config(ctx, sh, t, cfg, weights["w"], weights["dense"], weights["vnm"],
                                        weights["cslt"], baseline)
                except DeviceLost:
                    raise
                except Exception as e:  # e.g. out of memory building a weight: this config is lost, not the run
                    rows = [make_row(sh, t, cfg, "harness", None, "error", f"{type(e).__name__}: {e}"[:300],
                                     math.nan, 0, 0, ctx.elt)]
                    device_alive(ctx.device, f"{sh.name} T={t} {pattern_name(cfg)}", e)
                ctx.budget.learn(est, time.perf_counter() - t0 - build_s)  # the model covers measuring only
                ctx.done += 1
                for row in rows:
                    ctx.writer.write(row)
                ctx.rows += rows
                _progress(ctx, sh, t, cfg, rows)
            del weights
            if ctx.gpu:
                torch.cuda.empty_cache()


def device_alive(device: torch.device, where: str, error: Exception) -> None:
    """After an error: raise DeviceLost if the CUDA context is gone (e.g. an illegal address)."""
    if device.type == "cuda":
        try:
            torch.cuda.synchronize(device)
        except Exception as lost:
            raise DeviceLost(f"{where}: {lost}") from error


def _build_weights(ctx: Ctx, sh: Shape, cfg: VNMConfig, vnm: bool, baseline: bool) -> dict:
    t0 = time.perf_counter()
    w = random_vnm_weight(sh.r, sh.k, cfg, ctx.dtype, device=ctx.device, generator=ctx.gen)
    out = {"w": w, "dense": Copies(w), "vnm": None, "cslt": None}
    if vnm:
        vw = vnmsparse.pack(w, cfg)
        # One call per path before any copy is made, so copies inherit the built kernel layouts.
        x1 = ctx.randn(1, sh.k)
        for fn in ctx.paths.values():
            try:
                fn(x1, vw)
            except Exception:
                pass  # reported by the timed run
        out["vnm"] = Copies(vw, clone_vnm)
    if baseline and not ctx.cslt_reason:
        try:
            out["cslt"] = Copies(torch._cslt_compress(w))
        except Exception as e:  # every later (shape, T) gets skip rows with this reason
            ctx.cslt_reason = f"_cslt_compress failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    ctx.clock.sync()
    out["seconds"] = time.perf_counter() - t0
    return out


# ============================================================================================
# Summary: markdown, targets, Spatha, plot


def geomean(xs) -> float:
    xs = [x for x in xs if isinstance(x, (int, float)) and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan


def _ok(rows, **eq) -> list:
    return [r for r in rows if r["status"] == "ok" and all(r[k] == v for k, v in eq.items())]


def _num(x, digits=2) -> str:
    return "-" if not isinstance(x, (int, float)) or math.isnan(x) else f"{x:.{digits}f}"


def _pattern_key(p: str):
    cfg = VNMConfig.parse(p)
    return (cfg.m, cfg.v if not cfg.is_2to4 else 0)


def summary_tables(rows: list) -> list[str]:
    paths = [p for p in dict.fromkeys(r["path"] for r in rows) if p != "dense"]
    vnm = [p for p in paths if p not in BASELINE_PATHS]
    patterns = sorted(dict.fromkeys(r["pattern"] for r in rows), key=_pattern_key)
    out = ["## Geometric-mean speedup over cuBLAS (kernel time; n = configs with a dense row)", "",
           "| pattern | regime | n | " + " | ".join(paths) + " | " + " | ".join(f"{p} vs cslt_best" for p in vnm) + " |",
           "|---|---|---|" + "---|" * (len(paths) + len(vnm))]
    for pat in patterns:
        for regime, inside in REGIMES.items():
            sel = [r for r in rows if r["pattern"] == pat and inside(r["T"])]
            n = len({(r["shape"], r["T"]) for r in sel if r["path"] == "dense"})
            if not n:
                continue
            cells = [_num(geomean(r["speedup"] for r in _ok(sel, path=p))) for p in paths]
            cells += [_num(geomean(r["speedup_vs_cslt"] for r in _ok(sel, path=p))) for p in vnm]
            out.append(f"| {pat} | {regime} | {n} | " + " | ".join(cells) + " |")
    return out


def sustained_lines(rows: list) -> list[str]:
    """With --sustain: per path, the geometric-mean speed-up over cuBLAS when each replays alone (the power
    limit's regime), and the medians of its SM clock and board power meanwhile."""
    sus = [r for r in rows if r["status"] == "ok" and math.isfinite(r["sus_us"])]
    if not sus:
        return []
    paths = list(dict.fromkeys(r["path"] for r in sus))
    out = ["## Sustained (--sustain: each path replayed alone until the power limit sets its clock)", "",
           "Speed-up over cuBLAS in that regime (geometric mean; at the power limit, the ratio of energy a call, "
           "`sus_mJ` in the CSV), then the medians of the SM clock and the board power while each path ran.", "",
           "| pattern | regime | n | " + " | ".join(paths) + " |", "|---|---|---|" + "---|" * len(paths)]
    for pat in sorted(dict.fromkeys(r["pattern"] for r in sus), key=_pattern_key):
        for regime, inside in REGIMES.items():
            sel = [r for r in sus if r["pattern"] == pat and inside(r["T"])]
            n = len({(r["shape"], r["T"]) for r in sel if r["path"] == "dense"})
            if n:
                cells = [_num(geomean(r["sus_speedup"] for r in sel if r["path"] == p)) for p in paths]
                out.append(f"| {pat} | {regime} | {n} | " + " | ".join(cells) + " |")
    out += ["", "| path | n | median MHz | median W |", "|---|---|---|---|"]
    for p in paths:
        sel = [r for r in sus if r["path"] == p]
        out.append(f"| {p} | {len(sel)} | {_num(statistics.median(r['sus_MHz'] for r in sel), 0)} "
                   f"| {_num(statistics.median(r['sus_W'] for r in sel), 0)} |")
    return out


def target_lines(rows: list) -> list[str]:
    out = ["## Issue-3 targets", "",
           "Aggregated over shapes (and T in the regime) per pattern; `auto` is held to the Hopper bars.", "",
           "| target | path | pattern | regime | measured | bar | verdict |", "|---|---|---|---|---|---|---|"]
    present = {r["path"] for r in rows}
    patterns = sorted({r["pattern"] for r in rows}, key=_pattern_key)
    for tg in TARGETS:
        for path in (p for p in tg.paths if p in present):
            for pat in patterns:
                m = VNMConfig.parse(pat).m
                if (tg.m is None and m < tg.min_m) or (tg.m is not None and m != tg.m):
                    continue
                sel = [r for r in _ok(rows, path=path, pattern=pat) if REGIMES[tg.regime](r["T"])]
                vals = [r[tg.metric] for r in sel if math.isfinite(r[tg.metric])]
                value = (geomean(vals) if tg.agg == "geomean" else min(vals)) if vals else math.nan
                verdict = "no data" if math.isnan(value) else ("PASS" if value >= tg.bar else "FAIL")
                out.append(f"| {tg.text} | {path} | {pat} | {tg.regime} | {tg.agg} {_num(value)} (n={len(vals)}) "
                           f"| {tg.bar:g} | {verdict} |")
    return out


def spatha_lines(rows: list) -> list[str]:
    out = ["## Against the original Spatha on the same GPU model", "",
           "Spatha: UDC-GAC/venom kernel unmodified, fp16, on one H200, speedup over its own cuBLAS run "
           "(shared/reference/venom.md section 7). Ratio = our speedup / Spatha's; time ratio = Spatha us / our us.", "",
           "| shape | R x K | T | pattern | path | ours | Spatha | ratio | Spatha us | our us | time ratio |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    n0 = len(out)
    for r in rows:
        ref = SPATHA_H200.get((r["R"], r["K"], r["T"]))
        key = "128:2:4" if r["pattern"] == "2:4" else r["pattern"]
        if not ref or key not in ref or r["status"] != "ok" or r["path"] == "dense":
            continue
        spatha_us = ref["cublas_us"] / ref[key]
        out.append(f"| {r['shape']} | {r['R']}x{r['K']} | {r['T']} | {r['pattern']} | {r['path']} | {_num(r['speedup'])} "
                   f"| {ref[key]:.2f} | {_num(r['speedup'] / ref[key])} | {spatha_us:.1f} | {r['t_us']:.1f} "
                   f"| {_num(spatha_us / r['t_us'])} |")
    if len(out) == n0:
        out.append("(no measured point matches: Spatha was measured at (R, K, T) = "
                   + ", ".join(f"{k}" for k in SPATHA_H200) + ")")
    return out


def problem_lines(rows: list) -> list[str]:
    bad = [r for r in rows if r["status"] in ("FAIL", "error")]
    out = [f"## Wrong-result (FAIL) / error rows: {len(bad)}", ""]
    if bad:
        out += ["**These rows are excluded from every speedup.**", "", "| shape | T | pattern | path | status | rel_err | note |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {r['shape']} | {r['T']} | {r['pattern']} | {r['path']} | **{r['status']}** | {_num(r['rel_err'], 4)} "
                f"| {r['note'].replace('|', '/')} |" for r in bad]
    skipped = {(r["path"], r["note"]) for r in rows if r["status"] == "skip"}
    if skipped:
        out += ["", "Skipped paths: " + "; ".join(f"{p} ({n})" for p, n in sorted(skipped))]
    return out


def write_markdown(path: Path, env: dict, rows: list, extra: list[str]) -> None:
    lines = [f"# vnmsparse SpMM benchmark: {path.stem}", "", "## Environment", ""]
    lines += [f"- {k}: {v}" for k, v in env.items()]
    lines += ["", *extra, ""]
    for block in (summary_tables(rows), sustained_lines(rows), target_lines(rows), spatha_lines(rows), problem_lines(rows)):
        lines += block + [""]
    lines += ["## Method", "", METHOD]
    path.write_text("\n".join(lines))


def write_plot(path: Path, rows: list) -> str:
    """Speedup over cuBLAS vs T per pattern (geomean over shapes), one line per path, log-log."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "matplotlib not installed: plot skipped (pip install matplotlib, then benchmarks/plot_spmm.py CSV)"
    patterns = sorted({r["pattern"] for r in rows if r["path"] != "dense"}, key=_pattern_key)
    paths = [p for p in dict.fromkeys(r["path"] for r in rows) if p != "dense"]
    if not patterns:
        return "nothing to plot"
    all_t = sorted({r["T"] for r in rows})
    cols = min(4, len(patterns))
    nrows = -(-len(patterns) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False, sharex=True)
    for ax, pat in zip(axes.flat, patterns):
        for p in paths:
            sel = _ok(rows, path=p, pattern=pat)
            ts = sorted({r["T"] for r in sel})
            ys = [geomean(r["speedup"] for r in sel if r["T"] == t) for t in ts]
            if ts:  # one colour per path across all panels
                ax.plot(ts, ys, marker="o", label=p, color=f"C{paths.index(p) % 10}")
        ax.axhline(1.0, color="gray", lw=0.8, ls="--")
        ax.axhline(VNMConfig.parse(pat).m / N_KEPT_PER_ROW, color="gray", lw=0.8, ls=":", label="ideal m/2")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(all_t, [str(t) for t in all_t], rotation=90, fontsize=7)
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(pat)
        ax.set_xlabel("tokens T")
        ax.set_ylabel("speedup over cuBLAS")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(patterns):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"plot: {path}"


def read_csv_records(path) -> tuple[dict, list]:
    """(environment, raw rows) of a CSV whose header lines are '# key: value' (both benchmarks)."""
    env, body = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("# "):
                k, _, v = line[2:].rstrip("\n").partition(": ")
                env[k] = v
            else:
                body.append(line)
    return env, list(csv.DictReader(body))


def read_csv(path) -> tuple[dict, list]:
    """(environment, rows) of a CSV this harness wrote, numbers parsed back."""
    env, records = read_csv_records(path)
    rows = []
    for rec in records:
        row = {}
        for c in COLUMNS:
            v = rec.get(c, "")
            row[c] = v if c in TEXT_COLUMNS else (float(v) if v not in ("", None) else math.nan)
        for c in ("R", "K", "T", "m"):
            row[c] = int(row[c])
        rows.append(row)
    return env, rows


def summarize(csv_path: Path, extra: list[str] = ()) -> list[str]:
    """Write <stem>.md and <stem>.png next to a CSV; return what was written."""
    env, rows = read_csv(csv_path)
    md = csv_path.with_suffix(".md")
    write_markdown(md, env, rows, list(extra))
    return [f"markdown: {md}", write_plot(csv_path.with_suffix(".png"), rows)]


# ============================================================================================
# Command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vnmsparse bench", description="V:N:M SpMM benchmarks")
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("spmm", help="dense cuBLAS vs cuSPARSELt 2:4 vs vnmsparse paths over LLM layer shapes",
                       description="Method:\n" + METHOD, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--shapes", help=f"groups {','.join(SHAPES)}, GROUP.LAYER or RxK; comma-separated (default: all)")
    s.add_argument("--tokens", help=f"comma-separated T (default: {','.join(map(str, TOKENS))}; venom group: 4096,8192)")
    s.add_argument("--patterns", help="'2:4', 'V:2:M' and/or sets " + ", ".join(PATTERN_SETS) + " (default: default = "
                   + ",".join(PATTERN_SETS["default"]) + ")")
    s.add_argument("--paths", help="comma-separated subset of: cslt, auto and the kernel paths, run in this order "
                   "(dense always runs first; default: all but " + ", ".join(OPT_IN_PATHS) + ")")
    s.add_argument("--quick", action="store_true", help="small grid, ~1 min on an H200: " + "; ".join(f"{k}={v}" for k, v in QUICK.items()))
    s.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    s.add_argument("--device", help="cuda, cuda:N or cpu (default: cuda if available)")
    s.add_argument("--out", default="benchmarks/results", help="output directory (default: benchmarks/results)")
    s.add_argument("--tag", help="output name spmm_<tag>.* (default: date-time)")
    s.add_argument("--reps", type=int, default=30, help="timed repetitions per path (default 30)")
    s.add_argument("--budget-seconds", type=float, help="stop adding configs after about this many seconds")
    s.add_argument("--max-path-seconds", type=float, default=1.0,
                   help=f"shorten repetitions (to >= {MIN_REPS}) of a path whose timing would take longer (default 1)")
    s.add_argument("--max-sets", type=int, default=64, help="most rotation copies of (x, weight) (default 64)")
    s.add_argument("--sustain", type=float, default=0.0, metavar="SECONDS",
                   help="also replay each path alone for this long and record its time, SM clock, power and energy a call "
                        "at the power limit (sus_* columns; default 0: off)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--dry-run", action="store_true", help="print the grid and an estimate of its run time; measure nothing")
    s.add_argument("--from-csv", help="only (re)write the markdown and plot of an existing CSV")
    s.add_argument("--no-plot", action="store_true")
    s.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # CPU test shapes
    return p


def _grid(args) -> tuple[list, list]:
    if args.quick:  # fills what was not given; --tiny keeps its own shapes and tokens
        for k, v in QUICK.items():
            if getattr(args, k) is None and not (args.tiny and k in ("shapes", "tokens")):
                setattr(args, k, v)
    tokens = select_tokens(args.tokens) if args.tokens else (TINY_TOKENS if args.tiny else TOKENS)
    table = TINY_SHAPES if args.tiny else SHAPES
    shapes = select_shapes(args.shapes or ",".join(table), tokens, table)
    return shapes, select_patterns(args.patterns or "default")


def _dry_run(args, shapes, patterns, paths: int) -> int:
    """Print the grid and its estimated H200 time for 1..3 vnmsparse paths (the count depends on the GPU)."""
    ceil = Ceilings(DEFAULT_PEAK_DENSE, DEFAULT_BW, 0, 0)
    want_cslt, want24 = "cslt" in args.path_set, any(c.is_2to4 for c in patterns)
    totals, n = {k: 0.0 for k in (1, 2, 3)}, 0
    for sh in shapes:
        for cfg in (c for c in plan_patterns(patterns, want_cslt) if fits_shape(sh, c)):
            for t in sh.tokens:
                n += 1
                for k in totals:
                    vnm = k if (not cfg.is_2to4 or want24) else 0
                    totals[k] += estimate_config_s(sh, t, cfg, vnm, cfg.is_2to4 and want_cslt, ceil, args.reps,
                                                   args.max_path_seconds, 60 << 20, args.max_sets, 2, True, args.sustain)
    print(f"{len(shapes)} shapes, {len(patterns)} patterns, {n} configs (with the 2:4 cuSPARSELt baseline per shape and T)")
    for sh in shapes:
        print(f"  {sh.name:22s} {sh.r:>6d} x {sh.k:<6d} T = {','.join(map(str, sh.tokens))}")
    print("  patterns: " + ", ".join(map(pattern_name, patterns)))
    print(f"  vnmsparse paths here: {paths} (on an H200: auto and mma_sp, so 2)")
    print("estimated H200 seconds with 1 / 2 / 3 vnmsparse paths: " + " / ".join(f"{v:.0f}" for v in totals.values())
          + " (rough: JIT compiles, weight builds and slow kernels add to it; --budget-seconds adapts)")
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


class StopEarly:
    """``with stop:`` turns Ctrl-C, a SIGTERM (e.g. from `timeout`) or a lost device into an early
    end with a note (``notes``, exit ``code`` 1) instead of an exception, so that the caller still
    writes what was measured. Both benchmarks use it."""

    def __init__(self):
        self.notes, self.code = [], 0

    def __enter__(self):
        self._main = threading.current_thread() is threading.main_thread()
        self._previous = signal.signal(signal.SIGTERM, _interrupt) if self._main else None
        return self

    def __exit__(self, kind, error, tb):
        if self._main:
            signal.signal(signal.SIGTERM, self._previous)
        if kind is None or not issubclass(kind, (KeyboardInterrupt, DeviceLost)):
            return False
        self.notes.append(f"**Run stopped early: {kind.__name__}: {error}**")
        print(f"*** stopped: {kind.__name__}: {error}", file=sys.stderr)
        self.code = 1
        return True


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    if args.from_csv:
        for line in summarize(Path(args.from_csv)):
            print(line)
        return 0
    try:
        shapes, patterns = _grid(args)
    except ValueError as e:
        print(f"vnmsparse bench spmm: {e}", file=sys.stderr)
        return 2
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cuda" and device.index is None:  # set_device and nvidia-smi need the index
        device = torch.device("cuda", torch.cuda.current_device())
    paths, paths_note = vnm_paths(device)
    given = list(dict.fromkeys(filter(None, (args.paths or "").split(","))))
    wanted = set(given) or {"cslt", *(p for p in paths if p not in OPT_IN_PATHS)}
    unknown = wanted - {"cslt", "dense", *paths}
    if unknown:
        print(f"vnmsparse bench spmm: unknown path(s) {sorted(unknown)}; available: cslt, {', '.join(paths)}", file=sys.stderr)
        return 2
    args.path_set = wanted
    # --paths also sets the order of the paths' turns at each config
    paths = {k: paths[k] for k in (given or paths) if k in paths and k in wanted}
    if args.dry_run:
        return _dry_run(args, shapes, patterns, len(paths))
    if device.type == "cuda":
        torch.cuda.set_device(device)
    args.dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = args.tag or datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    csv_path = out_dir / f"spmm_{tag}.csv"

    budget = Budget(args.budget_seconds)
    env = collect_env(device, args)
    clock = make_clock(device)
    print("environment:\n" + "\n".join(f"  {k}: {v}" for k, v in env.items()), flush=True)
    with torch.inference_mode():
        ceil = measure_ceilings(clock, device, args.dtype)
    env["ceiling dense"] = f"{ceil.dense_flops / 1e12:.1f} TFLOP/s (F.linear {ceil.n}^3, {env['dtype']})"
    env["ceiling copy"] = f"{ceil.copy_bw / 1e12:.3f} TB/s ({ceil.copy_bytes / 2**30:g} GiB device copy, read + write)"
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 60 << 20) if device.type == "cuda" else 0
    env["timing"] = (f"{'CUDA graph of N calls, events per replay' if device.type == 'cuda' else 'time.perf_counter per call'}; "
                     f"median of {args.reps} reps; rotation over >= 3 and <= {args.max_sets} (x, weight) copies, "
                     f"total > 2x L2 ({l2 / 2**20:.0f} MiB) where the cap allows")
    env["paths"] = ", ".join(["dense", *(["cslt", "cslt_best"] if "cslt" in wanted else []), *paths])
    cslt_reason = cslt_unavailable(device)
    if paths_note:
        env["paths note"] = paths_note
    if cslt_reason and "cslt" in wanted:
        env["cuSPARSELt note"] = cslt_reason
    writer = RowWriter(csv_path, env)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    ctx = Ctx(args, device, args.dtype, clock, ceil, paths, cslt_reason, l2, writer, budget, gen)
    ctx.total = sum(len(s.tokens) for s in shapes for c in plan_patterns(patterns, "cslt" in wanted) if fits_shape(s, c))
    print(f"{len(shapes)} shapes x {len(patterns)} patterns, up to {ctx.total} configs -> {csv_path}", flush=True)

    stop = StopEarly()
    extra = stop.notes
    try:
        with stop, torch.inference_mode():
            run_grid(ctx, shapes, patterns)
    finally:
        if device.type == "cuda":
            smi = nvidia_smi(device)
            writer.comment("gpu clocks.sm at end", smi.get("clocks.sm"))
            env["gpu clocks.sm at end"] = smi.get("clocks.sm")
        writer.comment("elapsed s", f"{budget.elapsed():.1f}")
        writer.close()
        monitor = getattr(clock, "monitor", None)
        if monitor is not None:
            monitor.close()
        extra.append(f"Measured {ctx.done} configs in {budget.elapsed():.0f} s ({ctx.build_s:.0f} s building weights)"
                     + (f"; {budget.skipped} configs skipped by --budget-seconds {args.budget_seconds:g}" if budget.skipped else "")
                     + ".")
        md = csv_path.with_suffix(".md")
        write_markdown(md, env, ctx.rows, extra)
        outputs = [f"csv: {csv_path}", f"markdown: {md}"]
        if not args.no_plot:
            outputs.append(write_plot(csv_path.with_suffix(".png"), ctx.rows))
    # Last on stdout, so that the tail of the log shows it: failures first, then the verdicts.
    print("\n".join(problem_lines(ctx.rows)[:15] + [""] + summary_tables(ctx.rows) + [""] + target_lines(ctx.rows)
                    + [""] + extra + outputs))
    fails = sum(r["status"] in ("FAIL", "error") for r in ctx.rows)
    return stop.code or (1 if fails else 0)
