"""Optional autotuning (VNM_AUTOTUNE): choice, memory and disk cache, and the kernels' use of it."""

import json

import pytest
import torch

import vnmsparse as vs
from vnmsparse.kernels import autotune


@pytest.fixture
def tuning(tmp_path, monkeypatch):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(autotune.ENV, "1")
    autotune.clear_memory()
    yield tmp_path
    autotune.clear_memory()


def test_off_unless_asked(monkeypatch):
    monkeypatch.delenv(autotune.ENV, raising=False)
    assert not autotune.enabled()
    monkeypatch.setenv(autotune.ENV, "1")
    assert autotune.enabled() and autotune.can_time()


def test_picks_the_fastest_and_remembers_it(tuning, monkeypatch):
    timed = []
    times = {"a": 3.0, "b": 1.0, "c": 2.0}

    def fake_median(run):
        name = run()
        timed.append(name)
        return times[name]

    monkeypatch.setattr(autotune, "_median_ms", fake_median)
    runs = {n: (lambda n=n: n) for n in times}
    assert autotune.choose("k1", runs) == "b" and sorted(timed) == ["a", "b", "c"]
    assert json.loads((tuning / autotune.FILE).read_text()) == {"k1": "b"}

    # a new process (memory cleared) reads the file and times nothing
    autotune.clear_memory()
    monkeypatch.setattr(autotune, "_median_ms", lambda run: pytest.fail("timed a cached choice"))
    assert autotune.choose("k1", runs) == "b"

    # a cached choice that is no longer a candidate is tuned again; other keys in the file survive
    monkeypatch.setattr(autotune, "_median_ms", fake_median)
    assert autotune.choose("k1", {"a": runs["a"], "c": runs["c"]}) == "c"
    assert autotune.choose("k2", runs) == "b"
    assert json.loads((tuning / autotune.FILE).read_text()) == {"k1": "c", "k2": "b"}


def test_no_timing_while_capturing_or_tracing(tuning, monkeypatch):
    monkeypatch.setattr(autotune, "_median_ms", lambda run: 1.0)
    assert autotune.choose("k", {"a": lambda: None}) == "a"
    monkeypatch.setattr(autotune, "can_time", lambda: False)
    monkeypatch.setattr(autotune, "_median_ms", lambda run: pytest.fail("timed while capturing"))
    assert autotune.choose("k", {"a": lambda: None}) == "a"  # cached: used
    assert autotune.choose("new", {"a": lambda: None}) is None  # not cached: the heuristic


def test_a_corrupt_or_unwritable_file_is_not_fatal(tuning, monkeypatch):
    (tuning / autotune.FILE).write_text("{not json")
    monkeypatch.setattr(autotune, "_median_ms", lambda run: 1.0)
    assert autotune.choose("k", {"only": lambda: None}) == "only"
    assert json.loads((tuning / autotune.FILE).read_text()) == {"k": "only"}
    monkeypatch.setattr(autotune, "_path", lambda: tuning / "missing-dir" / "x" / autotune.FILE)
    monkeypatch.setattr(autotune.os, "replace", lambda a, b: (_ for _ in ()).throw(OSError("read-only")))
    with pytest.warns(UserWarning, match="not saved"):
        assert autotune.choose("k3", {"only": lambda: None}) == "only"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("pattern,t", [("64:2:8", 7), ("128:2:16", 300), ("2:4", 1000)])
def test_gpu_tuned_results_match_and_are_cached(tuning, pattern, t, monkeypatch):
    monkeypatch.setenv("VNM_DECODE", "0")  # on sm_90, T <= 8: the tiles only (the decode kernel's plans: below)
    cfg = vs.VNMConfig.parse(pattern)
    gen = torch.Generator().manual_seed(t)
    r, k = 384, 1024
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16().cuda()
    x = torch.randn(t, k, generator=gen).bfloat16().cuda()
    ref = x.float() @ w.float().t()
    y = vs.spmm(x, vs.pack(w, cfg))
    assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    assert json.loads((tuning / autotune.FILE).read_text())


def test_tile_and_splits_offers_each_tile_with_and_without_split_k(tuning, monkeypatch):
    launched = []
    monkeypatch.setattr(autotune, "problem_key", lambda *a: "key")
    monkeypatch.setattr(autotune, "_median_ms", lambda run: run())
    x = torch.zeros(2, 8)

    def launch(tile, splits):
        launched.append((tile, splits))
        return {("a", 1): 3.0, ("a", 4): 1.0, ("b", 1): 2.0}[(tile, splits)]

    got = autotune.tile_and_splits("k", x, 8, 8, 2, 64, 8, ["a", "b"], lambda t: 4 if t == "a" else 1, launch)
    assert got == ("a", 4) and sorted(launched) == [("a", 1), ("a", 4), ("b", 1)]
    monkeypatch.setattr(autotune, "can_time", lambda: False)
    assert autotune.tile_and_splits("k", x, 8, 8, 2, 64, 8, ["c"], lambda t: 1, launch) == (None, None)


