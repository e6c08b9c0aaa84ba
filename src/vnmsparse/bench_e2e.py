"""End-to-end inference benchmark: ``vnmsparse bench e2e``.

Whole models, not single layers: the time of a forward pass (or of one decode step) with every
Linear layer of the transformer blocks dense (cuBLAS), 2:4 through cuSPARSELt
(``torch.sparse.to_sparse_semi_structured``) or V:N:M through :class:`vnmsparse.VNMLinear`, in one
process on the same GPU. Models are built from their configs with random weights (no download):

=================  ==========================================================================
workload           what runs
=================  ==========================================================================
bert               HF BertModel, BERT-large (24 layers, d 1024, FFN 4096), batch 32 x 512
gpt2               HF GPT2Model, GPT-2 large (36 layers, d 1280, FFN 5120), batch 8 x 512
gpt3               one GPT-3 175B layer (HF GPT2Model, 1 layer, d 12288, 96 heads, FFN 49152),
                   1 x 4096 tokens
llama-prefill      LLaMA-7B-shaped decoder (``--llama-layers`` layers, d 4096, FFN 11008, 32
                   heads, vocab 32000, dense LM head), prefill of 1 x 2048 tokens into a KV cache
llama-decode       the same model, one decode step at a context of 512 tokens (static KV cache),
                   batch 1, 8 and 128 (a serving batch: its Linears run at T = 128): tokens/s
=================  ==========================================================================

Method: random V:N:M (or 2:4) masks on the blocks' Linear weights (embeddings, LM head and
pooler stay dense), every variant checked against the same masked weights run dense (relative
error of the output). Times are medians of ``--reps`` calls timed with CUDA events, eager and,
where capture works, as a CUDA graph replay of one call (the ``method`` column). Weight memory
is counted from the tensors themselves: the blocks' Linear weights as stored (dense, packed
V:N:M, compressed cuSPARSELt) and every unique parameter/buffer of the model.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import datetime
import gc
import math
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from .bench import Budget, DeviceLost, RowWriter, device_alive  # (one budget, failure policy and CSV for both)
from .config import VNMConfig

DEFAULT_PATTERNS = "2:4,64:2:8,64:2:16,128:2:32"
WORKLOADS = ("bert", "gpt2", "gpt3", "llama-prefill", "llama-decode")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
COLUMNS = ["model", "workload", "batch", "tokens", "dtype", "variant", "method", "status", "t_ms", "p10_ms", "p90_ms",
           "tokens_per_s", "speedup_vs_dense", "speedup_vs_cslt", "linear_MB", "linear_ratio", "resident_MB", "model_MB",
           "rel_err", "first_ms", "reps", "note"]
# Whole models in half precision: rounding differs between kernels and grows with depth (tens of
# layers); a wrong kernel gives errors of order 1.
REL_TOL = 0.1


# ============================================================================================
# models


def _quiet_hf():
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()


def build_bert(tiny: bool):
    import transformers

    _quiet_hf()
    if tiny:
        cfg = transformers.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=192, max_position_embeddings=64)
    else:
        cfg = transformers.BertConfig(vocab_size=30522, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                      intermediate_size=4096, max_position_embeddings=512)
    return transformers.BertModel(cfg, add_pooling_layer=False)


def build_gpt2(tiny: bool, gpt3_layer: bool = False):
    import transformers

    _quiet_hf()
    if tiny:
        d, layers, heads, pos = (128, 1, 4, 64) if gpt3_layer else (64, 2, 4, 64)
        cfg = transformers.GPT2Config(vocab_size=128, n_embd=d, n_layer=layers, n_head=heads, n_positions=pos, bos_token_id=0, eos_token_id=0)
    elif gpt3_layer:  # GPT-3 175B: d 12288, 96 heads, FFN 4d
        cfg = transformers.GPT2Config(vocab_size=1024, n_embd=12288, n_layer=1, n_head=96, n_positions=4096, bos_token_id=0, eos_token_id=0)
    else:  # GPT-2 large
        cfg = transformers.GPT2Config(vocab_size=50257, n_embd=1280, n_layer=36, n_head=20, n_positions=1024)
    return transformers.GPT2Model(cfg)


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, d: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)
        self.cache: Optional[tuple] = None  # (k [B, kvh, L, hd], v) when a KV cache is set up

    def forward(self, x, cos, sin, input_pos):
        b, t, _ = x.shape
        if hasattr(self, "qkv"):  # fuse_siblings_: one call for the three
            q, k, v = self.qkv(x).split([self.heads * self.hd, self.kv_heads * self.hd, self.kv_heads * self.hd], -1)
        else:
            q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        q = q.view(b, t, self.heads, self.hd).transpose(1, 2)
        k = k.view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        v = v.view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        if self.cache is not None:
            kc, vc = self.cache
            kc.index_copy_(2, input_pos, k)
            vc.index_copy_(2, input_pos, v)
        if t > 1 or self.cache is None:  # prefill from position 0: causal attention over the new tokens
            k, v, mask, causal = k, v, None, True
        else:  # decode: attend to the cache up to the current position
            k, v = self.cache
            mask = torch.arange(k.shape[2], device=x.device).view(1, 1, 1, -1) <= input_pos.view(1, 1, -1, 1)
            causal = False
        if self.kv_heads != self.heads:
            k = k.repeat_interleave(self.heads // self.kv_heads, 1)
            v = v.repeat_interleave(self.heads // self.kv_heads, 1)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, d: int, inter: int):
        super().__init__()
        self.gate_proj = nn.Linear(d, inter, bias=False)
        self.up_proj = nn.Linear(d, inter, bias=False)
        self.down_proj = nn.Linear(inter, d, bias=False)

    def forward(self, x):
        if hasattr(self, "gate_up"):  # fuse_siblings_: one call for both
            gate, up = self.gate_up(x).chunk(2, -1)
        else:
            gate, up = self.gate_proj(x), self.up_proj(x)
        return self.down_proj(F.silu(gate) * up)


# Sibling Linears that read the same input, per module type of the LLaMA stack: fused name -> parts.
SIBLINGS = {Attention: {"qkv": ("q_proj", "k_proj", "v_proj")}, MLP: {"gate_up": ("gate_proj", "up_proj")}}
SIBLING_GROUPS = tuple(n for named in SIBLINGS.values() for n in named)


def fuse_siblings_(model: nn.Module, groups=None) -> list[str]:
    """Each group of sibling VNMLinears (q / k / v, gate / up; ``groups``: those fused names of
    SIBLINGS only) of the LLaMA stack as one layer (VNMLinear.cat), in place, where they stack (all
    but the last in whole V-row blocks); returns the fused layers' names."""
    from .nn import VNMLinear

    if groups is not None and not set(groups) <= set(SIBLING_GROUPS):
        raise ValueError(f"sibling groups are {SIBLING_GROUPS}, got {sorted(set(groups) - set(SIBLING_GROUPS))}")
    fused = []
    for name, module in list(model.named_modules()):
        for fused_name, parts in SIBLINGS.get(type(module), {}).items():
            if groups is not None and fused_name not in groups:
                continue
            layers = [getattr(module, p, None) for p in parts]
            if not all(isinstance(layer, VNMLinear) for layer in layers):
                continue
            try:
                setattr(module, fused_name, VNMLinear.cat(layers))
            except ValueError:  # (rows that end inside a V-row block: left as they are)
                continue
            for p in parts:
                delattr(module, p)
            fused.append(f"{name}.{fused_name}")
    return fused


