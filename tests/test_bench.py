"""Tests of the SpMM benchmark harness (vnmsparse.bench, benchmarks/*.py).

On CPU the harness runs end to end on tiny shapes (timing with time.perf_counter; cuSPARSELt and
CUDA graphs skipped with a reason). The GPU test runs the same tiny grid through CUDA graphs and
cuSPARSELt, so a broken GPU code path shows up before a real benchmark run.
"""

import contextlib
import importlib.util
import math
import runpy
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import vnmsparse
from vnmsparse import bench, cli

REPO = Path(__file__).resolve().parents[1]
# Tiny shapes, few repetitions, 3 patterns x 2 token counts: seconds on a busy 2-core CPU.
TINY = ["--tiny", "--reps", "5", "--patterns", "2:4,64:2:8,128:2:32", "--tokens", "1,8"]


def run_bench(tmp_path, *extra, device="cpu", tag="t"):
    """Run the CLI on the tiny grid; later options (extra) override TINY's."""
    code = cli.main(["bench", "spmm", "--device", device, "--out", str(tmp_path), "--tag", tag, *TINY, *extra])
    csv_path = tmp_path / f"spmm_{tag}.csv"
    env, rows = bench.read_csv(csv_path)
    return code, env, rows, (tmp_path / f"spmm_{tag}.md").read_text()


# --------------------------------------------------------------------------------------------
# random V:N:M weights


@pytest.mark.parametrize("pattern", ["2:4", "16:2:8", "64:2:8", "32:2:16", "128:2:32", "64:2:128"])
@pytest.mark.parametrize("shape", [(256, 512), (100, 300)])  # the second is ragged in rows and columns
def test_random_mask_is_vnm(pattern, shape):
    cfg = vnmsparse.VNMConfig.parse(pattern)
    gen = torch.Generator().manual_seed(1)
    mask = bench.random_vnm_mask(*shape, cfg, generator=gen)
    assert mask.shape == shape and mask.dtype == torch.bool
    assert vnmsparse.is_vnm(mask, cfg)
    r, k = shape
    full = k // cfg.m  # whole groups: every row keeps exactly 2 of their m columns
    per_row = mask[:, : full * cfg.m].reshape(r, full, cfg.m).sum(-1)
    assert (per_row == 2).all()


def test_random_mask_columns_are_uniform():
    cfg = vnmsparse.VNMConfig.parse("64:2:8")
    mask = bench.random_vnm_mask(64 * 200, 8 * 50, cfg, generator=torch.Generator().manual_seed(0))
    used = mask.view(200, 64, 50, 8).any(1)  # [row block, group, column]
    assert (used.sum(-1) == 4).all()  # 64 rows choosing pairs cover all 4 kept columns
    freq = used.float().mean((0, 1))  # each column is one of the 4 of 8 with probability 1/2
    assert torch.allclose(freq, torch.full_like(freq, 0.5), atol=0.03)


