"""Tests of vnmsparse.kernels.jit: compile, disk cache, errors (CPU) and launch (GPU).

Every test gets its own VNM_CACHE_DIR under tmp_path and empty in-process
caches, so nothing here touches ~/.cache or depends on test order.
"""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import torch

from vnmsparse.kernels import jit

SELFTEST = "jit_selftest.cu"
AXPY = ("axpy<float>", "axpy<__half>")
AXPY_PARAMS = ("i32", "f32", "ptr", "ptr")

nvrtc_ok, nvrtc_reason = jit.available()
needs_nvrtc = pytest.mark.skipif(not nvrtc_ok, reason=f"NVRTC unavailable: {nvrtc_reason}")
gpu = pytest.mark.gpu
needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path / "cache"))
    for flag in ("VNM_JIT_DISABLE_CACHE", "VNM_JIT_DUMP_PTX", "VNM_JIT_LINEINFO"):
        monkeypatch.delenv(flag, raising=False)
    monkeypatch.setattr(jit, "_modules", {})
    monkeypatch.setattr(jit, "_kernels", {})
    return tmp_path / "cache"


def forget_in_process():
    jit._modules.clear()
    jit._kernels.clear()


# --------------------------------------------------------------------------------------- CPU


@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_compiles_selftest_without_gpu(arch):
    module = jit.compile(SELFTEST, [*AXPY, "reverse_blocks", "arch_probe"], arch)
    assert module.origin == "compiled"
    assert module.cubin[:4] == b"\x7fELF"  # a cubin, not PTX text
    assert set(module.symbols) == {*AXPY, "reverse_blocks", "arch_probe"}
    assert all(mangled.startswith("_Z") for mangled in module.symbols.values())
    assert (module.path / "kernel.cubin").read_bytes() == module.cubin


@needs_nvrtc
def test_cache_miss_then_hits_in_process_and_on_disk(fresh_cache):
    first = jit.compile(SELFTEST, AXPY, "sm_80")
    assert jit.compile(SELFTEST, AXPY, "sm_80") is first  # in-process dict

    forget_in_process()
    from_disk = jit.compile(SELFTEST, AXPY, "sm_80")
    assert from_disk.origin == "disk"
    assert (from_disk.key, from_disk.cubin, from_disk.symbols) == (first.key, first.cubin, first.symbols)

    meta = json.loads((first.path / "meta.json").read_text())
    assert meta["symbols"] == first.symbols and meta["arch"] == "sm_80" and meta["created"]


@needs_nvrtc
def test_new_process_hits_disk_cache(fresh_cache):
    key = jit.compile(SELFTEST, AXPY, "sm_80").key
    assert finish(subprocess_compile(fresh_cache)) == (key, "disk")


@needs_nvrtc
def test_key_depends_on_inputs():
    base = jit.compile(SELFTEST, ["axpy<float>"], "sm_80").key
    variants = [
        jit.compile(SELFTEST, ["axpy<float>"], "sm_90a"),
        jit.compile(SELFTEST, ["axpy<__half>"], "sm_80"),
        jit.compile(SELFTEST, ["axpy<float>"], "sm_80", defines={"VNM_UNUSED": 1}),
        jit.compile(SELFTEST, ["axpy<float>"], "sm_80", options={"max_register_count": 64}),
    ]
    keys = {base, *(m.key for m in variants)}
    assert len(keys) == 5


@needs_nvrtc
def test_key_changes_when_any_source_file_changes(tmp_path):
    src = tmp_path / "csrc"
    shutil.copytree(jit.CSRC_DIR, src)
    original = jit.compile(SELFTEST, AXPY, "sm_80", source_dir=src)
    # Same bytes in another folder: same entry.
    assert jit.compile(SELFTEST, AXPY, "sm_80").key == original.key

    with open(src / "jit_selftest.cuh", "a") as f:  # an included header, not the compiled file
        f.write("\n// edited\n")
    edited = jit.compile(SELFTEST, AXPY, "sm_80", source_dir=src)
    assert edited.key != original.key and edited.origin == "compiled"

    (src / "jit_unrelated.cuh").write_text("// a new file nobody includes yet\n")
    assert jit.compile(SELFTEST, AXPY, "sm_80", source_dir=src).key not in {original.key, edited.key}


@needs_nvrtc
def test_source_elsewhere_includes_the_package_headers(tmp_path):
    # (scripts/probes/peak_probe.cu includes wgmma.cuh this way)
    (tmp_path / "probe.cu").write_text('#include "jit_selftest.cuh"\n'
                                       "template <typename T> __global__ void twice(T* y) { y[0] = vnm_selftest::from_float<T>"
                                       "(2.0f * vnm_selftest::to_float(y[0])); }\n")
    module = jit.compile("probe.cu", ["twice<float>"], "sm_80", source_dir=tmp_path)
    assert module.origin == "compiled"
    # a header of the source's own folder shadows the package's, and counts in the key
    (tmp_path / "jit_selftest.cuh").write_text((jit.CSRC_DIR / "jit_selftest.cuh").read_text() + "\n// own copy\n")
    assert jit.compile("probe.cu", ["twice<float>"], "sm_80", source_dir=tmp_path).key != module.key


