"""Runtime compilation, caching, loading and launching of the package's CUDA kernels.

This is the only module that talks to NVRTC and the CUDA driver, so the moving
``cuda.core`` API stays in one place. The flow:

* :func:`compile` turns a file of ``csrc/`` plus name expressions (template
  instantiations such as ``"axpy<float>"``) into a cubin with NVRTC, through
  ``cuda.core.Program``. Results live in a content-addressed disk cache with an
  in-process dict in front of it.
* :func:`get_kernel` loads one kernel for the current torch device and returns a
  :class:`Kernel` whose :meth:`Kernel.launch` runs on torch's current stream (so
  it can be captured in a CUDA graph).

Always cubin, never PTX: a cubin does not depend on the driver's PTX JIT, so a
newer NVRTC wheel works with an older driver of the same CUDA major version.

Environment variables (all read when compiling, never on the launch path):
``VNM_CACHE_DIR``, ``VNM_JIT_DEBUG``, ``VNM_JIT_DISABLE_CACHE``,
``VNM_JIT_LINEINFO``, ``VNM_JIT_PTXAS_VERBOSE``, ``VNM_JIT_DUMP_PTX``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import datetime
import functools
import hashlib
import io
import json
import os
import re
import shutil
import sys
import time
import uuid
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace

from vnmsparse.config import env_flag

CSRC_DIR = Path(__file__).resolve().parent / "csrc"
"""Kernel sources shipped as package data; ``#include "x.cuh"`` resolves here."""

INSTALL_HINT = 'pip install "vnmsparse[cuda]"'

# Bump when the layout or meta.json format of cache entries changes.
_CACHE_FORMAT = 1
_CUBIN, _PTX, _META = "kernel.cubin", "kernel.ptx", "meta.json"
_TMP = "tmp"  # cache-root subfolder for builds in progress; same filesystem, so rename is atomic

# C types a kernel parameter may have, by the names used in ``get_kernel(params=...)``.
PARAM_TYPES = {
    "ptr": ctypes.c_void_p,  # a torch tensor (its data_ptr), a raw int address, or None
    "i32": ctypes.c_int32,
    "u32": ctypes.c_uint32,
    "i64": ctypes.c_int64,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "tmap": ctypes.c_uint64 * 16,  # a TMA descriptor by value: the 128 bytes of tensor_map_2d()
}

_ARCH_RE = re.compile(r"sm_\d{2,3}[af]?")

# Programmatic dependent launch (sm_90+) for launches that ask for it (`pdl=True`: kernels that
# call grid_dependency_wait, common.cuh, before touching anything an earlier kernel writes): the
# kernel starts while the previous one in the stream finishes and prefetches its weights into L2
# meanwhile. VNM_PDL=0 turns it off (read at import; A/B runs and tests set `jit.PDL`).
PDL = os.environ.get("VNM_PDL", "1").strip() != "0"

# Weights that a PDL launch reads before its grid_dependency_wait (the decode kernel's X-free loads, v296).
# Until that wait, the previous kernel in the stream may still be writing its outputs, so only tensors that
# a layout builder (or a benchmark's copy) made and then fenced count: "settled". A launch given any other
# tensor goes without PDL (an op's caller may have just written it, as opcheck's clones are).
_SETTLED: dict = {}


def settle(obj):
    """Mark the tensors in ``obj`` (a tensor, or tuples / lists / dicts / dataclasses of them) as settled,
    and for CUDA ones enqueue the fence that makes them so: one empty kernel on the current stream, which
    no later PDL launch can overlap with their writer. Returns ``obj``."""
    import torch

    if torch.compiler.is_compiling():  # a layout built while tracing is the graph's own intermediate: never settled
        return obj
    device = None
    for t in tensors_in(obj):
        key = id(t)
        _SETTLED[key] = (weakref.ref(t, lambda _, key=key: _SETTLED.pop(key, None)), _version(t))
        if t.is_cuda:
            device = t.device
    if device is not None:
        with torch.cuda.device(device):
            torch.cuda._sleep(0)
    return obj


def settled(*tensors) -> bool:
    """Whether every tensor given (None aside) was settled and not written in place since."""
    for t in tensors:
        if t is not None:
            entry = _SETTLED.get(id(t))
            if entry is None or entry[0]() is not t or entry[1] != _version(t):
                return False
    return True


def _version(t):
    try:
        return t._version
    except RuntimeError:  # inference tensors keep no version counter
        return None


def tensors_in(obj):
    """The tensors in a tensor or in tuples / lists / dicts / dataclasses of them."""
    import torch

    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from tensors_in(v)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            yield from tensors_in(v)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from tensors_in(getattr(obj, f.name))