def test_forced_turns_tuning_on_for_a_block(monkeypatch):
    monkeypatch.delenv(autotune.ENV, raising=False)
    with autotune.forced():
        assert autotune.enabled()
    assert not autotune.enabled()


def test_pick_returns_the_fastest_configs_arguments(tuning, monkeypatch):
    monkeypatch.setattr(autotune, "problem_key", lambda *a: "key")
    monkeypatch.setattr(autotune, "_median_ms", lambda run: run())
    configs = {"slow": (3.0, "a"), "fast": (1.0, "b")}
    assert autotune.pick("k", torch.zeros(1), 8, 8, 1, 64, 8, configs, lambda t, name: t) == (1.0, "b")
    monkeypatch.setattr(autotune, "can_time", lambda: False)
    assert autotune.pick("new", torch.zeros(1), 8, 8, 1, 64, 8, configs, lambda t, name: t) == (1.0, "b")  # cached
    monkeypatch.setattr(autotune, "problem_key", lambda *a: "other")
    assert autotune.pick("k", torch.zeros(1), 8, 8, 1, 64, 8, configs, lambda t, name: t) is None


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
                    reason="needs an sm_90 GPU (the decode kernel's clusters)")
@pytest.mark.parametrize("pattern,t", [("64:2:8", 4), ("128:2:32", 2), ("64:2:16", 8)])
def test_gpu_every_tuned_decode_plan_is_right(tuning, pattern, t, monkeypatch):
    """At T = 1-8 autotune times the decode kernel at every split count beside the tiles: whichever
    it keeps gives the right Y (R not a multiple of V, fresh inputs each plan, Y poisoned)."""
    from vnmsparse.kernels import spmm_mma_sp as K, spmm_wgmma_sp as W
    cfg = vs.VNMConfig.parse(pattern)
    gen = torch.Generator().manual_seed(t)
    r, k = 320, 2048
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16().cuda()
    vw = vs.pack(w, cfg)
    plans = K.decode_plans(torch.device("cuda"), t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m, torch.bfloat16, image=True)
    assert len(plans) >= 3
    monkeypatch.setattr(autotune, "TIMING", "flush")  # (each plan made the winner through the flush timer)
    for plan in plans:
        autotune.clear()
        monkeypatch.setattr(autotune, "_median_ms", lambda run, plan=plan: 0.0 if run.args[0] == plan else 1.0)
        x = torch.randn(t, k, generator=gen).bfloat16().cuda()
        out = torch.full((t, r), float("nan"), dtype=torch.bfloat16, device="cuda")
        y = W.spmm_sm90a(x, *W.layout_of(vw), None, r, k, cfg.v, cfg.m, out=out)
        ref = x.float() @ w.float().t()
        assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2, plan
        chosen = json.loads((tuning / autotune.FILE).read_text())
        assert list(chosen.values()) == ["decode/{}x{}/k{}".format(*plan[:3])], chosen


def test_the_heuristics_choice_yields_only_to_a_win_by_the_margin(tuning, monkeypatch):
    monkeypatch.setattr(autotune, "_median_ms", lambda run: run())
    monkeypatch.delenv("VNM_AUTOTUNE_MARGIN", raising=False)
    runs = {"heuristic": lambda: 1.0, "close": lambda: 0.97, "far": lambda: 0.9}
    assert autotune.choose("k1", {n: runs[n] for n in ("heuristic", "close")}, "heuristic") == "heuristic"
    assert autotune.choose("k2", runs, "heuristic") == "far"
    assert autotune.choose("k3", runs, "not a candidate") == "far"  # no heuristic among them: the fastest
    monkeypatch.setenv("VNM_AUTOTUNE_MARGIN", "0")
    assert autotune.choose("k4", {n: runs[n] for n in ("heuristic", "close")}, "heuristic") == "close"
    monkeypatch.setenv("VNM_AUTOTUNE_MARGIN", "0.2")
    assert autotune.choose("k5", runs, "heuristic") == "heuristic"
    for bad in ("1", "-0.1", "five percent"):
        monkeypatch.setenv("VNM_AUTOTUNE_MARGIN", bad)
        with pytest.raises(ValueError, match="VNM_AUTOTUNE_MARGIN"):
            autotune.choose(f"bad{bad}", runs, "heuristic")