@needs_nvrtc
@pytest.mark.parametrize("source,names", [("stream_probe.cu", ["stream_probe"]),
                                          ("peak_probe.cu", ["vnm::peak_probe<true>", "vnm::peak_probe<false>"]),
                                          ("gather_probe.cu", ["gather_probe"])])
def test_probe_sources_compile(source, names):
    """The GPU probes under scripts/probes build for sm_90a without spills (a header change that breaks
    one shows here, not on the device)."""
    probes = os.path.join(os.path.dirname(__file__), os.pardir, "scripts", "probes")
    resources = jit.compile_report(source, names, "sm_90a", source_dir=probes)
    assert set(resources) == set(names) and all(r.spills == 0 for r in resources.values())


@needs_nvrtc
@pytest.mark.parametrize("damage", ["bad_json", "missing_cubin", "truncated_cubin", "empty_dir"])
def test_damaged_entry_is_rebuilt(damage):
    good = jit.compile(SELFTEST, AXPY, "sm_80")
    entry = good.path
    if damage == "bad_json":
        (entry / "meta.json").write_text("{not json")
    elif damage == "missing_cubin":
        (entry / "kernel.cubin").unlink()
    elif damage == "truncated_cubin":
        (entry / "kernel.cubin").write_bytes(good.cubin[:100])
    else:
        shutil.rmtree(entry)
        entry.mkdir()

    forget_in_process()
    rebuilt = jit.compile(SELFTEST, AXPY, "sm_80")
    assert rebuilt.origin == "compiled" and rebuilt.path == entry
    forget_in_process()
    assert jit.compile(SELFTEST, AXPY, "sm_80").origin == "disk"


@needs_nvrtc
def test_concurrent_builds_leave_one_valid_entry(fresh_cache):
    start_at = time.time() + 2.0  # all processes start compiling at the same moment
    procs = [subprocess_compile(fresh_cache, start_at) for _ in range(4)]
    keys = {finish(p)[0] for p in procs}
    assert len(keys) == 1
    entries = jit.cache_entries()
    assert len(entries) == 1 and entries[0]["valid"]
    assert not any((fresh_cache / "tmp").glob("*")), "a loser left its temp dir behind"
    assert jit.compile(SELFTEST, AXPY, "sm_80").origin == "disk"


@needs_nvrtc
def test_disable_cache_recompiles(monkeypatch):
    jit.compile(SELFTEST, AXPY, "sm_80")
    monkeypatch.setenv("VNM_JIT_DISABLE_CACHE", "1")
    again = jit.compile(SELFTEST, AXPY, "sm_80")
    assert again.origin == "compiled"
    assert len(jit.cache_entries()) == 1


@needs_nvrtc
def test_dump_ptx_writes_ptx_next_to_cubin(monkeypatch, capsys):
    monkeypatch.setenv("VNM_JIT_DUMP_PTX", "1")
    module = jit.compile(SELFTEST, ["arch_probe"], "sm_90a")
    ptx = module.path / "kernel.ptx"
    if has_cuda_driver():
        assert ".target sm_90a" in ptx.read_text()
    else:  # cuda.core consults the driver before emitting PTX: the dump is skipped, the build is not
        assert not ptx.exists() and "VNM_JIT_DUMP_PTX" in capsys.readouterr().err
        assert module.cubin


@needs_nvrtc
def test_compile_report_has_registers_and_no_spills():
    report = jit.compile_report(SELFTEST, [*AXPY, "reverse_blocks"], "sm_80")
    assert set(report) == {*AXPY, "reverse_blocks"}
    for usage in report.values():
        assert usage.registers > 0
        assert usage.spills == 0 and usage.stack_bytes == 0


@needs_nvrtc
def test_compile_error_carries_log_and_leaves_no_entry(fresh_cache):
    with pytest.raises(jit.KernelCompileError) as info:
        jit.compile(SELFTEST, ["axpy<no_such_type>"], "sm_80")
    err = info.value
    assert isinstance(err, RuntimeError)
    assert "no_such_type" in err.log and "axpy<no_such_type>" in str(err) and "error" in str(err)
    assert jit.cache_entries() == []


