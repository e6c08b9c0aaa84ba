"""Optional autotuning of the SpMM launch configuration: ``VNM_AUTOTUNE=1``.

Without it the kernels take their heuristic tile and split-K count. With it, the first call of a
problem class (kernel, GPU, dtype, R, K, V, M, and T rounded up to a power of two) times every
candidate (tile and split-K count; at T = 1-8 also the decode kernel at each split count) in a CUDA
graph, back to back over copies of the weight (TIMING; "flush": each call after L2 is flushed), and
keeps the fastest, or the heuristic's choice unless a candidate beats it by MARGIN. Choices are
cached in memory and in ``autotune.json`` under the kernel cache (``VNM_CACHE_DIR``; merged and
replaced atomically; keyed by the timing and margin too), so later processes start from them.
Nothing is timed while a CUDA graph is being captured or torch.compile is tracing: a cached choice
is used there, else the heuristic. Every candidate is a configuration of the tile tables, all of
which pass the correctness tests, so tuning changes speed, never results.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import statistics
import uuid
import warnings
from collections.abc import Callable, Mapping

import torch

from ..config import env_flag
from . import jit

ENV = "VNM_AUTOTUNE"
FILE = "autotune.json"
REPS = 5
CALLS = 16  # calls a timed graph holds
# A candidate replaces the heuristic's choice only when the tuner times it this much faster
# (VNM_AUTOTUNE_MARGIN): a candidate timed a few percent faster is often not faster in a model's run
# (v253b, flushed timing: picks at T = 1 up to 24% slower than the heuristic's; v255: up to 16% with
# the margin; v257, rotate timing with the margin: up to 4%).
MARGIN = 0.05
# How a candidate is timed: "rotate" (_rotated_ms: calls back to back, as a model's layers run, each on
# its own copy of the weight's large operands, copies enough to exceed twice the L2; x stays, as a
# previous op leaves it) or "flush" (_median_ms: each call after an L2-sized read, less the reads).
# H200, margin 5%, auto_tuned / auto time over the quick grid's 28 cells a T (v257, v257b, v259):
# "rotate" T = 1 0.988, 2 0.987, 4 0.986, 8 0.971, 16 0.974, 64 0.950, no cell above 1.05; T = 2048 /
# 8192 1.007 / 1.004 (0.96-1.03: the heuristic holds at prefill); "flush" (v255) T = 1 1.007 (up to
# 1.16), T = 8 0.971.
TIMING = "rotate"
MAX_COPIES = 64  # (as the benchmark's rotation)

_memory: dict[str, str] = {}
_loaded = False
_forced = False


def enabled() -> bool:
    return _forced or env_flag(ENV)


@contextlib.contextmanager
def forced():
    """Tuning on inside the block whatever VNM_AUTOTUNE says (the bench's ``auto_tuned`` path)."""
    global _forced
    before, _forced = _forced, True
    try:
        yield
    finally:
        _forced = before


def can_time() -> bool:
    """Kernels may be timed now: not capturing a CUDA graph, not tracing under torch.compile."""
    if torch.compiler.is_compiling():
        return False
    return not (torch.cuda.is_available() and torch.cuda.is_current_stream_capturing())


def problem_key(kernel: str, device: torch.device, dtype: torch.dtype, r: int, k: int, ntok: int, v: int, m: int) -> str:
    bucket = 1 << (max(1, ntok) - 1).bit_length()
    gpu = torch.cuda.get_device_name(device).replace("|", "/")
    # (how candidates were compared is part of the key: a choice made under another margin or timing is not reused)
    return f"{kernel}|{gpu}|{str(dtype).replace('torch.', '')}|R{r}|K{k}|T{bucket}|v{v}|m{m}|{TIMING}{margin():g}"


def margin() -> float:
    """The fraction a candidate must beat the heuristic's choice by (MARGIN, or VNM_AUTOTUNE_MARGIN)."""
    raw = os.environ.get("VNM_AUTOTUNE_MARGIN", "").strip()
    if not raw:
        return MARGIN
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < 1.0:
        raise ValueError(f"VNM_AUTOTUNE_MARGIN must be a fraction in [0, 1), got {raw!r}")
    return value


def choose(key: str, candidates: Mapping[str, Callable[[], object]], default: str | None = None,
           timer: Callable | None = None) -> str | None:
    """Name of the fastest candidate for ``key``: the cached choice if it is still a candidate,
    else each one is run once to warm up, then timed by ``timer`` (_median_ms); ``default`` (the
    heuristic's candidate) is kept unless another is faster by the margin. None where nothing is
    cached and nothing may be timed now (the caller's heuristic applies)."""
    _load()
    hit = _memory.get(key)
    if hit in candidates:
        return hit
    if not can_time():
        return None
    least = margin()
    times = {name: (timer or _median_ms)(run) for name, run in candidates.items()}
    best = min(times, key=times.get)
    if default in times and times[best] > (1.0 - least) * times[default]:
        best = default
    _memory[key] = best
    _save({key: best})
    return best


def tile_and_splits(kernel: str, x: torch.Tensor, r: int, k: int, ntok: int, v: int, m: int, tiles,
                    heuristic_splits: Callable, launch: Callable, heuristic=None, weights: tuple = ()) -> tuple:
    """(tile, splits) for a launch of ``kernel``: the fastest of every tile in ``tiles``, each with
    split-K off and at ``heuristic_splits(tile)``, run as ``launch(tile, splits)``, where the
    ``heuristic`` tile (at its heuristic splits) yields only to a win by the margin; (None, None)
    where nothing is cached and nothing may be timed now (the caller's heuristic applies).
    ``weights``: as pick's."""
    default = None if heuristic is None else config_name(heuristic, heuristic_splits(heuristic))
    return pick(kernel, x, r, k, ntok, v, m, tile_configs(tiles, heuristic_splits), launch, default,
                weights) or (None, None)


def config_name(tile, splits: int) -> str:
    return f"{tile}/k{splits}"


def tile_configs(tiles, heuristic_splits: Callable) -> dict:
    """name -> (tile, splits): every tile with split-K off and at ``heuristic_splits(tile)``."""
    return {config_name(t, s): (t, s) for t in tiles for s in sorted({1, heuristic_splits(t)})}


def pick(kernel: str, x: torch.Tensor, r: int, k: int, ntok: int, v: int, m: int, configs: Mapping[str, tuple],
         launch: Callable, default: str | None = None, weights: tuple = ()):
    """The fastest of ``configs`` (name -> arguments of ``launch``) for a launch of ``kernel``, the
    ``default`` one unless beaten by the margin; None where nothing is cached and nothing may be timed now.
    ``weights``: the weight's large tensors, which ``launch`` also takes as its ``weights=`` keyword
    (TIMING "rotate" times the calls over copies of them, or flushed where they do not fit)."""
    runs = {name: functools.partial(launch, *args) for name, args in configs.items()}
    timer = None
    if TIMING == "rotate" and weights:
        copies: list = []  # made at the first timing (a cached choice times nothing)

        def timer(run):
            if not copies:
                try:
                    copies.extend(weight_copies(weights))
                except torch.OutOfMemoryError:  # no room for the copies: the flush timing
                    copies.append(None)
            if copies[0] is None:
                return _median_ms(run)
            return _rotated_ms(lambda i: run(weights=copies[i % len(copies)]), len(copies))
    return configs.get(choose(problem_key(kernel, x.device, x.dtype, r, k, ntok, v, m), runs, default, timer))


def weight_copies(tensors: tuple) -> list[tuple]:
    """``tensors`` and clones of them: sets enough to exceed twice the L2, 3 to MAX_COPIES."""
    size = sum(t.numel() * t.element_size() for t in tensors)
    l2 = torch.cuda.get_device_properties(tensors[0].device).L2_cache_size
    sets = min(MAX_COPIES, max(3, -(-2 * l2 // max(1, size))))
    # (settled as the originals are: the decode kernel reads them before its PDL wait)
    return [tuple(tensors)] + [jit.settle(tuple(t.clone() for t in tensors)) for _ in range(sets - 1)]


def clear() -> bool:
    """Forget every choice, in memory and on disk; True if there was a file."""
    clear_memory()
    try:
        _path().unlink()
        return True
    except FileNotFoundError:
        return False


def clear_memory() -> None:
    """Forget the in-process choices (the file stays); for tests."""
    global _loaded
    _memory.clear()
    _loaded = False


def _median_ms(run: Callable[[], object]) -> float:
    """A call's GPU time with the weights out of L2, as a model's layers meet them (ms, median of
    REPS): CALLS calls captured in a CUDA graph, each after a read of twice the L2 (a write would
    leave dirty lines for the call to write back), less the same graph without the calls. Timed one
    call at a time, a few-microsecond kernel measures its launch (v253, H200: such picks ran 2:4 at
    T <= 8 2.4x slower than the heuristic). Eagerly where the call cannot be captured."""
    run()  # compiles, builds lazy layouts
    torch.cuda.synchronize()
    flush = torch.ones(torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size // 2,
                       dtype=torch.int32, device="cuda")
    try:
        with_calls, without = _flush_graph(flush, run), _flush_graph(flush, None)
    except RuntimeError:
        return _eager_ms(run, flush)
    return max(0.0, _replay_ms(with_calls) - _replay_ms(without)) / CALLS


def _rotated_ms(run: Callable[[int], object], copies: int) -> float:
    """A call's GPU time back to back with its neighbours (ms, median of REPS): max(CALLS, copies)
    calls in a CUDA graph, call i on weight copy i (mod copies), as a model's layers meet their
    weights; eagerly where the calls cannot be captured."""
    calls = max(CALLS, copies)
    for i in range(copies):  # compiles, builds lazy layouts, touches every copy
        run(i)
    torch.cuda.synchronize()
    try:
        graph = _graph(run, calls)
    except RuntimeError:
        return _events_ms(lambda: [run(i) for i in range(calls)]) / calls
    return _replay_ms(graph) / calls


def _flush_graph(flush: torch.Tensor, run) -> torch.cuda.CUDAGraph:
    return _graph(lambda i: (flush.sum(), run is not None and run()), CALLS)


def _graph(step: Callable[[int], object], calls: int) -> torch.cuda.CUDAGraph:
    """A CUDA graph of step(0) ... step(calls - 1)."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        for i in range(calls):
            step(i)
    return graph


def _replay_ms(graph: torch.cuda.CUDAGraph) -> float:
    graph.replay()
    return _events_ms(graph.replay)


def _eager_ms(run: Callable[[], object], flush: torch.Tensor) -> float:
    return max(0.0, _events_ms(lambda: (flush.sum(), run())) - _events_ms(flush.sum))


def _events_ms(fn: Callable[[], object]) -> float:
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(REPS)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def _path():
    return jit.cache_dir() / FILE


def _read() -> dict:
    try:
        data = json.loads(_path().read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}


def _load() -> None:
    global _loaded
    if not _loaded:
        _memory.update({k: v for k, v in _read().items() if k not in _memory})
        _loaded = True


def _save(new: dict) -> None:
    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        merged = {**_read(), **new}
        tmp = path.with_name(f".{FILE}.{uuid.uuid4().hex}")
        tmp.write_text(json.dumps(merged, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError as e:
        warnings.warn(f"vnmsparse: autotune choices not saved to {path} ({e}); kept for this process")