def test_tile_and_splits_keeps_the_heuristic_tile_within_the_margin(tuning, monkeypatch):
    monkeypatch.setattr(autotune, "problem_key", lambda *a: "key")
    monkeypatch.setattr(autotune, "_median_ms", lambda run: run())
    monkeypatch.delenv("VNM_AUTOTUNE_MARGIN", raising=False)
    times = {("a", 1): 3.0, ("a", 4): 1.0, ("b", 1): 0.98}
    got = autotune.tile_and_splits("k", torch.zeros(2, 8), 8, 8, 2, 64, 8, ["a", "b"], lambda t: 4 if t == "a" else 1,
                                   lambda t, s: times[(t, s)], heuristic="a")
    assert got == ("a", 4)


def test_rotate_times_each_candidate_over_weight_copies_made_once(tuning, monkeypatch):
    """TIMING "rotate": every candidate runs on each copy of the weight's tensors in turn; the copies
    are made at the first timing only, and a cached choice makes none."""
    monkeypatch.setattr(autotune, "TIMING", "rotate")
    monkeypatch.setattr(autotune, "problem_key", lambda kernel, *a: kernel)
    made, seen = [], []
    monkeypatch.setattr(autotune, "weight_copies", lambda w: made.append(w) or [w, ("copy1",), ("copy2",)])
    monkeypatch.setattr(autotune, "_rotated_ms", lambda run, copies: sum(run(i) for i in range(copies)))

    def launch(cost, weights=("original",)):
        seen.append(weights[0])
        return cost

    configs = {"slow": (3.0,), "fast": (1.0,)}
    assert autotune.pick("k", torch.zeros(1), 8, 8, 1, 64, 8, configs, launch, weights=("original",)) == (1.0,)
    assert made == [("original",)] and seen == ["original", "copy1", "copy2"] * 2
    assert autotune.pick("k", torch.zeros(1), 8, 8, 1, 64, 8, configs, launch, weights=("original",)) == (1.0,)
    assert len(made) == 1  # cached: nothing copied, nothing timed


def test_rotate_falls_back_to_the_flush_timing_where_the_copies_do_not_fit(tuning, monkeypatch):
    monkeypatch.setattr(autotune, "TIMING", "rotate")
    monkeypatch.setattr(autotune, "problem_key", lambda kernel, *a: kernel)
    monkeypatch.setattr(autotune, "weight_copies", lambda w: (_ for _ in ()).throw(torch.OutOfMemoryError("full")))
    monkeypatch.setattr(autotune, "_median_ms", lambda run: run())
    configs = {"slow": (3.0,), "fast": (1.0,)}
    assert autotune.pick("k", torch.zeros(1), 8, 8, 1, 64, 8, configs, lambda c, weights=(): c, weights=("w",)) == (1.0,)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
                    reason="needs an sm_90 GPU")
@pytest.mark.parametrize("pattern,t", [("64:2:8", 4), ("2:4", 300), ("128:2:16", 32)])
def test_gpu_rotate_timing_picks_a_right_config(tuning, pattern, t, monkeypatch):
    """Timing over weight copies back to back (TIMING "rotate"): the op's result is right and the
    choice is cached; the copies leave with the tuning."""
    monkeypatch.setattr(autotune, "TIMING", "rotate")
    cfg = vs.VNMConfig.parse(pattern)
    gen = torch.Generator().manual_seed(t)
    r, k = 320, 2048
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).bfloat16().cuda()
    vw = vs.pack(w, cfg)
    x = torch.randn(t, k, generator=gen).bfloat16().cuda()
    # the reference (its cuBLAS workspace, 32 MiB, v257) and the layouts before the memory is measured
    ref = x.float() @ w.float().t()
    vs.spmm(x, vw)
    torch.cuda.synchronize()
    autotune.clear()
    before = torch.cuda.memory_allocated()
    y = vs.spmm(x, vw)
    assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    assert json.loads((tuning / autotune.FILE).read_text())
    del y
    assert torch.cuda.memory_allocated() - before < 2 * x.numel() * x.element_size() + (1 << 20)


def test_a_choice_is_not_reused_under_another_margin_or_timing(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "GPU")
    monkeypatch.delenv("VNM_AUTOTUNE_MARGIN", raising=False)
    key = lambda: autotune.problem_key("k", torch.device("cpu"), torch.bfloat16, 8, 8, 3, 64, 8)  # noqa: E731
    first = key()
    monkeypatch.setenv("VNM_AUTOTUNE_MARGIN", "0.1")
    second = key()
    monkeypatch.setattr(autotune, "TIMING", "flush")
    assert len({first, second, key()}) == 3 and first.endswith("|T4|v64|m8|rotate0.05")