def test_random_weight_packs_and_has_no_zero_values():
    cfg = vnmsparse.VNMConfig.parse("64:2:16")
    w = bench.random_vnm_weight(128, 256, cfg, torch.bfloat16, generator=torch.Generator().manual_seed(0))
    assert int((w != 0).sum()) == 128 * (256 // 16) * 2  # every kept value is nonzero
    vw = vnmsparse.pack(w, cfg)
    assert torch.equal(vnmsparse.unpack(vw), w)


def test_clone_vnm_copies_memory_and_layouts():
    cfg = vnmsparse.VNMConfig.parse("64:2:8")
    vw = vnmsparse.pack(bench.random_vnm_weight(64, 64, cfg, torch.float16), cfg)
    vw.layout("test", lambda v: (v.values * 2, {"n": 3}))
    copy = bench.clone_vnm(vw)
    assert torch.equal(vnmsparse.unpack(copy), vnmsparse.unpack(vw))
    assert copy.values.data_ptr() != vw.values.data_ptr()
    assert copy._layouts["test"][0].data_ptr() != vw._layouts["test"][0].data_ptr()
    assert copy._layouts["test"][1] == {"n": 3}
    assert bench.resident_bytes(copy) == vw.nbytes + vw.values.numel() * 2


# --------------------------------------------------------------------------------------------
# grid selection


def test_grid_selection():
    shapes = bench.select_shapes("llama7b.gate_up,venom,4096x1024", bench.TOKENS)
    assert [s.name for s in shapes][:2] == ["llama7b.gate_up", "venom.base_attn"]
    assert (shapes[0].r, shapes[0].k, shapes[0].tokens) == (11008, 4096, bench.TOKENS)
    assert shapes[1].tokens == (4096, 8192)  # the VENOM artifact points only at T = 4096/8192
    assert (shapes[-1].name, shapes[-1].r, shapes[-1].k) == ("4096x1024", 4096, 1024)
    assert bench.select_shapes("venom", (1, 16)) == []
    pats = bench.select_patterns("default,16:2:8,2:4")
    assert len(pats) == 12 and str(pats[0]) == "64:2:4" and str(pats[-1]) == "16:2:8"
    assert len(bench.select_patterns("all")) == 17
    with pytest.raises(ValueError, match="unknown shape"):
        bench.select_shapes("llama8b", bench.TOKENS)


def test_bad_options_exit_2(capsys):
    assert bench.main(["spmm", "--shapes", "nope", "--dry-run"]) == 2
    assert bench.main(["spmm", "--paths", "nope", "--dry-run", "--device", "cpu"]) == 2
    assert "unknown path" in capsys.readouterr().err


def test_shapes_module_reexports_the_one_table():
    spec = importlib.util.spec_from_file_location("bench_shapes", REPO / "benchmarks" / "shapes.py")
    shapes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shapes)
    assert shapes.SHAPES is bench.SHAPES and shapes.TOKENS is bench.TOKENS
    assert shapes.SHAPES["llama70b"]["gate_up"] == (28672, 8192)


def test_quick_fills_only_what_was_not_given():
    args = bench.build_parser().parse_args(["spmm", "--quick", "--tokens", "1,2048"])
    shapes, patterns = bench._grid(args)
    assert [s.name for s in shapes] == bench.QUICK["shapes"].split(",")
    assert all(s.tokens == (1, 2048) for s in shapes)
    assert [bench.pattern_name(c) for c in patterns] == bench.QUICK["patterns"].split(",")
    tiny, _ = bench._grid(bench.build_parser().parse_args(["spmm", "--quick", "--tiny"]))
    assert [s.name for s in tiny] == ["tiny.a", "tiny.b"] and tiny[0].tokens == bench.TINY_TOKENS


