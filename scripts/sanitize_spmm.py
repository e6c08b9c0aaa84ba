"""A few representative SpMM launches for compute-sanitizer (memcheck / racecheck / synccheck).

Run: compute-sanitizer --tool memcheck python scripts/sanitize_spmm.py [--tiles p,c2,c4 | --split-only |
--cp-async-only | --persistent-only] [--cluster-splits] [--gather-rows]
(--tiles: only the wgmma.sp tiles whose names end with one of these suffixes, so that racecheck's
100 displayed hazards are theirs; --split-only: only the wgmma.sp decode tiles with K splits.)
"""
import argparse

import torch

import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp as K
from vnmsparse.kernels import spmm_wgmma_sp as W

CASES = [  # (R, K, T, pattern, dtype, bias, splits)
    (200, 1003, 7, "64:2:8", torch.bfloat16, True, None),
    (130, 520, 100, "2:4", torch.float16, False, None),
    (333, 1000, 300, "2:4", torch.bfloat16, True, None),  # wgmma, X by TMA: 3 row tiles
    (515, 2053, 9, "64:2:8", torch.float16, True, 3),
    (260, 4100, 300, "128:2:32", torch.bfloat16, True, None),
    (48, 333, 1, "16:2:5", torch.bfloat16, False, None),
    (300, 1000, 260, "128:2:10", torch.bfloat16, True, None),
    (130, 4000, 5, "64:2:8", torch.float16, True, 3),
    (701, 999, 33, "64:2:8", torch.bfloat16, True, None),  # decode: 32-token tile, R % 4 != 0
    (1000, 2048, 64, "64:2:16", torch.float16, False, None),  # decode: 64-token tile, clustered splits
    (300, 8200, 3, "2:4", torch.bfloat16, True, None),  # decode: each CTA's steps pass through the A ring
    (256, 16400, 2, "128:2:8", torch.float16, False, None),  # decode ring, 128-row tiles
    (1000, 4104, 40, "2:4", torch.bfloat16, True, None),  # staged 64-token tile (v59), K splits
    (1000, 4104, 16, "2:4", torch.float16, True, None),  # staged 16-token tile (v62), K splits
    (701, 2056, 29, "2:4", torch.bfloat16, False, None),  # staged 32-token tile, ragged R and T
    (11000, 1032, 24, "2:4", torch.bfloat16, True, None),  # 86 row tiles: the 64-row staged tile (v72)
    (1030, 4100, 20, "128:2:8", torch.bfloat16, True, 2),  # grouped copies (v100): 17 steps a split, a partial group
    (300, 4100, 50, "64:2:8", torch.float16, False, 1),  # ... the 64-row grouped tile, ragged R
    (1100, 2056, 13, "128:2:8", torch.float16, False, None),  # gathered 16-token tile (v114), K splits, ragged T
    (2000, 1000, 5, "64:2:16", torch.bfloat16, True, 3),  # ... the 64-row one, ragged R and K
    (4000, 1000, 250, "2:4", torch.bfloat16, True, None),  # mid T: the 128 x 128 prefill tile, 2 K splits (v132)
    (1100, 2048, 24, "128:2:16", torch.bfloat16, True, 3),  # gathered 32-token tile, 3 K splits, ragged R
    (200, 1003, 77, "16:2:64", torch.bfloat16, True, None),  # the union layout (v271), ragged R, K and T
    (1000, 4096, 300, "32:2:32", torch.float16, False, 3),  # ... K splits
    (333, 1000, 1000, "32:2:128", torch.bfloat16, True, None),  # ... persistent tiles
    (130, 520, 20, "16:2:32", torch.bfloat16, False, 2),  # ... a narrow tile
    (520, 1024, 7, "64:2:10", torch.bfloat16, True, 2),  # --gather-rows: the 16-column window, K splits
]

ap = argparse.ArgumentParser()
ap.add_argument("--tiles", default="", help="comma-separated tile-name suffixes: run only those tiles")
ap.add_argument("--split-only", action="store_true",
                help="only the wgmma.sp decode tiles with K splits, 3 where a case has none")
