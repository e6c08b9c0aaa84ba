#!/usr/bin/env bash
# v304: V = 64 weights on 128-row decode CTAs (two V-row blocks each, spmm_wgmma_sp.DECODE_TWO_BLOCKS) where the
# 64-row decode tile would leave the call to the narrow wgmma.sp tile. The decode suites (with the new
# test_decode_kernel_two_v_blocks_a_cta), memcheck of the representative launches (two-block cases added), then
# `auto` against `off` (the switch False) on the LLaMA shapes whose cells the rule changes (T = 3-8).
# Predicted (v299's 64:2:M against 128:2:M, H100): the changed cells take about the 128:2:M time: LLaMA-13B q/k/v/o
# 64:2:8 T = 8 11.1 -> ~9.2 us, 70B q/o 64:2:16 T = 4 11.8 -> ~9.1, 7B down / gate/up 64:2:16 T = 4 -10..-20%;
# every other cell even.
#   OUT=$OUT bash scripts/sessions/gpu_v304.sh      (~420 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 200 200 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_autotune.py -k "decode or just_written or tile_choice"
mv "$OUT/gpu_tests.txt" "$OUT/tests_decode_${CARD}_v304.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v304.txt"
timeout 240 python scripts/bench_ab.py --path "off:spmm_wgmma_sp.DECODE_TWO_BLOCKS=False" \
  -- bench spmm --out "$OUT" --no-plot --tokens 3,4,5,8 --patterns 64:2:8,64:2:16,128:2:8,128:2:16 \
  --shapes llama7b,llama13b,llama70b.qo --paths wgmma_sp,auto,off --tag ${CARD}_v304_twoblocks > "$OUT/log_v304.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python - "$OUT/spmm_${CARD}_v304_twoblocks.csv" <<'PY'
import csv, sys, math
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["status"] == "ok"]
t = {(r["shape"], r["T"], r["pattern"], r["path"]): float(r["t_us"]) for r in rows}
ratios = []
for (s, T, p, path), us in sorted(t.items()):
    if path == "auto" and (s, T, p, "off") in t:
        q = t[(s, T, p, "off")] / us
        ratios.append(q)
        if abs(q - 1) > 0.02 or p.startswith("64"):
            print(f"{s:16s} T={T:2s} {p:9s} off {t[(s, T, p, 'off')]:7.2f} auto {us:7.2f} x{q:.3f}")
print("geomean off/auto", round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 4), len(ratios))
PY
echo "total ${SECONDS}s"
