"""A/B of a prefill kernel's compile-time knobs on a few shapes (GPU; one call, a short table).

  python scripts/ab_wgmma.py VNM_WG_COLUMN_LOOKAHEAD=1,3,6 [--shapes 4096x4096x8192:128:2:8,...]
  python scripts/ab_wgmma.py TMA_X_BY_DEFAULT=0,1 --define VNM_WG_SKIP_B=1 --shapes 4096x4096x8192:2:4
  python scripts/ab_wgmma.py TILE=wg128x256s5,wg128x256s6r1 --shapes 4096x4096x8192:2:4   (v20 vs v21 tiles)
  python scripts/ab_wgmma.py VNM_MMA_WS_LOOKAHEAD=2,4 --path mma_sp_ws
  python scripts/ab_wgmma.py RASTER_ROWS=0,12 --define TILE=wg128x256s6r1p --shapes 11008x4096x8192:2:4
  python scripts/ab_wgmma.py PATH=auto,wgmma_sp,auto,wgmma_sp   (vnmsparse.spmm against the kernel it picks)
  python scripts/ab_wgmma.py SPLITS=0,1,2,3 --shapes 11008x4096x64:128:2:8   (K splits of the wgmma.sp path; 0: its own choice)
  python scripts/ab_wgmma.py PDL=0,1,0,1 --path auto --between 1 --shapes 4096x4096x1:128:2:8   (jit's switches too)
  python scripts/ab_wgmma.py TILE=wg128x256s5t1pc2,wg128x256s5t1pc2+CLUSTER_WAVE_BY_DRIVER=0+VNM_WG_SKIP_B=1   (+NAME=v: that value's own
      switches or macros besides the knob)

--xt 1 times every call on X stored feature-major (x.t().contiguous().t(): no X^T transpose), the
layout `vnmsparse bench spmm --paths auto_xt` times; --xt P > 1 the same with X^T's rows P-token
aligned (T rounded up to a multiple of P apart).

--between 1 puts a torch kernel that rewrites x before every call (as a model's norm does), so no
call follows another vnmsparse kernel (programmatic dependent launch then has nothing to overlap).

Each value is compiled as its own module (spmm_wgmma_sp.DEFINES), checked against fp32, and timed
as a CUDA graph of back-to-back calls over 3 rotating (x, weight) sets; per shape the values' graphs
replay in turns (median of 20 replays each).
"""

import argparse
import statistics

import torch

import vnmsparse as vs
from vnmsparse.kernels import jit
from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

DEFAULT_SHAPES = "4096x4096x8192:128:2:8,4096x4096x8192:64:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32"


def case(spec, gen):
    dims, pattern = spec.split(":", 1)
    r, k, t = (int(d) for d in dims.split("x"))
    cfg = vs.VNMConfig.parse(pattern)
    sets = []
    # enough (x, weight) sets that the rotation's packed weights exceed twice the L2 (as the
    # benchmark's): with 3 sets a 4096^2 2:4 weight stayed partly L2-resident (v67 read 13% gains
    # there that the grid did not see)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    while len(sets) < 3 or (len(sets) < MAX_SETS and len(sets) * sets[0][2].nbytes < 2 * l2):
        mask = vs.random_vnm_mask((r, k), cfg, generator=gen)
        w = (torch.randn(r, k, device="cuda", generator=gen) * mask).bfloat16()
        sets.append((torch.randn(t, k, device="cuda", generator=gen).bfloat16(), w, vs.pack(w, cfg)))
    return r, k, t, cfg, sets


MAX_SETS = 48


PATH = "wgmma_sp"
BETWEEN = False  # --between 1: a torch kernel writes x before each call
TILE = None  # knob TILE=name,name (e.g. wg128x256s5,wg256x128s10r2): tiles of W.ALL_TILES
SPLITS = None  # knob SPLITS=0,1,2 (0: the path's own choice)