ap.add_argument("--cp-async-only", action="store_true", help="only the cp.async mma.sp kernels (spmm_sm80, its ws tiles)")
ap.add_argument("--cluster-splits", action="store_true",
                help="the cp.async kernel's K splits as thread-block clusters (spmm_mma_sp.CLUSTER_SPLITS, sm_90)")
ap.add_argument("--gather-rows", action="store_true",
                help="the cp.async kernel's gather from X's rows (spmm_mma_sp.GATHER_ROWS) past its routed regime: "
                     "T <= 64 and split calls too")
ap.add_argument("--persistent-only", action="store_true",
                help="only the warp-specialised persistent form (its staging tile reused tile after tile)")
ARGS = ap.parse_args()
K.CLUSTER_SPLITS = K.CLUSTER_SPLITS or ARGS.cluster_splits
if ARGS.gather_rows:
    K.GATHER_ROWS, K.GATHER_ROWS_MAX_TOKENS, K.GATHER_ROWS_MAX_STEPS = True, 64, 1 << 20
    K.GATHER_TILE_TOKENS = (16, 32, 64)
ONLY = tuple(filter(None, ARGS.tiles.split(",")))
gen = torch.Generator().manual_seed(0)
worst = 0.0


def check(y, what):  # y of the case the loop below is on
    global worst
    err = ((y.float() - ref).norm() / ref.norm()).item()
    worst = max(worst, err)
    print(f"{pattern:9s} R={r} K={k} T={t} {what}: rel err {err:.2e}")