class Block(nn.Module):
    def __init__(self, d, heads, kv_heads, inter, eps):
        super().__init__()
        self.input_layernorm = RMSNorm(d, eps)
        self.self_attn = Attention(d, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.mlp = MLP(d, inter)

    def forward(self, x, cos, sin, input_pos):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, input_pos)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaDecoder(nn.Module):
    """A LLaMA decoder (gpt-fast style: static KV cache, capturable in a CUDA graph), with HF
    LLaMA's parameter names and numerics (RMSNorm in fp32, rotate-half RoPE, SwiGLU).

    ``forward(ids [B, T], input_pos [T])`` returns the logits of the last position [B, vocab]."""

    def __init__(self, d=4096, layers=4, heads=32, kv_heads=32, inter=11008, vocab=32000, max_pos=4096,
                 theta=10000.0, eps=1e-5):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Block(d, heads, kv_heads, inter, eps) for _ in range(layers))
        self.norm = RMSNorm(d, eps)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.rope = (d // heads, max_pos, theta)
        self.register_buffer("rope_cos", None, persistent=False)
        self.register_buffer("rope_sin", None, persistent=False)
        self._rope_tables(self.embed_tokens.weight.device)

    def _rope_tables(self, device) -> None:
        """cos/sin [max_pos, head_dim] in float32 whatever the model's dtype (as HF computes them)."""
        hd, max_pos, theta = self.rope
        inv = 1.0 / theta ** (torch.arange(0, hd, 2, dtype=torch.float32, device=device) / hd)
        freqs = torch.outer(torch.arange(max_pos, dtype=torch.float32, device=device), inv)
        emb = torch.cat((freqs, freqs), -1)
        self.rope_cos, self.rope_sin = emb.cos(), emb.sin()

    def setup_cache(self, batch: int, max_len: int) -> None:
        p = self.embed_tokens.weight
        for layer in self.layers:
            a = layer.self_attn
            shape = (batch, a.kv_heads, max_len, a.hd)
            a.cache = (torch.zeros(shape, dtype=p.dtype, device=p.device), torch.zeros(shape, dtype=p.dtype, device=p.device))

    def drop_cache(self) -> None:
        for layer in self.layers:
            layer.self_attn.cache = None

    def forward(self, ids, input_pos):
        x = self.embed_tokens(ids)
        cos = self.rope_cos[input_pos].to(x.dtype).view(1, 1, -1, self.rope_cos.shape[-1])
        sin = self.rope_sin[input_pos].to(x.dtype).view(1, 1, -1, self.rope_sin.shape[-1])
        for layer in self.layers:
            x = layer(x, cos, sin, input_pos)
        return self.lm_head(self.norm(x[:, -1]))

    def _apply(self, fn, recurse=True):
        out = super()._apply(fn, recurse)
        self._rope_tables(self.embed_tokens.weight.device)
        return out


def build_llama(tiny: bool, layers: int):
    if tiny:
        return LlamaDecoder(d=64, layers=2, heads=4, kv_heads=2, inter=192, vocab=128, max_pos=256)
    return LlamaDecoder(d=4096, layers=layers, heads=32, kv_heads=32, inter=11008, vocab=32000, max_pos=4096)


# ============================================================================================
# workloads: (model key, name, batch, tokens, runner)


@dataclasses.dataclass
class Workload:
    name: str  # as in the CSV
    batch: int
    tokens: int  # sequence length (prefill/forward) or context length (decode)
    mode: str  # "forward", "prefill", "decode"

    @property
    def tokens_per_call(self) -> int:
        return self.batch if self.mode == "decode" else self.batch * self.tokens


@dataclasses.dataclass
class ModelSpec:
    key: str
    label: str
    build: Callable[[], nn.Module]
    workloads: list
    linear_filter: Callable[[nn.Module, str], bool]


def _blocks_only(module, name: str) -> bool:
    return not any(s in name for s in ("lm_head", "pooler", "embed", "wte", "wpe"))


def model_specs(args) -> list:
    tiny = args.tiny
    want = set(args.workloads)
    specs = []
    if "bert" in want:
        b, t = (2, 16) if tiny else (32, 512)
        specs.append(ModelSpec("bert", "BERT-large" if not tiny else "BERT (tiny)", lambda: build_bert(tiny),
                               [Workload("bert", b, t, "forward")], _blocks_only))
    if "gpt2" in want:
        b, t = (2, 16) if tiny else (8, 512)
        specs.append(ModelSpec("gpt2", "GPT-2 large" if not tiny else "GPT-2 (tiny)", lambda: build_gpt2(tiny),
                               [Workload("gpt2", b, t, "forward")], _blocks_only))
    if "gpt3" in want:
        t = 32 if tiny else 4096
        specs.append(ModelSpec("gpt3", "GPT-3 175B layer" if not tiny else "GPT-3 layer (tiny)", lambda: build_gpt2(tiny, True),
                               [Workload("gpt3", 1, t, "forward")], _blocks_only))
    llama = []
    if "llama-prefill" in want:
        llama.append(Workload("llama-prefill", 1, 32 if tiny else 2048, "prefill"))
    if "llama-decode" in want:
        ctx = 16 if tiny else 512
        llama += [Workload("llama-decode", b, ctx, "decode") for b in ((1, 8) if tiny else (1, 8, 128))]
    if llama:
        label = f"LLaMA-7B-shaped, {args.llama_layers} layers" if not tiny else "LLaMA (tiny)"
        specs.append(ModelSpec("llama", label, lambda: build_llama(tiny, args.llama_layers), llama, _blocks_only))
    return specs


def make_runner(model: nn.Module, spec: ModelSpec, w: Workload, device, seed: int):
    """(call, setup, teardown): call() runs the workload once on static inputs (graph-capturable)."""
    g = torch.Generator().manual_seed(seed)
    if spec.key == "llama":
        vocab = model.embed_tokens.num_embeddings
        if w.mode == "prefill":
            ids = torch.randint(0, vocab, (w.batch, w.tokens), generator=g).to(device)
            pos = torch.arange(w.tokens, device=device)

            def setup():
                model.setup_cache(w.batch, w.tokens)

            return (lambda: model(ids, pos)), setup, model.drop_cache
        ctx_ids = torch.randint(0, vocab, (w.batch, w.tokens), generator=g).to(device)
        ids = torch.randint(0, vocab, (w.batch, 1), generator=g).to(device)
        pos = torch.tensor([w.tokens], device=device)

        def setup():  # fill the cache with a prefill of the context, then decode at position `tokens`
            model.setup_cache(w.batch, w.tokens + 1)
            model(ctx_ids, torch.arange(w.tokens, device=device))

        return (lambda: model(ids, pos)), setup, model.drop_cache
    vocab = model.config.vocab_size
    ids = torch.randint(0, vocab, (w.batch, w.tokens), generator=g).to(device)
    if spec.key == "bert":
        # BERT without padding: its embeddings, then its encoder with no mask (what BertModel runs
        # when it can see that its all-ones mask masks nothing). Under CUDA-graph capture BertModel
        # cannot look into the mask, so it materialised one and SDPA took its fp32 math backend
        # (H200, transformers 5.17: graph replays 96 ms against 23 ms eager, dense included).
        def encode():
            return model.encoder(model.embeddings(input_ids=ids)).last_hidden_state

        return encode, (lambda: None), (lambda: None)
    return (lambda: model(input_ids=ids, use_cache=False).last_hidden_state), (lambda: None), (lambda: None)


# ============================================================================================
# variants


def _targets(model: nn.Module, spec: ModelSpec) -> dict:
    from .nn import is_conv1d

    return {n: m for n, m in model.named_modules()
            if (type(m) is nn.Linear or is_conv1d(m)) and spec.linear_filter(m, n)}


def _weight_matrix(m):
    from .nn import is_conv1d

    return m.weight.t() if is_conv1d(m) else m.weight


def apply_random_masks(model: nn.Module, spec: ModelSpec, cfg: VNMConfig, seed: int) -> int:
    """Zero every target layer's weight outside a random V:N:M (or 2:4) mask, in place; returns the count."""
    from .format import random_vnm_mask

    targets = _targets(model, spec)
    with torch.no_grad():
        for i, (name, m) in enumerate(targets.items()):
            w = _weight_matrix(m)
            gen = torch.Generator(device=w.device).manual_seed(seed * 100003 + i)
            w.mul_(random_vnm_mask(tuple(w.shape), cfg, generator=gen))
    return len(targets)


class _CsltLinear(nn.Module):
    """F.linear on a semi-structured weight with x flattened to 2-D: torch's semi-structured
    dispatch supports mm, not the expand that matmul's batched path asks of the weight (seen at
    LLaMA decode batch 8 on the H200: "can't perform requested op (expand.default)")."""

    def __init__(self, weight, bias):
        super().__init__()
        self.weight = nn.Parameter(weight, requires_grad=False)
        self.bias = None if bias is None else nn.Parameter(bias.detach(), requires_grad=False)

    def forward(self, x):
        y = nn.functional.linear(x.reshape(-1, x.shape[-1]), self.weight, self.bias)
        return y.view(*x.shape[:-1], y.shape[-1])


def to_cslt(model: nn.Module, spec: ModelSpec) -> str:
    """Swap every (2:4-masked) target layer's weight for a cuSPARSELt semi-structured tensor; returns a note.

    Each layer becomes a :class:`_CsltLinear` (HF Conv1D layers of GPT-2 too: the weight is taken
    as [out, in]). A layer whose shape cuSPARSELt rejects stays dense (masked) and is counted in the note."""
    from torch.sparse import to_sparse_semi_structured

    modules = dict(model.named_modules())
    kinds, done, left = set(), 0, []
    with torch.no_grad():
        for name, m in _targets(model, spec).items():
            try:
                sp = to_sparse_semi_structured(_weight_matrix(m).detach().contiguous())
            except Exception as e:
                left.append(f"{name} ({_short(e)})")
                continue
            parent, _, attr = name.rpartition(".")
            setattr(modules[parent] if parent else model, attr, _CsltLinear(sp, m.bias))
            kinds.add(type(sp).__name__)
            done += 1
    note = f"{done} layers as {', '.join(sorted(kinds)) or 'semi-structured'}"
    if left:
        note += f"; {len(left)} left dense: " + "; ".join(left[:2])
    return note


def _tensor_bytes(t) -> int:
    if hasattr(t, "packed"):  # SparseSemiStructuredTensor: compressed values + metadata (and transposes)
        return sum(x.numel() * x.element_size() for x in (getattr(t, a, None) for a in ("packed", "meta", "packed_t", "meta_t"))
                   if isinstance(x, torch.Tensor))
    return t.numel() * t.element_size()


def linear_bytes(model: nn.Module, spec: ModelSpec) -> tuple[int, int]:
    """(stored bytes, resident bytes incl. every kernel layout built so far) of the blocks' linear weights."""
    from .nn import VNMLinear, is_conv1d

    stored = resident = 0
    for name, m in model.named_modules():
        if not spec.linear_filter(m, name):
            continue
        if isinstance(m, VNMLinear):
            stored += m.weight.nbytes
            seen = {}
            layouts = [t for ts in m.weight._layouts.values() for t in ts]  # every kernel image built so far
            for t in list(m.weight.parts().values()) + layouts:
                if isinstance(t, torch.Tensor):
                    seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            resident += sum(seen.values())
        elif type(m) is nn.Linear or is_conv1d(m) or isinstance(m, _CsltLinear):
            b = _tensor_bytes(m.weight)
            stored += b
            resident += b
    return stored, resident


def model_bytes(model: nn.Module) -> int:
    seen = {}
    for t in list(model.parameters()) + list(model.buffers()):
        if hasattr(t, "packed"):
            seen[id(t)] = _tensor_bytes(t)
        elif isinstance(t, torch.Tensor):
            seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
    return sum(seen.values())


# ============================================================================================
# timing


@dataclasses.dataclass
class Timed:
    median_ms: float
    p10_ms: float
    p90_ms: float
    reps: int


def _pct(xs, q):
    xs = sorted(xs)
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _timed(ms: list) -> Timed:
    return Timed(statistics.median(ms), _pct(ms, 0.1), _pct(ms, 0.9), len(ms))


def time_eager(call, device, reps: int) -> Timed:
    if device.type != "cuda":
        ms = []
        for _ in range(reps):
            t0 = time.perf_counter()
            call()
            ms.append(1e3 * (time.perf_counter() - t0))
        return _timed(ms)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in events:
        a.record()
        call()
        b.record()
    torch.cuda.synchronize(device)
    return _timed([a.elapsed_time(b) for a, b in events])


def time_graph(call, device, reps: int) -> Timed:
    """Capture one call in a CUDA graph (warmed up on a side stream first), time the replays."""
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        call()
    torch.cuda.current_stream(device).wait_stream(side)
    torch.cuda.synchronize(device)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    try:
        graph.replay()
        torch.cuda.synchronize(device)
        return time_eager(graph.replay, device, reps)
    finally:
        del graph


# ============================================================================================
# the run


class Writer(RowWriter):
    def __init__(self, path: Path, env: dict):
        super().__init__(path, env, COLUMNS)
        self.pending = []  # rows of the workload being measured (finish_workload adds their speed-ups)


def _free(device):
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _short(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}" if str(e) else type(e).__name__


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.float(), b.float()
    return float((a - b).norm() / b.norm().clamp_min(1e-30))


def estimate_variant_s(spec: ModelSpec, tiny: bool, gpu: bool, reps: int, graphs: bool) -> float:
    """Rough seconds for one variant of a model (build + check + timings); for --dry-run and the budget.
    Rescaled by what the variants really took as the run goes."""
    if tiny:
        return 1.0
    per_model = {"bert": (3.0, 0.030), "gpt2": (3.5, 0.025), "gpt3": (5.0, 0.035), "llama": (3.0, 0.010)}
    build, call = per_model[spec.key]
    calls = len(spec.workloads) * (reps + 3) * (2 if graphs and gpu else 1)
    return build + calls * call + 1.5 * len(spec.workloads)


def variants_of(args, cslt_reason: str) -> list:
    out = [("dense", None)]
    if args.cslt and not cslt_reason:
        out.append(("cslt 2:4", VNMConfig.parse("2:4")))
    out += [(f"vnm {p}", VNMConfig.parse(p)) for p in args.patterns]
    return out


def measure_workload(args, model, spec: ModelSpec, w: Workload, wi: int, device, row: dict, ref, writer: Writer, log) -> dict:
    """Check one workload against its masked-dense reference, time it eagerly and as a CUDA graph,
    write a row per method; returns {method: t_ms}. Errors become rows (the run goes on)."""
    gpu = device.type == "cuda"
    times = {}
    call, setup, teardown = make_runner(model, spec, w, device, args.seed + wi)
    try:
        with torch.no_grad():
            setup()
            t1 = time.perf_counter()
            out = call()
            if gpu:
                torch.cuda.synchronize(device)
            row["first_ms"] = 1e3 * (time.perf_counter() - t1)  # includes JIT compiles and layouts
            # layouts are built at first use (e.g. the as-2:4 image of V:2:8 prefill): count them now
            row["resident_MB"] = linear_bytes(model, spec)[1] / 2**20
            err = _rel(out, ref) if ref is not None else 0.0
            del out
            row["rel_err"] = err
            bad = not math.isfinite(err) or err > REL_TOL
            call()  # warm-up
            methods = [("eager", time_eager)] + ([("graph", time_graph)] if gpu and args.graphs else [])
            for method, timer in methods:
                r = dict(row, method=method)
                try:
                    t = timer(call, device, args.reps)
                except Exception as e:  # e.g. a graph capture that meets a host synchronisation
                    device_alive(device, f"{spec.label} {row['variant']} {w.name} {method}", e)
                    writer.write(dict(r, status="error", note=f"{method}: {_short(e)}"))
                    log(f"  {w.name:13s} b{w.batch:<2d} {row['dtype']} {row['variant']:13s} {method:5s} ERROR {_short(e)}")
                    continue
                r.update(status="FAIL" if bad else "ok", t_ms=t.median_ms, p10_ms=t.p10_ms, p90_ms=t.p90_ms, reps=t.reps,
                         tokens_per_s=1e3 * w.tokens_per_call / t.median_ms)
                if bad:
                    r["note"] = f"relative error {err:.3g} > {REL_TOL} against the masked weights run dense; " + r["note"]
                times[method] = t.median_ms
                writer.pending.append(r)
    except DeviceLost:
        raise
    except Exception as e:
        device_alive(device, f"{spec.label} {row['variant']} {w.name}", e)
        writer.write(dict(row, status="error", note=_short(e)))
        log(f"  {w.name:13s} b{w.batch:<2d} {row['dtype']} {row['variant']:13s} ERROR {_short(e)}")
    finally:
        teardown()
    return times


def reference_outputs(args, model, spec: ModelSpec, device) -> dict:
    """{workload index: output (fp32)} of the model as it is (masked weights, before conversion)."""
    ref = {}
    for wi, w in enumerate(spec.workloads):
        call, setup, teardown = make_runner(model, spec, w, device, args.seed + wi)
        try:
            with torch.no_grad():
                setup()
                ref[wi] = call().float().clone()
        finally:
            teardown()
    return ref


def fill_speedups(writer: Writer, base: dict, cslt: dict, wi: int, log) -> None:
    """Write the pending rows of one workload with their speed-ups over dense and cuSPARSELt."""
    for r in writer.pending:
        key = (wi, r["method"])
        if key in base:
            r["speedup_vs_dense"] = base[key] / r["t_ms"]
        if key in cslt:
            r["speedup_vs_cslt"] = cslt[key] / r["t_ms"]
        writer.write(r)
        log(f"  {r['workload']:13s} b{r['batch']:<2d} {r['dtype']} {r['variant']:13s} {r['method']:5s} {r['t_ms']:9.3f} ms"
            + (f"  x{r['speedup_vs_dense']:.2f} vs dense" if r["variant"] != "dense" and "speedup_vs_dense" in r else "")
            + (f"  x{r['speedup_vs_cslt']:.2f} vs cuSPARSELt" if r["variant"].startswith("vnm") and "speedup_vs_cslt" in r else "")
            + f"  err {r['rel_err']:.1e}" + ("  FAIL" if r["status"] == "FAIL" else ""))
    writer.pending.clear()


def run_model(args, spec: ModelSpec, dtype_name: str, device, writer: Writer, budget: Budget, cslt_reason: str, log) -> None:
    dtype = DTYPES[dtype_name]
    gpu = device.type == "cuda"
    variants = variants_of(args, cslt_reason)
    est = estimate_variant_s(spec, args.tiny, gpu, args.reps, args.graphs)
    if not budget.allows(2 * est):  # at least the dense baseline and one variant must fit
        for w in spec.workloads:
            for name, _ in variants:
                writer.write(dict(model=spec.label, workload=w.name, batch=w.batch, tokens=w.tokens, dtype=dtype_name, variant=name,
                                  status="skipped", note="--budget-seconds"))
        return
    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    with torch.device(device):
        dense = spec.build()
    dense = dense.to(dtype).eval()
    log(f"{spec.label} {dtype_name}: built in {time.perf_counter() - t0:.1f} s, {model_bytes(dense) / 2**20:.0f} MiB")
    base = {}  # (workload index, method) -> t_ms of dense / cslt
    cslt = {}
    for vi, (name, cfg) in enumerate(variants):
        if vi > 0 and not budget.allows(est):
            for w in spec.workloads:
                writer.write(dict(model=spec.label, workload=w.name, batch=w.batch, tokens=w.tokens, dtype=dtype_name, variant=name,
                                  status="skipped", note="--budget-seconds"))
            continue
        tv = time.perf_counter()
        model, note, ref = None, "", {}
        try:
            if cfg is None:
                model = dense
            else:
                model = copy.deepcopy(dense)
                apply_random_masks(model, spec, cfg, args.seed + vi)
                ref = reference_outputs(args, model, spec, device)  # the masked weights, run dense
                if name.startswith("cslt"):
                    note = to_cslt(model, spec)
                else:
                    from .nn import feature_major_mlp_, sparsify_

                    rep = sparsify_(model, cfg, spec.linear_filter)
                    note = f"{len(rep.converted)} layers as VNMLinear" + (f"; {len(rep.skipped)} skipped" if rep.skipped else "")
                    if args.fuse_siblings:
                        note += f"; {len(fuse_siblings_(model, args.fuse_siblings))} fused sibling groups"
                    if args.feature_major_mlp:
                        note += f"; feature-major out on {len(feature_major_mlp_(model))}"
                    if rep.skipped:
                        note += " (" + "; ".join(f"{k}: {v}" for k, v in list(rep.skipped.items())[:3]) + ")"
            lin, resident = linear_bytes(model, spec)
            sizes = dict(linear_MB=lin / 2**20, linear_ratio=lin / linear_bytes(dense, spec)[0], resident_MB=resident / 2**20,
                         model_MB=model_bytes(model) / 2**20)
            for wi, w in enumerate(spec.workloads):
                row = dict(model=spec.label, workload=w.name, batch=w.batch, tokens=w.tokens, dtype=dtype_name, variant=name,
                           note=note, **sizes)
                times = measure_workload(args, model, spec, w, wi, device, row, ref.get(wi), writer, log)
                for method, t in times.items():
                    (base if cfg is None else cslt if name.startswith("cslt") else {})[(wi, method)] = t
                fill_speedups(writer, base, cslt, wi, log)
        except DeviceLost:
            raise
        except Exception as e:
            device_alive(device, f"{spec.label} {name}", e)
            for w in spec.workloads:
                writer.write(dict(model=spec.label, workload=w.name, batch=w.batch, tokens=w.tokens, dtype=dtype_name, variant=name,
                                  status="error", note=_short(e)))
            log(f"  {name}: ERROR {_short(e)}")
        finally:
            if model is not None and model is not dense:
                del model
            ref.clear()
            _free(device)
        if vi > 0:
            budget.learn(est, time.perf_counter() - tv)
    del dense
    _free(device)


# ============================================================================================
# outputs


def _f(x, digits=2):
    return "-" if x in ("", None) or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def markdown(env: dict, rows: list, extra: list) -> str:
    lines = ["# vnmsparse end-to-end benchmark", "", "## Environment", ""] + [f"- {k}: {v}" for k, v in env.items()] + [""] + extra + [""]
    lines += summary(rows)
    lines += ["## Results", "",
              "Times in ms (median; eager and CUDA graph replay); speed-up = dense time / this time with the same method; "
              "weights = the blocks' Linear weights as stored.", ""]
    groups = {}
    for r in rows:
        groups.setdefault((r["model"], r["workload"], r["batch"], r["tokens"], r["dtype"]), []).append(r)
    for (model, wl, b, t, dt), rs in groups.items():
        mode = "decode step" if wl.endswith("decode") else "prefill" if wl.endswith("prefill") else "forward"
        lines += [f"### {model}: {wl}, batch {b} x {t} {'context' if wl.endswith('decode') else 'tokens'}, {dt} ({mode})", "",
                  "| variant | eager ms | graph ms | tokens/s | x dense | x cuSPARSELt | weights MiB | x dense bytes | resident MiB | model MiB | rel. err | status |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        by_variant = {}
        for r in rs:
            by_variant.setdefault(r["variant"], {})[r["method"] or "-"] = r
        for v, ms in by_variant.items():
            e, g = ms.get("eager", {}), ms.get("graph", {})
            best = g if g.get("status") == "ok" else e if e.get("status") == "ok" else next(iter(ms.values()))
            status = ", ".join(sorted({f"{m}: {r['status']}" if r["status"] != "ok" else "" for m, r in ms.items()} - {""})) or "ok"
            lines.append(f"| {v} | {_f(e.get('t_ms', ''), 3)} | {_f(g.get('t_ms', ''), 3)} | {_f(best.get('tokens_per_s', ''), 0)} | "
                         f"{_f(best.get('speedup_vs_dense', ''))} | {_f(best.get('speedup_vs_cslt', ''))} | {_f(best.get('linear_MB', ''), 1)} | "
                         f"{_f(best.get('linear_ratio', ''), 3)} | {_f(best.get('resident_MB', ''), 1)} | {_f(best.get('model_MB', ''), 0)} | {_f(best.get('rel_err', ''), 4)} | {status} |")
        notes = sorted({r["note"] for r in rs if r.get("note")})
        lines += [""] + [f"- {n}" for n in notes[:8]] + [""]
    return "\n".join(lines)


def _ok_rows(rows: list) -> dict:
    """(workload, batch, tokens, dtype, variant, method) -> ok row."""
    return {(r["workload"], r["batch"], r["tokens"], r["dtype"], r["variant"], r["method"]): r for r in rows if r["status"] == "ok"}


def quoted(ok: dict, case: tuple, variant: str) -> tuple:
    """(row, method) to quote for a variant: the method (CUDA graph replay or eager) under which
    dense runs fastest, i.e. how one would deploy the dense model, if the variant has it; else the
    other one that both have. (Graph replay is usually the faster, but not always: on the H200
    GPT-2 large's dense forward ran 3% faster eager, v94.)"""
    dense = sorted((m for m in ("graph", "eager") if (*case, "dense", m) in ok), key=lambda m: ok[(*case, "dense", m)]["t_ms"])
    for method in dense:
        r = ok.get((*case, variant, method))
        if r is not None:
            return r, method
    return {}, ""


def summary(rows: list) -> list:
    """One line per workload: speed-up over dense of every variant (CUDA graph where captured)."""
    ok = _ok_rows(rows)
    variants = [v for v in dict.fromkeys(r["variant"] for r in rows) if v != "dense"]
    cases = list(dict.fromkeys(k[:4] for k in ok))
    if not cases or not variants:
        return []
    lines = ["## Summary: speed-up over dense (time dense / time variant, same method: the faster for dense of CUDA graph "
             "replay and eager; eager marked e)", "",
             "| workload | batch x tokens | dtype | dense ms (graph / eager) | " + " | ".join(variants) + " |",
             "|---|---|---|---|" + "---|" * len(variants)]
    for case in cases:
        wl, b, t, dt = case
        dg, de = ok.get((*case, "dense", "graph"), {}), ok.get((*case, "dense", "eager"), {})
        cells = []
        for v in variants:
            r, method = quoted(ok, case, v)
            cells.append(_f(r.get("speedup_vs_dense", "")) + (" e" if method == "eager" and r else ""))
        lines.append(f"| {wl} | {b} x {t} | {dt} | {_f(dg.get('t_ms', ''), 3)} / {_f(de.get('t_ms', ''), 3)} | " + " | ".join(cells) + " |")
    # Where a line quotes eager runs, the graph replays too: the kernels without each call's host
    # cost (an encoder's eager ratio moved 0.85-0.99 between two H200 runs, v93 / v94).
    eager = [c for c in cases if (*c, "dense", "graph") in ok and any(quoted(ok, c, v)[1] == "eager" for v in variants)]
    if eager:
        lines += ["", "Where a line above is eager: CUDA graph replay against the dense graph", "",
                  "| workload | batch x tokens | dtype | " + " | ".join(variants) + " |", "|---|---|---|" + "---|" * len(variants)]
        for wl, b, t, dt in eager:
            cells = [_f(ok.get((wl, b, t, dt, v, "graph"), {}).get("speedup_vs_dense", "")) for v in variants]
            lines.append(f"| {wl} | {b} x {t} | {dt} | " + " | ".join(cells) + " |")
    ratios = {v: next((r["linear_ratio"] for r in rows if r["variant"] == v and isinstance(r.get("linear_ratio"), float)), "")
              for v in variants}
    lines += ["", "Linear weight bytes / dense: " + ", ".join(f"{v} {_f(x, 3)}" for v, x in ratios.items()), ""]
    return lines


def plot(path: Path, rows: list) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed: plot skipped (pip install matplotlib; re-plot with --from-csv)"
    ok = _ok_rows(rows)
    variants = [v for v in dict.fromkeys(r["variant"] for r in rows) if v != "dense"]
    cases = sorted(dict.fromkeys(k[:4] for k in ok), key=lambda c: (c[3], WORKLOADS.index(c[0]) if c[0] in WORKLOADS else 9, int(c[1])))
    best = {(*c, v): quoted(ok, c, v)[0] for c in cases for v in variants}
    if not any(r.get("speedup_vs_dense") not in (None, "") for r in best.values()):
        return "nothing to plot"
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cases) * max(1, len(variants)) / 3), 4))
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        xs = [j + (i - (len(variants) - 1) / 2) * width for j in range(len(cases))]
        ys = [best[(*c, v)].get("speedup_vs_dense") or float("nan") for c in cases]
        ax.bar(xs, ys, width, label=v, color=f"C{i}")
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_xticks(range(len(cases)), [f"{w}\nb{b} {d}" for w, b, _, d in cases], fontsize=8)
    ax.set_ylabel("speed-up over dense (same method)")
    ax.set_title("vnmsparse end-to-end: whole-model time, dense / variant")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"plot: {path}"