def parse_tile(name):
    """A tile of W.ALL_TILES or K.TILES by name, else a WgTile spelled as one (wg128x64s6t1: any
    stage count of a tile shape; g4: 4 stages per copy) or a cp.async TileConfig (sm8064x64w16x64s4);
    compiled on demand."""
    import re
    known = {str(t): t for t in W.ALL_TILES + K.TILES}
    if name == "auto":  # the path's own choice
        return None
    if name in known:
        return known[name]
    f = re.fullmatch(r"sm80(\d+)x(\d+)w(\d+)x(\d+)s(\d+)", name)
    if f is not None:
        return K.TileConfig(*(int(g) for g in f.groups()))
    f = re.fullmatch(r"wg(\d+)x(\d+)s(\d+)(?:([tr])(\d))?(p)?(?:c(\d))?(?:g(\d+))?", name)
    if f is None:
        raise SystemExit(f"unknown tile {name}")
    bm, bn, stages, kind, mb, persistent, cluster, copy_steps = f.groups()
    return W.WgTile(int(bm), int(bn), int(stages), int(mb or 1), kind is not None, kind == "t", persistent is not None,
                    int(cluster or 1), int(copy_steps or 1))


def set_defines(defines):
    """The A/B macros for both kernel modules (the decode kernel and the wgmma.sp one share the
    fragment image, and `--path auto` runs either)."""
    W.DEFINES = K.DEFINES = dict(defines)


def run(sets, r, k, cfg, i):
    x, w, vw = sets[i % len(sets)]
    if BETWEEN:
        x.mul_(1.0)
    if PATH == "dense":  # cuBLAS on the masked dense weight
        return torch.nn.functional.linear(x, w)
    if PATH == "auto":
        return vs.spmm(x, vw)
    if PATH == "wgmma_sp":
        layout = K.layout_of(vw) if TILE is not None and not TILE.a_regs else W.layout_of(vw)
        return W.spmm_sm90a(x, *layout, None, r, k, cfg.v, cfg.m, tile=TILE, splits=SPLITS)
    tile = K.ws_tile(cfg.v, cfg.m) if PATH == "mma_sp_ws" else TILE  # (TILE: one of K.TILES, by name)
    return K.spmm_sm80(x, *K.layout_of(vw), None, r, k, cfg.v, cfg.m, tile=tile, splits=SPLITS)


def decode_call(sets, r, k, cfg):
    """Call i of the one-launch decode kernel on the rotating (x, weight) sets of case()."""
    return lambda i: K.spmm_sm90_decode(sets[i % len(sets)][0], *K.layout_of(sets[i % len(sets)][2], True), None, r, k, cfg.v, cfg.m)


def set_switch(mod, name, value):
    """A module attribute from its text: an int or float where the attribute is one, else a 0/1 flag."""
    current = getattr(mod, name)
    kind = type(current) if type(current) in (int, float) else None
    setattr(mod, name, kind(value) if kind else value == "1")


def overrides(value, owner):
    """A knob value's "+NAME=v" overrides (wg128x256s5t1pc2+CLUSTER_WAVE_BY_DRIVER=0+VNM_WG_SKIP_B=1): those that are host
    switches of owner(NAME) are set now; returns the value before them, the others (macros), and a function
    that puts the switches back."""
    value, *extra = value.split("+")
    macros = dict(e.split("=") for e in extra)
    saved = []
    for name in [n for n in macros if hasattr(owner(n), n)]:
        saved.append((owner(name), name, getattr(owner(name), name)))
        set_switch(owner(name), name, macros.pop(name))
    return value, macros, lambda: [setattr(mod, name, original) for mod, name, original in saved]


def capture(fn, n=12):  # n: calls per graph (at least one per rotating set)
    for i in range(max(3, n)):  # every set's kernel layouts are built outside the capture
        fn(i)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(n):
            fn(i)
    graph.replay()
    return graph


def time_us(fn, n=12, reps=20):
    """Median us per call of fn(0), fn(1), ... captured n to a graph (one value alone)."""
    return time_in_turns([capture(fn, n)], n, reps)[0]