@needs_nvrtc
def test_bad_arguments_are_rejected_early():
    with pytest.raises(ValueError, match="arch"):
        jit.compile(SELFTEST, AXPY, "80")
    with pytest.raises(FileNotFoundError):
        jit.compile("no_such_file.cu", AXPY, "sm_80")
    with pytest.raises(ValueError, match="name_expressions"):
        jit.compile(SELFTEST, [], "sm_80")


@needs_nvrtc
def test_cache_entries_and_clear_cache(fresh_cache):
    jit.compile(SELFTEST, ["axpy<float>"], "sm_80")
    jit.compile(SELFTEST, ["axpy<float>"], "sm_90a")
    entries = jit.cache_entries()
    assert sorted(e["arch"] for e in entries) == ["sm_80", "sm_90a"]
    assert all(e["kernels"] == ["axpy<float>"] and e["size"] > 0 and e["source"] == SELFTEST for e in entries)
    assert jit.cache_dir() == fresh_cache

    (fresh_cache / "keep-me.txt").write_text("not ours")
    assert jit.clear_cache() == 2
    assert jit.cache_entries() == []
    assert (fresh_cache / "keep-me.txt").exists()  # clear_cache removes only cache entries
    assert jit.compile(SELFTEST, ["axpy<float>"], "sm_80").origin == "compiled"


def test_missing_cuda_core_gives_install_hint(monkeypatch):
    for name in ("cuda.core", "cuda.core.experimental"):
        monkeypatch.setitem(sys.modules, name, None)  # makes `import` raise ImportError
    jit._cuda_core.cache_clear()
    jit._toolchain.cache_clear()
    try:
        ok, reason = jit.available()
        assert not ok and "vnmsparse[cuda]" in reason
        with pytest.raises(ImportError, match=r"vnmsparse\[cuda\]"):
            jit.compile(SELFTEST, AXPY, "sm_80")
    finally:
        jit._cuda_core.cache_clear()
        jit._toolchain.cache_clear()


# --------------------------------------------------------------------------------------- GPU


@gpu
@needs_gpu
@needs_nvrtc
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_axpy_runs_on_current_stream(dtype):
    name = "axpy<float>" if dtype == torch.float32 else "axpy<__half>"
    kernel = jit.get_kernel(SELFTEST, name, params=AXPY_PARAMS)
    assert jit.get_kernel(SELFTEST, name, params=AXPY_PARAMS) is kernel
    n = 10_000
    x = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.randn(n, device="cuda", dtype=dtype)
    expected = (2.5 * x.float() + y.float()).to(dtype)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # launch must follow torch's current stream, not the default one
        kernel.launch(cdiv(n, 256), 256, (n, 2.5, x, y))
    torch.cuda.current_stream().wait_stream(side)
    torch.testing.assert_close(y, expected)


@gpu
@needs_gpu
@needs_nvrtc
def test_default_arch_and_arch_probe():
    arch = jit.default_arch()
    major, minor = torch.cuda.get_device_capability()
    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    jit.get_kernel(SELFTEST, "arch_probe", params=("ptr",)).launch(1, 1, (out,))
    assert out.tolist() == [major * 100 + minor * 10, int(arch.endswith("a"))]