def read_csv(path) -> tuple[dict, list]:
    from .bench import read_csv_records

    env, records = read_csv_records(path)
    rows = []
    numeric = {"t_ms", "p10_ms", "p90_ms", "tokens_per_s", "speedup_vs_dense", "speedup_vs_cslt", "linear_MB", "linear_ratio",
               "resident_MB", "model_MB", "rel_err", "first_ms"}
    for rec in records:
        row = {}
        for c in COLUMNS:
            v = rec.get(c, "")
            row[c] = (float(v) if v != "" else "") if c in numeric else v
        rows.append(row)
    return env, rows


# ============================================================================================
# command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vnmsparse bench e2e", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default=",".join(WORKLOADS), help=f"comma-separated subset of {', '.join(WORKLOADS)} (default: all)")
    p.add_argument("--patterns", default=DEFAULT_PATTERNS, help=f"V:N:M patterns (default {DEFAULT_PATTERNS})")
    p.add_argument("--dtypes", default="bf16,fp16", help="bf16 and/or fp16 (default bf16,fp16; bf16 runs first)")
    p.add_argument("--no-cslt", dest="cslt", action="store_false", help="skip the cuSPARSELt 2:4 baseline")
    p.add_argument("--no-graphs", dest="graphs", action="store_false", help="eager timings only")
    p.add_argument("--llama-layers", type=int, default=4, help="decoder layers of the LLaMA-7B-shaped stack (default 4)")
    p.add_argument("--reps", type=int, default=10, help="timed calls per (variant, workload, method) (default 10)")
    p.add_argument("--budget-seconds", type=float, help="stop adding variants after about this many seconds (skips are recorded)")
    p.add_argument("--device", help="cuda, cuda:N or cpu (default: cuda if available)")
    p.add_argument("--out", default="benchmarks/results", help="output directory (default benchmarks/results)")
    p.add_argument("--tag", help="outputs e2e_<tag>.csv/.md/.png (default: date-time)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dry-run", action="store_true", help="print the plan and a time estimate; build and measure nothing")
    p.add_argument("--from-csv", help="only (re)write the markdown and plot of an existing CSV")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--tiny", action="store_true", help="tiny models (CPU smoke test of the harness)")
    p.add_argument("--feature-major-mlp", action="store_true",
                   help="VNMLinear's feature_major_out on each MLP's up path (gate/up, c_fc, intermediate): "
                        "the next Linear reads its input with no transpose")
    p.add_argument("--fuse-siblings", nargs="?", const=",".join(SIBLING_GROUPS),
                   metavar="GROUPS",
                   help="the LLaMA stack's sibling VNMLinears (qkv: q/k/v, gate_up: gate/up; comma-separated, default "
                        "both) as one layer each (VNMLinear.cat): one call, one transpose of their input (H200, v258-v264: "
                        "faster at decode; at prefill only with --feature-major-mlp, at 2:32)")
    return p


