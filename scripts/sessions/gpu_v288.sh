#!/usr/bin/env bash
# v288: (a) DECODE_OVER_NARROW (v287's rule: the decode kernel keeps T x m <= 32 on 64-row tiles, <= 64 on 128-row
# ones below 25 MB) against the rule before it (`auto_before`), same turns, LLaMA-7B/13B/70B shapes at T = 1-8.
# Prediction: as v287's A/B, i.e. auto_before / auto ~1.05-1.2 on the cells that change (7B gate/up / down 64:2:8
# T = 2-4, 128:2:8 T = 2-8, 13B / 70B 64:2:8 T = 1-4, 64:2:16 T = 1-2), 1.00 elsewhere.
# (b) the decode kernel at T = 12-16 on weights of more than 1024 rows (value 16+NARROW_GATHERED=0), where the narrow
# tile runs now. Prediction: 4096^2 64:2:8 / 64:2:16 T = 16 even or -10%; 128-row tiles and LLaMA gate/up / down slower.
# (c) the decode GPU tests (the rule sends more calls to the decode kernel).
#   OUT=$OUT bash scripts/sessions/gpu_v288.sh      (~300 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 100 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "decode or route" \
  > "$OUT/tests_decode_v288.txt" 2>&1; tail -1 "$OUT/tests_decode_v288.txt"
timeout 280 python scripts/bench_ab.py --path "auto_before:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (0, None), 128: (0, None)}" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32 \
  --shapes llama7b.gate_up,llama7b.down,llama13b,llama70b.qo,llama70b.gate_up,llama70b.down \
  --paths auto,auto_before --tag ${CARD}_v288_rule > "$OUT/log_v288.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v288_rule.csv" auto,auto_before | grep -v "^skip"
S=""
for p in 64:2:8 64:2:16 128:2:8 128:2:16 128:2:32; do S=$S,4096x4096x16:$p,4096x4096x12:$p; done
for p in 64:2:8 64:2:16; do S=$S,11008x4096x16:$p,4096x11008x16:$p,5120x5120x16:$p,2048x8192x16:$p; done
timeout 150 python scripts/ab_decode.py DECODE_DEFAULT_MAX_TOKENS=8,16+NARROW_GATHERED=0,8,16+NARROW_GATHERED=0 \
  --shapes ${S#,} 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_t16_v288.txt" | cut -c1-84
echo "total ${SECONDS}s"