def test_dry_run_prints_grid_and_estimate(capsys):
    assert bench.main(["spmm", "--dry-run", "--quick", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "llama7b.gate_up" in out and "estimated H200 seconds" in out


# --------------------------------------------------------------------------------------------
# end to end on CPU


def test_cli_runs_end_to_end_on_cpu(tmp_path):
    code, env, rows, md = run_bench(tmp_path)
    assert code == 0
    assert env["device"] == "cpu" and "ceiling dense" in env and env["torch"] == torch.__version__
    configs = {(r["shape"], r["T"], r["pattern"]) for r in rows}
    assert len(configs) == 2 * 2 * 3  # tiny shapes x T x patterns
    for path in ("dense", "auto"):
        sel = [r for r in rows if r["path"] == path]
        assert len(sel) == len(configs) and all(r["status"] == "ok" for r in sel)
        assert all(r["rel_err"] < 1e-2 and r["t_us"] > 0 and r["wall_us"] > 0 for r in sel)
    auto = [r for r in rows if r["path"] == "auto"]
    assert all(math.isfinite(r["speedup"]) and math.isfinite(r["frac_ideal"]) for r in auto)
    assert {round(r["weight_ratio"], 4) for r in auto if r["pattern"] == "2:4"} == {0.5625}
    cslt = [r for r in rows if r["path"].startswith("cslt")]
    assert cslt and all(r["status"] == "skip" and "CUDA" in r["note"] for r in cslt)
    for section in ("## Geometric-mean speedup", "## Issue-3 targets", "Spatha", "## Wrong-result (FAIL) / error rows: 0"):
        assert section in md
    png = tmp_path / "spmm_t.png"
    assert png.exists() == (importlib.util.find_spec("matplotlib") is not None)


def test_failures_are_loud_and_get_no_speedups(tmp_path, monkeypatch, capsys):
    def wrong(x, vw, bias=None):
        return vnmsparse.spmm(x, vw) * 1.5

    def nan(x, vw, bias=None):
        return torch.full((x.shape[0], vw.shape[0]), math.nan, dtype=x.dtype)

    def raises(x, vw, bias=None):
        raise NotImplementedError("no kernel for this shape")

    import vnmsparse.kernels as kernels

    monkeypatch.setattr(kernels, "spmm_paths", lambda device: {"wrong": wrong, "nan": nan, "raises": raises},
                        raising=False)
    code, _, rows, md = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "8", "--paths", "auto,wrong,nan,raises",
                                  "--shapes", "tiny.a")
    assert code == 1
    by_path = {r["path"]: r for r in rows if r["shape"] == "tiny.a"}
    assert by_path["auto"]["status"] == "ok"
    assert by_path["wrong"]["status"] == "FAIL" and "rel_err" in by_path["wrong"]["note"]
    assert by_path["nan"]["status"] == "FAIL" and "NaN" in by_path["nan"]["note"]
    assert by_path["raises"]["status"] == "error" and "no kernel" in by_path["raises"]["note"]
    for p in ("wrong", "nan", "raises"):
        assert math.isnan(by_path[p]["speedup"])
    assert "*** FAIL ***" in capsys.readouterr().err
    assert "## Wrong-result (FAIL) / error rows: 3" in md and "**FAIL**" in md


def test_paths_that_do_not_apply_get_skip_rows(tmp_path, monkeypatch):
    """A path with ``skip_reason(tokens, vw)`` (the decode kernel: T <= 64 only) gets a skip row,
    not a time of whatever it would fall back to."""
    def small_t(x, vw, bias=None):
        return vnmsparse.spmm(x, vw)

    small_t.skip_reason = lambda tokens, vw: "T > 4" if tokens > 4 else None
    import vnmsparse.kernels as kernels

    monkeypatch.setattr(kernels, "spmm_paths", lambda device: {"small_t": small_t}, raising=False)
    code, _, rows, md = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "1,8", "--paths", "auto,small_t",
                                  "--shapes", "tiny.a")
    assert code == 0
    status = {(r["T"], r["path"]): r["status"] for r in rows if r["shape"] == "tiny.a"}
    assert status[(1, "small_t")] == "ok" and status[(8, "small_t")] == "skip" and status[(8, "auto")] == "ok"
    assert "small_t (T > 4)" in md


def test_feature_major_path_gets_x_stored_feature_major(tmp_path, monkeypatch):
    """A path with ``feature_major = True`` (auto_xt: Spatha's operand layout) is timed and checked
    on X stored as [K, T] (a token-contiguous [T, K] view), the others on row-major X."""
    seen = {}

    def spy(name):
        def fn(x, vw, bias=None):
            if x.shape[0] > 1:  # (not the one-token call that builds the layouts)
                seen.setdefault(name, set()).add(x.stride(0) == 1)
            return vnmsparse.spmm(x, vw, bias)
        return fn

    fm = spy("fm")
    fm.feature_major = True
    import vnmsparse.kernels as kernels

    monkeypatch.setattr(kernels, "spmm_paths", lambda device: {"fm": fm, "rm": spy("rm")}, raising=False)
    code, _, rows, _ = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "8", "--paths", "fm,rm,auto_xt",
                                 "--shapes", "tiny.a")
    assert code == 0 and seen == {"fm": {True}, "rm": {False}}
    assert {r["path"]: r["status"] for r in rows if r["path"] != "dense"} == {"fm": "ok", "rm": "ok", "auto_xt": "ok"}