def _parse(args) -> Optional[str]:
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    bad = [w for w in args.workloads if w not in WORKLOADS]
    if bad or not args.workloads:
        return f"unknown workload(s) {bad}; choose from {', '.join(WORKLOADS)}"
    args.dtype_names = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    bad = [d for d in args.dtype_names if d not in DTYPES]
    if bad or not args.dtype_names:
        return f"unknown dtype(s) {bad}; choose from {', '.join(DTYPES)}"
    try:
        cfgs = [VNMConfig.parse(p.strip()) for p in args.patterns.split(",") if p.strip()]
    except (TypeError, ValueError) as e:
        return str(e)
    args.patterns = [str(c) if not c.is_2to4 else "2:4" for c in cfgs]
    if args.reps < 1 or args.llama_layers < 1:
        return "--reps and --llama-layers must be >= 1"
    if args.fuse_siblings is not None:
        args.fuse_siblings = [g.strip() for g in args.fuse_siblings.split(",") if g.strip()]
        bad = [g for g in args.fuse_siblings if g not in SIBLING_GROUPS]
        if bad or not args.fuse_siblings:
            return f"unknown --fuse-siblings group(s) {bad}; choose from {', '.join(SIBLING_GROUPS)}"
    return None


def main(argv=None) -> int:
    from . import bench

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if args.from_csv:
        env, rows = read_csv(args.from_csv)
        path = Path(args.from_csv)
        path.with_suffix(".md").write_text(markdown(env, rows, []))
        print(f"markdown: {path.with_suffix('.md')}\n{plot(path.with_suffix('.png'), rows)}")
        return 0
    problem = _parse(args)
    if problem:
        print(f"vnmsparse bench e2e: {problem}", file=sys.stderr)
        return 2
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cuda" and device.index is None and torch.cuda.is_available():
        device = torch.device("cuda", torch.cuda.current_device())
    gpu = device.type == "cuda"
    cslt_reason = bench.cslt_unavailable(device) if args.cslt else "--no-cslt"
    specs = model_specs(args)
    n_var = len(variants_of(args, cslt_reason if not args.dry_run else ""))
    if args.dry_run:
        total = 0.0
        print(f"plan: {len(specs)} models x {len(args.dtype_names)} dtypes x {n_var} variants "
              f"(dense{', cuSPARSELt 2:4' if args.cslt else ''}, {', '.join(args.patterns)}); methods: eager"
              + (" + CUDA graph" if args.graphs else ""))
        for dt in args.dtype_names:
            for s in specs:
                est = estimate_variant_s(s, args.tiny, True, args.reps, args.graphs) * n_var
                total += est
                print(f"  {dt}  {s.label:28s} " + ", ".join(f"{w.name} b{w.batch}x{w.tokens}" for w in s.workloads) + f"   ~{est:.0f} s")
        print(f"estimated H200 time: ~{total:.0f} s (rough: cold JIT compiles add ~1-3 s per new kernel variant; "
              "--budget-seconds skips what does not fit and records it)")
        return 0
    if gpu:
        torch.cuda.set_device(device)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = args.tag or datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    csv_path = out_dir / f"e2e_{tag}.csv"
    env = bench.collect_env(device, SimpleNamespace(argv=["e2e", *argv], dtype=args.dtypes))
    env["dtype"] = ", ".join(args.dtype_names)
    env["models"] = "; ".join(s.label for s in specs)
    env["timing"] = (f"median of {args.reps} calls, CUDA events" + (", eager and CUDA-graph replay" if args.graphs else ", eager")
                     if gpu else f"median of {args.reps} calls, time.perf_counter")
    if cslt_reason:
        env["cuSPARSELt"] = f"{env.get('cuSPARSELt', '')} (baseline not run: {cslt_reason})"
    writer = Writer(csv_path, env)
    budget = Budget(args.budget_seconds)
    log = lambda msg: print(f"[{budget.elapsed():6.1f} s] {msg}", flush=True)  # noqa: E731
    log(f"{len(specs)} models x {len(args.dtype_names)} dtypes x {n_var} variants -> {csv_path}")
    stop = bench.StopEarly()
    extra = stop.notes
    try:
        with stop:
            for dt in args.dtype_names:
                for spec in specs:
                    run_model(args, spec, dt, device, writer, budget, cslt_reason, log)
    finally:
        writer.comment("elapsed s", f"{budget.elapsed():.1f}")
        writer.close()
        rows = writer.rows
        skipped = sum(r["status"] == "skipped" for r in rows)
        extra.append(f"{sum(r['status'] == 'ok' for r in rows)} measurements in {budget.elapsed():.0f} s"
                     + (f"; {skipped} rows skipped by --budget-seconds {args.budget_seconds:g}" if skipped else "") + ".")
        md = csv_path.with_suffix(".md")
        md.write_text(markdown(env, rows, extra))
        outputs = [f"csv: {csv_path}", f"markdown: {md}"]
        if not args.no_plot:
            outputs.append(plot(csv_path.with_suffix(".png"), rows))
    fails = [r for r in rows if r["status"] in ("FAIL", "error")]
    for r in fails[:10]:
        print(f"{r['status']}: {r['model']} {r['workload']} {r['variant']} {r['method']}: {r['note']}", file=sys.stderr)
    print("\n".join(extra + outputs))
    return stop.code or (1 if fails else 0)


if __name__ == "__main__":
    sys.exit(main())