def time_in_turns(graphs, n, reps=20):
    """Median us per call of each graph, replayed in turns (one replay of each, reps times) so that
    every value sees the same clocks: one value's replays after another's drifted ~10% (v215)."""
    times = [[] for _ in graphs]
    for _ in range(reps):
        for graph, out in zip(graphs, times):
            if graph is None:
                continue
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            graph.replay()
            b.record()
            b.synchronize()
            out.append(a.elapsed_time(b) * 1e3 / n)
    return [statistics.median(t) if t else None for t in times]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("knob", help="MACRO=v1,v2,...")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help="RxKxT:V:2:M, comma-separated")
    ap.add_argument("--define", action="append", default=[], help="MACRO=v held fixed in every run")
    ap.add_argument("--path", default="wgmma_sp", choices=("wgmma_sp", "mma_sp", "mma_sp_ws", "auto", "dense"))
    ap.add_argument("--between", type=int, default=0, help="1: a torch kernel rewrites x before each call")
    ap.add_argument("--xt", type=int, default=0, help="1: X stored feature-major (no transpose); P > 1: rows P-token aligned")
    args = ap.parse_args()
    global PATH, TILE, SPLITS, BETWEEN
    PATH, BETWEEN = args.path, bool(args.between)
    kernel_mod = W if PATH == "wgmma_sp" else K
    # whose host-side switch it is (jit's, then either kernel module's; else a macro of kernel_mod's)
    owner = lambda name: next((mod for mod in (jit, kernel_mod, W, K) if hasattr(mod, name)), kernel_mod)
    macro, values = args.knob.split("=", 1)
    mod = owner(macro)
    gen = torch.Generator(device="cuda").manual_seed(0)
    cases = [(s, *case(s, gen)) for s in args.shapes.split(",")]
    if args.xt:
        def feature_major(x):
            pitch = -(-x.shape[0] // args.xt) * args.xt
            return x.new_zeros(x.shape[1], pitch)[:, :x.shape[0]].copy_(x.t()).t()
        cases = [(s, r, k, t, cfg, [(feature_major(x), w, vw) for x, w, vw in sets]) for s, r, k, t, cfg, sets in cases]
    print(f"{'shape':32s} " + " ".join(f"{macro}={v:>4s}" for v in values.split(",")))
    rows = {s: [] for s, *_ in cases}
    fixed = dict(d.split("=") for d in args.define)
    TILE = parse_tile(fixed.pop("TILE")) if "TILE" in fixed else None
    for name in [n for n in fixed if hasattr(owner(n), n)]:  # host-side switches held fixed
        set_switch(owner(name), name, fixed.pop(name))
    restore = lambda: None  # the previous value's overrides, undone before the next one's

    def apply(value):  # the knob's value for the calls captured next
        global PATH, TILE, SPLITS
        nonlocal restore
        restore()
        value, macros, restore = overrides(value, owner)
        fixed_now = {**fixed, **macros}
        if macro == "PATH":
            PATH = value
        elif macro == "SPLITS":
            SPLITS = int(value) or None
        elif macro == "TILE":
            TILE = parse_tile(value)
        elif hasattr(mod, macro):  # a host-side switch of the module (TMA_X_BY_DEFAULT=0,1; RASTER_ROWS=0,12)
            set_switch(mod, macro, value)
        else:
            fixed_now[macro] = value
        set_defines(fixed_now)

    # Per shape, every value's graph first, then all timed in turns (the knob only matters at capture).
    for spec, r, k, t, cfg, sets in cases:
        x, w, _ = sets[0]
        ref = x.float() @ w.float().t()
        n = max(12, len(sets))
        graphs, notes = [], []
        for value in values.split(","):
            apply(value)
            graph, note = None, ""
            if PATH == "wgmma_sp" and TILE is not None and TILE.a_regs and not TILE.fits_frag_image(r):
                note = "n/a"  # a cluster's padded row tiles past the image
            else:
                try:
                    err = ((run(sets, r, k, cfg, 0).float() - ref).norm() / ref.norm()).item()
                    graph = capture(lambda i: run(sets, r, k, cfg, i), n)
                    note = "" if err < 1e-2 else f" ERR {err:.1e}"
                except Exception as e:  # (one failing variant leaves the others' columns)
                    print(f"{spec} {macro}={value}: {type(e).__name__}: {e}")
                    note = "fail"
            graphs.append(graph)
            notes.append(note)
        for us, note in zip(time_in_turns(graphs, n), notes):
            rows[spec].append(f"{note:>11s}" if us is None else f"{us:8.1f} us" + note)
        del graphs
        torch.cuda.empty_cache()
    for spec, cells in rows.items():
        print(f"{spec:32s} " + " ".join(cells))


if __name__ == "__main__":
    main()