def test_budget_stops_adding_configs(tmp_path):
    code, _, rows, md = run_bench(tmp_path, "--budget-seconds", "0")
    assert code == 0 and rows == []
    assert "skipped by --budget-seconds" in md


def test_scripts_wrap_the_same_code(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["bench_spmm.py", "--device", "cpu", "--out", str(tmp_path), "--tag", "s", *TINY,
                                      "--patterns", "2:4", "--tokens", "8", "--shapes", "tiny.a", "--no-plot"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "benchmarks" / "bench_spmm.py"), run_name="__main__")
    assert done.value.code == 0
    md = tmp_path / "spmm_s.md"
    md.unlink()
    monkeypatch.setattr(sys, "argv", ["plot_spmm.py", str(tmp_path / "spmm_s.csv")])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "benchmarks" / "plot_spmm.py"), run_name="__main__")
    assert done.value.code == 0 and "## Issue-3 targets" in md.read_text()


# --------------------------------------------------------------------------------------------
# The GPU-only branches, driven on CPU through stand-ins (their CUDA behaviour is the GPU test's)


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


@pytest.fixture
def fake_cuda(monkeypatch):
    """torch.cuda streams, events, sync and graphs as CPU stand-ins; .fail_capture makes capture raise."""
    state = SimpleNamespace(fail_capture=False, replays=0, resets=0)
    stream = SimpleNamespace(wait_stream=lambda other: None)

    class FakeGraph:
        def replay(self):
            state.replays += 1

        def reset(self):
            state.resets += 1

    @contextlib.contextmanager
    def graph(g):
        if state.fail_capture:
            raise RuntimeError("operation not permitted when stream is capturing")
        yield

    for name, value in {"Stream": lambda device=None: stream, "current_stream": lambda device=None: stream,
                        "stream": lambda s: contextlib.nullcontext(), "synchronize": lambda device=None: None,
                        "CUDAGraph": FakeGraph, "graph": graph, "Event": FakeEvent}.items():
        monkeypatch.setattr(torch.cuda, name, value)
    return state


@pytest.mark.parametrize("fail_capture", [False, True])
def test_cuda_clock_control_flow(fake_cuda, fail_capture):
    fake_cuda.fail_capture = fail_capture
    calls = []
    clock = bench.CudaClock(torch.device("cpu"))
    t = clock.measure(lambda i: calls.append(i), n_sets=4, reps=7, max_s=10.0)
    assert calls[:5] == [0, 0, 1, 2, 3]  # the first call, then one warm-up call per rotation set
    assert t.n_sets == 4 and t.calls % 4 == 0 and t.reps == 7 and t.median_us >= 0
    if fail_capture:
        assert t.method.startswith("events (RuntimeError") and fake_cuda.replays == 0
        assert len(calls) >= 5 + t.calls * (t.reps + 2)  # every replay ran the calls eagerly
    else:
        # upload, GPU time of the first graph (a no-op here: below MIN_REPLAY_S unless the machine stalls, so one
        # longer recapture and its upload), the estimate, the reps
        assert t.method == "graph" and fake_cuda.resets <= 1 and fake_cuda.replays == t.reps + 3 + fake_cuda.resets
        assert fake_cuda.resets == 0 or t.calls > 4