# v183: a PDL launch that asks for it (`spread=True`) and whose grid leaves CTA slots free gets the
# dynamic shared memory that caps it at ceil(CTAs / SMs) CTAs an SM. A grid launched while its
# predecessor still runs (PDL) is packed onto fewer SMs: H200, the cp.async SpMM's 256 CTAs of
# 4096^2 T = 64 (four fit an SM) 17.4 us by PDL against 14.5 plain, 13.3 by PDL spread (v182, v183).
# Not for the wgmma.sp and decode kernels: 4096^2 T = 1 7.4 -> 8.6 us, decode 3.3 -> 5.5 (v183).
# (A/B switch.)
SPREAD_CTAS = True


class JitUnavailableError(ImportError):
    """cuda-core, NVRTC or the CUDA headers are missing; the message says what to install."""


class KernelCompileError(RuntimeError):
    """NVRTC rejected a kernel source; ``log`` holds the compiler output."""

    def __init__(self, source: str, arch: str, name_expressions: Sequence[str], defines: Mapping, log: str):
        self.source, self.arch, self.log = source, arch, log
        self.name_expressions = tuple(name_expressions)
        super().__init__(
            f"NVRTC failed to compile {source} for {arch}\n"
            f"  name expressions: {', '.join(self.name_expressions)}\n"
            f"  defines: {dict(defines) or '{}'}\n"
            f"--- NVRTC log ---\n{log}"
        )


@dataclasses.dataclass(frozen=True)
class KernelResources:
    """What ptxas reported for one kernel (from ``-v``, which every build passes)."""

    registers: int
    shared_bytes: int  # static shared memory; dynamic shared memory is a launch argument
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int

    @property
    def spills(self) -> int:
        return self.spill_store_bytes + self.spill_load_bytes


class CompiledModule:
    """One compiled cubin: its kernels' mangled names, the compile log, where it is cached.

    ``origin`` is ``"compiled"`` (built by this call) or ``"disk"`` (read from the
    cache); an in-process cache hit returns the very same object.
    """

    def __init__(self, *, key: str, source: str, arch: str, cubin: bytes, symbols: dict[str, str], log: str,
                 path: Path | None, origin: str):
        self.key, self.source, self.arch = key, source, arch
        self.cubin, self.symbols, self.log = cubin, symbols, log
        self.path, self.origin = path, origin
        self._object_code = None  # loaded into the driver on first get_kernel

    @property
    def name_expressions(self) -> tuple[str, ...]:
        return tuple(self.symbols)

    def resources(self) -> dict[str, KernelResources]:
        """Registers, static shared memory and spills of each kernel, by name expression."""
        return _parse_ptxas_log(self.log, self.symbols)

    def get_kernel(self, name_expression: str, params: Sequence[str], device: int | None = None) -> Kernel:
        """Load ``name_expression`` on a CUDA device (default: torch's current one)."""
        import torch

        if name_expression not in self.symbols:
            raise KeyError(f"{name_expression!r} was not compiled into this module; it has {list(self.symbols)}")
        return Kernel(self, name_expression, params, torch.cuda.current_device() if device is None else device)

    def _cuda_kernel_handle(self, name_expression: str):
        if self._object_code is None:
            symbol_mapping = {name: mangled.encode() for name, mangled in self.symbols.items()}
            self._object_code = _cuda_core().ObjectCode.from_cubin(
                self.cubin, name=self.source, symbol_mapping=symbol_mapping
            )
        return self._object_code.get_kernel(name_expression).handle

    def __repr__(self) -> str:
        return f"CompiledModule({self.source}, {self.arch}, {list(self.symbols)}, origin={self.origin!r})"