for r, k, t, pattern, dtype, bias, splits in CASES:
    cfg = vs.VNMConfig.parse(pattern)
    w = (torch.randn(r, k, generator=gen) * vs.random_vnm_mask((r, k), cfg, generator=gen)).to(dtype).cuda()
    vw = vs.pack(w, cfg)
    x = torch.randn(t, k, generator=gen).to(dtype).cuda()
    b = torch.randn(r, generator=gen).to(dtype).cuda() if bias else None
    ref = x.float() @ w.float().t() + (b.float() if bias else 0)
    if ARGS.split_only:
        if t <= 64 and W.supported(torch.device("cuda"))[0] and W.row_tile(cfg.v, cfg.m):
            check(W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m, splits=splits or 3), f"wgmma splits={splits or 3}")
        continue
    # the cp.async kernel's 128-row prefill tile (v352: 128 x 128, 64 x 64 warp tiles), which these small calls' wave
    # rule never picks (their grids fit one wave: the narrow tile)
    wide = K.TILE_TABLE[False][(128, "prefill")]
    wide = wide if t > 64 and (cfg.m == 4 or cfg.v % wide.bm == 0) and K.union_shift(cfg.v, cfg.m) is None else None
    if wide is not None and not ARGS.persistent_only and (ARGS.cp_async_only or not ONLY):
        check(K.spmm_sm80(x, *K.layout_of(vw), b, r, k, cfg.v, cfg.m, tile=wide, splits=splits), f"cp.async {wide}")
    ws = K.ws_tile(cfg.v, cfg.m)  # the warp-specialised cp.async kernel, and its setmaxnreg forms on sm_90a (v363)
    forms = [ws, *K.ws_forms(ws).values()] if ws is not None and torch.cuda.get_device_capability() == (9, 0) else [ws]
    for ws in forms if t > 64 and ws is not None and not ONLY else ():
        if (ws.persistent and cfg.m == 4) or (ARGS.persistent_only and not ws.persistent):  # (gathered weights only)
            continue
        if ws.smem_bytes <= torch.cuda.get_device_properties(0).shared_memory_per_block_optin:
            sms = K._sms  # the persistent form on a grid of 2 CTAs: each strides over several tiles
            K._sms = (lambda index: 2) if ws.persistent else sms
            check(K.spmm_sm80(x, *K.layout_of(vw), b, r, k, cfg.v, cfg.m, tile=ws), f"warp-specialised mma.sp {ws}")
            K._sms = sms
    if ARGS.persistent_only:
        continue
    if ARGS.cp_async_only:
        check(K.spmm_sm80(x, *K.layout_of(vw), b, r, k, cfg.v, cfg.m, splits=splits), f"splits={splits} cp.async")
        continue
    if K.union_shift(cfg.v, cfg.m) is not None and not ONLY:  # the union layout on both kernels (v271)
        check(K.spmm_sm80_union(x, *K.union_layout_of(vw), b, r, k, cfg.v, cfg.m, splits=splits), f"splits={splits} union")
        if W.supported(torch.device("cuda"))[0]:
            check(W.spmm_sm90a_union(x, *W.layout_union(vw), b, r, k, cfg.v, cfg.m, splits=splits),
                  f"splits={splits} wgmma union")
    for bulk in (False, True) if K.supported(torch.device("cuda"), bulk=True)[0] and not ONLY else ():
        launch = K.spmm_sm90 if bulk else K.spmm_sm80
        check(launch(x, *K.layout_of(vw, bulk), b, r, k, cfg.v, cfg.m, splits=splits), f"splits={splits} bulk={bulk}")
    if t <= K.DECODE_MAX_TOKENS and not ONLY and torch.cuda.get_device_capability()[0] >= 9:  # the one-launch decode kernel
        check(K.spmm_sm90_decode(x, *K.layout_of(vw, True), b, r, k, cfg.v, cfg.m), "decode kernel")
    if W.supported(torch.device("cuda"))[0] and W.row_tile(cfg.v, cfg.m):
        if not ONLY and K.decode_preferred(x.device, t, r, k, cfg.v, cfg.m, dtype, image=True):
            check(W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m), "decode kernel, fragment image")
        two = (K.decode_plan(x.device, t, r, K.layout_steps(k, cfg.m), cfg.v, cfg.m, dtype, True, 128)
               if cfg.v == 64 and cfg.m > 4 and not ONLY else None)
        if two is not None:  # two V = 64 blocks a 128-row decode CTA (v304), ragged R: a block partial or past R
            y = torch.full((t, r), float("nan"), dtype=dtype, device="cuda")
            K.spmm_decode(x, *W.layout_of(vw), b, y, r, k, cfg.v, cfg.m, two, image=True)
            check(y, f"decode kernel, two V-row blocks a CTA, {two}")
        for tma in () if ONLY else (False, True) if W.x_direct(x, cfg.m > 4) else (False,):
            check(W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m, splits=splits, tma_x=tma),
                  f"splits={splits} wgmma tma_x={tma}")
        if not ONLY and t > 1 and (cfg.m == 4 or splits):  # X^T by TMA (2:4 on a feature-major x), Y^T from the reduction
            xf = torch.full((k, -(-t // 8) * 8), float("nan"), dtype=dtype, device="cuda")
            xf[:, :t] = x.t()
            yt = torch.full((r, t), float("nan"), dtype=dtype, device="cuda").t()
            check(W.spmm_sm90a(xf[:, :t].t(), *W.layout_of(vw), b, r, k, cfg.v, cfg.m, splits=splits, out=yt),
                  f"splits={splits} wgmma feature-major x and out")
        # the 256 x 128 tiles (two m64 blocks per consumer) and v22's staged fragment image
        extra = [t2 for t2 in W.TILES + W.STAGED_TILES + W.PERSISTENT_TILES + W.CLUSTER_TILES
                 if t2.bn >= 128 and (cfg.m == 4 or cfg.v % t2.bm == 0)
                 and t2.fits_frag_image(r) and str(t2).endswith(ONLY or str(t2))]
        sms, W._sms = W._sms, (lambda index: 2)  # persistent tiles: a 2-SM grid, many tiles per CTA
        for tile in extra if splits is None and t > 64 else ():
            tma = cfg.m == 4 and W.x_direct(x, False)
            if (tile.mb == 2 or tile.cluster > 1) and (cfg.m != 4 or ((tile.staged or tile.cluster > 1) and not tma)):
                continue
            check(W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m, tile=tile, tma_x=tma), f"wgmma {tile}")
            if tile.cluster == 1 or tile is W.CLUSTER_2_4_TILE:  # Y^T into a feature-major out (v137)
                yt = torch.full((r, t), float("nan"), dtype=dtype, device="cuda").t()
                check(W.spmm_sm90a(x, *W.layout_of(vw), b, r, k, cfg.v, cfg.m, tile=tile, tma_x=tma, out=yt),
                      f"wgmma {tile} Y^T")
        W._sms = sms
torch.cuda.synchronize()
print(f"worst rel err {worst:.2e}", "OK" if worst < 1e-2 else "FAILED")