def test_cslt_baseline_with_fake_cusparselt(tmp_path, monkeypatch):
    """Padding, transposes, the alg search and ranking, and speedups vs cuSPARSELt, with fake ops."""
    seen = []

    def fake_mm(wc, xt, bias=None, alpha=None, out_dtype=None, transpose_result=False, alg_id=0, split_k=1, mode=-1):
        seen.append((alg_id, tuple(xt.shape)))
        if alg_id == 3:
            raise RuntimeError("invalid alg_id")
        return (wc.float() @ xt.float()).to(wc.dtype)  # Y^T [R, T], like cuSPARSELt

    monkeypatch.setattr(bench, "cslt_unavailable", lambda device: "")
    monkeypatch.setattr(torch, "_cslt_compress", lambda w: w.clone())
    monkeypatch.setattr(torch, "_cslt_sparse_mm", fake_mm)
    monkeypatch.setattr(torch._C, "_cusparselt", SimpleNamespace(mm_search=lambda *a: (2, 1, -1, 5)), raising=False)
    code, _, rows, md = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "1,8", "--shapes", "tiny.a")
    assert code == 0
    cslt = {(r["path"], r["T"]): r for r in rows if r["path"].startswith("cslt")}
    assert all(r["status"] == "ok" and r["rel_err"] < 1e-2 for r in cslt.values())
    assert "T padded 1->8" in cslt["cslt", 1]["note"] and "padded" not in cslt["cslt", 8]["note"]
    assert "search chose alg_id=2" in cslt["cslt_best", 8]["note"] and "2/3 other algs ran" in cslt["cslt_best", 8]["note"]
    assert {a for a, _ in seen} == {0, 1, 2, 3} and all(shape[1] % 8 == 0 for _, shape in seen)
    assert cslt["cslt_best", 8]["t_us"] <= cslt["cslt", 8]["t_us"]
    assert {r["pattern"] for r in rows if r["path"] == "auto"} == {"64:2:8"}  # 2:4 only as the baseline
    auto = [r for r in rows if r["path"] == "auto"]
    assert all(math.isfinite(r["speedup_vs_cslt"]) for r in auto)
    assert "| 2:4 |" in md


# --------------------------------------------------------------------------------------------
# GPU: the CUDA-graph, cuSPARSELt and kernel paths of the harness on a tiny grid


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_harness_on_gpu(tmp_path):
    code, env, rows, md = run_bench(tmp_path, "--patterns", "2:4,64:2:8", "--tokens", "1,64", "--shapes", "tiny",
                                    device="cuda")
    assert "ceiling copy" in env and "gpu name" in env
    # (paths that do not apply to a T, such as mma_sp_ws at T <= 64, have skip rows with their reason)
    bad = [(r["path"], r["T"], r["pattern"], r["note"]) for r in rows
           if not (r["status"] == "ok" or (r["status"] == "skip" and r["note"])) and not r["path"].startswith("cslt")]
    assert bad == []
    assert any(r["status"] == "ok" for r in rows if r["path"] == "auto")
    assert all(r["method"] == "graph" for r in rows if r["path"] == "dense")
    if torch.backends.cusparselt.is_available():
        cslt = [r for r in rows if r["path"].startswith("cslt")]
        assert cslt and all(r["status"] == "ok" for r in cslt), [(r["path"], r["note"]) for r in cslt]
        assert any("T padded 1->8" in r["note"] for r in cslt)
    assert code == 0


def test_stop_early_turns_interrupts_into_a_note_and_restores_sigterm():
    import os
    import signal
    import time

    from vnmsparse import bench as B

    before = signal.getsignal(signal.SIGTERM)
    with B.StopEarly() as stop:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)
    assert stop.code == 1 and "SIGTERM" in stop.notes[0] and signal.getsignal(signal.SIGTERM) == before
    with B.StopEarly() as lost:
        raise B.DeviceLost("illegal address")
    assert lost.code == 1 and "DeviceLost" in lost.notes[0]
    with pytest.raises(ValueError):
        with B.StopEarly():
            raise ValueError("other errors propagate")


def test_sm_clock_monitor_windows():
    """Median of the samples inside a window; a window between samples gets the last one before its
    end; nothing yet: NaN. A missing nvidia-smi gives NaN, never an error."""
    import io

    class FakeProc:
        def __init__(self, text):
            self.stdout = io.StringIO(text)

        def poll(self):
            return 0

    mon = bench.SmClockMonitor("0", popen=lambda *a, **k: FakeProc(""))
    assert math.isnan(mon.median(0.0, 1e9))
    mon.times, mon.mhz = [1.0, 2.0, 3.0, 4.0], [1980.0, 1700.0, 1660.0, 1650.0]
    assert mon.median(1.5, 3.5) == 1680.0
    assert mon.median(2.2, 2.8) == 1700.0  # between samples: the last one before the window's end
    assert math.isnan(mon.median(0.1, 0.5))
    mon.watts = [700.0, 690.0, 680.0, 650.0]
    assert mon.median_watts(1.5, 3.5) == 685.0
    mon._read(io.StringIO("1980, 312.5\n[N/A], [N/A]\n1700\n"))
    assert mon.mhz[-2:] == [1980.0, 1700.0] and mon.watts[-2] == 312.5 and math.isnan(mon.watts[-1])

    def missing(*a, **k):
        raise FileNotFoundError("nvidia-smi")

    assert math.isnan(bench.SmClockMonitor("0", popen=missing).median(0.0, 1e9))