class Kernel:
    """A loaded kernel with a fixed parameter list; :meth:`launch` is the hot path."""

    def __init__(self, module: CompiledModule, name_expression: str, params: Sequence[str], device: int):
        from cuda.bindings import driver

        unknown = [p for p in params if p not in PARAM_TYPES]
        if unknown:
            raise ValueError(f"unknown parameter type(s) {unknown} for {name_expression}; use {list(PARAM_TYPES)}")
        self.name, self.module, self.device = name_expression, module, device
        self.params = tuple(params)
        # Built once so launch() only converts values: ptr args need a tensor check, scalars are plain ctypes.
        self._converters = tuple(_pointer_arg if p == "ptr" else _tensor_map_arg if p == "tmap" else PARAM_TYPES[p]
                                 for p in self.params)
        self._pointer_array = ctypes.c_void_p * len(self.params)

        handle = module._cuda_kernel_handle(name_expression)
        # cuda.core hands out a CUkernel (library API, driver >= 12.0); the launch API takes it as a CUfunction.
        self._function = driver.CUfunction(int(handle))
        self.max_shared_mem = _allow_max_dynamic_shared_memory(driver, handle, device)
        self._current_stream = _current_raw_stream_getter()
        self._launch_kernel = driver.cuLaunchKernel
        self._launch_kernel_ex = driver.cuLaunchKernelEx
        self._success = driver.CUresult.CUDA_SUCCESS
        self._pdl_arch = int(module.arch[3:].rstrip("af")) >= 90
        self._spreads = {}  # (CTAs, threads, shared memory) -> the spread launch's shared memory

    def launch(self, grid, block, args: Sequence, *, shared_mem: int = 0, stream=None, cluster=None,
               pdl: bool = False, spread: bool = False) -> None:
        """Launch on ``stream`` (a ``torch.cuda.Stream`` or raw handle), default torch's current stream.

        ``grid``/``block`` are an int or a tuple of up to 3 ints; ``args`` follow
        the ``params`` given at load (tensors for ``ptr``, Python numbers otherwise). ``cluster``
        (sm_90+): thread-block cluster dimensions, which must divide the grid's. ``pdl``: a
        programmatic dependent launch where the kernel's arch has it and :data:`PDL` is on; only
        for kernels that wait for the previous grid (``grid_dependency_wait``) before reading or
        writing anything an earlier kernel may touch. ``spread``: a PDL launch (and :data:`SPREAD_CTAS`
        on) runs at most ceil(CTAs / SMs) CTAs an SM, by asking for more dynamic shared memory.
        """
        if len(args) != len(self._converters):
            raise TypeError(f"{self.name} takes {len(self._converters)} arguments {self.params}, got {len(args)}")
        if shared_mem > self.max_shared_mem:
            raise ValueError(f"{self.name}: {shared_mem} bytes of dynamic shared memory > limit {self.max_shared_mem}")
        values = [convert(arg) for convert, arg in zip(self._converters, args)]
        pointers = self._pointer_array(*[ctypes.addressof(v) for v in values])
        if stream is None:
            stream = self._current_stream(self.device)
        else:
            stream = getattr(stream, "cuda_stream", stream)
        gx, gy, gz = _dim3(grid)
        bx, by, bz = _dim3(block)
        cluster = (1, 1, 1) if cluster is None else _dim3(cluster)
        pdl = pdl and PDL and self._pdl_arch
        if pdl and spread and SPREAD_CTAS:
            shared_mem = self._spread(gx * gy * gz, bx * by * bz, shared_mem)
        if pdl or cluster != (1, 1, 1):
            config = _cached_launch_config((gx, gy, gz), (bx, by, bz), shared_mem, int(stream), cluster, pdl)
            (err,) = self._launch_kernel_ex(config, self._function, ctypes.addressof(pointers), 0)
        else:
            (err,) = self._launch_kernel(
                self._function, gx, gy, gz, bx, by, bz, shared_mem, stream, ctypes.addressof(pointers), 0
            )
        if err != self._success:
            raise RuntimeError(f"launching {self.name} failed: {_driver_error(err)}")

    def _spread(self, ctas: int, threads: int, shared_mem: int) -> int:
        """Shared memory for at most ceil(ctas / SMs) CTAs an SM where the occupancy allows more
        (then it also keeps the L1 share that an all-slots grid would lose)."""
        key = (ctas, threads, shared_mem)
        if key not in self._spreads:
            from cuda.bindings import driver

            attr = driver.CUdevice_attribute
            sms = _check(driver, driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.device))
            per_sm_smem = _check(driver, driver.cuDeviceGetAttribute(
                attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, self.device))
            fits = _check(driver, driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(self._function, threads, shared_mem))
            per_sm = -(-ctas // sms)
            spread = shared_mem
            if per_sm < fits:  # 1 KB of every CTA's shared memory is the system's
                spread = max(shared_mem, min((per_sm_smem // per_sm - 1024) // 128 * 128, self.max_shared_mem))
            self._spreads[key] = spread
        return self._spreads[key]

    def max_active_clusters(self, block, cluster, *, shared_mem: int = 0) -> int:
        """How many clusters of ``cluster`` CTAs (each ``block`` threads, ``shared_mem`` bytes of
        dynamic shared memory) the device runs at once (cuOccupancyMaxActiveClusters): what one wave
        holds, GPC placement included."""
        from cuda.bindings import driver

        cl = _dim3(cluster)
        config = launch_config(cl, _dim3(block), shared_mem, 0, cl)
        err, count = driver.cuOccupancyMaxActiveClusters(self._function, config)
        if err != self._success:
            raise RuntimeError(f"cuOccupancyMaxActiveClusters({self.name}) failed: {_driver_error(err)}")
        return int(count)

    def __repr__(self) -> str:
        return f"Kernel({self.name}, {self.module.arch}, device={self.device}, params={self.params})"


# ---------------------------------------------------------------------------------------------
# Public functions


def compile(
    source: str,
    name_expressions: Sequence[str],
    arch: str,
    *,
    options: Mapping[str, object] | None = None,
    defines: Mapping[str, str | int] | None = None,
    source_dir: str | os.PathLike | None = None,
) -> CompiledModule:
    """Compile ``source`` (a file in ``source_dir``, default the package's ``csrc/``) to a cubin.

    ``name_expressions`` name the kernels to instantiate and look up, e.g.
    ``["axpy<float>", "axpy<__half>"]``. ``arch`` is ``"sm_80"``, ``"sm_90a"``
    (needed for wgmma/setmaxnreg), ... ``defines`` become ``-D`` macros.
    ``options`` are extra ``cuda.core.ProgramOptions`` fields (e.g.
    ``{"max_register_count": 128}``); cuda.core has no raw-flag pass-through.
    Works without a GPU. Raises :class:`KernelCompileError` on a compile error.
    """
    names = tuple(name_expressions)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"name_expressions must be non-empty strings, got {name_expressions!r}")
    if not isinstance(arch, str) or not _ARCH_RE.fullmatch(arch):
        raise ValueError(f"arch must look like 'sm_80' or 'sm_90a', got {arch!r}")
    src_dir = Path(source_dir) if source_dir is not None else CSRC_DIR
    if not (src_dir / source).is_file():
        raise FileNotFoundError(f"kernel source {source!r} not found in {src_dir}")
    defines = {str(k): str(v) for k, v in sorted((defines or {}).items())}
    options = dict(sorted((options or {}).items()))
    lineinfo = env_flag("VNM_JIT_LINEINFO")
    tools = _toolchain()

    key = _cache_key(src_dir, source, names, arch, defines, options, lineinfo, tools)
    entry = cache_dir() / tools.package_version / arch / key
    force = env_flag("VNM_JIT_DISABLE_CACHE")
    if not force:
        module = _modules.get(key)
        if module is not None:
            return module
        module = _read_entry(entry, key)
        if module is not None:
            _debug(f"cache hit (disk) {source} {arch} {list(names)} -> {entry}")
            _print_ptxas_report(module)
            _modules[key] = module
            return module
        _debug(f"cache miss {source} {arch} {list(names)} -> {entry}")

    module = _build(src_dir, source, names, arch, defines, options, lineinfo, tools, key, entry, force)
    _print_ptxas_report(module)
    _modules[key] = module
    return module


def get_kernel(
    source: str,
    name_expression: str,
    arch: str | None = None,
    *,
    params: Sequence[str],
    options: Mapping[str, object] | None = None,
    defines: Mapping[str, str | int] | None = None,
    source_dir: str | os.PathLike | None = None,
) -> Kernel:
    """Compile (or fetch from cache) and load one kernel for torch's current CUDA device.

    ``params`` states the kernel's C parameter types once, in order, with the
    names of :data:`PARAM_TYPES`, e.g. ``("i32", "f32", "ptr", "ptr")``.
    ``arch`` defaults to :func:`default_arch` of the current device. Repeated calls
    with the same arguments return the same :class:`Kernel` (a dict lookup).
    """
    import torch

    device = torch.cuda.current_device()
    lookup = (source, name_expression, arch, tuple(params), _frozen(options), _frozen(defines), source_dir, device)
    kernel = _kernels.get(lookup)
    if kernel is None:
        module = compile(
            source, [name_expression], arch or default_arch(device),
            options=options, defines=defines, source_dir=source_dir,
        )
        kernel = _kernels[lookup] = module.get_kernel(name_expression, params, device)
    return kernel


def default_arch(device: int | None = None) -> str:
    """The NVRTC arch for a torch CUDA device: ``sm_XY``, with ``a`` on 9.0 (Hopper's wgmma/setmaxnreg).

    Other arch-specific targets (sm_100a, ...) are not chosen automatically: our
    kernels use no feature that needs them, and a plain target runs on every
    chip of that compute capability.
    """
    import torch

    major, minor = torch.cuda.get_device_capability(device)
    return f"sm_{major}{minor}" + ("a" if (major, minor) == (9, 0) else "")


def compile_report(
    source: str,
    name_expressions: Sequence[str],
    arch: str,
    **kwargs,
) -> dict[str, KernelResources]:
    """ptxas resource usage (registers, static smem, spills) per name expression; args as :func:`compile`."""
    return compile(source, name_expressions, arch, **kwargs).resources()


def available() -> tuple[bool, str]:
    """Whether kernels can be compiled here, and a one-line reason (for ``vnmsparse env``)."""
    try:
        tools = _toolchain()
    except JitUnavailableError as e:
        return False, str(e)
    return True, (
        f"NVRTC {tools.nvrtc_version}, cuda-core {tools.cuda_core_version}, "
        f"CUDA headers in {', '.join(tools.include_dirs)}"
    )


def cache_dir() -> Path:
    """Root of the kernel cache: ``$VNM_CACHE_DIR`` or ``~/.cache/vnmsparse``."""
    return Path(os.environ.get("VNM_CACHE_DIR") or Path.home() / ".cache" / "vnmsparse")


def cache_entries() -> list[dict]:
    """Every cache entry (all package versions and archs), oldest first."""
    entries = []
    for path in _entry_dirs(cache_dir()):
        meta = _read_meta(path) or {}
        entries.append({
            "key": path.name,
            "version": path.parent.parent.name,
            "arch": path.parent.name,
            "source": meta.get("source"),
            "kernels": list(meta.get("symbols", {})),
            "size": sum(f.stat().st_size for f in path.iterdir() if f.is_file()),
            "created": meta.get("created"),
            "valid": bool(meta),
            "path": str(path),
        })
    return sorted(entries, key=lambda e: e["created"] or "")


def clear_cache() -> int:
    """Delete every cache entry and unfinished build; returns the number of entries removed.

    Only folders shaped like cache entries are touched, so a ``VNM_CACHE_DIR``
    pointed at the wrong place loses nothing else.
    """
    root = cache_dir()
    removed = 0
    for path in _entry_dirs(root):
        _discard(path)
        removed += 1
    shutil.rmtree(root / _TMP, ignore_errors=True)
    for arch_dir in root.glob("*/*"):  # now-empty version/arch folders
        if arch_dir.is_dir() and not any(arch_dir.iterdir()):
            arch_dir.rmdir()
    for version_dir in root.glob("*"):
        if version_dir.is_dir() and not any(version_dir.iterdir()):
            version_dir.rmdir()
    _modules.clear()
    _kernels.clear()
    return removed


# ---------------------------------------------------------------------------------------------
# Toolchain discovery

# In-process caches: content key -> CompiledModule, and get_kernel's arguments -> Kernel.
_modules: dict[str, CompiledModule] = {}
_kernels: dict[tuple, Kernel] = {}


@functools.cache
def _cuda_core() -> SimpleNamespace:
    """cuda.core's classes: top-level on cuda-core >= 0.4, ``cuda.core.experimental`` on 0.3.

    Importing ``experimental`` first would warn on 0.4/0.5 (deprecated there) and
    fail on >= 1.0 (removed), so the new name is tried first.
    """
    try:
        from cuda.core import ObjectCode, Program, ProgramOptions
    except ImportError:
        try:
            from cuda.core.experimental import ObjectCode, Program, ProgramOptions
        except ImportError as e:
            raise JitUnavailableError(f"cuda-core is not installed ({e}); run: {INSTALL_HINT}") from e
    return SimpleNamespace(ObjectCode=ObjectCode, Program=Program, ProgramOptions=ProgramOptions)


@functools.cache
def _toolchain() -> SimpleNamespace:
    """Versions and header folders that go into every cache key; raises JitUnavailableError."""
    from importlib import metadata

    _cuda_core()
    try:
        from cuda.bindings import nvrtc

        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as e:  # ImportError, or the NVRTC shared library not found by cuda-bindings
        raise JitUnavailableError(f"NVRTC is not usable ({e}); run: {INSTALL_HINT}") from e
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise JitUnavailableError(f"nvrtcVersion failed ({err}); run: {INSTALL_HINT}")
    return SimpleNamespace(
        nvrtc_version=f"{major}.{minor}",
        cuda_core_version=metadata.version("cuda-core"),
        package_version=_package_version(),
        include_dirs=_cuda_include_dirs(),
    )


def _cuda_include_dirs() -> tuple[str, ...]:
    """CUDA headers (cuda_fp16.h, cuda_bf16.h, ...) from the pip wheels, plus CCCL (cuda/std) if present."""
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        cudart = find_nvidia_header_directory("cudart")
    except Exception as e:  # ImportError, or a cuda-pathfinder too old to know "cudart"
        raise JitUnavailableError(f"cannot locate CUDA headers ({e}); run: pip install -U cuda-pathfinder") from e
    if not cudart:
        raise JitUnavailableError(
            f"CUDA runtime headers (cuda_fp16.h) not found; run: pip install nvidia-cuda-runtime (or {INSTALL_HINT})"
        )
    try:
        cccl = find_nvidia_header_directory("cccl")
    except Exception:  # optional: only kernels that include <cuda/std/...> need it
        cccl = None
    return (cudart, cccl) if cccl else (cudart,)


def _package_version() -> str:
    from importlib import metadata

    import vnmsparse

    version = getattr(vnmsparse, "__version__", None)
    if version:
        return version
    try:
        return metadata.version("vnmsparse")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


# ---------------------------------------------------------------------------------------------
# Cache internals


def _source_dirs(src_dir: Path) -> tuple[Path, ...]:
    """Where a source's includes resolve: its own folder, then the package's csrc/ (so that a
    probe kept elsewhere can include wgmma.cuh)."""
    return (src_dir,) if src_dir.resolve() == CSRC_DIR else (src_dir, CSRC_DIR)


def _cache_key(src_dir, source, names, arch, defines, options, lineinfo, tools) -> str:
    # Every file that an include could resolve to counts, by content (the source's folder first,
    # as the compiler looks), so editing any header invalidates the cache without a version bump;
    # paths do not, so a copied tree hits the same entries.
    files = {}
    for d in reversed(_source_dirs(src_dir)):
        files.update({
            str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        })
    files = dict(sorted(files.items()))
    payload = {
        "format": _CACHE_FORMAT,
        "files": files,
        "source": source,
        "name_expressions": sorted(set(names)),
        "arch": arch,
        "defines": defines,
        "options": {k: repr(v) for k, v in options.items()},
        "lineinfo": lineinfo,
        "nvrtc": tools.nvrtc_version,
        "cuda_core": tools.cuda_core_version,
        "vnmsparse": tools.package_version,
        "include_dirs": tools.include_dirs,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _build(src_dir, source, names, arch, defines, options, lineinfo, tools, key, entry, force) -> CompiledModule:
    start = time.perf_counter()
    cubin, symbols, log = _nvrtc(src_dir, source, names, arch, defines, options, lineinfo, tools, "cubin")
    seconds = time.perf_counter() - start
    _debug(f"compiled {source} {arch} {list(names)} in {seconds:.2f}s" + (f"\n{log}" if log else ""))

    tmp = cache_dir() / _TMP / f"{key}.{os.getpid()}.{uuid.uuid4().hex}"
    tmp.mkdir(parents=True)
    try:
        _write(tmp / _CUBIN, cubin)
        if env_flag("VNM_JIT_DUMP_PTX"):
            _dump_ptx(tmp / _PTX, src_dir, source, names, arch, defines, options, lineinfo, tools)
        meta = {
            "key": key,
            "source": source,
            "arch": arch,
            "symbols": symbols,
            "defines": defines,
            "options": {k: repr(v) for k, v in options.items()},
            "lineinfo": lineinfo,
            "log": log,
            "cubin_sha256": hashlib.sha256(cubin).hexdigest(),
            "nvrtc": tools.nvrtc_version,
            "cuda_core": tools.cuda_core_version,
            "vnmsparse": tools.package_version,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "compile_seconds": round(seconds, 3),
        }
        _write(tmp / _META, json.dumps(meta, indent=1).encode())
        _publish(tmp, entry, key, force)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return CompiledModule(key=key, source=source, arch=arch, cubin=cubin, symbols=symbols, log=log,
                          path=entry, origin="compiled")


def _dump_ptx(path, *nvrtc_args) -> None:
    try:
        ptx, _, _ = _nvrtc(*nvrtc_args, "ptx")
    except KernelCompileError:
        raise
    except Exception as e:  # cuda.core asks the driver whether it could load the PTX; no driver, no dump
        print(f"[vnmsparse.jit] VNM_JIT_DUMP_PTX: no PTX written ({e})", file=sys.stderr, flush=True)
        return
    _write(path, ptx)


def _nvrtc(src_dir, source, names, arch, defines, options, lineinfo, tools, target) -> tuple[bytes, dict, str]:
    """One NVRTC run through cuda.core; returns (code, name expression -> mangled name, log)."""
    cc = _cuda_core()
    program_options = cc.ProgramOptions(
        name=source,  # what the log calls the file, e.g. "jit_selftest.cu(12): error ..."
        arch=arch,
        std="c++17",
        device_as_default_execution_space=True,  # -default-device: helpers need no __device__
        use_fast_math=False,
        lineinfo=lineinfo,
        ptxas_options=["-v"],  # always: cheap, and it is how resources() learns about spills
        include_path=[str(d) for d in _source_dirs(src_dir)] + list(tools.include_dirs),
        define_macro=list(defines.items()) or None,
        **options,
    )
    program = cc.Program((src_dir / source).read_text(), "c++", options=program_options)
    log = io.StringIO()
    try:
        code = program.compile(target, name_expressions=names, logs=log)
    except Exception as e:
        # cuda.core's NVRTCError has no stable import path across versions; its message carries the log.
        if type(e).__name__ != "NVRTCError":
            raise
        raise KernelCompileError(source, arch, names, defines, _clean_log(str(e))) from e
    finally:
        # Drop it here: a traceback that kept it alive would let cuda-core 1.2's
        # __dealloc__ run late and raise an "Exception ignored" warning.
        program.close()
        del program
    symbols = {name: _as_str(mangled) for name, mangled in code.symbol_mapping.items()}
    data = code.code
    return (data.encode() if isinstance(data, str) else bytes(data)), symbols, _clean_log(log.getvalue())


def _publish(tmp: Path, entry: Path, key: str, force: bool) -> None:
    """Rename a finished build into place. The directory rename is atomic, so readers see all or nothing."""
    for _ in range(3):  # another process may publish or discard between our steps
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            os.rename(tmp, entry)
            return
        except OSError:
            if not force and _read_entry(entry, key) is not None:
                _debug(f"another process built {entry} first; using its entry")
                return  # we lost a race to an identical build; the caller removes tmp
            _debug(f"replacing {'stale' if force else 'corrupt'} entry {entry}")
            _discard(entry)
            force = False  # an entry appearing after we cleared the old one is a fresh identical build
    raise RuntimeError(f"could not publish kernel cache entry {entry}")


def _read_entry(entry: Path, key: str) -> CompiledModule | None:
    """The cached module, or None if absent or damaged (a damaged entry is rebuilt, never trusted)."""
    if not entry.is_dir():
        return None
    meta = _read_meta(entry)
    try:
        cubin = (entry / _CUBIN).read_bytes()
    except OSError:
        cubin = None
    if (
        meta is None
        or cubin is None
        or meta.get("key") != key
        or meta.get("cubin_sha256") != hashlib.sha256(cubin).hexdigest()
    ):
        _debug(f"damaged cache entry {entry}; rebuilding")
        return None
    return CompiledModule(key=key, source=meta["source"], arch=meta["arch"], cubin=cubin, symbols=meta["symbols"],
                          log=meta["log"], path=entry, origin="disk")


def _read_meta(entry: Path) -> dict | None:
    try:
        meta = json.loads((entry / _META).read_text())
    except (OSError, ValueError):
        return None
    required = {"key": str, "source": str, "arch": str, "symbols": dict, "log": str, "cubin_sha256": str}
    if not isinstance(meta, dict) or not all(isinstance(meta.get(k), t) for k, t in required.items()):
        return None
    return meta


def _entry_dirs(root: Path) -> list[Path]:
    """Folders at <root>/<version>/<arch>/<key> holding a cubin or meta.json."""
    return [
        p for p in root.glob("*/*/*")
        if p.parts[-3] != _TMP and p.is_dir() and ((p / _META).exists() or (p / _CUBIN).exists())
    ]


def _discard(path: Path) -> None:
    """Remove a folder without anyone seeing it half-deleted: rename it into tmp/, then delete."""
    trash = cache_dir() / _TMP / f"trash.{uuid.uuid4().hex}"
    trash.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(path, trash)
    except OSError:
        return  # already gone (another process discarded it)
    shutil.rmtree(trash, ignore_errors=True)


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())  # the rename that publishes the entry must not outrun the data


# ---------------------------------------------------------------------------------------------
# Reports and small helpers

_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)'")


def _parse_ptxas_log(log: str, symbols: Mapping[str, str]) -> dict[str, KernelResources]:
    # NVRTC also compiles every non-template kernel of the file; report only the requested ones.
    by_mangled = {mangled: name for name, mangled in symbols.items()}
    found = {}
    # Each entry's lines run from its "Compiling entry function" line to the next one.
    chunks = _ENTRY_RE.split(log)[1:]
    for mangled, text in zip(chunks[::2], chunks[1::2]):
        def number(pattern):
            match = re.search(pattern, text)
            return int(match.group(1)) if match else 0

        if mangled not in by_mangled:
            continue
        found[by_mangled[mangled]] = KernelResources(
            registers=number(r"Used (\d+) registers"),
            shared_bytes=number(r"(\d+) bytes smem"),
            stack_bytes=number(r"(\d+) bytes stack frame"),
            spill_store_bytes=number(r"(\d+) bytes spill stores"),
            spill_load_bytes=number(r"(\d+) bytes spill loads"),
        )
    return found


def _print_ptxas_report(module: CompiledModule) -> None:
    if not env_flag("VNM_JIT_PTXAS_VERBOSE"):
        return
    lines = [f"[vnmsparse.jit] ptxas report for {module.source} ({module.arch}, {module.origin}):"]
    for name, r in module.resources().items():
        lines.append(
            f"  {name}: {r.registers} registers, {r.shared_bytes} B static smem, {r.stack_bytes} B stack, "
            f"{r.spill_store_bytes} B spill stores, {r.spill_load_bytes} B spill loads"
        )
    print("\n".join(lines), file=sys.stderr, flush=True)


def _debug(message: str) -> None:
    if env_flag("VNM_JIT_DEBUG"):
        print(f"[vnmsparse.jit] {message}", file=sys.stderr, flush=True)


def _clean_log(log: str) -> str:
    return log.replace("\x00", "").strip()


def _as_str(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _frozen(mapping) -> tuple:
    return tuple(sorted(mapping.items())) if mapping else ()


def launch_config(grid: tuple, block: tuple, shared_mem: int, stream, cluster: tuple, pdl: bool = False):
    """The CUlaunchConfig of cuLaunchKernelEx: grid, block, dynamic shared memory, stream handle,
    the cluster-dimension attribute (unless (1, 1, 1)) and the programmatic-stream-serialization
    one if ``pdl``. Host-only work."""
    from cuda.bindings import driver

    if any(g % c for g, c in zip(grid, cluster)):
        raise ValueError(f"cluster {cluster} must divide the grid {grid}")
    attrs = []
    if tuple(cluster) != (1, 1, 1):
        attrs.append(driver.CUlaunchAttribute())
        attrs[-1].id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attrs[-1].value.clusterDim.x, attrs[-1].value.clusterDim.y, attrs[-1].value.clusterDim.z = cluster
    if pdl:
        attrs.append(driver.CUlaunchAttribute())
        attrs[-1].id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attrs[-1].value.programmaticStreamSerializationAllowed = 1
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = shared_mem
    config.hStream = driver.CUstream(int(stream))
    config.attrs = attrs
    config.numAttrs = len(attrs)
    return config


# Building a CUlaunchConfig costs ~8 us of Python (measured on the CPU): a decode call's whole
# kernel time. The driver reads it at each launch, so one object per (grid, block, shared memory,
# stream, cluster, PDL) serves every call.
_cached_launch_config = functools.lru_cache(maxsize=256)(launch_config)


def _dim3(dims) -> tuple[int, int, int]:
    if isinstance(dims, int):
        return dims, 1, 1
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"grid/block must be an int or 1-3 ints, got {dims!r}")
    return (*dims, 1, 1)[:3]


def _pointer_arg(value) -> ctypes.c_void_p:
    if value is None or isinstance(value, int):
        return ctypes.c_void_p(value)
    if not value.is_cuda:  # a host pointer would fault on the device and poison the CUDA context
        raise ValueError(f"kernel pointer argument must be a CUDA tensor, got one on {value.device}")
    return ctypes.c_void_p(value.data_ptr())


def _tensor_map_arg(value: bytes):
    if len(value) != 128:
        raise ValueError(f"a tmap kernel argument is the 128 bytes of a CUtensorMap, got {len(value)}")
    return PARAM_TYPES["tmap"].from_buffer_copy(value)


NO_TENSOR_MAP = bytes(128)
"""A "tmap" argument for kernels that take one but do not use it in this launch."""


def tensor_map_2d(t, box: tuple[int, int], swizzle: int = 128) -> bytes:
    """TMA descriptor of a row-major 2-D fp16/bf16 CUDA tensor, for a "tmap" kernel parameter.

    ``box`` = (elements along the contiguous dimension, rows) that one copy moves; ``swizzle`` in
    bytes (0, 32, 64, 128). Reads past the tensor's edges fill zeros. Encoding is host-only work
    (no device call); descriptors are cached by (address, shape, strides, box), so a repeated
    call, and every CUDA-graph replay, costs one dict lookup.
    """
    import torch

    if t.dim() != 2 or t.stride(1) != 1 or t.dtype not in (torch.float16, torch.bfloat16) or not t.is_cuda:
        raise ValueError(f"tensor_map_2d needs a 2-D CUDA fp16/bf16 tensor with contiguous rows, got "
                         f"{tuple(t.shape)} strides {t.stride()} {t.dtype} on {t.device}")
    pitch = t.stride(0) * t.element_size()
    if t.data_ptr() % 16 or pitch % 16:
        raise ValueError(f"TMA needs a 16-byte aligned base and row pitch, got address {t.data_ptr():#x}, pitch {pitch} B")
    return _encode_2d(t.data_ptr(), t.dtype == torch.bfloat16, t.shape[1], t.shape[0], pitch, box[0], box[1], swizzle)


@functools.lru_cache(maxsize=1024)
def _encode_2d(address: int, bf16: bool, cols: int, rows: int, pitch: int, box_cols: int, box_rows: int,
               swizzle: int) -> bytes:
    from cuda.bindings import driver

    dtype = driver.CUtensorMapDataType
    swizzles = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}
    tmap = _check(driver, driver.cuTensorMapEncodeTiled(
        dtype.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 if bf16 else dtype.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, address,
        [driver.cuuint64_t(cols), driver.cuuint64_t(rows)], [driver.cuuint64_t(pitch)],
        [driver.cuuint32_t(box_cols), driver.cuuint32_t(box_rows)], [driver.cuuint32_t(1), driver.cuuint32_t(1)],
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(driver.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzles[swizzle]}"),
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    return ctypes.string_at(tmap.getPtr(), 128)


def _current_raw_stream_getter():
    import torch

    # The private call (what torch.compile's generated code uses) returns the handle
    # without building a torch.cuda.Stream object: about a microsecond per launch.
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw or (lambda device: torch.cuda.current_stream(device).cuda_stream)


def _allow_max_dynamic_shared_memory(driver, handle, device: int) -> int:
    """Raise the kernel's dynamic shared-memory limit to what the device allows; returns that limit.

    Done once at load so launches need no attribute call; the limit is only a
    permission, occupancy follows the shared memory a launch actually asks for.
    """
    attr = driver.CUfunction_attribute
    optin = _check(driver, driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device))
    if isinstance(handle, driver.CUkernel):
        static = _check(driver, driver.cuKernelGetAttribute(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, handle, device))
        limit = optin - static
        _check(driver, driver.cuKernelSetAttribute(
            attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit, handle, device))
    else:  # a CUfunction, from cuda-core's pre-12.0-driver module API
        static = _check(driver, driver.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, handle))
        limit = optin - static
        _check(driver, driver.cuFuncSetAttribute(handle, attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit))
    return limit


def _check(driver, result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {_driver_error(err)}")
    return values[0] if values else None


def _driver_error(err) -> str:
    from cuda.bindings import driver

    _, name = driver.cuGetErrorName(err)
    return name.decode() if isinstance(name, bytes) else str(err)