@gpu
@needs_gpu
@needs_nvrtc
def test_large_dynamic_shared_memory():
    kernel = jit.get_kernel(SELFTEST, "reverse_blocks", params=("i32", "ptr", "ptr"))
    shared = min(kernel.max_shared_mem, 96 * 1024)
    assert shared > 48 * 1024  # past the default limit: only works if load raised it
    block, blocks = 256, 4
    x = torch.arange(block * blocks, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    kernel.launch(blocks, block, (x.numel(), x, y), shared_mem=shared)
    torch.testing.assert_close(y, x.view(blocks, block).flip(1).reshape(-1))
    with pytest.raises(ValueError, match="shared memory"):
        kernel.launch(1, block, (x.numel(), x, y), shared_mem=kernel.max_shared_mem + 1)


@gpu
@needs_gpu
@needs_nvrtc
def test_axpy_in_cuda_graph():
    kernel = jit.get_kernel(SELFTEST, "axpy<float>", params=AXPY_PARAMS)
    n = 4096
    x = torch.ones(n, device="cuda")
    y = torch.zeros(n, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel.launch(cdiv(n, 128), 128, (n, 1.0, x, y))
    y.zero_()  # capture does not run the kernel
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y, torch.full_like(y, 3.0))


@gpu
@needs_gpu
@needs_nvrtc
def test_launch_overhead():
    kernel = jit.get_kernel(SELFTEST, "axpy<float>", params=AXPY_PARAMS)
    x = torch.ones(256, device="cuda")
    y = torch.zeros(256, device="cuda")
    args = (256, 1.0, x, y)
    for _ in range(100):
        kernel.launch(1, 256, args)
    torch.cuda.synchronize()
    calls = 2000
    start = time.perf_counter()
    for _ in range(calls):
        jit.get_kernel(SELFTEST, "axpy<float>", params=AXPY_PARAMS).launch(1, 256, args)
    host_us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        y.add_(x)  # a torch launch of a similar tiny kernel, for scale
    torch_us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    print(f"\nget_kernel + launch: {host_us:.1f} us/call host time (torch add_: {torch_us:.1f} us)")
    assert host_us < 50, f"launch path too slow: {host_us:.1f} us per call"


# --------------------------------------------------------------------------------------- helpers


def has_cuda_driver():
    from cuda.bindings import driver

    try:
        return driver.cuDriverGetVersion()[0] == driver.CUresult.CUDA_SUCCESS
    except Exception:  # libcuda not installed
        return False


def cdiv(a, b):
    return -(-a // b)


_CHILD = """
import sys, time
from vnmsparse.kernels import jit
time.sleep(max(0.0, float(sys.argv[1]) - time.time()))
module = jit.compile({source!r}, {names!r}, "sm_80")
print(module.key, module.origin)
"""


def subprocess_compile(cache, start_at=0.0):
    env = {**os.environ, "VNM_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join(sys.path)}
    code = _CHILD.format(source=SELFTEST, names=list(AXPY))
    return subprocess.Popen([sys.executable, "-c", code, str(start_at)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc):
    """(key, origin) printed by a subprocess_compile child."""
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    key, origin = out.split()
    return key, origin


def test_tensor_map_validates_before_the_driver():
    import ctypes

    with pytest.raises(ValueError, match="CUDA fp16/bf16"):
        jit.tensor_map_2d(torch.zeros(8, 64, dtype=torch.bfloat16), (64, 8))  # a CPU tensor
    with pytest.raises(ValueError, match="contiguous rows"):
        jit.tensor_map_2d(torch.zeros(8, 64).t(), (64, 8))
    assert len(jit.NO_TENSOR_MAP) == 128 and ctypes.sizeof(jit.PARAM_TYPES["tmap"]) == 128


@needs_nvrtc
def test_cluster_launch_config_is_built_once_per_launch_shape():
    """The CUlaunchConfig of a cluster launch (grid, block, shared memory, stream, cluster) is
    reused by every call with the same shape (building one costs a decode kernel's time), and a
    cluster that does not divide the grid is a ValueError."""
    a = jit._cached_launch_config((64, 1, 8), (128, 1, 1), 4096, 0, (1, 1, 8))
    assert jit._cached_launch_config((64, 1, 8), (128, 1, 1), 4096, 0, (1, 1, 8)) is a
    b = jit._cached_launch_config((64, 1, 8), (128, 1, 1), 4096, 7, (1, 1, 8))  # another stream
    assert b is not a and int(b.hStream) == 7 and (a.gridDimZ, a.sharedMemBytes) == (8, 4096)
    with pytest.raises(ValueError, match="must divide"):
        jit.launch_config((64, 1, 6), (128, 1, 1), 0, 0, (1, 1, 4))


@needs_nvrtc
def test_launch_config_attributes_for_clusters_and_pdl():
    """A launch config carries the cluster attribute only for a real cluster and the programmatic
    stream serialization attribute only when asked (PDL)."""
    from cuda.bindings import driver

    ids = lambda c: [c.attrs[i].id for i in range(c.numAttrs)]
    kinds = driver.CUlaunchAttributeID
    assert ids(jit.launch_config((8, 1, 1), (128, 1, 1), 0, 0, (1, 1, 1), pdl=True)) == [
        kinds.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    both = jit.launch_config((8, 1, 2), (128, 1, 1), 0, 0, (1, 1, 2), pdl=True)
    assert ids(both) == [kinds.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                         kinds.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    assert both.attrs[1].value.programmaticStreamSerializationAllowed == 1
    assert ids(jit.launch_config((8, 1, 2), (128, 1, 1), 0, 0, (1, 1, 2))) == [kinds.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION]


def test_settled_tensors():
    """jit.settle / jit.settled (what the decode kernel may read before its PDL wait): the tensors of a
    tree, each until written in place or freed; anything never settled is not."""
    a, b, other = torch.ones(3), torch.ones(2), torch.ones(1)
    tree = {"x": (a, [b, None]), "n": 1}
    assert jit.settle(tree) is tree
    assert jit.settled(a, b, None) and not jit.settled(a, other) and jit.settled()
    b.add_(1)  # written in place since
    assert jit.settled(a) and not jit.settled(b)
    key = id(a)
    del a, tree
    assert key not in jit._SETTLED
    with torch.inference_mode():  # inference tensors keep no version counter: settled until freed
        c = jit.settle(torch.ones(2))
    assert jit.settled(c)