def test_sustained_replays_for_the_time_asked_and_reads_the_settled_window():
    """sustained(): back-to-back replays for about the seconds asked, syncing as it goes; the clock and power
    medians over the last two thirds of that span (the limiter's response left out); NaN without a monitor."""
    calls, syncs = [], []

    class Monitor:
        def median(self, t0, t1):
            self.window = (t0, t1)
            return 1500.0

        def median_watts(self, t0, t1):
            return 700.0

    def replay():
        calls.append(time.perf_counter())
        time.sleep(0.002)

    mon = Monitor()
    t0 = time.perf_counter()
    per_replay, mhz, watts = bench.sustained(replay, 0.1, lambda: syncs.append(1), mon)
    elapsed = time.perf_counter() - t0
    assert 0.1 <= elapsed < 0.5 and len(calls) >= 20 and syncs
    assert 0.002 <= per_replay < 0.01 and (mhz, watts) == (1500.0, 700.0)
    start, end = mon.window[0] - (mon.window[1] - mon.window[0]) / 2, mon.window[1]  # the window: the last 2/3
    assert calls[1] - 0.01 <= start <= calls[1] + 0.01 and end >= calls[-1]
    assert all(math.isnan(v) for v in bench.sustained(replay, 0.01, lambda: None)[1:])


def test_sustain_adds_columns_and_a_table(tmp_path):
    """--sustain S: every ok row gets sus_us / sus_MHz / sus_W / sus_mJ and sus_speedup against cuBLAS's (1 for
    it); the markdown gets the sustained table; without the option those columns stay empty."""
    code, env, rows, md = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "8", "--shapes", "tiny.a",
                                    "--sustain", "0.02")
    assert code == 0
    ok = [r for r in rows if r["status"] == "ok" and r["pattern"] == "64:2:8"]
    assert {r["path"] for r in ok} == {"dense", "auto"} and all(r["sus_us"] > 0 for r in ok)  # (MHz, W: no nvidia-smi)
    dense = next(r for r in ok if r["path"] == "dense")
    assert dense["sus_speedup"] == 1.0
    assert all(math.isclose(r["sus_speedup"], dense["sus_us"] / r["sus_us"], rel_tol=1e-4) for r in ok)  # (6 digits)
    assert "## Sustained" in md
    _, _, rows, md = run_bench(tmp_path, "--patterns", "64:2:8", "--tokens", "8", "--shapes", "tiny.a", tag="u")
    assert all(math.isnan(r["sus_us"]) for r in rows) and "## Sustained" not in md


def test_measure_group_times_paths_in_turns_and_keeps_errors_apart():
    seen = []
    clock = bench.Clock(torch.device("cpu"))

    def broken(i):
        raise RuntimeError("no kernel image")

    out = clock.measure_group([(lambda i: seen.append(("a", i)), 2), (broken, 2), (lambda i: seen.append(("b", i)), 3)],
                              reps=6, max_s=10.0)
    assert isinstance(out[1], RuntimeError) and "no kernel image" in str(out[1])
    assert out[0].reps == out[2].reps == 6 and out[0].n_sets == 2 and out[2].n_sets == 3
    timed = seen[seen.index(("b", 2)) + 1:][:12]  # after b's warm-up: the repetitions, a and b in turns
    assert [p for p, _ in timed] == ["a", "b"] * 6
    assert [i for p, i in timed if p == "b"] == [0, 1, 2, 0, 1, 2]
