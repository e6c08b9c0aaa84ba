"""SM clock and power while one prefill variant runs alone for a few seconds (GPU):
python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_SKIP_B=1 dense cslt
Each variant is captured as a graph of back-to-back calls, replayed for SECONDS while nvidia-smi samples the SM
clock and the power draw: a tile (with ab_wgmma's +NAME=v overrides), auto (vnmsparse.spmm), dense (cuBLAS on the
masked weight) or cslt (cuSPARSELt's own choice of algorithm); @xt after the name: X stored feature-major, as
`bench spmm --paths auto_xt` (auto@xt+VNM_WG_SKIP_B=1); transpose: the op's X^T copy alone; serial / overlap: that copy of the next call's X
before / beside (a second stream) `auto` on a feature-major X. Prints us per call, median
clock, power, cycles per call at that clock (whether a variant's gain in cycles is lost to a lower clock: power) and
us x W, its energy a call."""
import sys

import torch

from vnmsparse import bench
import vnmsparse as vs
from vnmsparse.kernels import spmm_mma_sp
from vnmsparse.kernels import spmm_wgmma_sp as W

sys.path.insert(0, "scripts")
from ab_wgmma import capture, case, overrides, parse_tile, run, set_defines  # noqa: E402
import ab_wgmma  # noqa: E402

SECONDS = 3.0


def sustained(replay, seconds=SECONDS):
    """(ms a replay, median SM MHz, median W) of replay() run back to back for `seconds` (bench.sustained, the
    bench's --sustain) while nvidia-smi samples."""
    monitor = bench.SmClockMonitor(bench.smi_id(torch.device("cuda", torch.cuda.current_device())))
    try:
        s, mhz, watts = bench.sustained(replay, seconds, torch.cuda.synchronize, monitor)
    finally:
        monitor.close()
    return s * 1e3, mhz, watts


def transpose(sets, i):
    x, _, vw = sets[i % len(sets)]
    return spmm_mma_sp.feature_major(x, W.layout_of(vw)[2])


def main():
    gen = torch.Generator(device="cuda").manual_seed(0)
    r, k, t, cfg, sets = case(sys.argv[1], gen)
    print(f"{sys.argv[1]}: variant, us a call, SM MHz (median under load), W, Mcycles a call")
    feature_major = [(x.t().contiguous().t(), w, vw) for x, w, vw in sets]
    for spec in sys.argv[2:]:
        xs = feature_major if "@xt" in spec else sets
        defines = W.DEFINES
        tile, macros, restore = overrides(spec.replace("@xt", ""), lambda name: W)
        set_defines({**defines, **macros})
        n = max(12, len(sets))
        if tile == "transpose":  # the op's X^T copy alone (what `auto` on a row-major X adds to `auto@xt`)
            graph = capture(lambda i: transpose(sets, i), n)
        elif tile in ("serial", "overlap"):  # that copy of call i + 1's X, then (serial) or beside (overlap, a second
            # stream) `auto` on call i's X stored feature-major: whether a pipeline could hide the copy
            side = torch.cuda.Stream()

            def pair(i):
                if tile == "serial":
                    transpose(sets, i + 1)
                    return vs.spmm(feature_major[i % len(sets)][0], sets[i % len(sets)][2])
                side.wait_stream(torch.cuda.current_stream())  # fork (a capture joins only streams it forked)
                with torch.cuda.stream(side):
                    transpose(sets, i + 1)
                y = vs.spmm(feature_major[i % len(sets)][0], sets[i % len(sets)][2])
                torch.cuda.current_stream().wait_stream(side)
                return y
            graph = capture(pair, n)
        elif tile == "cslt":
            wcs = [torch._cslt_compress(w) for _, w, _ in xs]
            alg = bench.cslt_search(wcs[0], xs[0][0].t()) or (0, 1, None)
            graph = capture(lambda i: bench._cslt_mm(wcs[i % len(xs)], xs[i % len(xs)][0].t(), alg), n)
        else:
            ab_wgmma.PATH = tile if tile in ("dense", "auto") else "wgmma_sp"
            ab_wgmma.TILE = None if tile in ("dense", "auto") else parse_tile(tile)
            graph = capture(lambda i: run(xs, r, k, cfg, i), n)
        torch.cuda.synchronize()
        ms, mhz, watts = sustained(graph.replay)
        us = ms * 1e3 / n
        print(f"{spec:52s} {us:8.1f} us {mhz:6.0f} MHz {watts:6.0f} W {us * mhz / 1e6:7.3f} Mcycles {us * watts / 1e3:7.1f} mJ")
        restore()
        set_defines(defines)
        del graph
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
